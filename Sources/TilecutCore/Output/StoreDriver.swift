import Foundation

/// The kinds of tile store: what `--store` names, a manifest's `store` records and
/// `tilecut show` prints. Only the store catalogue maps a kind to what it does.
public enum StoreKind: String, CaseIterable, Sendable, Codable {
  case directory, mbtiles, pmtiles

  /// The store of an output whose manifest names none, and `--store`'s default.
  public static let `default` = StoreKind.directory

  /// True when an output of this store lists its tile sets in the manifest (`tileSets`:
  /// one file per floor and tile size), which manifest validation checks; only the
  /// default store keeps tiles as files (the catalogue's tests hold the drivers to it).
  public var hasTileSets: Bool { self != .default }
}

/// One kind of tile store, as the rest of tilecut sees it: what a run writes through
/// it. The directory store has one, as every store module has; the rest of the code
/// asks the store catalogue for it by kind and never names a store.
public protocol StoreDriver: Sendable {
  /// The kind a manifest records for an output of this store.
  var kind: StoreKind { get }
  /// The store's name as a person reads it ("MBTiles").
  var displayName: String { get }

  /// A store writing the output directory `path`, named by `option` in messages:
  /// `format` is the tiles' file format, `template` how tile files are named (a store
  /// of tile files), `digest` names a tile by its content.
  func makeStore(
    path: String, format: String, template: TileNameTemplate, option: String, digest: @escaping @Sendable ([UInt8]) -> String
  ) -> any TileStore

  /// One line to warn of, when an output of this store reaching `deepestZoom` is one
  /// some readers will not open; nil when it is not.
  func zoomWarning(path: String, deepestZoom: Int) -> String?

  /// True when the store keeps each tile as a file named by the output's template
  /// (what the preview page reads); false for one file per tile set.
  var tilesAreFiles: Bool { get }

  /// Every tile `level` lists, read from the output `directory` whose manifest is
  /// `manifest`; throws naming the file when a listed tile is missing.
  func levelTiles(_ level: Manifest.Level, of manifest: Manifest, in directory: String) throws -> [TileCoordinate: [UInt8]]

  /// `tilecut verify` of an output of this store: every problem of its files against
  /// the manifest (`context` gives the store files whose bytes changed), how many
  /// tiles were looked at and, for a store of one file per tile set, how many files it has.
  func verifyOutput(_ manifest: Manifest, _ context: StoreVerification) throws -> (problems: [String], tilesChecked: Int, storeFiles: Int?)

  /// `tilecut merge`, checking a shard of this store: how many tiles it holds per level
  /// (`tally`: the tile files per level that inspecting its directory counted).
  func heldTiles(ofShard directory: String, _ manifest: Manifest, tally: [LevelKey: (count: Int, bytes: Int)]) throws -> [LevelKey: Int]

  /// `tilecut merge`, copying a shard of this store: each tile it holds given to `put`
  /// with its floor, tile size, cell and where a message about it points. `owners` maps
  /// what names a tile to the shard that gave it, across shards, so that no two give one;
  /// `checkpoint` is called before each tile read on its own.
  func copyShardTiles(
    _ directory: String, _ manifest: Manifest, owners: inout [String: String], checkpoint: () throws -> Void,
    put: (_ bytes: [UInt8], _ floor: Floor, _ tileSize: Int, _ tile: TileCoordinate, _ place: String) throws -> Void
  ) throws

  /// `tilecut get` and `show` of an output of this store, for a tile set with no file
  /// opened for it: the tile's bytes read from the output `directory` (its manifest
  /// `manifest`), nil when the store has none.
  func outputTile(_ tile: TileCoordinate, floor: Floor, tileSize: Int, of manifest: Manifest, in directory: String) throws -> [UInt8]?

  /// Where `outputTile` reads the tile, for a message; nil when it cannot be told.
  func outputTilePath(_ tile: TileCoordinate, floor: Floor, tileSize: Int, of manifest: Manifest, in directory: String) -> String?

  /// The files that hold `manifest`'s tiles, relative to the output directory, in no
  /// particular order (what `--changes` compares): one per tile, or the store's files.
  func tileFiles(of manifest: Manifest) throws -> [String]

  /// An incremental build: true when an output of this store whose manifest is
  /// `previous` can lend its tiles at all (before the rest of what reuse asks).
  func lendsTiles(_ previous: Manifest) -> Bool

  /// An incremental build, before it carries a tile: nil when the previous output of
  /// `store` (its manifest `previous`) may lend its tiles; otherwise the difference
  /// found, for which every tile is made again.
  func carryOverDifference(_ store: any TileStore, previous: Manifest) -> String?

  /// An incremental build: what carries the previous output's tiles (at `store.path`,
  /// its manifest `previous`) into `store`, staged at `staging`; `template` names tile
  /// files, `inPlace` says the store keeps its tiles where they are
  /// (`TileStore.keepTiles()`). Throws when the previous tiles are not those tilecut wrote.
  func tileCarrier(_ previous: Manifest, into store: any TileStore, staging: String, template: TileNameTemplate, inPlace: Bool) throws
    -> any TileCarrier
}

