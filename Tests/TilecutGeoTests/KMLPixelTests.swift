import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

/// The pixels of a rotated KMZ overlay against a reference computed here: each tile
/// pixel's centre taken back to longitude and latitude, turned back about the box's
/// centre (Google Earth's rotation, in degrees), and sampled bilinearly in the picture.
@Suite("KML overlay pixels")
struct KMLPixelTests {
  @Test("a LatLonBox turned 30° in a KMZ matches the reference pixel by pixel")
  func rotatedPixels() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (w, h) = (256, 192)
    try writeOverlayPicture(dir + "/plan.png", width: w, height: h)
    let rgb = geoPicture(width: w, height: h)
    let (north, south, east, west, rotation) = (48.137, 48.135, 11.577, 11.574, 30.0)
    let box =
      "<LatLonBox><north>\(north)</north><south>\(south)</south><east>\(east)</east><west>\(west)</west><rotation>\(rotation)</rotation></LatLonBox>"
    try overlayKML(href: "img/plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try writeZip(dir + "/plan.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/plan.png")])
    // zoom 20: level pixels (0.1 m) finer than the source's (about 0.9 m), so the resampler interpolates
    #expect(try runTilecut([dir + "/plan.kmz", "--tile-size", "256", "--min-zoom", "20", "--max-zoom", "20", "-o", dir + "/out"]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let level = try #require(manifest.levels.first { $0.tileSize == 256 && $0.zoom == 20 })
    let template = try TileNameTemplate(manifest.name)
    let (cx, cy) = ((east + west) / 2, (north + south) / 2)
    let (c, s) = (cos(-rotation * .pi / 180), sin(-rotation * .pi / 180))
    /// The picture's continuous pixel position under a longitude and latitude.
    func source(lon: Double, lat: Double) -> (Double, Double) {
      let (x, y) = (cx + (lon - cx) * c - (lat - cy) * s, cy + (lon - cx) * s + (lat - cy) * c)
      return ((x - west) / (east - west) * Double(w), (north - y) / (north - south) * Double(h))
    }
    var (compared, worst, total, coveredOutside) = (0, 0.0, 0.0, 0)
    let world = WebMercator.worldPixels(zoom: 20)
    // every fourth pixel of every tile: enough to see a pixel's misplacement
    for tile in level.tiles {
      let image = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 256, tile: tile))
      for y in stride(from: 0, to: 256, by: 4) {
        for x in stride(from: 0, to: 256, by: 4) {
          let lon = WebMercator.longitudeDegrees(u: (Double(tile.x * 256 + x) + 0.5) / world)
          let lat = WebMercator.latitudeDegrees(v: (Double(tile.y * 256 + y) + 0.5) / world)
          let (px, py) = source(lon: lon, lat: lat)
          let got = image[x, y]
          if px < -0.5 || py < -0.5 || px > Double(w) + 0.5 || py > Double(h) + 0.5 {
            if got.a > 0 { coveredOutside += 1 }
            continue
          }
          guard px > 1.5, py > 1.5, px < Double(w) - 1.5, py < Double(h) - 1.5 else { continue }
          let (fx, fy) = (px - 0.5, py - 0.5)
          let (x0, y0) = (Int(fx.rounded(.down)), Int(fy.rounded(.down)))
          let (ax, ay) = (fx - Double(x0), fy - Double(y0))
          #expect(got.a == 255)
          for k in 0..<3 {
            var want = 0.0
            for (dx, dy, weight) in [(0, 0, (1 - ax) * (1 - ay)), (1, 0, ax * (1 - ay)), (0, 1, (1 - ax) * ay), (1, 1, ax * ay)] {
              want += weight * Double(rgb[((y0 + dy) * w + x0 + dx) * 3 + k])
            }
            let d = abs(Double([got.r, got.g, got.b][k]) - want)
            (worst, total) = (max(worst, d), total + d)
          }
          compared += 1
        }
      }
    }
    #expect(compared > w * h / 4, "only \(compared) pixels compared")
    #expect(worst <= 3, "worst \(worst)")
    #expect(total / Double(3 * max(compared, 1)) < 0.3, "mean \(total / Double(3 * max(compared, 1)))")
    #expect(coveredOutside == 0, "\(coveredOutside) pixels outside the overlay are not transparent")
  }
}
