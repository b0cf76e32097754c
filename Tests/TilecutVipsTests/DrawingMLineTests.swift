import Foundation
import Testing

@Suite(
  "DXF MLINEs against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingMLineTests {
  /// Walls drawn as MLINEs, as architectural drawings hold them: a closed room and an
  /// open run in a style with a fill, miters, square caps and three coloured elements,
  /// one in a style of round caps, one of four elements with round and inner arc caps,
  /// and one in the STANDARD style. GDAL 3.6 draws only the elements' lines, all in the
  /// MLINE's colour; ezdxf draws the style's fill first, then the caps, each element in
  /// its own colour, and the miters (seen 0.504 recall before).
  @Test("MLINEs are drawn with their style's fill, caps, miters and colours, as ezdxf draws them")
  func walls() throws {
    let result = try compareOnSheet(
      "mlines", height: 3000,
      body: """
        walls = doc.mline_styles.new("WALLS")
        walls.dxf.flags = walls.FILL | walls.MITER | walls.START_SQUARE | walls.END_SQUARE
        walls.dxf.fill_color = 8
        for offset, colour in ((0.5, 1), (0.0, 3), (-0.5, 5)):
            walls.elements.append(offset, colour)
        rounded = doc.mline_styles.new("ROUNDED")
        rounded.dxf.flags = rounded.START_ROUND | rounded.END_ROUND
        rounded.elements.append(0.5, 256)
        rounded.elements.append(-0.5, 256)
        arcs = doc.mline_styles.new("ARCS")
        arcs.dxf.flags = arcs.START_ROUND | arcs.END_ROUND | arcs.START_INNER_ARC | arcs.END_INNER_ARC
        for offset, colour in ((0.5, 1), (0.25, 2), (-0.25, 2), (-0.5, 1)):
            arcs.elements.append(offset, colour)
        msp.add_mline([(300, 300), (2500, 300), (2500, 2500), (300, 2500)], close=True,
                      dxfattribs={"style_name": "WALLS", "scale_factor": 200})
        msp.add_mline([(3200, 300), (5600, 300), (5600, 1500), (4000, 2200)],
                      dxfattribs={"style_name": "WALLS", "scale_factor": 150, "justification": 0})
        msp.add_mline([(3200, 2700), (5600, 2700)], dxfattribs={"style_name": "ROUNDED", "scale_factor": 200, "color": 1})
        msp.add_mline([(3600, 1000), (4800, 1000)], dxfattribs={"style_name": "ARCS", "scale_factor": 300})
        msp.add_mline([(700, 700), (2000, 700), (2000, 2000)], dxfattribs={"scale_factor": 100})
        """)
    result.expectAsEzdxf("MLINE walls", least: 0.95)
  }

  /// A style whose elements share an offset: the elements were ranked by how many
  /// offsets lie below each, so two equal offsets took one slot and left another unset,
  /// which the miters then read as an element's index (found in review). ezdxf draws
  /// the two as one line at that offset, in the first one's colour.
  @Test("an MLINE style with elements at the same offset is drawn as ezdxf draws it")
  func equalOffsets() throws {
    let result = try compareOnSheet(
      "mline-equal-offsets", height: 3000,
      body: """
        twin = doc.mline_styles.new("TWIN")
        twin.dxf.flags = twin.FILL | twin.START_SQUARE | twin.END_SQUARE
        twin.dxf.fill_color = 8
        for offset, colour in ((0.5, 1), (0.5, 3), (-0.5, 5), (-0.5, 5)):
            twin.elements.append(offset, colour)
        msp.add_mline([(300, 300), (2500, 300), (2500, 2500), (300, 2500)], close=True,
                      dxfattribs={"style_name": "TWIN", "scale_factor": 200})
        msp.add_mline([(3200, 300), (5600, 300), (5600, 1500)], dxfattribs={"style_name": "TWIN", "scale_factor": 150})
        """)
    result.expectAsEzdxf("MLINE with equal offsets", least: 0.95)
  }
}

@Suite(
  "DXF XLINEs and RAYs against ezdxf",
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingConstructionLineTests {
  /// Construction lines, which GDAL 3.6 skips: ezdxf's drawing add-on draws an XLINE as
  /// a line 20 drawing units long centred on its point and a RAY 20 units from its
  /// point (its infinite_line_length); tilecut draws the same, clipped to the extent of
  /// the rest of the drawing, which they never widen (seen 0.704 recall before here,
  /// 0.861 on ezdxf's examples_dxf/uncommon.dxf).
  @Test("XLINEs and RAYs are drawn as ezdxf draws them, within the drawing's extent")
  func constructionLines() throws {
    let result = try compareScripted(
      "xlines", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (60, 0), (60, 30), (0, 30)], close=True)
        msp.add_xline((30, 15), (1, 0), dxfattribs={"color": 1})
        msp.add_xline((20, 10), (1, 1), dxfattribs={"color": 5})
        msp.add_ray((40, 5), (0, 1), dxfattribs={"color": 3})
        msp.add_ray((50, 20), (-1, 0.3))
        # reaching out of the extent: clipped
        msp.add_xline((55, 25), (1, 0.5), dxfattribs={"color": 6})
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("XLINEs and RAYs", least: 0.95)
  }
}
