import Foundation
import Testing
import TilecutPMTiles

/// The Python `pmtiles` package (PyPI, protomaps' own), the independent reading of the
/// spec; `make test-deps` installs it for the `python3` on the path.
func pythonPMTiles(_ script: String, input: String = "") throws -> String {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["python3", "-c", script]
  let inPipe = Pipe()
  let outPipe = Pipe()
  let errPipe = Pipe()
  p.standardInput = inPipe
  p.standardOutput = outPipe
  p.standardError = errPipe
  try p.run()
  inPipe.fileHandleForWriting.write(Data(input.utf8))
  try inPipe.fileHandleForWriting.close()
  let out = outPipe.fileHandleForReading.readDataToEndOfFile()
  let err = errPipe.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  guard p.terminationStatus == 0 else {
    throw PMTilesFormatError("python3 with pmtiles failed: \(String(decoding: err, as: UTF8.self))")
  }
  return String(decoding: out, as: UTF8.self)
}

@Suite("PMTiles v3 format, against the Python pmtiles package")
struct PMTilesSpecTests {
  @Test("tile IDs both ways match pmtiles.tile.zxy_to_tileid for every zoom up to 31")
  func tileIDs() throws {
    var cells: [(Int, Int, Int)] = [(0, 0, 0)]
    var rng = SystemRandomNumberGenerator()
    for z in 1...31 {
      let n = 1 << z
      cells += [(z, 0, 0), (z, n - 1, n - 1), (z, n - 1, 0), (z, 0, n - 1)]
      for _ in 0..<20 { cells.append((z, Int.random(in: 0..<n, using: &rng), Int.random(in: 0..<n, using: &rng))) }
    }
    let input = cells.map { "\($0.0) \($0.1) \($0.2)" }.joined(separator: "\n")
    let script = """
      import sys
      from pmtiles.tile import zxy_to_tileid
      for line in sys.stdin:
          z, x, y = map(int, line.split())
          print(zxy_to_tileid(z, x, y))
      """
    let ids = try pythonPMTiles(script, input: input).split(separator: "\n").map { UInt64($0)! }
    #expect(ids.count == cells.count)
    for (cell, id) in zip(cells, ids) {
      #expect(PMTilesTileID.id(z: cell.0, x: cell.1, y: cell.2) == id, "\(cell)")
      let back = try #require(PMTilesTileID.zxy(id))
      #expect(back.z == cell.0 && back.x == cell.1 && back.y == cell.2, "\(id)")
    }
    // every cell of zoom 3, both ways: a bijection onto [base(3), base(4))
    var seen = Set<UInt64>()
    for x in 0..<8 { for y in 0..<8 { seen.insert(PMTilesTileID.id(z: 3, x: x, y: y)) } }
    #expect(seen == Set(PMTilesTileID.base(zoom: 3)..<PMTilesTileID.base(zoom: 4)))
  }

