import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutPMTiles

@testable import Tilecut

#if canImport(Glibc)
  import Glibc
#endif

/// Runs python3 with `code` and `args` (sys.argv[1:]); returns its exit status.
@discardableResult
func runPython(_ code: String, _ args: [String] = []) throws -> Int32 {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["python3", "-c", code] + args
  try p.run()
  p.waitUntilExit()
  return p.terminationStatus
}

/// Runs `args` as a grandchild of a fresh python3, which reports its exit status, stderr
/// and peak resident memory (`RUSAGE_CHILDREN`): a child spawned from the test process
/// itself would inherit the test's high-water mark through vfork.
func peakMemory(_ args: [String]) throws -> (status: Int32, stderr: String, maxResidentKB: Int) {
  let code = """
    import json, resource, subprocess, sys
    r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(json.dumps({"status": r.returncode, "stderr": r.stderr.decode(errors="replace"), "kb": kb}))
    """
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["python3", "-c", code] + args
  let out = Pipe()
  p.standardOutput = out
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
  return (Int32(object["status"] as? Int ?? -1), object["stderr"] as? String ?? "", object["kb"] as? Int ?? -1)
}

/// Issue 37's store reading falls (items 6, 7, 8, 12, 19, 20) and issue 41's `get` verb.
@Suite("store reading, hardened: get, empty tiles, WAL files, HTTP answers, verify's runs")
struct StoreHardeningTests {
  @Test("get STORE Z/X/Y (and Z X Y) -o FILE writes the tile; tile STORE Z X Y answers with get; unused options and a terminal refused")
  func getVerb() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    let level = try #require(job.manifest.levels.first { $0.tileSize == 256 && $0.zoom == 5 })
    let tile = level.tiles[level.tiles.count / 2]
    let expected = bytes(job.out + "/256/L1_5_\(tile.x)_\(tile.y).png")
    let r = try runTool(["get", job.out, "5/\(tile.x)/\(tile.y)", "-o", job.dir + "/t.png"])
    #expect(r.status == 0 && r.stdout.isEmpty, "\(r.stderr)")
    #expect(bytes(job.dir + "/t.png") == expected)
    let three = try runTool(["get", job.out, "5", String(tile.x), String(tile.y)])
    #expect(three.status == 0 && Array(three.stdout.utf8).count > 0, "\(three.stderr)")
    // the old form: one line naming the new command, usage exit, nothing written
    let old = try runTool(["tile", job.out, "5", String(tile.x), String(tile.y), "-o", job.dir + "/old.png"])
    #expect(old.status == 2 && old.stderrLines.count == 1, "\(old.status) \(old.stderr)")
    #expect(old.stderr.contains("use: tilecut get \(job.out) 5/\(tile.x)/\(tile.y)"), "\(old.stderr)")
    #expect(!FileManager.default.fileExists(atPath: job.dir + "/old.png") && old.stdout.isEmpty)
    // a store alone is a source: re-tiled, not answered with get
    let bare = try runTool(["tile", job.out, "--dry-run", "-o", job.dir + "/retiled"])
    #expect(bare.status == 0 && !bare.stderr.contains("use: tilecut get"), "\(bare.stderr)")
    // options get does not use: refused, one line, usage exit
    for extra in [["--max-zoom", "3"], ["--bounds", "51.5,-0.12,51.6,-0.11"], ["--store", "mbtiles"]] {
      let u = try runTool(["get", job.out, "5/\(tile.x)/\(tile.y)", "-o", job.dir + "/u.png"] + extra)
      #expect(u.status == 2 && u.stderrLines.count == 1, "\(extra): \(u.stderr)")
      #expect(!FileManager.default.fileExists(atPath: job.dir + "/u.png"), "\(extra)")
    }
    let bad = try runTool(["get", job.out, "5/x/1"])
    #expect(bad.status == 2 && bad.stderrLines.count == 1 && bad.stderr.contains("Z/X/Y"), "\(bad.stderr)")
    // stdout on a terminal (a pseudo-terminal here): refused, nothing written to it
    let onTerminal = """
      import os, pty, subprocess, sys
      master, slave = pty.openpty()
      r = subprocess.run(sys.argv[1:], stdout=slave, stderr=subprocess.PIPE)
      os.close(slave)
      os.set_blocking(master, False)
      try:
          shown = os.read(master, 1 << 20)
      except (BlockingIOError, OSError):
          shown = b""
      sys.stderr.write(r.stderr.decode())
      sys.exit(10 + r.returncode if not shown else 99)
      """
    let binary = try tilecutBinary()
    #expect(try runPython(onTerminal, [binary, "get", job.out, "5/\(tile.x)/\(tile.y)"]) == 12)
    #expect(try runPython(onTerminal, [binary, "get", job.out, "5/\(tile.x)/\(tile.y)", "-o", job.dir + "/tty.png"]) == 10)
    #expect(bytes(job.dir + "/tty.png") == expected)
  }

  @Test("an empty tile (0 bytes) in a directory, MBTiles or PMTiles store: get refuses it in one line; verify names it")
  func emptyTile() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    #expect(try tilecut([officePlan, "-o", job.dir + "/mb", "--store", "mbtiles"]) == 0)
    let level = try #require(job.manifest.levels.first { $0.tileSize == 256 && $0.zoom == 5 })
    let tile = level.tiles[0]
    // the directory store: the tile file truncated
    try Data().write(to: URL(fileURLWithPath: job.out + "/256/L1_5_\(tile.x)_\(tile.y).png"))
    // the MBTiles store: the row's blob emptied (TMS row)
    let row = (1 << 5) - 1 - tile.y
    #expect(
      try runPython(
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE images SET tile_data = x'' WHERE tile_id = (SELECT tile_id FROM map WHERE zoom_level = 5 AND tile_column = ? AND tile_row = ?)\", (int(sys.argv[2]), int(sys.argv[3]))); c.commit()",
        [job.dir + "/mb/L1_256.mbtiles", String(tile.x), String(row)]) == 0)
    // its new digest recorded, as whoever changed it could: verify reads its rows
    var mbManifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: job.dir + "/mb/manifest.json")))
    mbManifest.storeFileDigests?["L1_256.mbtiles"] = SHA256Digest.hex(ofFile: job.dir + "/mb/L1_256.mbtiles")
    try mbManifest.encoded().write(to: URL(fileURLWithPath: job.dir + "/mb/manifest.json"))
    // a PMTiles archive whose only tile is empty
    let root = PMTilesGzip.compress(PMTilesDirectory.serialize([PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 1)]))
    var header = PMTilesHeader()
    header.rootDirectoryOffset = UInt64(PMTilesHeader.size)
    header.rootDirectoryLength = UInt64(root.count)
    header.metadataOffset = header.rootDirectoryOffset + header.rootDirectoryLength
    header.leafDirectoriesOffset = header.metadataOffset
    header.tileDataOffset = header.metadataOffset
    (header.addressedTiles, header.tileEntries, header.tileContents) = (1, 1, 1)
    header.tileType = .png
    let archive = job.dir + "/empty.pmtiles"
    try Data(header.encoded() + root).write(to: URL(fileURLWithPath: archive))
    for (store, at) in [(job.out, "5/\(tile.x)/\(tile.y)"), (job.dir + "/mb", "5/\(tile.x)/\(tile.y)"), (archive, "0/0/0")] {
      let r = try runTool(["get", store, at, "--floor", "1", "-o", job.dir + "/t.png"].filter { store != archive || ($0 != "--floor" && $0 != "1") })
      #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("empty tile"), "\(store): \(r.status) \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: job.dir + "/t.png"), "\(store)")
    }
    for store in [job.out, job.dir + "/mb"] {
      let v = try runTool(["verify", store])
      #expect(v.status == 1 && v.stdout.contains("empty tile:"), "\(store): \(v.stdout) \(v.stderr)")
    }
  }

  @Test("show and get of a WAL-mode MBTiles leave nothing beside it (no -wal, no -shm)")
  func walModeLeavesNothing() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(try tilecut([officePlan, "-o", dir + "/mb", "--store", "mbtiles"]) == 0)
    let file = dir + "/mb/L1_256.mbtiles"
    // WAL mode, checkpointed and closed: the -wal and -shm files gone
    #expect(try runPython("import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); c.close()", [file]) == 0)
    let before = Set(try FileManager.default.contentsOfDirectory(atPath: dir + "/mb"))
    #expect(!before.contains("L1_256.mbtiles-wal") && !before.contains("L1_256.mbtiles-shm"), "\(before)")
    #expect(try runTool(["show", file]).status == 0)
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/mb/manifest.json")))
    let tile = try #require(manifest.levels.first { $0.tileSize == 256 && $0.tileCount > 0 }?.tiles.first)
    let r = try runTool(["get", file, "\(tile.zoom)/\(tile.x)/\(tile.y)", "-o", dir + "/t.png"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try runTool(["show", dir + "/mb"]).status == 0)
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir + "/mb")) == before)
  }

  @Test("a server that ignores Range with a body without end: refused at its status line, the bytes it could send bounded")
  func endlessBody() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    _ = try job.pythonArchive(job.dir + "/o.pmtiles")
    let server = try RangeServer(root: job.dir)
    defer { server.stop() }
    let r = try runTool(["get", server.url("endless/o.pmtiles").absoluteString, "0/0/0", "-o", job.dir + "/t.png"], timeout: 120)
    #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("ignores Range"), "\(r.status) \(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: job.dir + "/t.png"))
    // what the server got off its hands: the socket buffers' worth, not its 1 GiB
    let stats = try server.stats()
    #expect(stats.bytes < 64 << 20, "\(stats.bytes) bytes sent")
  }

  @Test("a server that answers the range gzip-encoded (512 KiB inflating to 512 MiB): refused at its header, memory bounded")
  func gzipBomb() throws {
    let job = try OfficeJob()
    defer { try? FileManager.default.removeItem(atPath: job.dir) }
    _ = try job.pythonArchive(job.dir + "/o.pmtiles")
    let server = try RangeServer(root: job.dir)
    defer { server.stop() }
    let p = try peakMemory([try tilecutBinary(), "get", server.url("gzip/o.pmtiles").absoluteString, "0/0/0", "-o", job.dir + "/t.png"])
    #expect(p.status == 1, "\(p.status) \(p.stderr)")
    #expect(p.stderr.contains("Content-Encoding") && p.stderr.split(separator: "\n").count == 1, "\(p.stderr)")
    // nothing inflated: far below the 512 MiB the answer holds
    #expect(p.maxResidentKB < 200_000, "\(p.maxResidentKB) KB resident")
    #expect(try server.stats().requests == 1)
  }

  @Test("verify of an archive whose run addresses 2^32 − 1 tiles: one problem, the run never expanded (under a 4 GB address-space limit)")
  func hugeRun() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(try tilecut([officePlan, "-o", dir + "/pm", "--store", "pmtiles"]) == 0)
    let path = dir + "/pm/L1_256.pmtiles"
    var whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var h = try PMTilesHeader(decoding: whole)
    // the root becomes one run of 2^32 − 1 tiles from the first tile of zoom 16, holding the first content
    let reader = try PMTilesReader(path: path)
    var first: PMTilesEntry?
    try reader.forEachEntry { e in if first == nil { first = e } }
    let content = try #require(first)
    let run = [PMTilesEntry(tileID: PMTilesTileID.base(zoom: 16), offset: content.offset, length: content.length, runLength: UInt32.max)]
    let serialized = PMTilesDirectory.serialize(run)
    let root = h.internalCompression == .gzip ? PMTilesGzip.compress(serialized) : serialized
    #expect(UInt64(root.count) <= h.rootDirectoryLength)
    whole.replaceSubrange(Int(h.rootDirectoryOffset)..<Int(h.rootDirectoryOffset) + root.count, with: root)
    h.rootDirectoryLength = UInt64(root.count)
    h.leafDirectoriesLength = 0
    (h.addressedTiles, h.tileEntries, h.tileContents) = (UInt64(UInt32.max), 1, 1)
    whole.replaceSubrange(0..<PMTilesHeader.size, with: h.encoded())
    try Data(whole).write(to: URL(fileURLWithPath: path))
    let r = try runTool([], shell: "ulimit -v 4000000; TILECUT verify \(dir)/pm", timeout: 300)
    #expect(r.status == 1, "\(r.status) \(r.stderr)")
    #expect(r.stdout.contains("extra tiles: L1_256.pmtiles addresses more tiles than"), "\(r.stdout.prefix(2000))")
    #expect(r.stdout.split(separator: "\n").count < 100, "\(r.stdout.split(separator: "\n").count) lines")
  }
}

