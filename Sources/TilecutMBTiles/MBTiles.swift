import CSQLite
import Foundation
import Synchronization
import TilecutCore

/// The `metadata` rows of one MBTiles 1.3 tile set.
public struct MBTilesMetadata: Sendable, Equatable {
  public var name: String
  /// `png`, `webp` or `jpg`.
  public var format: String
  /// West, south, east, north in degrees.
  public var bounds: [Double]
  /// Longitude, latitude and a zoom to open at.
  public var center: (longitude: Double, latitude: Double, zoom: Int)
  public var minZoom: Int
  public var maxZoom: Int
  public var version: String
  public var description: String
  /// The `json` row: tilecut's own facts about the set (floor, tile size, no-tile cells).
  public var json: String

  public init(
    name: String, format: String, bounds: [Double], center: (longitude: Double, latitude: Double, zoom: Int), minZoom: Int,
    maxZoom: Int, version: String, description: String, json: String
  ) {
    self.name = name
    self.format = format
    self.bounds = bounds
    self.center = center
    self.minZoom = minZoom
    self.maxZoom = maxZoom
    self.version = version
    self.description = description
    self.json = json
  }

  public static func == (l: MBTilesMetadata, r: MBTilesMetadata) -> Bool {
    l.rows.map { [$0.0, $0.1] } == r.rows.map { [$0.0, $0.1] }
  }

  /// The rows as the file stores them, in the spec's order.
  public var rows: [(String, String)] {
    func number(_ v: Double) -> String {
      // enough digits to round-trip a footprint edge, without float noise
      String(format: "%.9f", v).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
    }
    return [
      ("name", name), ("format", format), ("bounds", bounds.map(number).joined(separator: ",")),
      ("center", "\(number(center.longitude)),\(number(center.latitude)),\(center.zoom)"),
      ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)), ("type", "overlay"), ("version", version),
      ("description", description), ("json", json),
    ]
  }
}

/// The TMS row MBTiles stores for an XYZ tile: rows count from the south.
public func mbtilesRow(for tile: TileCoordinate) -> Int { (1 << tile.zoom) - 1 - tile.y }

/// Writes one MBTiles 1.3 file: tiles keyed by TMS row in mbutil's `map` + `images`
/// schema behind a `tiles` view, so identical tiles (a flat wall, a blank room) are
/// stored once. Everything happens in one transaction on a `.partial` file that
/// `finish` renames into place; `abort` deletes it. Tiles arrive in the order workers
/// finish them, so they are gathered in pending tables and written out sorted at the
/// end: the same tiles make the same file, byte for byte, whatever `--jobs` is.
public final class MBTilesWriter: Sendable {
  public let path: String
  let partialPath: String
  private let digest: @Sendable ([UInt8]) -> String
  private let state: Mutex<WriterState>

  /// Starts `path` (which must not exist yet); `digest` names a tile by its content.
  public init(path: String, digest: @escaping @Sendable ([UInt8]) -> String) throws {
    self.path = path
    partialPath = path + ".partial"
    self.digest = digest
    for p in [path, partialPath] where FileManager.default.fileExists(atPath: p) {
      throw TilecutError.output(path: p, reason: "already exists; tilecut writes a new MBTiles file only where none is")
    }
    let db = try SQLiteDatabase(path: partialPath, create: true)
    do {
      // The file is private until renamed, and an abort deletes it: no journal and
      // no fsync per statement; `finish` syncs the file once.
      try db.execute(
        """
        PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA page_size = 4096;
        BEGIN;
        CREATE TABLE pending_map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
        CREATE UNIQUE INDEX pending_map_index ON pending_map (zoom_level, tile_column, tile_row);
        CREATE TABLE pending_images (tile_data BLOB, tile_id TEXT);
        CREATE UNIQUE INDEX pending_images_id ON pending_images (tile_id);
        """)
      let insertImage = try db.prepare("INSERT OR IGNORE INTO pending_images (tile_id, tile_data) VALUES (?1, ?2)")
      let insertMap = try db.prepare("INSERT INTO pending_map (zoom_level, tile_column, tile_row, tile_id) VALUES (?1, ?2, ?3, ?4)")
      state = Mutex(WriterState(db: db, insertImage: insertImage, insertMap: insertMap))
    } catch {
      db.close()
      unlink(partialPath)
      throw error
    }
  }

