import Foundation
import Synchronization
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// The campus example copied into a scratch directory: its project file's path.
func campusCopy(_ dir: String) throws -> String {
  let root = URL(fileURLWithPath: TestEnvironment.repositoryRoot).path
  let campus = dir + "/campus"
  try FileManager.default.createDirectory(atPath: campus, withIntermediateDirectories: true)
  for item in ["hq", "annex", "tilecut.yml"] {
    try FileManager.default.copyItem(atPath: root + "/examples/campus/" + item, toPath: campus + "/" + item)
  }
  return campus + "/tilecut.yml"
}

/// The campus example copied as `campusCopy` does, to zoom 20 into `store` (no preview,
/// which an archive store cannot have): its project file's path and text.
func campusCopy(_ dir: String, store: String) throws -> (file: String, text: String) {
  let file = try campusCopy(dir)
  let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
    .replacingOccurrences(of: "preview: true", with: "store: \(store)")
  try text.write(toFile: file, atomically: true, encoding: .utf8)
  return (file, text)
}

/// `top` over `bottom`, unpremultiplied RGBA8 in and out, in floating point.
func over(_ top: [UInt8], _ bottom: [UInt8]) -> [UInt8] {
  var out = [UInt8](repeating: 0, count: top.count)
  for i in stride(from: 0, to: top.count, by: 4) {
    let sa = Double(top[i + 3]) / 255
    let da = Double(bottom[i + 3]) / 255
    let a = sa + da * (1 - sa)
    for c in 0..<3 where a > 0 {
      out[i + c] = UInt8((((Double(top[i + c]) * sa + Double(bottom[i + c]) * da * (1 - sa)) / a)).rounded())
    }
    out[i + 3] = UInt8((a * 255).rounded())
  }
  return out
}

