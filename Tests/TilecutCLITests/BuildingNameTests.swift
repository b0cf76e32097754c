import Foundation
import Synchronization
import Testing
import TilecutCore

@testable import Tilecut
@testable import TilecutCLI

/// `{building}` in the name: a pyramid per building, each a whole output in its folder.
@Suite("build command, a pyramid per building")
struct BuildingNameTests {
  /// The campus example at zoom 20 with `name`, and optionally other top-level keys.
  func campus(_ dir: String, name: String = "{building}/{size}/L{floor}_{z}_{x}_{y}.png", extra: String = "") throws -> (file: String, text: String) {
    let file = try campusCopy(dir)
    let text = try String(contentsOfFile: file, encoding: .utf8)
      .replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20\nname: \"\(name)\"\(extra)")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    return (file, text)
  }

  /// The tile files of a single run's output.
  func alone(_ output: String) -> [String] { filesBelow(output).filter { $0.hasSuffix(".png") } }

  @Test("each building's pyramid is byte-identical to that building tiled alone; the root's index names them; verify takes the root")
  func perBuilding() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, _) = try campus(dir)
    let root = dir + "/campus"
    #expect(try tilecut(["build", file]) == 0)
    #expect(
      try tilecut([
        root + "/hq/hq.pdf[page=0]", "--center", "51.50060,-0.13960", "--drawing-scale", "1:200", "--rotation", "12.5",
        "--max-zoom", "20", "-o", dir + "/hq",
      ]) == 0)
    #expect(try tilecut([root + "/annex/ground.png", "--knockout", "#fff1dc:4", "--max-zoom", "20", "-o", dir + "/annex"]) == 0)
    for id in ["hq", "annex"] {
      let built = snapshot(root + "/tiles/" + id).filter { $0.key.contains("/L1_") }
      let alone = snapshot(dir + "/" + id).filter { $0.key.contains("/L1_") }
      #expect(built.count > 4, "\(id)")
      #expect(built == alone, "\(id): its floor 1 differs from the building tiled alone")
      let manifest = try JSONDecoder().decode(
        Manifest.self, from: try #require(FileManager.default.contents(atPath: root + "/tiles/\(id)/manifest.json")))
      #expect(manifest.buildings?.map(\.id) == [id])
      #expect(manifest.name == "{size}/L{floor}_{z}_{x}_{y}.png")
    }
    // hq has floors 1 and 2, the annex only 1; nothing of one building is in the other's folder
    #expect(filesBelow(root + "/tiles/hq").contains { $0.contains("/L2_") })
    #expect(!filesBelow(root + "/tiles/annex").contains { $0.contains("/L2_") })
    let index = try #require(try BuildingIndex.load(root + "/tiles"))
    #expect(index.buildings.map(\.id) == ["hq", "annex"])
    #expect(index.buildings.map(\.name) == ["Headquarters", "Annex"])
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: root + "/tiles")) == ["hq", "annex", BuildingIndex.fileName])
    let report = try Verifier(root + "/tiles").run()
    #expect(report.isIntact)
    #expect(report.buildings == 2)
    #expect(report.tilesChecked == filesBelow(root + "/tiles").filter { $0.hasSuffix(".png") }.count)
    // one tile damaged in one building: the root fails, naming the building
    let victim = try #require(filesBelow(root + "/tiles/annex").first { $0.hasSuffix(".png") })
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: root + "/tiles/annex/" + victim))
    let damaged = try Verifier(root + "/tiles").run()
    #expect(!damaged.isIntact)
    #expect(damaged.problems.allSatisfy { $0.hasPrefix("annex: ") })
    // the command line's -o and --name over the file's
    #expect(try tilecut(["build", file, "-o", dir + "/cli", "--name", "{building}/{size}/F{floor}_{z}_{x}_{y}.png"]) == 0)
    #expect(
      Set(filesBelow(dir + "/cli/annex").filter { $0.hasSuffix(".png") })
        == Set(alone(dir + "/annex").map { $0.replacingOccurrences(of: "/L1_", with: "/F1_") }))
    #expect(try tilecut(["build", file, "-o", dir + "/cli2", "--name", "{size}/{building}_{z}_{x}_{y}.png"]) == 2)
    // the root is no single output: preview says which folders are
    #expect(throws: TilecutError.self) { try PreviewSheetRequest(root + "/tiles", zoom: 20, output: dir + "/sheet.png").run() }
  }

  @Test("one building's source changed: only its pyramid is made again, the other untouched; --changes lists its files under its folder")
  func oneBuildingChanged() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, text) = try campus(dir)
    let root = dir + "/campus"
    #expect(try tilecut(["build", file]) == 0)
    let before = snapshot(root + "/tiles")
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file, "--changes", dir + "/changes.txt", "--depfile", dir + "/tiles.d"]) == 0)
    let after = snapshot(root + "/tiles")
    #expect(after.filter { $0.key.hasPrefix("hq/") } == before.filter { $0.key.hasPrefix("hq/") })
    let changed = Set(after.filter { $0.key.hasSuffix(".png") && before[$0.key] != $0.value }.keys)
    #expect(!changed.isEmpty)
    let listed = try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
    #expect(Set(listed) == changed)
    #expect(listed.allSatisfy { $0.hasPrefix("annex/") })
    // the depfile's target is the root's index, which every run renews, named relative to
    // the project file as its dependencies are (issue 41)
    let rule = try String(contentsOfFile: dir + "/tiles.d", encoding: .utf8)
    #expect(rule.hasPrefix("tiles/" + BuildingIndex.fileName + ":"), "\(rule)")
    #expect(rule.contains("annex/ground.pgw") && rule.contains("hq/hq.pdf") && rule.contains("tilecut.yml"))
    // a full rebuild is the same tiles, byte for byte
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").replacingOccurrences(of: "output: tiles", with: "output: full")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let full = snapshot(root + "/full")
    #expect(full.filter { $0.key.hasSuffix(".png") } == after.filter { $0.key.hasSuffix(".png") })
    // through the library: each building's manifest, no single one
    let result = try BuildJob.run(BuildRequest(file: file))
    #expect(result.manifest == nil)
    #expect(Set(result.buildings?.keys ?? [:].keys) == ["hq", "annex"])
    #expect(result.buildings?["annex"]?.buildings?.map(\.id) == ["annex"])
  }

  @Test("build --shard K/N parts of a per-building build merge into the whole; MBTiles gives one file per building, floor and size")
  func shardsAndMBTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, text) = try campus(dir)
    let root = dir + "/campus"
    #expect(try tilecut(["build", file]) == 0)
    for k in 1...2 {
      try text.replacingOccurrences(of: "output: tiles", with: "output: part\(k)").write(toFile: file, atomically: true, encoding: .utf8)
      #expect(try tilecut(["build", file, "--shard", "\(k)/2"]) == 0)
    }
    var merge = try TilecutCommand.parseAsRoot(["merge", root + "/merged", root + "/part1", root + "/part2"])
    try merge.run()
    #expect(snapshot(root + "/merged") == snapshot(root + "/tiles"))
    // a part of another build (a single pyramid) is refused with the root named
    #expect(throws: (any Error).self) { try Merger([root + "/part1", root + "/tiles/hq"], into: root + "/m2").run() }
    #expect(!FileManager.default.fileExists(atPath: root + "/m2"))

    try text.replacingOccurrences(of: "preview: true", with: "store: mbtiles").replacingOccurrences(of: "output: tiles", with: "output: mb")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    #expect(
      Set(filesBelow(root + "/mb").filter { $0.hasSuffix(".mbtiles") }) == [
        "hq/L1_256.mbtiles", "hq/L1_512.mbtiles", "hq/L2_256.mbtiles", "hq/L2_512.mbtiles", "annex/L1_256.mbtiles", "annex/L1_512.mbtiles",
      ])
    let report = try Verifier(root + "/mb").run()
    #expect(report.isIntact && report.mbtilesFiles == 6 && report.buildings == 2)
    #expect(report.tilesChecked == filesBelow(root + "/tiles").filter { $0.hasSuffix(".png") }.count)
  }

  @Test(
    "refused before any work, previous output kept: {building} not the first folder, a root holding one pyramid, an index tilecut did not write, a single run"
  )
  func refusals() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, text) = try campus(dir)
    let root = dir + "/campus"
    // not first: a mistake in the file, at the name's line
    try text.replacingOccurrences(of: "{building}/{size}/", with: "{size}/{building}/").write(toFile: file, atomically: true, encoding: .utf8)
    let nameLine = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("name:") }) + 1
    let refused = probe(try tilecutBinary(), ["build", file], timeout: 120)
    #expect(refused.status == 2)
    #expect(
      refused.stderr.contains("tilecut.yml:\(nameLine):1:") && refused.stderr.contains("{building} must be the first folder"), "\(refused.stderr)")
    #expect(!FileManager.default.fileExists(atPath: root + "/tiles"))
    // a root that holds a campus pyramid is not turned into buildings
    try text.replacingOccurrences(of: "name: \"{building}/{size}/L{floor}_{z}_{x}_{y}.png\"", with: "")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let single = snapshot(root + "/tiles")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 1)
    #expect(snapshot(root + "/tiles") == single)
    // an index tilecut did not write
    try FileManager.default.removeItem(atPath: root + "/tiles")
    try FileManager.default.createDirectory(atPath: root + "/tiles", withIntermediateDirectories: true)
    try Data("{\"mine\": true}".utf8).write(to: URL(fileURLWithPath: root + "/tiles/" + BuildingIndex.fileName))
    #expect(try tilecut(["build", file]) == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/tiles") == [BuildingIndex.fileName])
    // a single run has no buildings
    let one = probe(
      try tilecutBinary(), [root + "/annex/ground.png", "-o", dir + "/one", "--name", "{building}/{z}_{x}_{y}.png"], timeout: 120)
    #expect(one.status == 2)
    #expect(one.stderr.contains("{building} is for `tilecut build`"), "\(one.stderr)")
  }
}

