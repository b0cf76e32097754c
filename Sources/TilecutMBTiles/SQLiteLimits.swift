import CSQLite
import Foundation
import TilecutCore

/// How much work and memory one read of someone else's MBTiles file may cost:
/// a view can be an endless recursive query, a blob can claim gigabytes.
public enum MBTilesReadLimits {
  /// The largest tile or metadata value read (SQLite's SQLITE_LIMIT_LENGTH): a
  /// 4096² RGBA tile uncompressed is 64 MiB.
  public static let maxValueBytes: Int32 = 64 << 20
  /// SQLite steps one statement may take for each byte of the file (a full scan
  /// of a real file takes a few), and at least this many whatever the size.
  static let stepsPerByte = 16
  static let minimumSteps = 20_000_000
}

/// Counts a statement's SQLite steps and stops it past its limit.
final class StepBudget: @unchecked Sendable {
  var limit: Int
  var used = 0
  var exceeded = false

  init(limit: Int) { self.limit = limit }
}

/// SQLite calls this every 1000 virtual machine steps; non-zero interrupts the statement.
private func countSteps(_ context: UnsafeMutableRawPointer?) -> Int32 {
  guard let context else { return 0 }
  let budget = Unmanaged<StepBudget>.fromOpaque(context).takeUnretainedValue()
  budget.used += 1000
  if budget.used > budget.limit {
    budget.exceeded = true
    return 1
  }
  return 0
}

extension SQLiteDatabase {
  /// Bounds every later statement: values up to `MBTilesReadLimits.maxValueBytes`,
  /// steps in proportion to the file's size. `budget` must live as long as the connection.
  func limitReads(_ budget: StepBudget) {
    sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, MBTilesReadLimits.maxValueBytes)
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    budget.limit = max(MBTilesReadLimits.minimumSteps, size.multipliedReportingOverflow(by: MBTilesReadLimits.stepsPerByte).partialValue)
    sqlite3_progress_handler(handle, 1000, countSteps, Unmanaged.passUnretained(budget).toOpaque())
  }

  /// Checks that `table` is a plain table, or a view without recursion, with `columns`.
  func expectShape(of table: String, columns: [String]) throws {
    let q = try prepare("SELECT type, sql FROM sqlite_master WHERE name = ?1")
    q.bind(1, table)
    guard try q.next() else { throw TilecutError.invalidInput(path: path, reason: "is not an MBTiles file (no \(table) table)") }
    let type = q.text(0)
    let sql = q.text(1).uppercased()
    guard type == "table" || type == "view" else {
      throw TilecutError.invalidInput(path: path, reason: "is not an MBTiles file (its \(table) is a \(type), not a table or view)")
    }
    if type == "view" && (sql.contains("RECURSIVE") || sql.range(of: #"\bWITH\b"#, options: .regularExpression) != nil) {
      throw TilecutError.invalidInput(
        path: path, reason: "has a \(table) view built on a WITH (recursive) query; tilecut reads plain tables or views of the MBTiles spec's shape")
    }
    let info = try prepare("SELECT name FROM pragma_table_info(?1)")
    info.bind(1, table)
    var have = Set<String>()
    while try info.next() { have.insert(info.text(0).lowercased()) }
    let missing = columns.filter { !have.contains($0) }
    guard missing.isEmpty else {
      throw TilecutError.invalidInput(
        path: path, reason: "is not an MBTiles file (its \(table) \(type) has no \(missing.joined(separator: ", ")) column)")
    }
  }
}
