import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

@Suite("georeferenced tiling")
struct GeoCommandTests {
  // mercantile.bounds(130978, 87176, 18): S, W, N, E
  let tileBounds = "51.501049241560175,-0.12908935546875,51.50190410761812,-0.127716064453125"

  @Test("an image whose bounds are exactly one z18 tile becomes exactly that tile, pixel for pixel")
  func tileAlignedImage() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = picture(width: 256, height: 256, seed: 3)
    try source.writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "--bounds", tileBounds, "--tile-size", "256", "-o", dir + "/out"]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    #expect(manifest.levels.map(\.zoom) == [18])
    #expect(manifest.levels[0].tiles == [TileCoordinate(zoom: 18, x: 130978, y: 87176)])
    let tile = try RGBAImage.decode(file: dir + "/out/256/L1_18_130978_87176.png")
    #expect(tile == source)
  }

  @Test("a rotated plan leaves transparent corners and writes no tile wholly outside it")
  func rotatedFootprint() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 120, seed: 1).writePNG(to: dir + "/long.png")
    #expect(
      try tilecut([
        dir + "/long.png", "--center", "51.5013,-0.1280", "--meters-per-pixel", "0.5", "--rotation", "45", "--tile-size", "256",
        "--max-zoom", "19", "-o", dir + "/out",
      ]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let deepest = try #require(manifest.levels.max { $0.zoom < $1.zoom })
    let cells = deepest.xRange[1] - deepest.xRange[0] + 1
    let rows = deepest.yRange[1] - deepest.yRange[0] + 1
    // a diagonal strip touches far fewer cells than its bounding box
    #expect(deepest.tileCount < cells * rows)
    let template = try TileNameTemplate(manifest.name)
    var sawTransparent = false
    for t in deepest.tiles {
      let image = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 256, tile: t))
      #expect(stride(from: 3, to: image.pixels.count, by: 4).contains { image.pixels[$0] > 0 })
      if image[0, 0].a == 0 || image[255, 255].a == 0 { sawTransparent = true }
    }
    #expect(sawTransparent)
  }

  @Test("a sidecar world file places the image; an explicit option wins; conflicting options are refused")
  func worldFile() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 256, height: 256).writePNG(to: dir + "/plan.png")
    // z18 tile 130978/87176 in EPSG:3857 metres, one pixel = 1/256 of the tile
    let size = 2 * WebMercator.originShift / Double(1 << 18)
    let west = Double(130978) * size - WebMercator.originShift
    let north = WebMercator.originShift - Double(87176) * size
    let px = size / 256
    let text = "\(px)\n0\n0\n\(-px)\n\(west + px / 2)\n\(north - px / 2)\n"
    try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/plan.pgw"))
    // a world file alone does not say its CRS: refused, naming both ways to give it
    let refused = try runTool([dir + "/plan.png", "--tile-size", "256", "-o", dir + "/out"])
    #expect(refused.status == 1 && refused.stderr.contains(".prj") && refused.stderr.contains("--source-crs"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try tilecut([dir + "/plan.png", "--source-crs", "EPSG:3857", "--tile-size", "256", "-o", dir + "/out"]) == 0)
    #expect(FileManager.default.fileExists(atPath: dir + "/out/256/L1_18_130978_87176.png"))
    // the old spelling still works
    #expect(try tilecut([dir + "/plan.png", "--world-file-crs", "3857", "--tile-size", "256", "-o", dir + "/alias"]) == 0)
    #expect(FileManager.default.fileExists(atPath: dir + "/alias/256/L1_18_130978_87176.png"))
    var code: Int32 = 0
    do { code = try tilecut([dir + "/plan.png", "--bounds", tileBounds, "--gcp", "0,0,51.5,-0.12", "-o", dir + "/x"]) } catch { code = 2 }
    #expect(code != 0 && !FileManager.default.fileExists(atPath: dir + "/x"))
  }
}