@Suite("build command, incremental progress")
struct IncrementalProgressTests {
  /// The lines a build says, through the library.
  func lines(_ file: String) throws -> [String] {
    let said = Mutex<[String]>([])
    try BuildJob.run(BuildRequest(file: file)) { line in said.withLock { $0.append(line) } }
    return said.withLock { $0 }
  }

  @Test("an incremental rebuild's progress reaches every floor's end and its summary counts each blank cell once, as a full build's does")
  func progressAndSkipped() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    let full = try lines(file)
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").write(toFile: file, atomically: true, encoding: .utf8)
    let incremental = try lines(file)
    #expect(incremental.contains { $0.contains("changed:") && $0.contains("re-rendered") }, "\(incremental)")
    for floor in [1, 2] {
      #expect(full.contains { $0.hasPrefix("  floor \(floor) done:") }, "\(full)")
      #expect(incremental.contains { $0.hasPrefix("  floor \(floor) done:") }, "\(incremental)")
    }
    // "done: N tiles, K skipped": written + skipped is the floors' cells, each once, in both runs
    func counts(_ lines: [String]) throws -> (written: Int, skipped: Int) {
      let done = try #require(lines.first { $0.hasPrefix("done: ") })
      let numbers = done.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
      return (numbers[0], numbers[1])
    }
    let a = try counts(full)
    let b = try counts(incremental)
    #expect(a.written == b.written)
    #expect(a.skipped == b.skipped)
    let manifest = try JSONDecoder().decode(
      Manifest.self, from: try #require(FileManager.default.contents(atPath: dir + "/campus/tiles/manifest.json")))
    let cells = manifest.levels.reduce(0) { $0 + ($1.xRange[1] - $1.xRange[0] + 1) * ($1.yRange[1] - $1.yRange[0] + 1) }
    #expect(a.written + a.skipped == cells)
  }
}