/// Carries tiles of a previous output into an incremental build's store, one by one.
public protocol TileCarrier: AnyObject {
  /// Carries the previous output's tile at `tile` of `floor` and `tileSize` (one its
  /// manifest lists) into the store; returns its size in bytes.
  func carry(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> Int
}

/// One kind of archive store (one file per floor and tile size beside the manifest),
/// everything tilecut does with its files: read them for `show` and `get`, verify,
/// merge and re-tile them, and carry their tiles over into an incremental build. Each
/// archive store module has one.
public protocol ArchiveStoreDriver: StoreDriver {
  /// What one of its files is called ("MBTiles file").
  var fileNoun: String { get }
  /// What one of its files is called, plural ("MBTiles files").
  var filesNoun: String { get }
  /// What holds one tile in a file ("row").
  var entryNoun: String { get }
  /// The extension of its files, lowercase, without the dot.
  var fileExtension: String { get }

  /// The file name of a floor's tile set at a tile size.
  func fileName(floor: Floor, tileSize: Int) -> String

  /// True when a file's first 16 bytes (`head`) are this store's; `file` is open for
  /// reading when a closer look is needed.
  func holds(head: [UInt8], file: FileHandle) -> Bool

  /// One file opened for reading: errors opening it name `path`, later ones `name`.
  func openFile(path: String, name: String) throws -> any StoreFileReader

  /// A file at an http(s) URL, read with Range requests; nil when the store is not read over HTTP.
  func openURL(_ url: URL, name: String) throws -> (any StoreFileReader)?

  /// Every tile of a file with its bytes (a coordinate nil when the stored one is no
  /// cell of the grid) and how an error names where it is.
  func forEachTile(_ path: String, _ body: (TileCoordinate?, [UInt8], String) throws -> Void) throws

  /// Tiles and their bytes per zoom of a file, read without decoding a tile.
  func zoomCounts(_ path: String) throws -> [Int: (count: Int, bytes: Int)]

  /// The tiles `level` lists that a file holds (one it lacks is absent).
  func tiles(of level: Manifest.Level, in path: String) throws -> [TileCoordinate: [UInt8]]

  /// The deepest zoom's tiles of a file given as a source, at most `maxMemory` bytes of
  /// them (`overMemory` gives the error past that, from the zoom), and the bounds to clip them by.
  func deepestTiles(_ path: String, maxMemory: Int, overMemory: (Int) -> Error) throws -> StoreSourceTiles

  /// The problems of an output's files (`manifest.tileSets`) against its manifest,
  /// beyond those `context` says were found already (`tileSetMissing`: a level with
  /// tiles has no tile set, reported already), and how many tiles were looked at.
  func verify(_ manifest: Manifest, _ context: StoreVerification, tileSetMissing: Bool) throws -> (problems: [String], tilesChecked: Int)
}

extension ArchiveStoreDriver {
  public var tilesAreFiles: Bool { false }

  /// The tiles of the level's tile set, its file a regular file the manifest names.
  public func levelTiles(_ level: Manifest.Level, of manifest: Manifest, in directory: String) throws -> [TileCoordinate: [UInt8]] {
    guard let set = manifest.tileSets?.first(where: { $0.floor == level.floor && $0.tileSize == level.tileSize }) else {
      throw TilecutError.invalidInput(path: directory, reason: "its manifest names no \(fileNoun) for floor \(level.floor), \(level.tileSize) px")
    }
    let path = directory + "/" + set.file
    var st = stat()
    guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
      throw TilecutError.invalidInput(path: path, reason: "is missing or not a regular file")
    }
    let tiles = try self.tiles(of: level, in: path)
    if let tile = level.tiles.first(where: { tiles[$0] == nil }) {
      throw TilecutError.invalidInput(path: path, reason: "has no \(entryNoun) for tile \(tile), which the manifest lists")
    }
    return tiles
  }
}

/// A store's file opened for reading.
public protocol StoreFileReader: AnyObject {
  /// The tile's bytes as a map would draw them, nil when the file has none.
  func tile(_ tile: TileCoordinate) throws -> [UInt8]?

  /// The answer for `tile` (a cell of the grid) named `name`; `read` gives its
  /// bytes checked as `get` serves them.
  func cell(_ tile: TileCoordinate, name: String, read: () throws -> [UInt8]?) throws -> StoreCell

  /// Adds to `set` what `tilecut show` prints of the file (format, zooms, bounds,
  /// tiles, metadata), keeping the zooms, bounds and count a manifest gave.
  func describe(into set: inout [String: Any]) throws
}

/// The answer for one cell of a store.
public enum StoreCell {
  /// The tile's bytes, as stored.
  case tile([UInt8])
  /// Inside the pyramid and the footprint's cells, but no tile: the no-tile rule.
  case blank(String)
  /// Outside the pyramid: a zoom, floor or cell the store does not cover.
  case outside(String)

