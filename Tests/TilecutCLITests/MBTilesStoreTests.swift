import CSQLite
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutMBTiles
import TilecutVips

/// Runs SQL that changes a file, with the raw SQLite API (a test's way to damage an output).
private func damage(_ path: String, _ sql: String) throws {
  var db: OpaquePointer?
  guard sqlite3_open(path, &db) == SQLITE_OK else { throw TilecutError.invalidInput(path: path, reason: "cannot open") }
  defer { sqlite3_close(db) }
  guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
    throw TilecutError.invalidInput(path: path, reason: String(cString: sqlite3_errmsg(db)))
  }
}

/// XYZ tile → bytes of every row of an MBTiles file.
private func rows(_ path: String) throws -> [TileCoordinate: [UInt8]] {
  var out: [TileCoordinate: [UInt8]] = [:]
  try MBTilesReader(path: path).forEachRow { row in
    if let tile = row.tile { out[tile] = row.data }
  }
  return out
}

/// The deepest zoom of the 256 px levels.
private func zooms256Max(_ m: Manifest) -> Int { m.levels.filter { $0.tileSize == 256 }.map(\.zoom).max() ?? 0 }

@Suite("MBTiles store (issue 15)", .serialized)
struct MBTilesStoreTests {
  let bounds = "51.5006,-0.1275,51.5016,-0.1255"