  /// Adds one tile (XYZ coordinates; stored with its TMS row). Safe from any thread.
  /// Returns the digest that names its bytes.
  @discardableResult
  public func put(_ tile: TileCoordinate, data: [UInt8]) throws -> String {
    let id = digest(data)
    try state.withLock { s in
      guard let db = s.db, let insertImage = s.insertImage, let insertMap = s.insertMap else {
        throw TilecutError.output(path: path, reason: "is already finished")
      }
      insertImage.bind(1, id)
      insertImage.bind(2, data)
      try insertImage.run()
      if let h = db.handle, sqlite3_changes(h) > 0 { s.images += 1 }
      insertMap.bind(1, tile.zoom)
      insertMap.bind(2, tile.x)
      insertMap.bind(3, mbtilesRow(for: tile))
      insertMap.bind(4, id)
      try insertMap.run()
      s.tiles += 1
    }
    return id
  }

  /// The bytes stored for a tile so far (the open transaction sees its own rows).
  public func read(_ tile: TileCoordinate) throws -> [UInt8]? {
    try state.withLock { s in
      guard let db = s.db else { throw TilecutError.output(path: path, reason: "is already finished") }
      let q = try db.prepare(
        """
        SELECT pending_images.tile_data FROM pending_map JOIN pending_images ON pending_images.tile_id = pending_map.tile_id
        WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3
        """)
      q.bind(1, tile.zoom)
      q.bind(2, tile.x)
      q.bind(3, mbtilesRow(for: tile))
      return try q.next() ? q.blob(0) : nil
    }
  }

  /// Tiles added and distinct images stored so far.
  public var counts: (tiles: Int, images: Int) { state.withLock { ($0.tiles, $0.images) } }

  /// Writes the tiles out sorted with the metadata, commits, compacts, syncs and
  /// renames the file into place.
  public func finish(metadata: MBTilesMetadata) throws {
    try state.withLock { s in
      guard let db = s.db else { throw TilecutError.output(path: path, reason: "is already finished") }
      s.insertImage = nil
      s.insertMap = nil
      try db.execute(
        """
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
        CREATE TABLE images (tile_data BLOB, tile_id TEXT);
        INSERT INTO map SELECT zoom_level, tile_column, tile_row, tile_id FROM pending_map
          ORDER BY zoom_level, tile_column, tile_row;
        INSERT INTO images SELECT tile_data, tile_id FROM pending_images ORDER BY tile_id;
        DROP TABLE pending_map;
        DROP TABLE pending_images;
        CREATE UNIQUE INDEX metadata_name ON metadata (name);
        CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
        CREATE UNIQUE INDEX images_id ON images (tile_id);
        CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
          map.tile_row AS tile_row, images.tile_data AS tile_data
          FROM map JOIN images ON images.tile_id = map.tile_id;
        """)
      let insert = try db.prepare("INSERT INTO metadata (name, value) VALUES (?1, ?2)")
      for (name, value) in metadata.rows {
        insert.bind(1, name)
        insert.bind(2, value)
        try insert.run()
      }
      try db.execute("COMMIT; VACUUM;")
      s.db = nil
      db.close()
    }
    let fd = open(partialPath, O_RDONLY)
    guard fd >= 0, fsync(fd) == 0 else {
      if fd >= 0 { close(fd) }
      throw TilecutError.output(path: partialPath, reason: "cannot be synced to disk (\(String(cString: strerror(errno))))")
    }
    close(fd)
    guard rename(partialPath, path) == 0 else {
      throw TilecutError.output(path: path, reason: "cannot be moved into place (\(String(cString: strerror(errno))))")
    }
  }

  /// Closes and deletes the unfinished file.
  public func abort() {
    state.withLock { s in
      s.insertImage = nil
      s.insertMap = nil
      s.db?.close()
      s.db = nil
    }
    unlink(partialPath)
  }
}

/// The writer's connection and counts, used only under its lock.
private struct WriterState: @unchecked Sendable {
  var db: SQLiteDatabase?
  var insertImage: SQLiteStatement?
  var insertMap: SQLiteStatement?
  var tiles = 0
  var images = 0
}

