import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

/// A picture whose four quadrants differ: red, green (top), blue, yellow (bottom).
func quadrantPicture(width: Int, height: Int) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  let colours: [[UInt8]] = [[230, 20, 20], [20, 200, 20], [20, 20, 230], [230, 230, 20]]
  for y in 0..<height {
    for x in 0..<width {
      let c = colours[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)]
      let i = (y * width + x) * 4
      (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = (c[0], c[1], c[2], 255)
    }
  }
  return image
}

/// The stored pixel shown at displayed (x, y) under EXIF `orientation`, for a stored
/// `width` × `height` image, written out from the EXIF specification's table.
func storedPixel(displayed x: Int, _ y: Int, orientation: Int, width w: Int, height h: Int) -> (Int, Int) {
  switch orientation {
  case 2: (w - 1 - x, y)
  case 3: (w - 1 - x, h - 1 - y)
  case 4: (x, h - 1 - y)
  case 5: (y, x)
  case 6: (y, h - 1 - x)
  case 7: (w - 1 - y, h - 1 - x)
  case 8: (w - 1 - y, x)
  default: (x, y)
  }
}

@Suite("EXIF orientation")
struct ExifOrientationTests {
  @Test("a JPEG with EXIF orientation 2-8 is tiled as displayed", arguments: 2...8)
  func tiledAsDisplayed(orientation: Int) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (w, h) = (200, 100)
    let picture = quadrantPicture(width: w, height: h)
    try picture.writeJPEG(to: dir + "/photo.jpg", orientation: orientation)
    let run = try runBinary([dir + "/photo.jpg", "-o", dir + "/out"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("EXIF orientation \(orientation): tiled as displayed"), "\(run.stderr)")
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let deepest = try #require(manifest.levels.filter { $0.tileSize == 256 }.max { $0.zoom < $1.zoom })
    let tile = try #require(deepest.tiles.first { $0.x == 0 && $0.y == 0 })
    let template = try TileNameTemplate(manifest.name)
    let image = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 256, tile: tile))
    // the raster placement puts displayed pixel (x, y) at the first tile's (x, y)
    let (dw, dh) = orientation >= 5 ? (h, w) : (w, h)
    for (x, y) in [(dw / 4, dh / 4), (3 * dw / 4, dh / 4), (dw / 4, 3 * dh / 4), (3 * dw / 4, 3 * dh / 4)] {
      let (sx, sy) = storedPixel(displayed: x, y, orientation: orientation, width: w, height: h)
      let want = picture[sx, sy]
      let got = image[x, y]
      #expect(abs(Int(got.r) - Int(want.r)) < 40 && abs(Int(got.g) - Int(want.g)) < 40 && abs(Int(got.b) - Int(want.b)) < 40)
      #expect(got.a == 255)
    }
    // nothing past the displayed width or height
    #expect(image[min(dw + 8, 255), 4].a == 0)
    #expect(image[4, min(dh + 8, 255)].a == 0)
  }

  @Test("a placed photo's placement line says it was turned; its bounds frame the displayed image")
  func placementLine() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try quadrantPicture(width: 200, height: 100).writeJPEG(to: dir + "/photo.jpg", orientation: 6)
    let run = try runBinary([dir + "/photo.jpg", "--bounds", "48.0,11.0,48.00134,11.001", "-o", dir + "/out"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("placed by bounds (EXIF orientation 6: tiled as displayed, turned 90° clockwise)"), "\(run.stderr)")
    // displayed 100 × 200: a box twice as tall as wide in ground metres raises no aspect warning
    #expect(!run.stderr.contains("warning"), "\(run.stderr)")
  }
}
