import Foundation
import Testing

@Suite(
  "DXF XLINEs and RAYs inside blocks against ezdxf",
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingBlockXLineTests {
  /// XLINEs and RAYs in a block (GDAL 3.6 skips them there too), inserted moved, turned,
  /// scaled, mirrored and through a nested insert: ezdxf places each point and direction
  /// by the inserts, then draws the line its infinite_line_length (20 drawing units) long,
  /// as tilecut does, clipped to the extent of the rest of the drawing.
  @Test("XLINEs and RAYs in inserted blocks are drawn where ezdxf draws them")
  func insertedConstructionLines() throws {
    let result = try compareScripted(
      "block-xlines", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (60, 0), (60, 30), (0, 30)], close=True)
        guides = doc.blocks.new("GUIDES", base_point=(1, 1))
        guides.add_xline((1, 1), (1, 0.4), dxfattribs={"color": 1})
        guides.add_ray((2, 1), (0, 1), dxfattribs={"color": 3})
        guides.add_circle((1, 1), 0.5)
        outer = doc.blocks.new("OUTER")
        outer.add_blockref("GUIDES", (2, 2), dxfattribs={"rotation": 30})
        msp.add_blockref("GUIDES", (10, 8))
        msp.add_blockref("GUIDES", (30, 12), dxfattribs={"rotation": 60, "xscale": 2, "yscale": 2})
        msp.add_blockref("GUIDES", (45, 20), dxfattribs={"xscale": -1, "yscale": 1, "layer": "GUIDES"})
        msp.add_blockref("OUTER", (15, 18), dxfattribs={"rotation": -45, "xscale": 1.5, "yscale": -1.5})
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("XLINEs and RAYs in blocks", least: 0.95)
  }
}