@Suite("content version from digests taken as tiles are stored")
struct ContentVersionDigestTests {
  /// The content version of the output at `dir`, from its tile files' bytes on disk.
  func fromFiles(_ dir: String) throws -> String? {
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/manifest.json")))
    let template = try TileNameTemplate(manifest.name)
    return try ContentVersion.of(manifest) { floor, size, tile in
      let path = dir + "/" + template.path(floor: floor, tileSize: size, tile: tile)
      return SHA256Digest.hex([UInt8](try #require(FileManager.default.contents(atPath: path))))
    }
  }

  @Test("a full build, an incremental one (carried tiles by link) and the MBTiles store give the content version of the bytes written")
  func contentVersion() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    let tiles = dir + "/campus/tiles"
    #expect(try tilecut(["build", file]) == 0)
    let full = try Manifest.decode(try #require(FileManager.default.contents(atPath: tiles + "/manifest.json"))).contentVersion
    #expect(try full != nil && full == fromFiles(tiles))
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let incremental = try Manifest.decode(try #require(FileManager.default.contents(atPath: tiles + "/manifest.json"))).contentVersion
    #expect(try incremental != full && incremental == fromFiles(tiles))
    // the same tiles in MBTiles files: the same content version (it names tiles by the template's paths)
    #expect(try tilecut(["build", file, "-o", dir + "/mb", "--store", "mbtiles"]) == 0)
    let mb = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/mb/manifest.json"))).contentVersion
    #expect(mb == incremental)
  }
}
