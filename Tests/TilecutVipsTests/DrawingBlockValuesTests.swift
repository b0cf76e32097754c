import Foundation
import Testing

@Suite(
  "DXF values of entities in blocks, read by tilecut's scan in GDAL's stead",
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingBlockValuesTests {
  /// A block holding a dimension, then an MTEXT 6 units wide: GDAL 3.6 draws a
  /// dimension in a block itself (its own block is not inlined), so the scan must not
  /// number that block's entities among the insert's, or the MTEXT took the width of an
  /// entity of the dimension's block and was drawn on one line.
  @Test("an MTEXT after a dimension in a block wraps at its own width, as ezdxf wraps it")
  func mtextAfterDimensionInBlock() throws {
    let result = try compareScripted(
      "block-dimension-mtext", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010", setup=True)
        msp = doc.modelspace()
        detail = doc.blocks.new("DETAIL")
        detail.add_linear_dim(base=(0, 5), p1=(0, 0), p2=(10, 0)).render()
        detail.add_mtext("Hello world this is a long note that wraps",
                         dxfattribs={"insert": (0, -2), "char_height": 1, "width": 6})
        msp.add_blockref("DETAIL", (0, 0))
        msp.add_lwpolyline([(-2, -12), (14, -12), (14, 8), (-2, 8)], close=True)
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("an MTEXT after a dimension in a block", least: 0.9)
  }
}
