import Foundation
import Testing
import TilecutFixtures

@testable import TilecutPMTiles

#if canImport(Glibc)
  import Glibc
#endif

/// Tests/scripts/pmtiles-fixture.py: archives by the Python writer, and a loopback Range server.
let fixtureScript = pmtilesFixtureScript

/// A byte source that counts its reads.
final class CountingSource: PMTilesByteSource, @unchecked Sendable {
  let inner: PMTilesFileSource
  let lock = NSLock()
  var reads = 0
  init(_ path: String) throws { inner = try PMTilesFileSource(path: path) }
  var size: UInt64? { inner.size }
  var name: String { inner.name }
  func read(offset: UInt64, length: Int) throws -> [UInt8] {
    lock.withLock { reads += 1 }
    return try inner.read(offset: offset, length: length)
  }
  func prefix(_ length: Int) throws -> [UInt8] { try read(offset: 0, length: length) }
}

func scratchDirectory(_ name: String = #function) throws -> String {
  try TestEnvironment.scratchDirectory("pmtiles", for: name)
}

/// An archive by the Python writer: `count` tiles over zooms 0…12 (distinct bytes but for
/// runs of equal ones), `leaf` entries per leaf directory; returns z/x/y → bytes.
func pythonArchive(_ path: String, count: Int, leaf: Int?) throws -> [String: [UInt8]] {
  let script = """
    import json, sys, random
    import pmtiles.writer as pw
    from pmtiles.tile import zxy_to_tileid, tileid_to_zxy, TileType, Compression
    path, count, leaf = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if leaf != "none":
        pw.optimize_directories = lambda entries, target: pw.build_roots_leaves(entries, int(leaf))
    rng = random.Random(7)
    ids = sorted(rng.sample(range(zxy_to_tileid(12, 0, 0)), count))
    out = {}
    with open(path, "wb") as f:
        w = pw.Writer(f)
        for i, tid in enumerate(ids):
            # every fifth tile repeats one payload: runs where IDs are consecutive, shared bytes elsewhere
            data = b"same-tile" if i % 5 == 0 else ("tile %d " % tid).encode() * (1 + i % 7)
            w.write_tile(tid, data)
            z, x, y = tileid_to_zxy(tid)
            out["%d/%d/%d" % (z, x, y)] = data.hex()
        # a run of 50 equal tiles at consecutive IDs
        base = zxy_to_tileid(12, 0, 0) + 10
        for k in range(50):
            w.write_tile(base + k, b"run")
            z, x, y = tileid_to_zxy(base + k)
            out["%d/%d/%d" % (z, x, y)] = b"run".hex()
        w.finalize({"tile_type": TileType.PNG, "tile_compression": Compression.NONE, "min_lon_e7": -1800000000,
                    "min_lat_e7": -850000000, "max_lon_e7": 1800000000, "max_lat_e7": 850000000,
                    "center_zoom": 0, "center_lon_e7": 0, "center_lat_e7": 0}, {"name": "python", "count": count})
    json.dump(out, sys.stdout)
    """
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["python3", "-c", script, path, String(count), leaf.map(String.init) ?? "none"]
  let out = Pipe()
  p.standardOutput = out
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  guard p.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: data) as? [String: String] else {
    throw PMTilesFormatError("the Python pmtiles writer failed")
  }
  return object.mapValues { hex in
    var bytes: [UInt8] = []
    var i = hex.startIndex
    while i < hex.endIndex {
      let j = hex.index(i, offsetBy: 2)
      bytes.append(UInt8(hex[i..<j], radix: 16) ?? 0)
      i = j
    }
    return bytes
  }
}

func cell(_ key: String) -> (z: Int, x: Int, y: Int) {
  let p = key.split(separator: "/").map { Int($0) ?? -1 }
  return (p[0], p[1], p[2])
}

/// Every tile the reader's entries name, runs expanded.
func allTiles(_ reader: PMTilesReader) throws -> [String: [UInt8]] {
  var out: [String: [UInt8]] = [:]
  try reader.forEachEntry { e in
    let bytes = try reader.tileBytes(e)
    for k in 0..<UInt64(e.runLength) {
      guard let c = PMTilesTileID.zxy(e.tileID + k) else { continue }
      out["\(c.z)/\(c.x)/\(c.y)"] = bytes
    }
  }
  return out
}

