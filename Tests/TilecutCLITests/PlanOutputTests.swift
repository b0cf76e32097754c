import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// The schemas of `--json`, under examples/json-schema.
private func schemas() throws -> [String: Any] {
  let dir = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
    .appendingPathComponent("examples/json-schema")
  var out: [String: Any] = [:]
  for name in ["plan.schema.json", "dry-run.schema.json", "run.schema.json"] {
    out[name] = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(name)))
  }
  return out
}

/// Checks a JSON value against the subset of JSON Schema the documented schemas use
/// (type, enum, const, properties, required, additionalProperties: false, items, $ref
/// within and across the files); returns what does not match, by path.
private func violations(_ value: Any, _ schema: [String: Any], file: String, all: [String: Any], path: String = "$") -> [String] {
  if let ref = schema["$ref"] as? String {
    let parts = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    let target = parts[0].isEmpty ? file : parts[0]
    guard var node = all[target] as? [String: Any] else { return ["\(path): unresolved \(ref)"] }
    if parts.count > 1 {
      for key in parts[1].split(separator: "/").map(String.init) {
        guard let next = node[key] as? [String: Any] else { return ["\(path): unresolved \(ref)"] }
        node = next
      }
    }
    return violations(value, node, file: target, all: all, path: path)
  }
  var found: [String] = []
  if let type = schema["type"] as? String {
    let ok: Bool
    switch type {
    case "object": ok = value is [String: Any]
    case "array": ok = value is [Any]
    case "string": ok = value is String
    case "boolean": ok = value is Bool || value is NSNumber
    case "integer": ok = (value as? NSNumber).map { Double(truncating: $0) == Double(Int(truncating: $0)) } ?? false
    case "number": ok = value is NSNumber
    default: ok = false
    }
    if !ok { return ["\(path): not \(type)"] }
  }
  if let choices = schema["enum"] as? [Any], !choices.contains(where: { "\($0)" == "\(value)" }) { found.append("\(path): \(value) not in enum") }
  if let object = value as? [String: Any] {
    let properties = schema["properties"] as? [String: Any] ?? [:]
    for key in schema["required"] as? [String] ?? [] where object[key] == nil { found.append("\(path): missing \(key)") }
    for (key, child) in object {
      if let sub = properties[key] as? [String: Any] {
        found += violations(child, sub, file: file, all: all, path: path + "." + key)
      } else if schema["additionalProperties"] as? Bool == false {
        found.append("\(path): undocumented key \(key)")
      }
    }
  }
  if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
    for (i, child) in array.enumerated() { found += violations(child, items, file: file, all: all, path: "\(path)[\(i)]") }
  }
  return found
}