  @Test("the same job as a directory and as MBTiles: the same tiles, TMS rows flipped, one file per floor and size")
  func sameTilesAsDirectory() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 700, height: 500, transparentLeft: 200).writePNG(to: dir + "/plan.png")
    let common = [dir + "/plan.png", "--bounds", bounds, "-q", "--floors", "1"]
    let d = try runTool(common + ["-o", dir + "/tiles"])
    let m = try runTool(common + ["-o", dir + "/mb", "--store", "mbtiles"])
    #expect(d.status == 0 && m.status == 0, "\(d.stderr)\(m.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/mb").sorted()
    #expect(files == ["L1_256.mbtiles", "L1_512.mbtiles", "manifest.json"])
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/mb/manifest.json")))
    #expect(manifest.store == .mbtiles)
    #expect(manifest.tileSets?.map(\.file) == ["L1_256.mbtiles", "L1_512.mbtiles"])
    let template = try TileNameTemplate(TileNameTemplate.defaultPattern)
    var compared = 0
    for size in [256, 512] {
      let stored = try rows(dir + "/mb/L1_\(size).mbtiles")
      let onDisk = snapshot(dir + "/tiles").filter { $0.key.hasPrefix("\(size)/") }
      #expect(stored.count == onDisk.count && !stored.isEmpty)
      for (tile, bytes) in stored {
        let path = template.path(floor: 1, tileSize: size, tile: tile)
        #expect(onDisk[path].map { [UInt8]($0) } == bytes, "\(size) px \(tile)")
        compared += 1
      }
      // the metadata names the floor's footprint, the zooms and the no-tile cells
      let meta = try MBTilesReader(path: dir + "/mb/L1_\(size).mbtiles").metadata()
      let b = (meta["bounds"] ?? "").split(separator: ",").compactMap { Double($0) }
      #expect(b.count == 4 && abs(b[0] - -0.1275) < 1e-6 && abs(b[1] - 51.5006) < 1e-6 && abs(b[2] - -0.1255) < 1e-6 && abs(b[3] - 51.5016) < 1e-6)
      let zooms = manifest.levels.filter { $0.tileSize == size }.map(\.zoom)
      #expect(meta["minzoom"] == zooms.min().map(String.init) && meta["maxzoom"] == zooms.max().map(String.init))
      #expect(meta["type"] == "overlay" && meta["format"] == "png")
      #expect(meta["json"]?.contains("\"tileSize\":\(size)") == true)
    }
    #expect(compared > 10)
    // preview stitches the same sheet from either store
    for store in ["tiles", "mb"] {
      let r = try runTool(["preview", dir + "/" + store, "--zoom", "\(zooms256Max(manifest))", "-o", dir + "/\(store).png"])
      #expect(r.status == 0, "\(r.stderr)")
    }
    let sheetA = try RGBAImage.decode(file: dir + "/tiles.png")
    let sheetB = try RGBAImage.decode(file: dir + "/mb.png")
    #expect(sheetA.width == sheetB.width && sheetA.pixels == sheetB.pixels)
    // verify agrees, and a second run is up to date without touching the files
    #expect(try runTool(["verify", dir + "/mb"]).status == 0)
    let upToDate = try runTool([dir + "/plan.png", "--bounds", bounds, "-o", dir + "/mb", "--store", "mbtiles"])
    #expect(upToDate.stderr.contains("up to date"), "\(upToDate.stderr)")
    // switching stores rebuilds
    let switched = try runTool([dir + "/plan.png", "--bounds", bounds, "-o", dir + "/mb", "-q"])
    #expect(switched.status == 0)
    #expect(FileManager.default.fileExists(atPath: dir + "/mb/256"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/mb/L1_256.mbtiles"))
  }

  @Test("verify reports a missing, an extra and a corrupt row of a damaged MBTiles file")
  func verifyFindsDamage() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    let made = try runTool([dir + "/plan.png", "--bounds", bounds, "-o", dir + "/mb", "--store", "mbtiles", "-q", "--tile-size", "256"])
    #expect(made.status == 0, "\(made.stderr)")
    let file = dir + "/mb/L1_256.mbtiles"
    let before = try rows(file)
    let sorted = before.keys.sorted { ($0.zoom, $0.y, $0.x) < ($1.zoom, $1.y, $1.x) }
    guard sorted.count >= 3 else {
      Issue.record("too few tiles")
      return
    }
    let gone = sorted[0]
    let corrupt = sorted[1]
    try damage(
      file,
      """
      DELETE FROM map WHERE zoom_level = \(gone.zoom) AND tile_column = \(gone.x) AND tile_row = \(mbtilesRow(for: gone));
      INSERT INTO images (tile_id, tile_data) VALUES ('junk', x'00010203');
      UPDATE map SET tile_id = 'junk' WHERE zoom_level = \(corrupt.zoom) AND tile_column = \(corrupt.x) AND tile_row = \(mbtilesRow(for: corrupt));
      INSERT INTO map VALUES (\(gone.zoom), \(gone.x), \(mbtilesRow(for: gone)) - 1, 'junk');
      """)
    // the file is not the one the manifest's digest records: that one line, its rows unread
    let changed = try runTool(["verify", dir + "/mb"])
    #expect(changed.status == 1)
    #expect(changed.stdout == "changed: L1_256.mbtiles (its bytes differ from the digest in the manifest)\n", "\(changed.stdout)")
    // a manifest without store digests (an older tilecut): every row is checked
    let manifestPath = dir + "/mb/manifest.json"
    let recorded = try #require(FileManager.default.contents(atPath: manifestPath))
    var older = try Manifest.decode(recorded)
    older.storeFileDigests = nil
    try older.encoded().write(to: URL(fileURLWithPath: manifestPath))
    let r = try runTool(["verify", dir + "/mb"])
    try recorded.write(to: URL(fileURLWithPath: manifestPath))
    #expect(r.status == 1)
    #expect(r.stdout.contains("missing row: L1_256.mbtiles tile \(gone)"), "\(r.stdout)")
    #expect(r.stdout.contains("does not decode") && r.stdout.contains("tile \(corrupt)"), "\(r.stdout)")
    #expect(r.stdout.contains("extra row") || r.stdout.contains("does not decode: L1_256.mbtiles row zoom \(gone.zoom)"), "\(r.stdout)")
    #expect(r.stderrLines.count == 1)
    // a rerun sees that the file is no longer the one tilecut wrote (its digest in the
    // manifest): someone changed it, so it is kept and the run stops
    let args = [dir + "/plan.png", "--bounds", bounds, "-o", dir + "/mb", "--store", "mbtiles", "--tile-size", "256"]
    let damaged = FileManager.default.contents(atPath: file)
    let refused = try runTool(args)
    #expect(refused.status == 1 && refused.stderr.contains("L1_256.mbtiles") && refused.stderr.contains("differ"), "\(refused.stderr)")
    #expect(FileManager.default.contents(atPath: file) == damaged)
    // once it is moved away, the rerun rebuilds it
    try FileManager.default.removeItem(atPath: file)
    let rerun = try runTool(args)
    #expect(rerun.status == 0 && !rerun.stderr.contains("up to date"), "\(rerun.stderr)")
    #expect(try runTool(["verify", dir + "/mb"]).status == 0)
  }

  @Test("verify finds a tile cut short by a few bytes, as a file and as an MBTiles row")
  func verifyFindsTruncation() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    for store in ["directory", "mbtiles"] {
      #expect(try runTool([dir + "/plan.png", "-o", dir + "/\(store)", "--store", store, "-q", "--tile-size", "256"]).status == 0)
    }
    let files = snapshot(dir + "/directory").keys.filter { $0.hasSuffix(".png") }.sorted()
    let victim = try #require(files.first)
    let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/directory/" + victim))
    try data.prefix(data.count - 20).write(to: URL(fileURLWithPath: dir + "/directory/" + victim))
    let r = try runTool(["verify", dir + "/directory"])
    #expect(r.status == 1 && r.stdout.contains("does not decode: \(victim)"), "\(r.stdout)")
    try damage(dir + "/mbtiles/L1_256.mbtiles", "UPDATE images SET tile_data = substr(tile_data, 1, length(tile_data) - 20) WHERE rowid = 1")
    let changed = try runTool(["verify", dir + "/mbtiles"])
    #expect(changed.status == 1 && changed.stdout.hasPrefix("changed: L1_256.mbtiles"), "\(changed.stdout)")
    // its rows, read where the manifest records no digest for the file
    let manifestPath = dir + "/mbtiles/manifest.json"
    var older = try Manifest.decode(try #require(FileManager.default.contents(atPath: manifestPath)))
    older.storeFileDigests = nil
    try older.encoded().write(to: URL(fileURLWithPath: manifestPath))
    let m = try runTool(["verify", dir + "/mbtiles"])
    #expect(m.status == 1 && m.stdout.contains("does not decode"), "\(m.stdout)")
  }

  @Test("MBTiles shards merge into exactly the single run's tiles")
  func shardsMerge() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 800).writePNG(to: dir + "/sheet.png")
    let common = [dir + "/sheet.png", "--floors", "2", "--bounds", bounds, "--store", "mbtiles", "-q"]
    #expect(try runTool(common + ["-o", dir + "/single"]).status == 0)
    for k in 1...3 { #expect(try runTool(common + ["-o", dir + "/part\(k)", "--shard", "\(k)/3"]).status == 0) }
    let merged = try runTool(["merge", dir + "/merged", dir + "/part1", dir + "/part2", dir + "/part3"])
    #expect(merged.status == 0, "\(merged.stderr)")
    for name in ["L1_256", "L1_512", "L2_256", "L2_512"] {
      #expect(try rows(dir + "/merged/\(name).mbtiles") == rows(dir + "/single/\(name).mbtiles"), "\(name)")
    }
    let a = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/single/manifest.json")))
    let b = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/merged/manifest.json")))
    #expect(a.levels.map(\.rows) == b.levels.map(\.rows))
    #expect(a.tileSets == b.tileSets)
    #expect(try runTool(["verify", dir + "/merged"]).status == 0)
    // a directory shard does not merge with MBTiles ones
    #expect(try runTool([dir + "/sheet.png", "--floors", "2", "--bounds", bounds, "-q", "-o", dir + "/dirpart", "--shard", "3/3"]).status == 0)
    let mixed = try runTool(["merge", dir + "/mixed", dir + "/part1", dir + "/part2", dir + "/dirpart"])
    #expect(mixed.status == 1 && mixed.stderr.contains("different job"), "\(mixed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/mixed"))
  }

  @Test("the same tiles make the same MBTiles file, byte for byte, whatever --jobs is")
  func reproducible() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 700).writePNG(to: dir + "/plan.png")
    for jobs in [1, 2, 3] {
      #expect(try runTool([dir + "/plan.png", "-o", dir + "/j\(jobs)", "--store", "mbtiles", "-q", "--jobs", "\(jobs)"]).status == 0)
    }
    for name in ["L1_256.mbtiles", "L1_512.mbtiles", "manifest.json"] {
      let one = FileManager.default.contents(atPath: dir + "/j1/" + name)
      #expect(one != nil && one == FileManager.default.contents(atPath: dir + "/j2/" + name), "\(name)")
      #expect(one == FileManager.default.contents(atPath: dir + "/j3/" + name), "\(name)")
    }
    // so a forced rebuild lists no change
    let r = try runTool([dir + "/plan.png", "-o", dir + "/j1", "--store", "mbtiles", "-q", "--force", "--changes", dir + "/changes.txt"])
    #expect(r.status == 0)
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8) == "")
  }

  @Test("--preview goes with the directory store only")
  func previewNeedsFiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 200).writePNG(to: dir + "/plan.png")
    let r = try runTool([dir + "/plan.png", "-o", dir + "/mb", "--store", "mbtiles", "--preview"])
    #expect(r.status == 2 && r.stderr.contains("--preview"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/mb"))
  }
}

@Suite("help")
struct HelpTests {
  @Test("--help and -h print the usage and exit 0, for the command and every subcommand", arguments: [[], ["verify"], ["merge"], ["preview"]])
  func help(sub: [String]) throws {
    for flag in ["--help", "-h"] {
      let r = try runTool(sub + [flag])
      #expect(r.status == 0 && !r.signalled, "\(sub) \(flag): \(r.stderr)")
      #expect(r.stdout.contains("OVERVIEW:") && r.stdout.contains("USAGE:"), "\(sub) \(flag)")
      #expect(!r.stderr.contains("error"), "\(r.stderr)")
    }
    if sub.isEmpty {
      let r = try runTool(["--help"])
      for option in ["--store", "--tile-size", "--source-crs", "--depfile", "--changes", "--max-pixels"] {
        #expect(r.stdout.contains(option), "--help lists \(option)")
      }
    }
  }
}
