import ArgumentParser
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutMBTiles
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

@Suite("floor numbers from --first-floor to names, manifests and MBTiles (issue 15, item 3)", .serialized)
struct FloorNumberTests {
  @Test("--first-floor takes ±999000, room for --floors' 1000 floors", arguments: [-999_000, 999_000, 0, -1])
  func firstFloorEdges(first: Int) throws {
    let options = try FloorArguments.parse(["--first-floor", String(first), "--floors", "1000"]).options
    #expect(try options.floor(0).number == first)
    #expect(try options.floor(999).number == first + 999)
  }

  @Test("--first-floor past ±999000 is a usage error naming the option, in one line", arguments: ["-999001", "999001", "9223372036854775807"])
  func firstFloorRefused(first: String) throws {
    #expect(throws: (any Error).self) { try FloorArguments.parse(["--first-floor", first]) }
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 40, height: 30).writePNG(to: dir + "/a.png")
    let r = try runTool([dir + "/a.png", "--first-floor", first, "-o", dir + "/out"])
    #expect(!r.signalled && r.status == 2, "\(r.stderr)")
    #expect(r.stderrLines == ["error: --first-floor: \(first) is outside ±999000"], "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("the floor after the range's last is an error, not a trap")
  func pastTheEdge() throws {
    // parse-time validation keeps --first-floor within ±999000; the library still
    // refuses, without trapping, a first floor it never sees from the command line
    var options = FloorOptions()
    options.firstFloor = 1_000_000
    #expect(try options.floor(0).number == 1_000_000)
    #expect(throws: TilecutError.self) { try options.floor(1) }
    options.firstFloor = Int.max
    #expect(throws: TilecutError.invalidOption(option: "--first-floor", reason: "\(Int.max) is outside ±1000000")) { try options.floor(0) }
  }

  @Test("--floors 3 --first-floor -1 numbers the bands -1, 0, 1: tile names, manifest entries and MBTiles files")
  func acrossZero() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var sheet = RGBAImage(width: 200, height: 450)
    for k in 0..<3 { sheet.paste(picture(width: 200, height: 150, seed: k), x: 0, y: 150 * k) }
    try sheet.writePNG(to: dir + "/sheet.png")
    let common = [dir + "/sheet.png", "--floors", "3", "--first-floor", "-1", "--tile-size", "256,512"]
    #expect(try tilecut(common + ["-o", dir + "/out"]) == 0)
    #expect(try tilecut(common + ["-o", dir + "/mb", "--store", "mbtiles"]) == 0)

    let raw = try Data(contentsOf: URL(fileURLWithPath: dir + "/out/" + Manifest.fileName))
    // plain JSON integers, as manifests always had them
    let json = try #require(try JSONSerialization.jsonObject(with: raw) as? [String: Any])
    #expect(json["floors"] as? [Int] == [-1, 0, 1])
    #expect((json["levels"] as? [[String: Any]])?.compactMap { $0["floor"] as? Int }.sorted().first == -1)
    let manifest = try Manifest.decode(raw, path: dir + "/out/" + Manifest.fileName)
    #expect(manifest.floors.map(\.number) == [-1, 0, 1])
    #expect(manifest.sources.map(\.floor.number) == [-1, 0, 1] && manifest.footprints.map(\.floor.number) == [-1, 0, 1])
    #expect(Set(manifest.levels.map(\.floor.number)) == [-1, 0, 1])

    // every tile the manifest lists is a file named for its floor, and nothing else is there
    let files = Set(snapshot(dir + "/out").keys).subtracting([Manifest.fileName])
    var listed = Set<String>()
    for level in manifest.levels {
      for t in level.tiles { listed.insert("\(level.tileSize)/L\(level.floor.number)_\(t.zoom)_\(t.x)_\(t.y).png") }
    }
    #expect(!listed.isEmpty && files == listed)
    for k in [-1, 0, 1] {
      #expect(files.contains { $0.hasPrefix("256/L\(k)_") } && files.contains { $0.hasPrefix("512/L\(k)_") }, "floor \(k)")
    }

    // MBTiles: one file per floor and size, named and described by the floor
    let mbFiles = try FileManager.default.contentsOfDirectory(atPath: dir + "/mb").filter { $0.hasSuffix(".mbtiles") }.sorted()
    #expect(mbFiles == ["L-1_256.mbtiles", "L-1_512.mbtiles", "L0_256.mbtiles", "L0_512.mbtiles", "L1_256.mbtiles", "L1_512.mbtiles"])
    let meta = try MBTilesReader(path: dir + "/mb/L-1_512.mbtiles").metadata()
    let info = try #require(try JSONSerialization.jsonObject(with: Data((meta["json"] ?? "").utf8)) as? [String: Any])
    #expect(info["floor"] as? Int == -1 && info["tileSize"] as? Int == 512)
    #expect(meta["name"]?.contains("floor -1 (512 px)") == true)
    #expect(try runTool(["verify", dir + "/out"]).status == 0)
    #expect(try runTool(["verify", dir + "/mb"]).status == 0)
  }

  @Test(
    "a manifest naming a floor out of range: verify, preview and merge refuse it in one line naming manifest.json, exit 1",
    arguments: [("floors", 1_000_001), ("levels", -1_000_001)])
  func outOfRangeManifest(field: String, number: Int) throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let path = c.path("out/manifest.json")
    var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    let place: String
    if field == "floors" {
      json["floors"] = [number]
      place = "floors.0"
    } else {
      var levels = try #require(json["levels"] as? [[String: Any]])
      levels[1]["floor"] = number
      json["levels"] = levels
      place = "levels.1.floor"
    }
    try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
    let before = snapshot(c.path("out"))
    for args in [
      ["verify", c.path("out")], ["preview", c.path("out"), "--zoom", "1", "-o", c.path("sheet.png")], ["merge", c.path("m"), c.path("out")],
    ] {
      let r = try runTool(args)
      #expect(!r.signalled && r.status == 1, "\(args[0]): \(r.status) \(r.stderr)")
      #expect(
        r.stderrLines == ["error: \(path): floors must be numbers within ±1000000; \(place) is \(number)"], "\(args[0]): \(r.stderr)")
      #expect(snapshot(c.path("out")) == before)
    }
    // a run over that output stops before it touches it
    let run = try runTool([c.path("good.png"), "-o", c.path("out")])
    #expect(!run.signalled && run.status == 1 && run.stderrLines.count == 1, "\(run.stderr)")
    #expect(run.stderr.contains("manifest.json: floors must be numbers within ±1000000; \(place) is \(number)"), "\(run.stderr)")
    #expect(snapshot(c.path("out")) == before)
  }
}
