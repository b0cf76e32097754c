import CSQLite
import Foundation
import TilecutCore

/// How much work and memory one read of someone else's MBTiles file may cost:
/// a view can be an endless recursive query, a blob can claim gigabytes.
public enum MBTilesReadLimits {
  /// The largest tile or metadata value read (SQLite's SQLITE_LIMIT_LENGTH): a
  /// 4096² RGBA tile uncompressed is 64 MiB.
  public static let maxValueBytes: Int32 = 64 << 20
  /// SQLite steps one statement may take for each row the file's tables hold: a
  /// scan of the spec's `map` + `images` join takes a few dozen per row; a join that
  /// multiplies rows (a cross join in a `tiles` view) runs out long before it ends.
  /// Never in proportion to the file's size, which padding makes as large as one likes.
  static let stepsPerRow = 200
  /// Steps any statement may take, however few rows (the schema checks, a small file).
  static let minimumSteps = 5_000_000
  /// Steps no statement may take, however many rows (a few seconds of SQLite).
  static let maximumSteps = 2_000_000_000
  /// Plain tables counted for the budget; a real MBTiles file has a handful.
  static let maxTablesCounted = 1000

  /// The step budget for a file whose tables hold `rows` rows.
  static func steps(forRows rows: Int) -> Int {
    min(maximumSteps, minimumSteps + min(rows, maximumSteps / stepsPerRow) * stepsPerRow)
  }
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
  /// steps to `MBTilesReadLimits.minimumSteps` until `budgetByRows` raises them.
  /// `budget` must live as long as the connection.
  func limitReads(_ budget: StepBudget) {
    sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, MBTilesReadLimits.maxValueBytes)
    budget.limit = MBTilesReadLimits.minimumSteps
    sqlite3_progress_handler(handle, 1000, countSteps, Unmanaged.passUnretained(budget).toOpaque())
  }

  /// The rows the file's plain tables hold (each counted under the minimum budget,
  /// without reading a value); the step budget then follows them, up to its cap.
  /// Returns the row count: no well-formed `tiles` yields more rows than that.
  func budgetByRows(_ budget: StepBudget) throws -> Int {
    let tables = try prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' LIMIT \(MBTilesReadLimits.maxTablesCounted)")
    var names: [String] = []
    while try tables.next() { names.append(tables.text(0)) }
    var rows = 0
    for name in names {
      let count = try prepare("SELECT count(*) FROM \"\(name.replacingOccurrences(of: "\"", with: "\"\""))\"")
      if try count.next() { rows = rows.addingReportingOverflow(max(0, count.int(0))).partialValue }
    }
    budget.limit = MBTilesReadLimits.steps(forRows: rows)
    return rows
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
