import Foundation

#if canImport(SQLite3)
  import SQLite3
#else
  import CTilecutClientSQLite
#endif

/// A read-only MBTiles 1.3 file, read through SQLite: the spec's `metadata` table
/// and `tiles` table or view (zoom_level, tile_column, tile_row, tile_data), rows
/// counted from the south (TMS). Safe to use from several threads.
public final class MBTilesFile: @unchecked Sendable {
  /// Why a file was refused or a read failed.
  public enum Failure: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notMBTiles(path: String, reason: String)
    case readFailed(path: String, reason: String)

    public var description: String {
      switch self {
      case .cannotOpen(let path, let reason): "\(path): cannot be opened (\(reason))"
      case .notMBTiles(let path, let reason): "\(path): not an MBTiles file (\(reason))"
      case .readFailed(let path, let reason): "\(path): read failed (\(reason))"
      }
    }
  }

  public let path: String
  /// The `metadata` rows: name, format, bounds, center, minzoom, maxzoom, type, json…
  public let metadata: [String: String]
  private let db: OpaquePointer
  private let lookup: OpaquePointer
  /// One prepared statement, reset for each read: one reader at a time.
  private let lock = NSLock()

  public init(url: URL) throws {
    path = url.path
    var handle: OpaquePointer?
    let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
    guard opened == SQLITE_OK, let handle else {
      let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close(handle)
      throw Failure.cannotOpen(path: url.path, reason: reason)
    }
    func fail(_ reason: String) -> Failure {
      let message = String(cString: sqlite3_errmsg(handle))
      sqlite3_close(handle)
      return .notMBTiles(path: url.path, reason: "\(reason): \(message)")
    }
    var rows: [String: String] = [:]
    var meta: OpaquePointer?
    guard sqlite3_prepare_v2(handle, "SELECT name, value FROM metadata", -1, &meta, nil) == SQLITE_OK, let meta else {
      throw fail("no metadata table")
    }
    while sqlite3_step(meta) == SQLITE_ROW {
      if let name = sqlite3_column_text(meta, 0), let value = sqlite3_column_text(meta, 1) {
        rows[String(cString: name)] = String(cString: value)
      }
    }
    sqlite3_finalize(meta)
    var statement: OpaquePointer?
    let sql = "SELECT tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3"
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw fail("no tiles table")
    }
    metadata = rows
    db = handle
    lookup = statement
  }

  deinit {
    sqlite3_finalize(lookup)
    sqlite3_close(db)
  }

  /// `png`, `webp`, `jpg`… as the metadata says.
  public var format: String? { metadata["format"] }
  public var minZoom: Int? { metadata["minzoom"].flatMap { Int($0) } }
  public var maxZoom: Int? { metadata["maxzoom"].flatMap { Int($0) } }
  /// West, south, east, north in degrees.
  public var bounds: [Double]? {
    guard let text = metadata["bounds"] else { return nil }
    let values = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    return values.count == 4 ? values : nil
  }

  /// The bytes of XYZ tile (zoom, x, y), or nil when the file has none.
  public func tile(zoom: Int, x: Int, y: Int) throws -> Data? {
    guard zoom >= 0, zoom < 31, x >= 0, y >= 0, x < 1 << zoom, y < 1 << zoom else { return nil }
    let row = (1 << zoom) - 1 - y
    lock.lock()
    defer {
      sqlite3_reset(lookup)
      lock.unlock()
    }
    sqlite3_bind_int64(lookup, 1, sqlite3_int64(zoom))
    sqlite3_bind_int64(lookup, 2, sqlite3_int64(x))
    sqlite3_bind_int64(lookup, 3, sqlite3_int64(row))
    switch sqlite3_step(lookup) {
    case SQLITE_ROW:
      let count = Int(sqlite3_column_bytes(lookup, 0))
      guard count > 0, let bytes = sqlite3_column_blob(lookup, 0) else { return Data() }
      return Data(bytes: bytes, count: count)
    case SQLITE_DONE:
      return nil
    default:
      throw Failure.readFailed(path: path, reason: String(cString: sqlite3_errmsg(db)))
    }
  }
}
