/// Where a job's tiles go. A store stages everything while the job runs and
/// publishes it whole at the end, or drops it: readers never see half an output,
/// and a store replaces only what it can prove tilecut wrote.
///
/// The order of calls: `inspect()` (before any rendering: refuses a destination
/// holding anything the manifest does not account for), optionally
/// `matches(_:)` / `markUpToDate()` for a job that has nothing to do, then
/// `begin()`, `put` from any thread, `finish(manifest:files:)`,
/// and `commit()`, or `abort()` at any point.
public protocol TileStore: TileWriter, AnyObject {
  /// The destination as the user named it.
  var path: String { get }

  /// Checks that the destination is absent, empty, or wholly tilecut's, and where
  /// staging can go. Throws one line naming the first path it may not replace.
  func inspect() throws

  /// The destination's manifest, validated, when it has one (after `inspect()`).
  var existingManifest: Manifest? { get }

  /// Nil when the destination still holds what `manifest` lists (a cheap check:
  /// file counts, byte totals, the store's own files); otherwise the first difference.
  func difference(from manifest: Manifest) -> String?

  /// Marks an up-to-date destination as checked now (its manifest's time), so a
  /// make rule on the manifest converges.
  func markUpToDate() throws

  /// Makes the staging area (on the destination's own file system).
  func begin() throws

  /// After `begin()`, for a run whose tiles are exactly the previous output's: true when
  /// the store leaves them where they are, stages only the manifest, and replaces only
  /// the manifest at the commit (see `StagedOutput.keepTiles()`); false, and nothing
  /// changes, when it cannot. After true, the caller puts no tile and no file but the manifest.
  func keepTiles() -> Bool

  /// True after `keepTiles()` said so.
  var keepsTiles: Bool { get }

  /// Stores one tile.
  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws

  /// Where the new output is being built (after `begin()`), a directory on the output's file system.
  var stagingPath: String? { get }

  /// The bytes of a tile put in this run (before `finish`), for the content version.
  func stagedTile(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8]

  /// The SHA-256 (hex) of a tile put in this run, taken as it was put; nil when the
  /// store did not take it (no digests asked for, or a tile carried over by a link).
  func stagedDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String?

  /// Writes the manifest and the output's other files (name → bytes, such as
  /// preview.html) into staging; the manifest's `storeFiles` names them.
  /// Returns the manifest as written.
  @discardableResult
  func finish(manifest: Manifest, files: [String: [UInt8]]) throws -> Manifest

  /// Publishes staging in place of the destination in one step and removes what it replaced.
  func commit() throws

  /// Drops staging; the destination stays as it was. Safe to call twice, and from a signal watchdog.
  func abort()
}

extension TileStore {
  /// A store of files that hold many tiles stages them anew.
  public func keepTiles() -> Bool { false }
  public var keepsTiles: Bool { false }
}
