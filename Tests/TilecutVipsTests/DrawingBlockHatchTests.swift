import Foundation
import Testing

@Suite(
  "DXF hatches GDAL cannot read, inside blocks, against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingBlockHatchTests {
  /// A block holding a hatch bounded by a fit-point spline (GDAL 3.6 gives it no
  /// boundary) and one whose edges leave a gap (GDAL gives their lines), inserted moved,
  /// turned, scaled, mirrored and through a nested insert: read from the DXF and placed
  /// by the inserts, each is filled where ezdxf fills it.
  @Test("hatches GDAL cannot read are filled in inserted blocks as ezdxf fills them")
  func insertedHatches() throws {
    let result = try compareOnSheet(
      "block-hatches", height: 3000,
      body: """
        blk = doc.blocks.new("SHAPES")
        h = blk.add_hatch(color=1)
        ep = h.paths.add_edge_path()
        ep.add_spline(fit_points=[(0, 0), (200, 400), (500, 150), (700, 500)])
        ep.add_line((700, 500), (0, 500))
        ep.add_line((0, 500), (0, 0))
        h = blk.add_hatch(color=5)
        ep = h.paths.add_edge_path()
        ep.add_line((900, 0), (1300, 0))
        ep.add_arc((1300, 250), 250, -90, 90)
        ep.add_line((1300, 500), (900, 500))
        ep.add_ellipse((900, 250), (0, 250), 0.4, 90, 270)
        outer = doc.blocks.new("OUTER")
        outer.add_blockref("SHAPES", (100, 100), dxfattribs={"rotation": 20})
        msp.add_blockref("SHAPES", (300, 300))
        msp.add_blockref("SHAPES", (2500, 400), dxfattribs={"rotation": 30, "xscale": 1.5, "yscale": 1.5})
        msp.add_blockref("SHAPES", (5800, 1500), dxfattribs={"xscale": -1.5, "yscale": 1})
        msp.add_blockref("OUTER", (800, 2800), dxfattribs={"rotation": -15, "xscale": 1.2, "yscale": -1.2})
        """)
    result.expectAsEzdxf("hatches in blocks", least: 0.95)
  }
}
