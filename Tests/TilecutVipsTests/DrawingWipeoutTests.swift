import CTilecutDocument
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

@Suite("DXF wipeouts", .enabled(if: dxfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/dxf is absent"))
struct DrawingWipeoutTests {
  /// The door fragment's three wipeouts (drawing units, ezdxf's boundary_path_wcs): one
  /// in model space and two in inserted door blocks, the right-hand door drawn before
  /// the walls (its SORTENTSTABLE order), so its wipeout does not hide them.
  @Test("WIPEOUT masks clear the walls drawn before them, in the drawing's own draw order")
  func doorWipeouts() throws {
    let path = (dxfCorpus ?? "") + "/ezdxf_wipeout_door.dxf"
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 31)
    let frame = try #require(header.drawing)
    var source = SourceDescription(path: path, width: header.width, height: header.height, isVector: true)
    source.drawing = frame
    let image = try RGBAImage.decode(SourceImage.pixels(of: source, format: header.format, sequential: true, scale: 1))
    /// Green (the walls' colour) pixels in the middle third of a wipeout's box.
    func wallPixels(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Int {
      let third = (x1 - x0) / 3
      let columns = Int(((x0 + third - frame.x0) / frame.unitsPerPixel).rounded())...Int(((x1 - third - frame.x0) / frame.unitsPerPixel).rounded())
      let rows = Int(((frame.yTop - y1) / frame.unitsPerPixel).rounded())...Int(((frame.yTop - y0) / frame.unitsPerPixel).rounded())
      var count = 0
      for row in rows {
        for column in columns {
          let i = 4 * (row * image.width + column)
          if image.pixels[i + 3] > 128 && image.pixels[i + 1] > 150 && image.pixels[i] < 100 && image.pixels[i + 2] < 100 { count += 1 }
        }
      }
      return count
    }
    #expect(wallPixels(9767.9, 4647.0, 10812.9, 4777.0) == 0, "the model-space wipeout")
    #expect(wallPixels(9474.4, 6650.0, 10519.4, 6780.0) == 0, "the left door block's wipeout")
    #expect(wallPixels(11565.2, 6647.5, 12610.2, 6777.5) > 100, "the right door, beneath the walls")
  }
}