@Suite("build command")
struct BuildCommandTests {
  @Test(
    "a campus floor: a tile of one building is byte-identical to that building tiled alone; where both draw, their composite"
  )
  func compositing() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let campus = dir + "/campus"
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    // floor 1 of each building alone, with the options the project gives it
    #expect(
      try tilecut([
        campus + "/hq/hq.pdf[page=0]", "--center", "51.50060,-0.13960", "--drawing-scale", "1:200", "--rotation", "12.5",
        "--max-zoom", "20", "-o", dir + "/hq",
      ]) == 0)
    #expect(try tilecut([campus + "/annex/ground.png", "--knockout", "#fff1dc:4", "--max-zoom", "20", "-o", dir + "/annex"]) == 0)
    let built = Set(filesBelow(campus + "/tiles").filter { $0.contains("/L1_") })
    let hq = Set(filesBelow(dir + "/hq").filter { $0.contains("/L1_") })
    let annex = Set(filesBelow(dir + "/annex").filter { $0.contains("/L1_") })
    #expect(built == hq.union(annex))
    var identical = 0
    var composited = 0
    for name in built.sorted() {
      let bytes = FileManager.default.contents(atPath: campus + "/tiles/" + name)
      switch (hq.contains(name), annex.contains(name)) {
      case (true, false):
        #expect(bytes == FileManager.default.contents(atPath: dir + "/hq/" + name), "\(name)")
        identical += 1
      case (false, true):
        #expect(bytes == FileManager.default.contents(atPath: dir + "/annex/" + name), "\(name)")
        identical += 1
      default:
        let tile = try RGBAImage.decode(file: campus + "/tiles/" + name)
        let bottom = try RGBAImage.decode(file: dir + "/hq/" + name)
        let top = try RGBAImage.decode(file: dir + "/annex/" + name)
        let expected = over(top.pixels, bottom.pixels)
        // the colour under alpha 0 is no pixel's: compare visible pixels
        var worst = 0
        for i in stride(from: 0, to: expected.count, by: 4) where expected[i + 3] != 0 || tile.pixels[i + 3] != 0 {
          for c in 0..<4 { worst = max(worst, abs(Int(tile.pixels[i + c]) - Int(expected[i + c]))) }
        }
        #expect(worst <= 1, "\(name): off by \(worst)")
        composited += 1
      }
    }
    #expect(identical >= 4)
    #expect(composited > 4)
    // the manifest says which buildings made which floor, and the output verifies
    let manifest = try JSONDecoder().decode(Manifest.self, from: try #require(FileManager.default.contents(atPath: campus + "/tiles/manifest.json")))
    #expect(manifest.buildings?.map(\.id) == ["hq", "annex"])
    #expect(manifest.buildings?.first?.floors.map(\.floor.number) == [1, 2])
    let footprint = try #require(manifest.footprints.first { $0.floor.number == 1 })
    let hqFloor = try #require(manifest.buildings?[0].floors[0])
    let annexFloor = try #require(manifest.buildings?[1].floors[0])
    #expect(footprint.east == max(hqFloor.east, annexFloor.east) && footprint.west == min(hqFloor.west, annexFloor.west))
    var verify = try TilecutCommand.parseAsRoot(["verify", campus + "/tiles"])
    try verify.run()
    // the same project again is up to date
    let before = snapshot(campus + "/tiles")
    #expect(try tilecut(["build", file]) == 0)
    #expect(snapshot(campus + "/tiles") == before)
  }

  @Test(
    "a mistake in the project file exits 2 and leaves the previous output as it was",
    arguments: [
      ("maxZoom: 21", "maxZom: 21"),
      ("drawingScale: \"1:200\"", "drawingScale: \"1:200\"\n        metersPerPixel: 0.05"),
      ("rotation: 12.5", "rotation: 12.5\n        bounds: [51.5, -0.14, 51.501, -0.139]"),
      ("source: annex/ground.png", "source: annex/nothing.png"),
      ("- floor: 2", "- floor: 1"),
      ("id: annex", "id: hq"),
      ("tileSizes: [256, 512]", "tileSizes: [300]"),
      ("maxZoom: 21", "maxZoom: 21\nformat: gif"),
    ])
  func mistakes(original: String, replacement: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let text = try String(contentsOfFile: file, encoding: .utf8)
    try text.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let before = snapshot(dir)
    let broken = text.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20").replacingOccurrences(
      of: original.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20"),
      with: replacement.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20"))
    #expect(broken != text)
    try broken.write(toFile: file, atomically: true, encoding: .utf8)
    let after = snapshot(dir).filter { $0.key != "campus/tilecut.yml" }
    #expect(try tilecut(["build", file]) == 2)
    #expect(snapshot(dir).filter { $0.key != "campus/tilecut.yml" } == after)
    #expect(after == before.filter { $0.key != "campus/tilecut.yml" })
  }

  @Test("build --output and --store override the file's (the build-tool plugin's call): MBTiles in that directory, no preview")
  func outputAndStore() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let text = try String(contentsOfFile: file, encoding: .utf8)
    // the campus asks for a preview, which an MBTiles output cannot have
    #expect(text.contains("preview: true") && text.contains("output: tiles"))
    try text.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 19").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file, "--output", dir + "/work/tiles", "--store", "mbtiles"]) == 2)
    try FileManager.default.createDirectory(atPath: dir + "/work", withIntermediateDirectories: true)
    #expect(try tilecut(["build", file, "-o", dir + "/work/tiles", "--store", "mbtiles"]) == 0)
    let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/work/tiles").filter { !$0.hasPrefix(".") }.sorted()
    #expect(files == ["L1_256.mbtiles", "L1_512.mbtiles", "L2_256.mbtiles", "L2_512.mbtiles", "manifest.json"])
    #expect(!FileManager.default.fileExists(atPath: dir + "/campus/tiles"))
    let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/work/tiles/manifest.json")))
    #expect((manifest as? [String: Any])?["store"] as? String == "mbtiles")
    // without the overrides, the file's own output and store, with its preview
    #expect(try tilecut(["build", file]) == 0)
    #expect(FileManager.default.fileExists(atPath: dir + "/campus/tiles/preview.html"))
    #expect(FileManager.default.fileExists(atPath: dir + "/campus/tiles/256"))
    // a wrong value is the command line's mistake, not the file's
    #expect(throws: (any Error).self) { try TilecutCommand.parseAsRoot(["build", file, "--store", "zarr"]) }
  }

  @Test("--depfile from build lists the project file, every source and every sidecar")
  func depfile() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file, "--depfile", dir + "/campus.d", "--dry-run"]) == 0)
    #expect(!FileManager.default.fileExists(atPath: dir + "/campus.d"))
    #expect(try tilecut(["build", file, "--depfile", dir + "/campus.d"]) == 0)
    let rule = try String(contentsOfFile: dir + "/campus.d", encoding: .utf8)
    // named relative to the project file, as the file names them (issue 41: where tilecut
    // runs from never matters), the target too
    #expect(rule.hasPrefix("tiles/manifest.json:"), "\(rule)")
    for needed in ["tilecut.yml", "hq/hq.pdf", "annex/ground.png", "annex/ground.pgw", "annex/ground.prj"] {
      #expect(rule.contains(" " + needed + " ") || rule.contains(" " + needed + "\n"), "\(needed) missing from \(rule)")
    }
  }

  @Test(
    "build refuses a --depfile or --changes that names the project file, a source, a sidecar or a file in the output, before any work",
    arguments: ["tilecut.yml", "hq/hq.pdf", "annex/ground.png", "annex/ground.pgw", "annex/ground.prj", "tiles/manifest.json"])
  func optionPathsRefused(named: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 18")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let before = try filesBelow(dir).sorted().map { ($0, try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0))) }
    for option in ["--depfile", "--changes"] {
      #expect(try tilecut(["build", file, "--force", option, dir + "/campus/" + named]) == 2)
    }
    let after = try filesBelow(dir).sorted().map { ($0, try Data(contentsOf: URL(fileURLWithPath: dir + "/" + $0))) }
    #expect(before.map(\.0) == after.map(\.0))
    #expect(zip(before, after).allSatisfy { $0.1 == $1.1 })
  }

  @Test("--drawing-scale 1:N gives a document N/72 inches on the ground per point, as --meters-per-pixel would")
  func drawingScale() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let pdf = (file as NSString).deletingLastPathComponent + "/hq/hq.pdf[page=0]"
    let common = ["--center", "51.5006,-0.1396", "--rotation", "12.5", "--max-zoom", "19"]
    #expect(try tilecut([pdf, "--drawing-scale", "1:200", "-o", dir + "/a"] + common) == 0)
    #expect(try tilecut([pdf, "--meters-per-pixel", String(0.0254 / 72 * 200), "-o", dir + "/b"] + common) == 0)
    let a = snapshot(dir + "/a").filter { $0.key.hasSuffix(".png") }
    #expect(!a.isEmpty)
    #expect(a == snapshot(dir + "/b").filter { $0.key.hasSuffix(".png") })
    // a raster has no paper size
    #expect(try tilecut([dir + "/campus/annex/ground.png", "--drawing-scale", "1:200", "-o", dir + "/c"] + common) != 0)
    #expect(!FileManager.default.fileExists(atPath: dir + "/c"))
  }
}