@Suite("PMTiles reader, against archives the Python pmtiles writer made")
struct PMTilesReaderTests {
  @Test(
    "every tile of a Python-written archive, with runs and with or without leaf directories, read tile for tile from a file",
    arguments: [nil, 64])
  func pythonArchiveFromFile(leaf: Int?) throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/p.pmtiles"
    let expected = try pythonArchive(path, count: 3000, leaf: leaf)
    let reader = try PMTilesReader(path: path)
    #expect(reader.header.clustered)
    #expect(reader.header.addressedTiles == UInt64(expected.count))
    if leaf != nil { #expect(reader.header.leafDirectoriesLength > 0, "the writer made no leaf directories") }
    #expect(reader.header.tileEntries < reader.header.addressedTiles, "no run-length entries")
    for (key, bytes) in expected {
      let c = cell(key)
      #expect(try reader.tile(z: c.z, x: c.x, y: c.y) == bytes, "\(key)")
    }
    #expect(try allTiles(reader) == expected)
    // cells the archive lacks: nil, not an error
    var absent = 0
    for x in 0..<64 where expected["6/\(x)/5"] == nil {
      #expect(try reader.tile(z: 6, x: x, y: 5) == nil)
      absent += 1
    }
    #expect(absent > 0)
    #expect(try reader.tile(z: 40, x: 0, y: 0) == nil && reader.tile(z: 3, x: 8, y: 0) == nil)
    let meta = try reader.metadataObject()
    #expect(meta["name"] as? String == "python" && meta["count"] as? Int == 3000)
  }

  @Test("a cold tile costs at most 4 reads, a tile whose leaf is cached one")
  func readCounts() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/p.pmtiles"
    let expected = try pythonArchive(path, count: 6000, leaf: 64)
    let keys = expected.keys.sorted()
    for key in keys.prefix(40) {
      let source = try CountingSource(path)
      let reader = try PMTilesReader(source: source)
      let c = cell(key)
      #expect(try reader.tile(z: c.z, x: c.x, y: c.y) == expected[key])
      #expect(source.reads <= 4, "\(key): \(source.reads) reads")
    }
    // warm: once the leaf holding a tile is cached, the tile alone is read
    let source = try CountingSource(path)
    let reader = try PMTilesReader(source: source)
    let c = cell(keys[100])
    _ = try reader.tile(z: c.z, x: c.x, y: c.y)
    let before = source.reads
    _ = try reader.tile(z: c.z, x: c.x, y: c.y)
    #expect(source.reads - before <= 1)
  }

  @Test("the leaf cache stays within its bounds and still answers every tile")
  func boundedCache() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/p.pmtiles"
    let expected = try pythonArchive(path, count: 3000, leaf: 32)
    var limits = PMTilesLimits()
    (limits.cachedLeaves, limits.cachedEntries) = (3, 80)
    let reader = try PMTilesReader(path: path, limits: limits)
    for (key, bytes) in expected {
      let c = cell(key)
      #expect(try reader.tile(z: c.z, x: c.x, y: c.y) == bytes, "\(key)")
      #expect(reader.leaves.count <= 3 && reader.cachedEntries <= 80)
    }
    #expect(reader.leaves.count >= 1)
  }

  @Test("over HTTP with Range: every tile, header and root in one request, a cold tile in at most 4, never the whole file")
  func overHTTP() async throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let expected = try pythonArchive(dir + "/p.pmtiles", count: 6000, leaf: 64)
    let size = try FileManager.default.attributesOfItem(atPath: dir + "/p.pmtiles")[.size] as? Int ?? 0
    let server = try RangeServer(root: dir)
    defer { server.stop() }
    let key = expected.keys.sorted()[2500]
    let c = cell(key)
    let cold = try PMTilesReader(url: server.url("p.pmtiles"))
    #expect(try server.stats().requests == 1)
    #expect(try cold.tile(z: c.z, x: c.x, y: c.y) == expected[key])
    let stats = try server.stats()
    #expect(stats.requests <= 4 && stats.bytes < size / 2, "\(stats) of \(size) bytes")
    // the rest, through one reader
    let reader = try PMTilesReader(url: server.url("p.pmtiles"))
    for (key, bytes) in expected.sorted(by: { $0.key < $1.key }).prefix(600) {
      let c = cell(key)
      #expect(try reader.tile(z: c.z, x: c.x, y: c.y) == bytes, "\(key)")
    }
    #expect(try allTiles(reader) == expected)
    // the async form reads the same bytes
    #expect(try await reader.loadTile(z: c.z, x: c.x, y: c.y) == expected[key])
  }

  @Test("an archive behind a redirect: the first read follows it, later reads go straight to where it led (a cold tile in at most 4 requests)")
  func redirected() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let expected = try pythonArchive(dir + "/p.pmtiles", count: 6000, leaf: 64)
    let server = try RangeServer(root: dir)
    defer { server.stop() }
    let key = expected.keys.sorted()[3100]
    let c = cell(key)
    let cold = try PMTilesReader(url: server.url("redirect/p.pmtiles"))
    #expect(try cold.tile(z: c.z, x: c.x, y: c.y) == expected[key])
    let stats = try server.stats()
    // the 302 and the header's range, then a leaf and the tile at the file's own URL
    #expect(stats.requests <= 4, "\(stats)")
    #expect(stats.requests >= 3)
  }

  @Test("a server that ignores Range is refused in one line, and a missing file is a 404")
  func ignoredRange() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = try pythonArchive(dir + "/p.pmtiles", count: 3000, leaf: nil)
    let server = try RangeServer(root: dir, ignoreRange: true)
    defer { server.stop() }
    let error = #expect(throws: PMTilesFormatError.self) { try PMTilesReader(url: server.url("p.pmtiles")) }
    #expect(error?.reason.contains("ignores Range") == true)
    #expect(error?.reason.contains("\n") == false)
    let missing = #expect(throws: PMTilesFormatError.self) { try PMTilesReader(url: server.url("none.pmtiles")) }
    #expect(missing?.reason.contains("404") == true)
  }
}

