import CSQLite
import Foundation
import Testing
import TilecutCore

@testable import TilecutMBTiles

/// A throwaway directory for one test.
private func scratch(_ name: String) throws -> String {
  let dir = NSTemporaryDirectory() + "tilecut-mbtiles-\(name)-\(UUID().uuidString)"
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  return dir
}

/// Runs a query with the raw SQLite API (not the reader under test) and returns its rows as text.
private func query(_ path: String, _ sql: String) throws -> [[String]] {
  var db: OpaquePointer?
  guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { throw TilecutError.cancelled }
  defer { sqlite3_close(db) }
  var statement: OpaquePointer?
  guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { throw TilecutError.cancelled }
  defer { sqlite3_finalize(statement) }
  var rows: [[String]] = []
  while sqlite3_step(statement) == SQLITE_ROW {
    rows.append(
      (0..<sqlite3_column_count(statement)).map { c in
        sqlite3_column_text(statement, c).map { String(cString: $0) } ?? "NULL"
      })
  }
  return rows
}

private let metadata = MBTilesMetadata(
  name: "floor 1", format: "png", bounds: [-0.1275, 51.5006, -0.1255, 51.5016], center: (-0.1265, 51.5011, 18), minZoom: 16,
  maxZoom: 19, version: "abc", description: "test", json: #"{"floor":1}"#)

/// A digest that is good enough for tests and independent of the writer.
private let digest: @Sendable ([UInt8]) -> String = { bytes in
  var h: UInt64 = 1_469_598_103_934_665_603
  for b in bytes { h = (h ^ UInt64(b)) &* 1_099_511_628_211 }
  return String(h, radix: 16) + "-\(bytes.count)"
}

@Suite struct MBTilesTests {
  @Test func rowsAreTMSAndIdenticalTilesAreStoredOnce() throws {
    let dir = try scratch("tms")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/L1_256.mbtiles"
    let writer = try MBTilesWriter(path: path, digest: digest)
    let same: [UInt8] = [1, 2, 3, 4]
    try writer.put(TileCoordinate(zoom: 2, x: 1, y: 0), data: same)
    try writer.put(TileCoordinate(zoom: 2, x: 2, y: 0), data: same)
    try writer.put(TileCoordinate(zoom: 3, x: 5, y: 6), data: [9, 9])
    #expect(FileManager.default.fileExists(atPath: path) == false)  // only the .partial until finish
    try writer.finish(metadata: metadata)
    #expect(FileManager.default.fileExists(atPath: path))
    #expect(FileManager.default.fileExists(atPath: path + ".partial") == false)

    // TMS rows: y = 0 at zoom 2 is row 3; y = 6 at zoom 3 is row 1.
    let rows = try query(path, "SELECT zoom_level, tile_column, tile_row, length(tile_data) FROM tiles ORDER BY 1, 2")
    #expect(rows == [["2", "1", "3", "4"], ["2", "2", "3", "4"], ["3", "5", "1", "2"]])
    #expect(try query(path, "SELECT count(*) FROM images") == [["2"]])
    #expect(writer.counts.tiles == 3 && writer.counts.images == 2)

    let meta = try query(path, "SELECT name, value FROM metadata ORDER BY name")
    let dict = Dictionary(uniqueKeysWithValues: meta.map { ($0[0], $0[1]) })
    #expect(dict["bounds"] == "-0.1275,51.5006,-0.1255,51.5016")
    #expect(dict["center"] == "-0.1265,51.5011,18")
    #expect(dict["type"] == "overlay")
    #expect(dict["minzoom"] == "16" && dict["maxzoom"] == "19" && dict["format"] == "png")
    #expect(Set(dict.keys) == ["name", "format", "bounds", "center", "minzoom", "maxzoom", "type", "version", "description", "json"])

    let reader = try MBTilesReader(path: path)
    #expect(try reader.tile(TileCoordinate(zoom: 3, x: 5, y: 6)) == [9, 9])
    #expect(try reader.tile(TileCoordinate(zoom: 3, x: 5, y: 1)) == nil)
    var seen: [TileCoordinate] = []
    try reader.forEachRow { if let t = $0.tile { seen.append(t) } }
    #expect(Set(seen) == [TileCoordinate(zoom: 2, x: 1, y: 0), TileCoordinate(zoom: 2, x: 2, y: 0), TileCoordinate(zoom: 3, x: 5, y: 6)])
    #expect(try reader.metadata()["json"] == #"{"floor":1}"#)
  }

  @Test func concurrentPutsAllLand() throws {
    let dir = try scratch("threads")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/t.mbtiles"
    let writer = try MBTilesWriter(path: path, digest: digest)
    DispatchQueue.concurrentPerform(iterations: 256) { i in
      _ = try? writer.put(TileCoordinate(zoom: 4, x: i % 16, y: i / 16), data: [UInt8(i % 7)])
    }
    try writer.finish(metadata: metadata)
    #expect(try query(path, "SELECT count(*) FROM map") == [["256"]])
    #expect(try query(path, "SELECT count(*) FROM images") == [["7"]])
  }

  @Test func abortLeavesNothingAndExistingFilesAreRefused() throws {
    let dir = try scratch("abort")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/t.mbtiles"
    let writer = try MBTilesWriter(path: path, digest: digest)
    try writer.put(TileCoordinate(zoom: 0, x: 0, y: 0), data: [1])
    writer.abort()
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)

    #expect(FileManager.default.createFile(atPath: path, contents: Data("user data".utf8)))
    #expect(throws: TilecutError.self) { try MBTilesWriter(path: path, digest: digest) }
    #expect(FileManager.default.contents(atPath: path) == Data("user data".utf8))
  }

  @Test func readerRefusesFilesThatAreNotMBTiles() throws {
    let dir = try scratch("bad")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/x.mbtiles"
    #expect(FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096)))
    #expect(throws: TilecutError.self) { try MBTilesReader(path: path) }
    #expect(throws: TilecutError.self) { try MBTilesReader(path: dir + "/missing.mbtiles") }
  }

  @Test func rowsOutsideTheGridHaveNoTile() {
    #expect(MBTilesRow(zoom: 62, column: 0, row: 0, data: []).tile == nil)
    #expect(MBTilesRow(zoom: 2, column: 4, row: 0, data: []).tile == nil)
    #expect(MBTilesRow(zoom: 2, column: 3, row: 0, data: []).tile == TileCoordinate(zoom: 2, x: 3, y: 3))
  }
}