@Suite("build command, GDAL's coordinate order")
struct BuildLonLatTests {
  /// The footprint of the project's one floor, from `build --dry-run --json`.
  func footprint(_ yaml: String, in dir: String) throws -> [String: Double] {
    let file = dir + "/tilecut.yml"
    try yaml.write(toFile: file, atomically: true, encoding: .utf8)
    let run = try runTool(["build", file, "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    // the planner's plan is the dry run's `plan`, as for a single run
    let plan = try #require(json["plan"] as? [String: Any])
    let floors = try #require(plan["floors"] as? [[String: Any]])
    return try #require(floors.first?["footprint"] as? [String: Double])
  }

  func project(_ top: String, _ floor: String) -> String {
    """
    \(top)
    maxZoom: 18
    tileSizes: [256]
    buildings:
      - id: hq
        floors:
          - floor: 1
            source: plan.png
    \(floor.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n"))
    """
  }

  @Test("lonlat at the top reads every floor's center and gcp longitude first; a floor's own lonlat wins")
  func lonLatKey() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 400, height: 300).writePNG(to: dir + "/plan.png")
    let latLon = try footprint(project("output: t", "center: [51.5006, -0.1396]\nmetersPerPixel: 0.1"), in: dir)
    // London, not the Gulf of Aden: u near 0.4996 (0.14° W), v near 0.3326 (51.5° N)
    #expect(abs(try #require(latLon["minU"]) - 0.49961) < 0.0001)
    #expect(abs(try #require(latLon["minV"]) - 0.33256) < 0.0001)
    let top = try footprint(project("output: t\nlonlat: true", "center: [-0.1396, 51.5006]\nmetersPerPixel: 0.1"), in: dir)
    let own = try footprint(project("output: t", "center: [-0.1396, 51.5006]\nmetersPerPixel: 0.1\nlonlat: true"), in: dir)
    let overridden = try footprint(
      project("output: t\nlonlat: true", "center: [51.5006, -0.1396]\nmetersPerPixel: 0.1\nlonlat: false"), in: dir)
    for other in [top, own, overridden] {
      for (key, value) in latLon { #expect(abs((other[key] ?? .nan) - value) < 1e-12, "\(key)") }
    }
    let gcpLatLon = try footprint(
      project("output: t", "gcp: [[0, 0, 51.501, -0.141], [400, 0, 51.501, -0.139], [0, 300, 51.500, -0.141]]"), in: dir)
    let gcpLonLat = try footprint(
      project("output: t\nlonlat: true", "gcp: [[0, 0, -0.141, 51.501], [400, 0, -0.139, 51.501], [0, 300, -0.141, 51.500]]"), in: dir)
    for (key, value) in gcpLatLon { #expect(abs((gcpLonLat[key] ?? .nan) - value) < 1e-12, "\(key)") }
  }
}

@Suite("build command, incremental")
struct BuildIncrementalTests {
  @Test("one floor changed: only its cells are made again, the rest carried over; byte-identical to a full rebuild; --changes exact")
  func oneFloorChanged() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let campus = dir + "/campus"
    let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let before = snapshot(campus + "/tiles")
    let floor2 = before.filter { $0.key.contains("/L2_") }
    // the annex's floor 1 changes (its knockout): floor 2 and the cells away from the annex stay
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file, "--changes", dir + "/changes.txt"]) == 0)
    let after = snapshot(campus + "/tiles")
    #expect(after.filter { $0.key.contains("/L2_") } == floor2)
    let changed = after.filter { $0.key.hasSuffix(".png") && before[$0.key] != $0.value }.keys.sorted()
    #expect(!changed.isEmpty)
    // carried tiles are the previous files themselves (hard links) where they did not change
    let carried = try #require(after.keys.first { $0.contains("/L2_") })
    let inode = { (path: String) in (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int) ?? nil }
    #expect(inode(campus + "/tiles/" + carried) != nil)
    // --changes lists exactly the tiles that differ
    let listed = try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
    let added = after.keys.filter { $0.hasSuffix(".png") && before[$0] == nil }
    let deleted = before.keys.filter { $0.hasSuffix(".png") && after[$0] == nil }
    #expect(Set(listed) == Set(changed + deleted).union(added))
    // a full rebuild of the same file is the same output, byte for byte
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").replacingOccurrences(of: "output: tiles", with: "output: full")
      .write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    #expect(snapshot(campus + "/full") == after)
    // nothing changed: up to date, nothing touched
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    #expect(snapshot(campus + "/tiles") == after)
  }
}