/// Archives made byte by byte, for the hostile cases.
func archive(root: [PMTilesEntry], leaves: [UInt8] = [], tiles: [UInt8] = [], rootBytes: [UInt8]? = nil) -> [UInt8] {
  let rootStored = rootBytes ?? PMTilesGzip.compress(PMTilesDirectory.serialize(root))
  let meta = PMTilesGzip.compress(Array("{}".utf8))
  var h = PMTilesHeader()
  h.rootDirectoryOffset = UInt64(PMTilesHeader.size)
  h.rootDirectoryLength = UInt64(rootStored.count)
  h.metadataOffset = h.rootDirectoryOffset + h.rootDirectoryLength
  h.metadataLength = UInt64(meta.count)
  h.leafDirectoriesOffset = h.metadataOffset + h.metadataLength
  h.leafDirectoriesLength = UInt64(leaves.count)
  h.tileDataOffset = h.leafDirectoriesOffset + h.leafDirectoriesLength
  h.tileDataLength = UInt64(tiles.count)
  h.maxZoom = 12
  h.tileType = .png
  return h.encoded() + rootStored + meta + leaves + tiles
}

@Suite("PMTiles reader, hostile archives")
struct PMTilesHostileTests {
  func open(_ bytes: [UInt8]) throws -> PMTilesReader {
    let path = NSTemporaryDirectory() + "tilecut-hostile-\(UUID().uuidString).pmtiles"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try PMTilesReader(path: path)
  }

  func oneLine(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch let error as PMTilesFormatError {
      return error.reason.contains("\n") ? nil : error.reason
    } catch {
      return nil
    }
  }

  @Test("a truncated archive: short of the header, or of the sections the header names")
  func truncated() throws {
    let tiles = Array(repeating: UInt8(7), count: 5000)
    let whole = archive(root: [PMTilesEntry(tileID: 5, offset: 0, length: 5000, runLength: 1)], tiles: tiles)
    let c = try #require(PMTilesTileID.zxy(5))
    #expect(try open(whole).tile(z: c.z, x: c.x, y: c.y) == tiles)
    #expect(oneLine { _ = try open(Array(whole.prefix(100))) }?.contains("127-byte") == true)
    #expect(oneLine { _ = try open(Array(whole.prefix(whole.count - 10))) }?.contains("past the end") == true)
    #expect(oneLine { _ = try open(Array(whole.prefix(140))) } != nil)
  }

  @Test("a directory claiming millions of entries, a gzip bomb, an entry past its section")
  func directories() throws {
    var huge: [UInt8] = []
    Varint.append(5_000_000, to: &huge)
    huge += [1, 1, 1, 1]
    #expect(oneLine { _ = try open(archive(root: [], rootBytes: PMTilesGzip.compress(huge))) }?.contains("claims 5000000 entries") == true)
    // 40 MB of zeros inflates past the 16 MiB directory limit
    let bomb = PMTilesGzip.compress([UInt8](repeating: 0, count: 40 << 20), level: 9)
    #expect(bomb.count < 200_000)
    let leafBomb = archive(root: [PMTilesEntry(tileID: 0, offset: 0, length: UInt32(bomb.count), runLength: 0)], leaves: bomb)
    let reader = try open(leafBomb)
    #expect(oneLine { _ = try reader.tile(z: 3, x: 1, y: 1) }?.contains("inflates past") == true)
    // a tile entry pointing past the tile data
    let past = try open(archive(root: [PMTilesEntry(tileID: 0, offset: 10, length: 100, runLength: 1)], tiles: [1, 2, 3]))
    #expect(oneLine { _ = try past.tile(z: 0, x: 0, y: 0) }?.contains("points past the tile data") == true)
  }

  @Test("a leaf directory that points at itself stops at the depth limit, and the walk refuses it")
  func selfLeaf() throws {
    // the leaf holds one entry: a leaf at offset 0 of its own length, that is itself
    var leaf: [UInt8] = []
    var length = 0
    for _ in 0..<4 {
      leaf = PMTilesGzip.compress(PMTilesDirectory.serialize([PMTilesEntry(tileID: 0, offset: 0, length: UInt32(length), runLength: 0)]))
      if leaf.count == length { break }
      length = leaf.count
    }
    #expect(leaf.count == length)
    let reader = try open(archive(root: [PMTilesEntry(tileID: 0, offset: 0, length: UInt32(length), runLength: 0)], leaves: leaf))
    #expect(oneLine { _ = try reader.tile(z: 2, x: 1, y: 1) }?.contains("nest deeper") == true)
    #expect(oneLine { try reader.forEachEntry { _ in } }?.contains("point at the leaf") == true)
  }
}
