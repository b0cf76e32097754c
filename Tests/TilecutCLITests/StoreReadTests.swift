import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutPMTiles

@testable import Tilecut

#if canImport(Glibc)
  import Glibc
#endif

/// Tests/scripts/pmtiles-fixture.py: the Python pmtiles writer, and a loopback Range server.
let pmtilesFixture = pmtilesFixtureScript
let officePlan = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../examples/floorplan/office.png")
  .standardized.path

/// Runs the fixture script; returns its stdout.
@discardableResult
func fixture(_ args: [String]) throws -> Data {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["python3", pmtilesFixture] + args
  let out = Pipe()
  p.standardOutput = out
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  guard p.terminationStatus == 0 else { throw TilecutError.invalidInput(path: pmtilesFixture, reason: "failed: \(args)") }
  return data
}

/// One tilecut job of examples/floorplan/office.png as a directory store, shared by the tests.
struct OfficeJob {
  let dir: String
  var out: String { dir + "/out" }
  let manifest: Manifest

  init() throws {
    dir = try scratch("storeRead")
    #expect(try tilecut([officePlan, "-o", dir + "/out"]) == 0)
    manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
  }

  /// A Python-written archive of one size's tiles; returns [z, x, y, file] of each tile.
  func pythonArchive(_ path: String, size: Int = 256, leaf: Int? = nil, run: Int? = nil) throws -> [(TileCoordinate, String)] {
    var args = ["write", out, path, "--size", String(size)]
    if let leaf { args += ["--leaf", String(leaf)] }
    if let run { args += ["--run", String(run)] }
    let list = try JSONSerialization.jsonObject(with: try fixture(args)) as? [[Any]] ?? []
    return list.map { (TileCoordinate(zoom: $0[0] as? Int ?? -1, x: $0[1] as? Int ?? -1, y: $0[2] as? Int ?? -1), $0[3] as? String ?? "") }
  }

  /// A cell of `size` px inside a level's range that has no tile, if any.
  func blankCell(size: Int) -> TileCoordinate? {
    for level in manifest.levels where level.tileSize == size {
      for y in level.yRange[0]...level.yRange[1] {
        for x in level.xRange[0]...level.xRange[1] where !level.hasTile(x: x, y: y) {
          return TileCoordinate(zoom: level.zoom, x: x, y: y)
        }
      }
    }
    return nil
  }
}