@Suite("build command, incremental, MBTiles and PMTiles stores")
struct BuildIncrementalArchiveTests {
  /// Every tile of every level of the output at `dir`, by floor, size and cell, read
  /// through the store reader (nil for a blank cell).
  func tiles(_ dir: String) throws -> [String: [UInt8]] {
    let reader = try StoreReader(dir)
    let manifest = try #require(reader.manifest)
    var out: [String: [UInt8]] = [:]
    for level in manifest.levels {
      for y in level.yRange[0]...level.yRange[1] {
        for x in level.xRange[0]...level.xRange[1] {
          let tile = TileCoordinate(zoom: level.zoom, x: x, y: y)
          if case .tile(let bytes) = try reader.cell(tile, floor: level.floor.number, tileSize: level.tileSize) {
            out["\(level.floor) \(level.tileSize) \(level.zoom)/\(x)/\(y)"] = bytes
          }
        }
      }
    }
    return out
  }

  func manifest(_ dir: String) throws -> Manifest {
    try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/manifest.json")))
  }

  @Test(
    "one floor changed: the unchanged cells' tiles come out of the previous archives, only the changed floor's are rendered; tile for tile a full rebuild",
    arguments: [Manifest.Store.mbtiles, .pmtiles])
  func oneFloorChanged(store: Manifest.Store) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, text) = try campusCopy(dir, store: store.rawValue)
    let campus = dir + "/campus"
    #expect(try tilecut(["build", file]) == 0)
    let before = try tiles(campus + "/tiles")
    #expect(try manifest(campus + "/tiles").store == store)

    // the annex's floor 1 changes (its knockout): floor 2 and the cells away from the annex stay
    let changed = text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9")
    try changed.write(toFile: file, atomically: true, encoding: .utf8)
    let said = Mutex<[String]>([])
    try BuildJob.run(BuildRequest(file: file)) { line in said.withLock { $0.append(line) } }
    let lines = said.withLock { $0 }
    // "annex floor 1 changed: R of T tiles re-rendered": R the tiles not carried over
    let summary = try #require(lines.first { $0.contains("changed:") && $0.contains("re-rendered") }, "\(lines)")
    #expect(summary.hasPrefix("annex floor 1 changed:"), "\(summary)")
    let numbers =
      summary.split(separator: ":").last.map { $0.split(whereSeparator: { !$0.isNumber && $0 != "," }) }?
      .compactMap { Int($0.replacingOccurrences(of: ",", with: "")) } ?? []
    #expect(numbers.count == 2)
    let rendered = numbers.first ?? -1
    let total = numbers.last ?? -1
    let after = try tiles(campus + "/tiles")
    #expect(total == after.count)
    // every floor-2 tile was carried: what was rendered is some of floor 1's tiles, not all
    let floor1 = after.keys.filter { $0.hasPrefix("1 ") }.count
    #expect(rendered > 0 && rendered < floor1, "\(rendered) of \(floor1)")
    #expect(after.filter { $0.key.hasPrefix("2 ") } == before.filter { $0.key.hasPrefix("2 ") })
    #expect(after != before)
    #expect(try runTool(["verify", campus + "/tiles"]).status == 0)

    // a from-scratch build of the changed project: the same tiles, the same content version
    try changed.replacingOccurrences(of: "output: tiles", with: "output: full").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let full = try tiles(campus + "/full")
    #expect(full.count == after.count)
    #expect(full.keys.filter { full[$0] != after[$0] }.isEmpty)
    #expect(try manifest(campus + "/full").contentVersion == manifest(campus + "/tiles").contentVersion)
  }
}

