import Dispatch
import Foundation
import Testing

@testable import TilecutPMTiles

/// A stand-in for a tile's SHA-256: 64 hex digits that differ for different contents.
private func fakeDigest(_ content: Int) -> String {
  let hex = String(content, radix: 16)
  return String(repeating: "0", count: 64 - hex.count) + hex
}

/// The bytes of content number `n`: a few bytes, different for each `n`.
private func body(_ n: Int) -> [UInt8] { Array("tile content \(n) ".utf8) + [UInt8](repeating: UInt8(n & 255), count: n % 7) }

private func scratchDirectory() throws -> String {
  let path = NSTemporaryDirectory() + "tilecut-pmwriter-\(UUID().uuidString.prefix(8))"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

@Suite("PMTiles writer, read back by the Python pmtiles package")
struct PMTilesWriterTests {
  /// Every tile of zoom 8 (65 536) plus zooms 0–3, 3 000 distinct contents, runs of
  /// equal tiles in places: a root of all entries would pass 16 KiB, so leaves are needed.
  func job() -> [(z: Int, x: Int, y: Int, content: Int)] {
    var tiles: [(Int, Int, Int, Int)] = []
    for z in 0...3 {
      for x in 0..<(1 << z) { for y in 0..<(1 << z) { tiles.append((z, x, y, 9999)) } }
    }
    for x in 0..<256 {
      for y in 0..<256 {
        // a solid block (one content) where a run-length encoding applies
        let content = (x < 64 && y < 64) ? 7777 : (x &* 7919 &+ y &* 104_729) % 3000
        tiles.append((8, x, y, content))
      }
    }
    return tiles
  }

  func write(_ tiles: [(z: Int, x: Int, y: Int, content: Int)], to path: String, threads: Int) throws {
    let writer = try PMTilesWriter(path: path)
    let failures = ManagedAtomicCounter()
    DispatchQueue.concurrentPerform(iterations: threads) { t in
      var i = t
      while i < tiles.count {
        let tile = tiles[i]
        do { try writer.put(z: tile.z, x: tile.x, y: tile.y, data: body(tile.content), sha256: fakeDigest(tile.content)) } catch {
          failures.add()
        }
        i += threads
      }
    }
    #expect(failures.value == 0)
    // before finishing: a tile's digest and bytes, found in the index of at most 40
    // bytes a tile
    #expect(writer.indexBytes <= 40 * tiles.count)
    for t in tiles.prefix(50) {
      #expect(writer.digest(z: t.z, x: t.x, y: t.y) == fakeDigest(t.content))
      #expect(try writer.read(z: t.z, x: t.x, y: t.y) == body(t.content))
    }
    #expect(writer.digest(z: 9, x: 0, y: 0) == nil)
    var header = PMTilesHeader()
    header.tileType = .png
    header.minZoom = 0
    header.maxZoom = 8
    try writer.finish(header: header, metadata: Array(#"{"name":"writer test"}"#.utf8))
  }

  @Test("many duplicate tiles and a root past 16 KiB: leaf directories, clustered, read back tile for tile by Python")
  func leavesAndDuplicates() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var tiles = job()
    try write(tiles, to: dir + "/a.pmtiles", threads: 4)
    // the same tiles in another order on another number of threads: the same bytes
    tiles.reverse()
    try write(tiles, to: dir + "/b.pmtiles", threads: 3)
    let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.pmtiles"))
    #expect(a == (try Data(contentsOf: URL(fileURLWithPath: dir + "/b.pmtiles"))))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["a.pmtiles", "b.pmtiles"])

    let header = try PMTilesHeader(decoding: Array(a.prefix(PMTilesHeader.size)))
    #expect(header.leafDirectoriesLength > 0)
    #expect(header.rootDirectoryOffset + header.rootDirectoryLength <= UInt64(PMTilesWriter.rootLimit))
    #expect(header.addressedTiles == UInt64(tiles.count))
    #expect(header.tileContents == 3002)
    #expect(header.tileEntries < header.addressedTiles)
    #expect(header.clustered)

    let script = """
      import sys, json, gzip
      from pmtiles.reader import Reader, MmapSource, all_tiles
      from pmtiles.tile import deserialize_directory, deserialize_header
      path = sys.stdin.readline().strip()
      out = {}
      with open(path, "rb") as f:
          data = f.read()
          f.seek(0)
          src = MmapSource(f)
          h = Reader(src).header()
          tiles = {}
          for (z, x, y), b in all_tiles(src):
              tiles["%d/%d/%d" % (z, x, y)] = b.decode("latin-1")
          out["tiles"] = tiles
          # entries in tile-ID order and clustered: each content after the last, or a repeat
          ids, end, ordered, clustered, leaves = [], 0, True, True, 0
          def walk(off, length):
              global end, ordered, clustered, leaves
              for e in deserialize_directory(data[off:off + length]):
                  if e.run_length == 0:
                      leaves += 1
                      walk(h["leaf_directory_offset"] + e.offset, e.length)
                      continue
                  if ids and e.tile_id <= ids[-1]: ordered = False
                  ids.append(e.tile_id + e.run_length - 1)
                  if e.offset == end: end += e.length
                  elif e.offset > end: clustered = False
          walk(h["root_offset"], h["root_length"])
          out.update(ordered=ordered, clustered=clustered, leaves=leaves, end=end, data=h["tile_data_length"])
      print(json.dumps(out))
      """
    let result = try pythonPMTiles(script, input: dir + "/a.pmtiles\n")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Any])
    let read = try #require(json["tiles"] as? [String: String])
    #expect(read.count == tiles.count)
    var wrong = 0
    for t in tiles where read["\(t.z)/\(t.x)/\(t.y)"].map({ Array($0.unicodeScalars.map { UInt8($0.value) }) }) != body(t.content) {
      wrong += 1
    }
    #expect(wrong == 0)
    #expect(json["ordered"] as? Bool == true)
    #expect(json["clustered"] as? Bool == true)
    #expect((json["leaves"] as? Int ?? 0) > 1)
    #expect(json["end"] as? Int == json["data"] as? Int)
  }

  @Test("a tile put twice fails the archive; abort leaves nothing behind")
  func twiceAndAbort() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let w = try PMTilesWriter(path: dir + "/x.pmtiles")
    try w.put(z: 3, x: 1, y: 2, data: body(1), sha256: fakeDigest(1))
    try w.put(z: 3, x: 1, y: 2, data: body(2), sha256: fakeDigest(2))
    #expect(try w.read(z: 3, x: 1, y: 2) != nil)
    #expect(throws: PMTilesWriteError.self) { try w.finish(header: PMTilesHeader(), metadata: []) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)

    let v = try PMTilesWriter(path: dir + "/y.pmtiles")
    for i in 0..<5000 { try v.put(z: 10, x: i % 1024, y: i / 1024, data: body(i), sha256: fakeDigest(i)) }
    #expect(try v.read(z: 10, x: 5, y: 0) == body(5))
    #expect(v.counts == (5000, 5000))
    v.abort()
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
    #expect(throws: PMTilesWriteError.self) { try v.put(z: 0, x: 0, y: 0, data: [], sha256: fakeDigest(0)) }
    // outside the grid, or a digest that is not one
    let u = try PMTilesWriter(path: dir + "/z.pmtiles")
    #expect(throws: PMTilesWriteError.self) { try u.put(z: 2, x: 4, y: 0, data: [], sha256: fakeDigest(0)) }
    #expect(throws: PMTilesWriteError.self) { try u.put(z: 2, x: 0, y: 0, data: [], sha256: "abc") }
    u.abort()
  }
}