/// One row of an MBTiles `tiles` table as stored.
public struct MBTilesRow: Sendable {
  public var zoom: Int
  public var column: Int
  /// TMS: counted from the south.
  public var row: Int
  public var data: [UInt8]

  /// The XYZ tile, or nil when the numbers lie outside the grid of a zoom tilecut writes.
  public var tile: TileCoordinate? {
    guard (0...PyramidPlanner.maxSupportedZoom).contains(zoom) else { return nil }
    let n = 1 << zoom
    guard (0..<n).contains(column), (0..<n).contains(row) else { return nil }
    return TileCoordinate(zoom: zoom, x: column, y: n - 1 - row)
  }
}

/// Reads an MBTiles file through SQLite, read-only.
public final class MBTilesReader {
  let db: SQLiteDatabase
  /// The rows the file's tables hold: `forEachRow` stops a `tiles` that yields more.
  let tableRows: Int

  public init(path: String) throws {
    guard FileManager.default.fileExists(atPath: path) else { throw TilecutError.invalidInput(path: path, reason: "no such file") }
    db = try SQLiteDatabase(path: path, create: false)
    // someone else's file: bounded work and values, and the spec's shape
    let budget = StepBudget(limit: MBTilesReadLimits.minimumSteps)
    db.stepBudget = budget
    db.limitReads(budget)
    let check = try db.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('tiles', 'metadata')")
    guard try check.next(), check.int(0) == 2 else {
      throw TilecutError.invalidInput(path: path, reason: "is not an MBTiles file (no tiles and metadata tables)")
    }
    try db.expectShape(of: "tiles", columns: ["zoom_level", "tile_column", "tile_row", "tile_data"])
    try db.expectShape(of: "metadata", columns: ["name", "value"])
    tableRows = try db.budgetByRows(budget)
  }

  /// The `metadata` table as name → value.
  public func metadata() throws -> [String: String] {
    let q = try db.prepare("SELECT name, value FROM metadata")
    var out: [String: String] = [:]
    while try q.next() { out[q.text(0)] = q.text(1) }
    return out
  }

  /// The bytes of one XYZ tile, or nil when the file has no row for it.
  public func tile(_ tile: TileCoordinate) throws -> [UInt8]? {
    let q = try db.prepare("SELECT tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3")
    q.bind(1, tile.zoom)
    q.bind(2, tile.x)
    q.bind(3, mbtilesRow(for: tile))
    return try q.next() ? q.blob(0) : nil
  }

  /// The deepest zoom that has a tile, nil for a file without tiles.
  public func deepestZoom() throws -> Int? {
    let q = try db.prepare("SELECT max(zoom_level) FROM tiles")
    return try q.next() && !q.isNull(0) ? q.int(0) : nil
  }

  /// The rows of one zoom, in storage order.
  public func forEachRow(zoom: Int, _ body: (MBTilesRow) throws -> Void) throws {
    let q = try db.prepare("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles WHERE zoom_level = ?1")
    q.bind(1, zoom)
    var yielded = 0
    while try q.next() {
      yielded += 1
      guard yielded <= tableRows else {
        throw TilecutError.invalidInput(
          path: db.path, reason: "has a tiles view that yields more rows than its tables hold (\(tableRows)): a join that repeats rows")
      }
      try body(MBTilesRow(zoom: q.int(0), column: q.int(1), row: q.int(2), data: q.isNull(3) ? [] : q.blob(3)))
    }
  }

  /// Every row, in storage order.
  public func forEachRow(_ body: (MBTilesRow) throws -> Void) throws {
    let q = try db.prepare("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")
    var yielded = 0
    while try q.next() {
      yielded += 1
      guard yielded <= tableRows else {
        throw TilecutError.invalidInput(
          path: db.path,
          reason:
            "has a tiles view that yields more rows than its tables hold (\(tableRows)): a join that repeats rows; tilecut reads plain tables or views of the MBTiles spec's shape"
        )
      }
      try body(MBTilesRow(zoom: q.int(0), column: q.int(1), row: q.int(2), data: q.isNull(3) ? [] : q.blob(3)))
    }
  }
}