  /// The deepest zoom of the grid a store addresses (tile IDs of 64 bits).
  public static let deepestZoom = 31

  /// The cells a bounding box touches at `zoom`.
  public static func cells(west: Double, south: Double, east: Double, north: Double, zoom: Int) -> (
    x: ClosedRange<Int>, y: ClosedRange<Int>
  ) {
    let n = Double(1 << zoom)
    let eps = 1e-9
    func column(_ lon: Double) -> Double { WebMercator.u(longitudeDegrees: lon) * n }
    func row(_ lat: Double) -> Double { WebMercator.v(latitudeDegrees: lat) * n }
    let last = (1 << zoom) - 1
    // a store's bounds are its own numbers: one far off the world (or not a number, which
    // counts as the world's east or south end) is clamped before it becomes an Int
    func clamp(_ v: Double) -> Int { v.isNaN ? last : max(0, min(last, Int(max(-1, min(Double(last) + 1, v))))) }
    let x0 = clamp(floor(column(west) + eps))
    let x1 = clamp(ceil(column(east) - eps) - 1)
    let y0 = clamp(floor(row(north) + eps))
    let y1 = clamp(ceil(row(south) - eps) - 1)
    return (x0...max(x0, x1), y0...max(y0, y1))
  }

  /// The refusal of a stored tile of no bytes at `path`: an empty tile is no tile, no
  /// image a map can draw, nor the no-tile rule.
  public static func emptyTile(_ tile: TileCoordinate, at path: String) -> TilecutError {
    TilecutError.invalidInput(
      path: path,
      reason:
        "holds an empty tile (0 bytes) at \(tile.zoom)/\(tile.x)/\(tile.y): an empty tile is no tile; run tilecut verify, then make the output again"
    )
  }

  /// A range as a message gives it: "3" or "3–5".
  public static func text(_ r: ClosedRange<Int>) -> String {
    r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)–\(r.upperBound)"
  }
}

/// What a store needs from the verifier to check its files: the output, the store
/// files whose bytes changed, and the tile checks that live outside the store modules.
public struct StoreVerification {
  /// The output directory.
  public var directory: String
  /// Store files whose bytes are not those the manifest's digests record (already reported).
  public var changedFiles: [String]
  /// A tile's width and height; throws when it does not decode.
  public var decode: @Sendable ([UInt8]) throws -> (width: Int, height: Int)
  /// A tile's SHA-256, hex.
  public var digest: @Sendable ([UInt8]) -> String
  /// The content version tiles of these digests make for the manifest, nil when it cannot be told.
  public var contentVersion: (Manifest, (Floor, Int, TileCoordinate) throws -> String) -> String?
  /// Worker threads for decoding tiles, at least 1.
  public var workers: Int

  public init(
    directory: String, changedFiles: [String],
    decode: @escaping @Sendable ([UInt8]) throws -> (width: Int, height: Int), digest: @escaping @Sendable ([UInt8]) -> String,
    contentVersion: @escaping (Manifest, (Floor, Int, TileCoordinate) throws -> String) -> String?, workers: Int = 1
  ) {
    self.directory = directory
    self.changedFiles = changedFiles
    self.decode = decode
    self.digest = digest
    self.contentVersion = contentVersion
    self.workers = workers
  }

  /// One line for each store file whose bytes are not those the manifest's digests record.
  public var changedFileProblems: [String] {
    changedFiles.map { "changed: \($0) (its bytes differ from the digest in the manifest)" }
  }
}

/// The deepest zoom's tiles of a store file given as a source.
public struct StoreSourceTiles {
  /// The least a tile of a store given as a source takes decoded: 64 × 64 RGBA pixels.
  /// The mosaic of a deepest zoom of tiles that size or larger decodes to at least this
  /// per tile, within --max-memory; a store of a million 1 × 1 px tiles (a million
  /// decodes, minutes) is refused by its count before its tiles are read.
  public static let leastTileBytes = 64 * 64 * 4

  /// The most tiles a deepest zoom given as a source may hold within `maxMemory`.
  public static func maxTiles(maxMemory: Int) -> Int { max(1, maxMemory / leastTileBytes) }

  /// The refusal of a deepest zoom of more than `maxTiles(maxMemory:)` tiles.
  public static func tooManyTiles(_ path: String, zoom: Int, maxMemory: Int) -> TilecutError {
    TilecutError.invalidInput(
      path: path,
      reason:
        "its deepest zoom \(zoom) holds more than \(maxTiles(maxMemory: maxMemory)) tiles, more than --max-memory \(maxMemory / 1_000_000) MB holds decoded (16 KB a tile of 64 px or more); raise --max-memory if this is intended"
    )
  }

  public var zoom: Int
  public var tiles: [TileCoordinate: [UInt8]]
  /// The file's own bounds text (west,south,east,north) to clip the raster by, when it has one to use.
  public var bounds: String?

  public init(zoom: Int, tiles: [TileCoordinate: [UInt8]], bounds: String?) {
    self.zoom = zoom
    self.tiles = tiles
    self.bounds = bounds
  }
}