/// The inverse of an odd number modulo 2⁶⁴ (Newton's iteration).
private func inverse(_ a: UInt64) -> UInt64 {
  var x = a
  for _ in 0..<5 { x = x &* (2 &- a &* x) }
  return x
}

/// A digest as 64 hex digits.
private func hex(_ d: PMTilesDigest) -> String { d.hex }

@Suite("PMTiles writer's index: bytes a tile while it writes")
struct PMTilesWriterIndexTests {
  /// The cells of zoom 9 in a scrambled order (a multiplier prime to 2¹⁸).
  func cell(_ i: Int) -> (x: Int, y: Int) {
    let k = (i &* 160_001) & ((1 << 18) - 1)
    return (k & 511, k >> 9)
  }

  @Test("every tile distinct: the index holds at most 40 bytes a tile after every put, and dedup compares whole digests")
  func allDistinct() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let n = 120_000
    let w = try PMTilesWriter(path: dir + "/d.pmtiles")
    var worst = 0.0
    for i in 0..<n {
      let c = cell(i)
      try w.put(z: 9, x: c.x, y: c.y, data: body(i), sha256: fakeDigest(i))
      let bytes = w.indexBytes
      if i + 1 >= 1024 {
        worst = max(worst, Double(bytes) / Double(i + 1))
        if bytes > 40 * (i + 1) {
          Issue.record("\(bytes) index bytes for \(i + 1) tiles")
          break
        }
      }
    }
    #expect(worst <= 40)
    #expect(worst > 12)  // the measure is real: 12 bytes a tile are the tile IDs and content numbers alone
    #expect(w.counts == (n, n))
    #expect(w.indexBytes <= 40 * n)

