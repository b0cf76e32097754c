import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutMBTiles
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// `--retina-depth native`: no 512 px tile finer than the source, a manifest that says
/// the 256 px tile serves it, and every other tile as `full` makes it.
@Suite("retina depth")
struct RetinaDepthTests {
  /// 700 × 500 px: zooms 0–2, native at 2, so the 512 px tiles at zoom 2 are upsampled.
  static func source(_ dir: String) throws -> String {
    let path = dir + "/a.png"
    try picture(width: 700, height: 500, transparentLeft: 150).writePNG(to: path)
    return path
  }

  @Test("native leaves out the 512 px tiles at the native zoom, marks them served by 256, and keeps every other tile")
  func nativeMarksAndKeepsTheRest() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let a = try Self.source(dir)
    #expect(try tilecut([a, "-o", dir + "/full"]) == 0)
    #expect(try tilecut([a, "-o", dir + "/native", "--retina-depth", "native"]) == 0)
    let full = Set(filesBelow(dir + "/full"))
    let native = Set(filesBelow(dir + "/native"))
    // the substituted level: 512 px tiles at zoom 2 (density 3 > native zoom 2)
    let dropped = full.filter { $0.hasPrefix("512/L1_2_") }
    #expect(dropped.count >= 4)
    #expect(native == full.subtracting(dropped))
    #expect(native.contains { $0.hasPrefix("512/L1_1_") } && native.contains { $0.hasPrefix("256/L1_2_") })
    // every tile both made has the same pixels
    for file in native where file.hasSuffix(".png") && file != "preview.html" {
      let x = try RGBAImage.decode(file: dir + "/full/" + file)
      let y = try RGBAImage.decode(file: dir + "/native/" + file)
      #expect(x.width == y.width && x.pixels == y.pixels, "\(file) differs")
    }
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/native/manifest.json")))
    #expect(manifest.substitutes == [Manifest.Substitute(floor: 1, tileSize: 512, zoom: 2, servedBy: 256)])
    #expect(manifest.level(floor: 1, tileSize: 512, zoom: 2) == nil)
    #expect(manifest.level(floor: 1, tileSize: 256, zoom: 2) != nil)
    #expect(manifest.servingTileSize(floor: 1, tileSize: 512, zoom: 2) == 256)
    #expect(manifest.servingTileSize(floor: 1, tileSize: 512, zoom: 1) == 512)
    #expect(manifest.options["retinaDepth"] == "native")
    try manifest.validate(path: "manifest.json")
    // full has no substitutes and no option: its output is what it was
    let fullManifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/full/manifest.json")))
    #expect(fullManifest.substitutes == nil && fullManifest.options["retinaDepth"] == nil)
    #expect(fullManifest.level(floor: 1, tileSize: 512, zoom: 2) != nil)
  }

  @Test("verify, preview and merge accept a native output; preview of a substituted level names the size that serves it")
  func toolsAcceptNative() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let a = try Self.source(dir)
    let native = ["--retina-depth", "native"]
    #expect(try runTool([a, "-o", dir + "/single", "-q"] + native).status == 0)
    #expect(try runTool(["verify", dir + "/single"]).status == 0)
    let refused = try runTool(["preview", dir + "/single", "--zoom", "2", "--tile-size", "512", "-o", dir + "/sheet.png"])
    #expect(refused.status == 2)
    #expect(refused.stderrLines.count == 1 && refused.stderr.contains("256 px tiles serve them") && refused.stderr.contains("--tile-size 256"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/sheet.png"))
    #expect(try runTool(["preview", dir + "/single", "--zoom", "2", "--tile-size", "256", "-o", dir + "/sheet.png"]).status == 0)
    #expect(try runTool(["preview", dir + "/single", "--zoom", "1", "--tile-size", "512", "-o", dir + "/sheet2.png"]).status == 0)
    for k in 1...2 { #expect(try runTool([a, "-o", dir + "/part\(k)", "-q", "--shard", "\(k)/2"] + native).status == 0) }
    #expect(try runTool(["merge", dir + "/merged", dir + "/part1", dir + "/part2"]).status == 0)
    #expect(try runTool(["verify", dir + "/merged"]).status == 0)
    #expect(snapshot(dir + "/merged") == snapshot(dir + "/single"))
  }

  @Test("the MBTiles store's 512 px set says in its json that the 256 px set serves the native zoom")
  func mbtilesMetadata() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let a = try Self.source(dir)
    #expect(try tilecut([a, "-o", dir + "/mb", "--store", "mbtiles", "--retina-depth", "native"]) == 0)
    let json = try #require(try MBTilesReader(path: dir + "/mb/L1_512.mbtiles").metadata()["json"])
    let info = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let subs = try #require(info["substitutes"] as? [[String: Int]])
    #expect(subs == [["floor": 1, "tileSize": 512, "zoom": 2, "servedBy": 256]])
    let rows = try MBTilesReader(path: dir + "/mb/L1_512.mbtiles").rowCounts()
    #expect(rows[2] == nil && rows[1] != nil)
    let json256 = try #require(try MBTilesReader(path: dir + "/mb/L1_256.mbtiles").metadata()["json"])
    #expect(!json256.contains("substitutes"))
    #expect(try runTool(["verify", dir + "/mb"]).status == 0)
  }

  @Test("native needs 256 among the tile sizes")
  func nativeNeeds256() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let a = try Self.source(dir)
    let r = try runTool([a, "-o", dir + "/out", "--tile-size", "512", "--retina-depth", "native"])
    #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains("--retina-depth"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("a source across 180° lists each substituted level once, though it is tiled in two pieces")
  func acrossTheAntimeridianOnce() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let a = try Self.source(dir)
    let run = try runTool([a, "-o", dir + "/out", "--center", "0,179.999", "--meters-per-pixel", "100", "--retina-depth", "native"])
    #expect(run.status == 0 && run.stderr.contains("crosses the antimeridian"), "\(run.stderr)")
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    let substitutes = try #require(manifest.substitutes)
    #expect(!substitutes.isEmpty && Set(substitutes).count == substitutes.count, "\(substitutes)")
    try manifest.validate(path: "manifest.json")
  }
}