@Suite("plan output")
struct PlanOutputTests {
  @Test("--dry-run decodes no pixel, yet a PNG cut off after its header is refused from its chunks already, in one line")
  func dryRunDoesNotDecode() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 500, seed: 3).writePNG(to: dir + "/whole.png")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.png"))
    try bytes.prefix(200).write(to: URL(fileURLWithPath: dir + "/cut.png"))
    let whole = try runTool([dir + "/whole.png", "-o", dir + "/out", "--dry-run", "--json"])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(whole.stderr.contains("up to ") && whole.stderr.contains("blank cells are known after rendering"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    for extra in [["--dry-run"], ["--dry-run", "--exact"], []] {
      let cut = try runTool([dir + "/cut.png", "-o", dir + "/out"] + extra)
      #expect(cut.status == 1 && cut.stderrLines.count == 1 && cut.stderrLines.last?.contains("cut.png") == true, "\(cut.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    }
  }

  @Test("the dry run's counts are upper bounds of --exact's, which skip the blank cells")
  func upperBounds() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 500, transparentLeft: 400).writePNG(to: dir + "/a.png")
    func levels(_ extra: [String]) throws -> (total: [String: Any], levels: [String: [String: Any]]) {
      let run = try runTool([dir + "/a.png", "-o", dir + "/out", "--dry-run", "--json"] + extra)
      #expect(run.status == 0, "\(run.stderr)")
      let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
      let list = try #require(json["levels"] as? [[String: Any]])
      return (
        json, Dictionary(list.map { ("\($0["floor"] ?? "") \($0["tileSize"] ?? "") \($0["zoom"] ?? "")", $0) }, uniquingKeysWith: { a, _ in a })
      )
    }
    let bound = try levels([])
    let exact = try levels(["--exact"])
    #expect(bound.total["exact"] as? Bool == false && bound.total["tiles"] == nil)
    #expect(Set(bound.levels.keys) == Set(exact.levels.keys) && !bound.levels.isEmpty)
    var strict = 0
    for (key, level) in exact.levels {
      let tiles = try #require(level["tiles"] as? Int)
      let cells = try #require(bound.levels[key]?["cells"] as? Int)
      #expect(tiles <= cells, "\(key)")
      if tiles < cells { strict += 1 }
    }
    // the transparent left part leaves cells without a tile at the deeper zooms
    #expect(strict > 0)
    let total = try #require(exact.total["tiles"] as? Int)
    #expect(total <= (bound.total["cells"] as? Int ?? 0))
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out"]) == 0)
    #expect(total == filesBelow(dir + "/out").count - 1)
  }

  @Test("--json output matches the documented schemas: dry run, exact dry run, run, up to date")
  func jsonAgainstSchema() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 300, transparentLeft: 100).writePNG(to: dir + "/a.png")
    let all = try schemas()
    let cases: [([String], String)] = [
      (["--dry-run", "--json", "--tile-size", "256,512,768"], "dry-run.schema.json"),
      (["--dry-run", "--exact", "--json", "--center", "51.5,-0.12", "--meters-per-pixel", "0.1", "--rotation", "20"], "dry-run.schema.json"),
      (["--json"], "run.schema.json"),
      (["--json"], "run.schema.json"),
    ]
    for (extra, file) in cases {
      let run = try runTool([dir + "/a.png", "-o", dir + "/out"] + extra)
      #expect(run.status == 0, "\(extra): \(run.stderr)")
      let value = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
      let schema = try #require(all[file] as? [String: Any])
      let problems = violations(value, schema, file: file, all: all)
      #expect(problems.isEmpty, "\(extra): \(problems.prefix(5))")
    }
    // a DXF drawing under an affine placement: its levels are drawn on the grid (`draw`)
    let pairs = [
      "0", "SECTION", "2", "ENTITIES", "0", "LINE", "8", "0", "10", "0", "20", "0", "11", "40", "21", "10", "0", "ENDSEC", "0", "EOF",
    ]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let run = try runTool([
      dir + "/plan.dxf", "-o", dir + "/drawn", "--dry-run", "--json", "--center", "52,5", "--drawing-units", "m", "--rotation", "20", "--max-zoom",
      "20",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let value = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8))
    let schema = try #require(all["dry-run.schema.json"] as? [String: Any])
    let problems = violations(value, schema, file: "dry-run.schema.json", all: all)
    #expect(problems.isEmpty, "the drawing's dry run: \(problems.prefix(5))")
    #expect(run.stdout.contains("\"draw\""), "no level of the drawing is drawn on its grid")
  }

  @Test("the plan in the dry run's JSON decodes to the plan the job made")
  func planInJSON() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 700, height: 400).writePNG(to: dir + "/a.png")
    let run = try runTool([
      dir + "/a.png", "-o", dir + "/out", "--dry-run", "--json", "--rotation", "10", "--center", "40,-74", "--meters-per-pixel", "0.5",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let plan = try JSONDecoder().decode(JobPlan.self, from: JSONSerialization.data(withJSONObject: try #require(json["plan"])))
    #expect(plan.tileSizes == [.standard, .retina])
    #expect(plan.floors.first?.chain.first?.recipe.kind == .resample)
  }

  @Test("the manifest names the tile sizes once; an older manifest that also had them in its options is still up to date")
  func sizesOnce() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 200).writePNG(to: dir + "/a.png")
    let first = try runTool([dir + "/a.png", "-o", dir + "/out", "--tile-size", "512,256"])
    #expect(first.status == 0, "\(first.stderr)")
    let path = dir + "/out/manifest.json"
    var manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(manifest.tileSizes == [256, 512] && manifest.options["tileSizes"] == nil)
    // as an earlier build of this version and renderer revision wrote it: the sizes in the options too, the same fingerprint
    manifest.options["tileSizes"] = "256,512"
    try manifest.encoded().write(to: URL(fileURLWithPath: path))
    let again = try runTool([dir + "/a.png", "-o", dir + "/out", "--tile-size", "256,512"])
    #expect(again.status == 0 && again.stderr.contains("up to date"), "\(again.stderr)")
    let changed = try runTool([dir + "/a.png", "-o", dir + "/out", "--tile-size", "256"])
    #expect(changed.status == 0 && !changed.stderr.contains("up to date"), "\(changed.stderr)")
  }

  @Test("a bad --tile-size is one line naming the option, exit 2, nothing written", arguments: ["300", "256,1024", "", "big"])
  func badTileSize(value: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 100, height: 100).writePNG(to: dir + "/a.png")
    let run = try runTool([dir + "/a.png", "-o", dir + "/out", "--tile-size", value])
    #expect(run.status == 2)
    #expect(run.stderrLines.count == 1 && run.stderrLines.first?.hasPrefix("error: --tile-size: ") == true, "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("--exact's byte estimate is the same on every run and whatever --jobs is")
  func exactEstimateRepeats() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // cells of noise beside flat ones: tiles that compress very differently
    var image = RGBAImage(width: 1500, height: 1000)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let i = (y * image.width + x) * 4
        let noisy = (x / 96 * 7 + y / 96 * 3) % 5 == 0
        let v = noisy ? UInt8(truncatingIfNeeded: (x &* 2_654_435_761 ^ y &* 40_503) >> 7) : UInt8(x / 96 * 16 & 255)
        image.pixels.replaceSubrange(i..<i + 4, with: [v, v &+ 50, 200, 255])
      }
    }
    try image.writePNG(to: dir + "/a.png")
    func estimate(_ jobs: String) throws -> Int {
      let run = try runTool([dir + "/a.png", "-o", dir + "/out", "--dry-run", "--exact", "--json", "--jobs", jobs])
      #expect(run.status == 0, "\(run.stderr)")
      let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
      return try #require(json["estimatedBytes"] as? Int)
    }
    let first = try estimate("1")
    #expect(first > 0)
    #expect(try estimate("1") == first)
    #expect(try estimate("2") == first)
    #expect(try estimate("2") == first)
  }

  @Test("the sampling encoder samples the same tiles whatever order they come in")
  func sampleIsOfTheTile() throws {
    /// An encoder whose bytes are as many as the tile's first value says.
    struct Counting: TileEncoder {
      var fileExtension: String { "png" }
      func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] { [UInt8](repeating: 0, count: Int(rgba[0])) }
    }
    let key = LevelKey(floor: try Floor(0, option: "--first-floor"), tileSize: 256, zoom: 6)
    let tiles = (0..<8).flatMap { y in (0..<8).map { x in TileCoordinate(zoom: 6, x: x, y: y) } }
    func mean(_ order: [TileCoordinate]) throws -> Double {
      let sampler = SamplingEncoder(Counting())
      for tile in order {
        _ = try sampler.encode(rgba: [UInt8(tile.x * 8 + tile.y + 1)], key: key, tile: tile, upsampled: false)
      }
      return sampler.meanBytes
    }
    let forward = try mean(tiles)
    #expect(forward > 0)
    let reversed = try mean(tiles.reversed())
    let byColumn = try mean(tiles.sorted { ($0.x, $0.y) < ($1.x, $1.y) })
    #expect(reversed == forward && byColumn == forward)
    // a few tiles, none of them perhaps sampled, still have a mean, in any order
    let few = try mean([tiles[9], tiles[3], tiles[20]])
    let reordered = try mean([tiles[20], tiles[3], tiles[9]])
    #expect(few > 0 && reordered == few)
  }
}