func bytes(_ path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

@Suite("show and get STORE Z/X/Y, PMTiles written by the Python pmtiles package")
struct StoreReadTests {
  @Test(
    "a Python-written archive of a real job (leaf directories, a run) reads tile for tile as the directory store, from a file and over HTTP")
  func officeArchive() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    let written = try job.pythonArchive(job.dir + "/o.pmtiles", leaf: 20, run: 9)
    let reader = try PMTilesReader(path: job.dir + "/o.pmtiles")
    #expect(reader.header.leafDirectoriesLength > 0 && reader.header.tileEntries < reader.header.addressedTiles)
    let office = job.manifest.levels.filter { $0.tileSize == 256 }.reduce(0) { $0 + $1.tileCount }
    #expect(written.count == office + 300)
    let server = try RangeServer(root: job.dir)
    defer { server.stop() }
    let remote = try PMTilesReader(url: server.url("o.pmtiles"))
    for (tile, file) in written {
      let expected = bytes(file)
      #expect(expected != nil)
      #expect(try reader.tile(z: tile.zoom, x: tile.x, y: tile.y) == expected, "\(tile)")
      #expect(try remote.tile(z: tile.zoom, x: tile.x, y: tile.y) == expected, "\(tile) over HTTP")
    }
    // and every tile of the directory store is in it
    for level in job.manifest.levels where level.tileSize == 256 {
      for tile in level.tiles {
        #expect(try reader.tile(z: tile.zoom, x: tile.x, y: tile.y) == bytes(job.out + "/256/L1_\(tile.zoom)_\(tile.x)_\(tile.y).png"))
      }
    }
  }

  @Test(
    "tilecut get http://127.0.0.1:PORT/x.pmtiles Z/X/Y: the tile's bytes in at most 4 requests, never the whole file; a server ignoring Range is refused"
  )
  func tileOverHTTP() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    // padding tiles at zoom 12 put the office tiles far past the first 16 KiB
    _ = try job.pythonArchive(job.dir + "/o.pmtiles", leaf: 20, run: 12)
    let size = try FileManager.default.attributesOfItem(atPath: job.dir + "/o.pmtiles")[.size] as? Int ?? 0
    let server = try RangeServer(root: job.dir)
    defer { server.stop() }
    let level = try #require(job.manifest.levels.first { $0.tileSize == 256 && $0.zoom == 5 })
    let tile = level.tiles[level.tiles.count / 2]
    let r = try runTool([], shell: "TILECUT get \(server.url("o.pmtiles")) 5/\(tile.x)/\(tile.y) > \(job.dir)/t.png")
    #expect(r.status == 0, "\(r.stderr)")
    #expect(bytes(job.dir + "/t.png") == bytes(job.out + "/256/L1_5_\(tile.x)_\(tile.y).png"))
    let stats = try server.stats()
    #expect(stats.requests <= 4 && stats.bytes < size / 2, "\(stats) of \(size) bytes")
    #expect(!stats.ranges.contains("none"), "a request without Range: \(stats.ranges)")
    // no tile there: one line, exit 1
    let blank = try runTool(["get", server.url("o.pmtiles").absoluteString, "5/0/31"])
    #expect(blank.status == 1 && blank.stderrLines.count == 1 && blank.stderr.contains("blank"), "\(blank.stderr)")
    let outside = try runTool(["get", server.url("o.pmtiles").absoluteString, "13/0/0"])
    #expect(outside.status == 1 && outside.stderrLines.count == 1 && outside.stderr.contains("outside the pyramid"), "\(outside.stderr)")
    // a server that answers 200 with the whole file
    let ignoring = try RangeServer(root: job.dir, ignoreRange: true)
    defer { ignoring.stop() }
    let refused = try runTool(["get", ignoring.url("o.pmtiles").absoluteString, "5/\(tile.x)/\(tile.y)"])
    #expect(refused.status == 1 && refused.stderrLines.count == 1 && refused.stderr.contains("ignores Range"), "\(refused.stderr)")
    #expect(refused.stdout.isEmpty)
  }

  @Test("show on a directory output, an MBTiles output, a Python-written .pmtiles and a PMTiles store's manifest; --json parses")
  func show() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    func json(_ store: String) throws -> [String: Any] {
      let r = try runTool(["show", store, "--json"])
      #expect(r.status == 0, "\(r.stderr)")
      return try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
    }
    let tiles = job.manifest.levels.reduce(0) { $0 + $1.tileCount }
    let directory = try json(job.out)
    #expect(directory["kind"] as? String == "directory")
    #expect(directory["tileCount"] as? Int == tiles)
    #expect(directory["floors"] as? [Int] == [1] && directory["tileSizes"] as? [Int] == [256, 512])
    #expect((directory["zooms"] as? [Int])?.count == 2 && (directory["bounds"] as? [Double])?.count == 4)

    #expect(try tilecut([officePlan, "-o", job.dir + "/mb", "--store", "mbtiles"]) == 0)
    let mbtiles = try json(job.dir + "/mb")
    #expect(mbtiles["kind"] as? String == "mbtiles" && mbtiles["tileCount"] as? Int == tiles)
    let single = try json(job.dir + "/mb/L1_512.mbtiles")
    #expect(single["kind"] as? String == "mbtiles" && single["tileCount"] as? Int == tiles / 2)

    let written = try job.pythonArchive(job.dir + "/o.pmtiles", leaf: 20)
    let pm = try json(job.dir + "/o.pmtiles")
    #expect(pm["kind"] as? String == "pmtiles" && pm["tileCount"] as? Int == written.count)
    #expect((pm["metadata"] as? [String: Any])?["name"] as? String == "office")
    let text = try runTool(["show", job.dir + "/o.pmtiles"])
    #expect(text.status == 0 && text.stdout.contains("pmtiles") && text.stdout.contains("tiles: \(written.count)"))

    // a PMTiles store as the pmtiles branch lists it: L{floor}_{size}.pmtiles in tileSets
    let store = try pmtilesStore(job)
    let pmStore = try json(store)
    #expect(pmStore["kind"] as? String == "pmtiles" && pmStore["tileCount"] as? Int == tiles)
    #expect((pmStore["tileSets"] as? [[String: Any]])?.compactMap { $0["file"] as? String } == ["L1_256.pmtiles", "L1_512.pmtiles"])
  }

  /// The office job with its tiles moved into Python-written archives, and a manifest
  /// naming them in `tileSets` with `store: pmtiles`.
  func pmtilesStore(_ job: OfficeJob) throws -> String {
    let store = job.dir + "/pmstore"
    try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
    for size in [256, 512] { _ = try job.pythonArchive(store + "/L1_\(size).pmtiles", size: size, leaf: 30) }
    var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: job.out + "/manifest.json"))) as? [String: Any] ?? [:]
    object["store"] = "pmtiles"
    object["tileSets"] = [256, 512].map { ["floor": 1, "tileSize": $0, "file": "L1_\($0).pmtiles"] }
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: store + "/manifest.json"))
    return store
  }

  @Test("get STORE Z/X/Y on a directory, an MBTiles and a PMTiles store: the same bytes, and exit 1 with one line for blank and outside cells")
  func tileAnswers() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    #expect(try tilecut([officePlan, "-o", job.dir + "/mb", "--store", "mbtiles"]) == 0)
    let pm = try pmtilesStore(job)
    let level = try #require(job.manifest.levels.first { $0.tileSize == 512 && $0.zoom == 4 })
    let tile = level.tiles[level.tiles.count / 3]
    let expected = bytes(job.out + "/512/L1_4_\(tile.x)_\(tile.y).png")
    for store in [job.out, job.dir + "/mb", pm] {
      let r = try runTool([], shell: "TILECUT get \(store) 4/\(tile.x)/\(tile.y) --tile-size 512 --floor 1 > \(job.dir)/t.png")
      #expect(r.status == 0, "\(store): \(r.stderr)")
      #expect(bytes(job.dir + "/t.png") == expected, "\(store)")
      // blank: inside the footprint's cells, no tile
      if let blank = job.blankCell(size: 256) {
        let b = try runTool(["get", store, "\(blank.zoom)/\(blank.x)/\(blank.y)"])
        #expect(b.status == 1 && b.stderrLines.count == 1 && b.stderr.contains("blank"), "\(store): \(b.stderr)")
        #expect(b.stdout.isEmpty)
      }
      let o = try runTool(["get", store, "2/3/3"])
      #expect(o.status == 1 && o.stderrLines.count == 1 && o.stderr.contains("outside the pyramid"), "\(store): \(o.stderr)")
      let deep = try runTool(["get", store, "9", "0", "0"])
      #expect(deep.status == 1 && deep.stderr.contains("outside the pyramid"), "\(store): \(deep.stderr)")
      let floor = try runTool(["get", store, "4/0/0", "--floor", "3"])
      #expect(floor.status == 2 && floor.stderrLines.count == 1 && floor.stderr.contains("--floor"), "\(store): \(floor.stderr)")
    }
    #expect(job.blankCell(size: 256) != nil, "the office job has no blank cell to ask for")
    let usage = try runTool(["get", job.out, "4/x/0"])
    #expect(usage.status == 2 && usage.stderrLines.count == 1, "\(usage.stderr)")
  }

  @Test("hostile archives: truncated, a directory of millions of entries, a self-pointing leaf; one line, exit 1")
  func hostile() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    _ = try job.pythonArchive(job.dir + "/o.pmtiles")
    let whole = try Data(contentsOf: URL(fileURLWithPath: job.dir + "/o.pmtiles"))
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: job.dir + "/cut.pmtiles"))
    try whole.prefix(60).write(to: URL(fileURLWithPath: job.dir + "/short.pmtiles"))
    var huge: [UInt8] = []
    Varint.append(9_000_000, to: &huge)
    var h = try PMTilesHeader(decoding: [UInt8](whole))
    let root = PMTilesGzip.compress(huge + [1, 1, 1, 1])
    h.rootDirectoryLength = UInt64(root.count)
    var forged = [UInt8](whole)
    forged.replaceSubrange(0..<PMTilesHeader.size, with: h.encoded())
    forged.replaceSubrange(Int(h.rootDirectoryOffset)..<Int(h.rootDirectoryOffset) + root.count, with: root)
    try Data(forged).write(to: URL(fileURLWithPath: job.dir + "/huge.pmtiles"))
    for (name, words) in [("cut", "past the end"), ("short", "127-byte"), ("huge", "claims 9000000 entries")] {
      for args in [["get", job.dir + "/\(name).pmtiles", "0/0/0"], ["show", job.dir + "/\(name).pmtiles"]] {
        let r = try runTool(args)
        #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(words), "\(name): \(r.stderr)")
        #expect(r.stderr.contains("\(name).pmtiles"))
      }
    }
  }
}