  @Test("a directory and a header we serialize are what pmtiles deserializes, and the other way round")
  func directoryAndHeader() throws {
    var entries: [PMTilesEntry] = []
    var offset: UInt64 = 0
    for i in 0..<300 {
      let length = UInt32(100 + i % 7)
      let run = UInt32(i % 5 == 0 ? 40 : 1)
      // every third entry repeats an earlier range (a deduplicated tile)
      let o = i % 3 == 2 ? 0 : offset
      entries.append(PMTilesEntry(tileID: UInt64(i * 50 + i % 3), offset: o, length: length, runLength: run))
      if i % 3 != 2 { offset += UInt64(length) }
    }
    entries.append(PMTilesEntry(tileID: 20_000, offset: 5, length: 77, runLength: 0))
    let ours = PMTilesGzip.compress(PMTilesDirectory.serialize(entries))
    var h = PMTilesHeader()
    h.rootDirectoryOffset = 127
    h.rootDirectoryLength = UInt64(ours.count)
    h.tileType = .webp
    h.clustered = true
    h.minZoom = 12
    h.maxZoom = 21
    h.minLongitude = 13.3765432
    h.minLatitude = 52.5
    h.maxLongitude = 13.38
    h.maxLatitude = 52.5170001
    h.centerZoom = 16
    h.centerLongitude = 13.378
    h.centerLatitude = -52.51
    h.addressedTiles = 123_456_789_012
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("spec-\(UUID().uuidString).bin")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data(h.encoded() + ours).write(to: file)
    let script = """
      import sys, gzip, json
      from pmtiles.tile import deserialize_header, deserialize_directory, serialize_directory, Entry
      data = open(sys.argv[1] if len(sys.argv) > 1 else sys.stdin.readline().strip(), 'rb').read()
      h = deserialize_header(data[:127])
      d = deserialize_directory(data[127:127 + h['root_length']])
      out = {k: (v.value if hasattr(v, 'value') else v) for k, v in h.items()}
      out['entries'] = [[e.tile_id, e.offset, e.length, e.run_length] for e in d]
      out['theirs'] = list(serialize_directory(d))
      print(json.dumps(out))
      """
    let json = try pythonPMTiles(script, input: file.path + "\n")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    let theirEntries = try #require(object["entries"] as? [[UInt64]])
    #expect(theirEntries == entries.map { [$0.tileID, $0.offset, UInt64($0.length), UInt64($0.runLength)] })
    #expect(object["tile_type"] as? Int == 4)
    #expect(object["clustered"] as? Bool == true)
    #expect(object["min_zoom"] as? Int == 12 && object["max_zoom"] as? Int == 21 && object["center_zoom"] as? Int == 16)
    #expect(object["min_lon_e7"] as? Int == 133_765_432 && object["max_lat_e7"] as? Int == 525_170_001)
    #expect(object["center_lat_e7"] as? Int == -525_100_000)
    #expect(object["addressed_tiles_count"] as? Int == 123_456_789_012)
    // their serialization (gzip of the same columns) reads back as ours
    let theirs = try #require(object["theirs"] as? [Int]).map(UInt8.init)
    let decoded = try PMTilesDirectory.deserialize(PMTilesGzip.decompress(theirs, limit: 1 << 20))
    #expect(decoded == entries)
    #expect(try PMTilesHeader(decoding: h.encoded()) == h)
  }

  @Test("find: a tile inside a run, a leaf's range, a gap and before the first entry")
  func find() {
    let entries = [
      PMTilesEntry(tileID: 10, offset: 0, length: 5, runLength: 3),
      PMTilesEntry(tileID: 20, offset: 5, length: 5, runLength: 1),
      PMTilesEntry(tileID: 100, offset: 0, length: 50, runLength: 0),
    ]
    #expect(PMTilesDirectory.find(9, in: entries) == nil)
    #expect(PMTilesDirectory.find(12, in: entries)?.offset == 0)
    #expect(PMTilesDirectory.find(13, in: entries) == nil)
    #expect(PMTilesDirectory.find(20, in: entries)?.offset == 5)
    #expect(PMTilesDirectory.find(5000, in: entries)?.isLeaf == true)
  }

  @Test("hostile bytes: a huge entry count, a varint past 64 bits, a gzip bomb, a wrong magic")
  func hostile() {
    #expect(throws: PMTilesFormatError.self) { try PMTilesDirectory.deserialize([0xff, 0xff, 0xff, 0xff, 0x0f]) }
    #expect(throws: PMTilesFormatError.self) { try PMTilesDirectory.deserialize([UInt8](repeating: 0xff, count: 11) + [1]) }
    let bomb = PMTilesGzip.compress([UInt8](repeating: 0, count: 10 << 20))
    #expect(throws: PMTilesFormatError.self) { try PMTilesGzip.decompress(bomb, limit: 1 << 20) }
    #expect(throws: PMTilesFormatError.self) { try PMTilesHeader(decoding: [UInt8](repeating: 0, count: 127)) }
    #expect(throws: PMTilesFormatError.self) { try PMTilesHeader(decoding: Array("PMTiles".utf8) + [3]) }
  }
}