/// Issue 37 item 5: tiles carried out of a previous archive are checked against the
/// manifest's level digests, as the directory store's are.
@Suite("build: incremental reuse checks the previous archives' level digests")
struct ArchiveReuseTests {
  @Test(
    "two tiles swapped in an unchanged floor's archive, its new SHA-256 written into the manifest: the next build refuses to carry them",
    arguments: [Manifest.Store.mbtiles, .pmtiles])
  func swappedTilesRefused(store: Manifest.Store) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, text) = try campusCopy(dir, store: store.rawValue)
    let out = dir + "/campus/tiles"
    #expect(try tilecut(["build", file]) == 0)
    var manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
    let set = try #require(manifest.tileSets?.first { $0.floor.number == 2 && $0.tileSize == 256 })
    let path = out + "/" + set.file
    // two tiles of one floor-2 level whose bytes differ
    let reader = try StoreReader(out)
    var pair: (TileCoordinate, [UInt8], TileCoordinate, [UInt8])?
    for level in manifest.levels where level.floor.number == 2 && level.tileSize == 256 && pair == nil {
      var firstTile: (TileCoordinate, [UInt8])?
      for tile in level.tiles {
        guard case .tile(let b) = try reader.cell(tile, floor: 2, tileSize: 256) else { continue }
        if let (t, a) = firstTile, a != b {
          pair = (t, a, tile, b)
          break
        }
        if firstTile == nil { firstTile = (tile, b) }
      }
    }
    let (a, aBytes, b, bBytes) = try #require(pair)
    if store == .mbtiles {
      // the map rows of the two cells exchange their images (the MBTiles store's tiles view joins map and images)
      let swap = """
        import sqlite3, sys
        c = sqlite3.connect(sys.argv[1])
        z, ax, ay, bx, by = (int(v) for v in sys.argv[2:])
        n = 1 << z
        q = "SELECT tile_id FROM map WHERE zoom_level=? AND tile_column=? AND tile_row=?"
        ia = c.execute(q, (z, ax, n - 1 - ay)).fetchone()[0]
        ib = c.execute(q, (z, bx, n - 1 - by)).fetchone()[0]
        u = "UPDATE map SET tile_id=? WHERE zoom_level=? AND tile_column=? AND tile_row=?"
        c.execute(u, (ib, z, ax, n - 1 - ay))
        c.execute(u, (ia, z, bx, n - 1 - by))
        c.commit()
        c.close()
        """
      #expect(try runPython(swap, [path] + [a.zoom, a.x, a.y, b.x, b.y].map(String.init)) == 0)
    } else {
      // the archive written again with the two tiles' contents exchanged
      let old = try PMTilesReader(path: path)
      let swapped = dir + "/swapped.pmtiles"
      let writer = try PMTilesWriter(path: swapped)
      var entries: [PMTilesEntry] = []
      try old.forEachEntry { entries.append($0) }
      for e in entries {
        let data = try old.tileBytes(e)
        for i in 0..<UInt64(e.runLength) {
          guard let t = PMTilesTileID.zxy(e.tileID + i) else { continue }
          let tile = TileCoordinate(zoom: t.z, x: t.x, y: t.y)
          let put = tile == a ? bBytes : tile == b ? aBytes : data
          try writer.put(z: t.z, x: t.x, y: t.y, data: put, sha256: SHA256Digest.hex(put))
        }
      }
      try writer.finish(header: old.header, metadata: [UInt8](try old.metadata()))
      try FileManager.default.removeItem(atPath: path)
      try FileManager.default.moveItem(atPath: swapped, toPath: path)
    }
    // the file's new digest written where tilecut records its own files'
    manifest.storeFileDigests?[set.file] = SHA256Digest.hex(ofFile: path)
    try manifest.encoded().write(to: URL(fileURLWithPath: out + "/manifest.json"))
    let swappedFile = SHA256Digest.hex(ofFile: path)
    // the annex's floor 1 changes: floor 2 would be carried over
    try text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9").write(toFile: file, atomically: true, encoding: .utf8)
    let r = try runTool(["build", file, "-q"], timeout: 600)
    #expect(r.status == 1 && r.stderrLines.count == 1, "\(r.status) \(r.stderr)")
    #expect(r.stderr.contains(set.file) && r.stderr.contains("differ from those tilecut wrote"), "\(r.stderr)")
    // nothing replaced: the archive as the user left it
    #expect(SHA256Digest.hex(ofFile: path) == swappedFile)
  }
}