    // two digests that differ but share a fingerprint: the second is a new content,
    // found by comparing the whole digest read back from the digest file
    let k1: UInt64 = 0x9E37_79B9_7F4A_7C15
    let k2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    let first = try #require(PMTilesDigest(hex: fakeDigest(0)))
    let twin = PMTilesDigest(a: 1, b: 0, c: 0, d: 0)
    let other = PMTilesDigest(a: 0, b: k1 &* inverse(k2), c: 0, d: 0)
    #expect(PMTilesWriter.ContentTable.fingerprint(twin) == PMTilesWriter.ContentTable.fingerprint(other))
    #expect(twin != other && twin != first)
    try w.put(z: 10, x: 0, y: 0, data: [1, 2, 3], sha256: hex(twin))
    try w.put(z: 10, x: 1, y: 0, data: [4, 5, 6], sha256: hex(other))
    try w.put(z: 10, x: 2, y: 0, data: [1, 2, 3], sha256: hex(twin))
    #expect(w.counts == (n + 3, n + 2))
    #expect(w.digest(z: 10, x: 1, y: 0) == hex(other))
    #expect(w.digest(z: 10, x: 2, y: 0) == hex(twin))
    #expect(try w.read(z: 10, x: 1, y: 0) == [4, 5, 6])

    // digests and bytes of tiles put long ago (their digests in the digest file)
    for i in stride(from: 0, to: n, by: 997) {
      let c = cell(i)
      #expect(w.digest(z: 9, x: c.x, y: c.y) == fakeDigest(i))
      #expect(try w.read(z: 9, x: c.x, y: c.y) == body(i))
    }
    var header = PMTilesHeader()
    header.tileType = .png
    header.minZoom = 9
    header.maxZoom = 10
    try w.finish(header: header, metadata: Array("{}".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["d.pmtiles"])
    let r = try PMTilesReader(path: dir + "/d.pmtiles")
    #expect(r.header.addressedTiles == UInt64(n + 3))
    #expect(r.header.tileContents == UInt64(n + 2))
    for i in stride(from: 5, to: n, by: 1009) {
      let c = cell(i)
      #expect(try r.tile(z: 9, x: c.x, y: c.y) == body(i))
    }
    #expect(try r.tile(z: 10, x: 1, y: 0) == [4, 5, 6])
    #expect(try r.tile(z: 10, x: 2, y: 0) == [1, 2, 3])
  }

  @Test("heavy duplication: four contents over 150 000 tiles cost about 13 bytes a tile; one copy each in the archive")
  func heavyDuplication() throws {
    let dir = try scratchDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let n = 150_000
    let w = try PMTilesWriter(path: dir + "/h.pmtiles")
    // a solid block, then three contents in a pattern, from four threads
    let failures = ManagedAtomicCounter()
    DispatchQueue.concurrentPerform(iterations: 4) { t in
      for i in stride(from: t, to: n, by: 4) {
        let c = cell(i)
        let content = c.x < 128 ? 7 : (c.x + c.y) % 3
        do { try w.put(z: 9, x: c.x, y: c.y, data: body(content), sha256: fakeDigest(content)) } catch { failures.add() }
      }
    }
    #expect(failures.value == 0)
    #expect(w.counts == (n, 4))
    #expect(w.indexBytes <= 14 * n)
    #expect(w.indexBytes >= 12 * n)
    let c = cell(77)
    let content = c.x < 128 ? 7 : (c.x + c.y) % 3
    #expect(w.digest(z: 9, x: c.x, y: c.y) == fakeDigest(content))
    var header = PMTilesHeader()
    header.tileType = .png
    header.minZoom = 9
    header.maxZoom = 9
    try w.finish(header: header, metadata: Array("{}".utf8))
    let r = try PMTilesReader(path: dir + "/h.pmtiles")
    #expect(r.header.tileContents == 4)
    #expect(r.header.addressedTiles == UInt64(n))
    #expect(r.header.tileEntries < UInt64(n))
    #expect(r.header.tileDataLength == UInt64([0, 1, 2, 7].map { body($0).count }.reduce(0, +)))
    for i in stride(from: 3, to: n, by: 777) {
      let c = cell(i)
      #expect(try r.tile(z: 9, x: c.x, y: c.y) == body(c.x < 128 ? 7 : (c.x + c.y) % 3))
    }
  }
}

/// A counter workers bump.
private final class ManagedAtomicCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var n = 0
  func add() { lock.withLock { n += 1 } }
  var value: Int { lock.withLock { n } }
}