@Suite("build command, shards")
struct BuildShardTests {
  @Test("build --shard K/N parts joined by merge are the whole campus's output, byte for byte")
  func shardsMerge() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let campus = dir + "/campus"
    let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    for k in 1...2 {
      try text.replacingOccurrences(of: "output: tiles", with: "output: part\(k)").write(toFile: file, atomically: true, encoding: .utf8)
      #expect(try tilecut(["build", file, "--shard", "\(k)/2"]) == 0)
    }
    var merge = try TilecutCommand.parseAsRoot(["merge", campus + "/merged", campus + "/part1", campus + "/part2"])
    try merge.run()
    #expect(snapshot(campus + "/merged") == snapshot(campus + "/tiles"))
  }

  @Test("a campus run: a floor's progress counts every building's cells, once; --json level ranges are the union of the buildings'")
  func campusProgressAndJSON() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let campus = dir + "/campus"
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
      .write(toFile: file, atomically: true, encoding: .utf8)
    // the plan: each building's layer of each floor, with its own ranges
    let dry = try runTool(["build", file, "--dry-run", "--json"], timeout: 120)
    #expect(dry.status == 0, "\(dry.stderr)")
    let dryJSON = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any])
    let job = try JSONDecoder().decode(JobPlan.self, from: JSONSerialization.data(withJSONObject: try #require(dryJSON["plan"])))
    var layerCells: [Floor: Int] = [:]
    var union: [LevelKey: TileRange] = [:]
    var layersOfFloor: [Floor: Int] = [:]
    for plan in job.floors {
      layersOfFloor[plan.floor, default: 0] += 1
      for level in plan.levels {
        for cut in level.cuts {
          layerCells[plan.floor, default: 0] += cut.range.count
          let key = LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)
          union[key] = union[key].map { $0.union(cut.range) } ?? cut.range
        }
      }
    }
    // the example has a floor both buildings draw, whose ranges differ
    #expect(layersOfFloor.values.contains { $0 > 1 })
    let run = try runTool(["build", file, "--json"], timeout: 300)
    #expect(run.status == 0, "\(run.stderr)")
    // stderr is no terminal: one line per finished floor, once, counting all its buildings' cells
    for (floor, cells) in layerCells {
      let lines = run.stderrLines.filter { $0.contains("floor \(floor) done: ") }
      #expect(lines.count == 1 && lines.first?.contains("floor \(floor) done: \(cells) cells,") == true, "floor \(floor): \(run.stderr)")
    }
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let levels = try #require(json["levels"] as? [[String: Any]])
    #expect(levels.count == union.count)
    var wider = 0
    for level in levels {
      let floor = try #require(level["floor"] as? Int)
      let key = LevelKey(
        floor: try #require(Floor(floor)), tileSize: try #require(level["tileSize"] as? Int), zoom: try #require(level["zoom"] as? Int))
      let expected = try #require(union[key], "\(key)")
      #expect(level["xRange"] as? [Int] == [expected.xRange.lowerBound, expected.xRange.upperBound], "\(key)")
      #expect(level["yRange"] as? [Int] == [expected.yRange.lowerBound, expected.yRange.upperBound], "\(key)")
      #expect(level["cells"] as? Int == expected.count, "\(key)")
      if (layersOfFloor[key.floor] ?? 0) > 1 { wider += 1 }
    }
    #expect(wider > 0)
    // and the manifest's levels are the same union
    let manifest = try JSONDecoder().decode(Manifest.self, from: try #require(FileManager.default.contents(atPath: campus + "/tiles/manifest.json")))
    #expect(manifest.levels.count == union.count)
    for level in manifest.levels {
      let expected = union[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)]
      #expect(expected.map { [$0.xRange.lowerBound, $0.xRange.upperBound] } == level.xRange)
      #expect(expected.map { [$0.yRange.lowerBound, $0.yRange.upperBound] } == level.yRange)
    }
  }
}
