import CSQLite
import Foundation
import TilecutCore

/// One SQLite connection through the system library; every failure names the file.
final class SQLiteDatabase {
  let path: String
  private(set) var handle: OpaquePointer?
  /// Steps each statement may take (`limitReads`), counted from its `prepare`.
  var stepBudget: StepBudget?

  /// Opens `path`; `create` makes a new file, otherwise it is opened read-only and
  /// immutable (`file:…?immutable=1`): SQLite takes no lock and writes nothing beside
  /// it (a WAL-mode file would get `-wal` and `-shm` files, and a hot journal would be
  /// rolled back into someone else's file).
  init(path: String, create: Bool) throws {
    self.path = path
    let flags = create ? (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) : (SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
    var db: OpaquePointer?
    let rc = sqlite3_open_v2(create ? path : Self.immutableURI(path), &db, flags | SQLITE_OPEN_NOMUTEX, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
      sqlite3_close(db)
      throw TilecutError.invalidInput(path: path, reason: "cannot be opened as SQLite (\(message))")
    }
    handle = db
    // A damaged file should fail fast rather than wait on a lock nobody holds.
    sqlite3_busy_timeout(db, 2000)
  }

  deinit { close() }

  /// `file:///abs/path?immutable=1`, the path made absolute and every byte a URI
  /// path may not hold as itself (`?`, `#`, `%`, spaces, controls) percent-encoded.
  static func immutableURI(_ path: String) -> String {
    let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/!$&'()*+,;=:@".utf8)
    var encoded = ""
    for byte in absolute.utf8 {
      if plain.contains(byte) {
        encoded.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        encoded += String(format: "%%%02X", byte)
      }
    }
    return "file://" + encoded + "?immutable=1"
  }

  func close() {
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  var lastError: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed" }

  func fail(_ what: String) -> TilecutError {
    TilecutError.output(path: path, reason: "sqlite: \(what) failed (\(lastError))")
  }

  /// Runs statements that return no rows.
  func execute(_ sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? lastError
      sqlite3_free(message)
      throw TilecutError.output(path: path, reason: "sqlite: \(text)")
    }
  }

  func prepare(_ sql: String) throws -> SQLiteStatement {
    stepBudget?.used = 0
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
      throw TilecutError.invalidInput(path: path, reason: "is not a readable MBTiles file (\(lastError))")
    }
    return SQLiteStatement(statement, database: self)
  }
}

/// A prepared statement, finalised when it goes.
final class SQLiteStatement {
  let pointer: OpaquePointer
  unowned let database: SQLiteDatabase

  init(_ pointer: OpaquePointer, database: SQLiteDatabase) {
    self.pointer = pointer
    self.database = database
  }

  deinit { sqlite3_finalize(pointer) }

  // SQLITE_TRANSIENT: SQLite copies the bytes before bind returns.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  func bind(_ index: Int32, _ value: Int) { sqlite3_bind_int64(pointer, index, Int64(value)) }

  func bind(_ index: Int32, _ value: String) { sqlite3_bind_text(pointer, index, value, -1, Self.transient) }

  func bind(_ index: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { raw in
      // a zero-length blob still needs a non-null pointer to be a blob, not NULL
      _ = sqlite3_bind_blob(pointer, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), Self.transient)
    }
  }

  /// Runs to completion a statement that returns no rows, then resets it for reuse.
  func run() throws {
    defer {
      sqlite3_reset(pointer)
      sqlite3_clear_bindings(pointer)
    }
    guard sqlite3_step(pointer) == SQLITE_DONE else { throw database.fail("write") }
  }

  /// Steps to the next row; false at the end.
  func next() throws -> Bool {
    switch sqlite3_step(pointer) {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    case SQLITE_INTERRUPT where database.stepBudget?.exceeded == true:
      throw TilecutError.invalidInput(
        path: database.path,
        reason:
          "takes more than \(database.stepBudget?.limit ?? 0) SQLite steps to read (an endless or runaway query in its schema); tilecut reads plain tables or views of the MBTiles spec's shape"
      )
    case SQLITE_TOOBIG:
      throw TilecutError.invalidInput(
        path: database.path, reason: "holds a value larger than \(MBTilesReadLimits.maxValueBytes >> 20) MiB, which no tile is")
    default:
      throw TilecutError.invalidInput(path: database.path, reason: "is damaged or not an MBTiles file (\(database.lastError))")
    }
  }

  func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(pointer, column)) }

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(pointer, column) == SQLITE_NULL }

  func text(_ column: Int32) -> String {
    guard let p = sqlite3_column_text(pointer, column) else { return "" }
    return String(cString: p)
  }

  func blob(_ column: Int32) -> [UInt8] {
    let count = Int(sqlite3_column_bytes(pointer, column))
    guard count > 0, let p = sqlite3_column_blob(pointer, column) else { return [] }
    return [UInt8](UnsafeRawBufferPointer(start: p, count: count))
  }
}
