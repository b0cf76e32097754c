/// A store of one archive file per floor and tile size (MBTiles, PMTiles) built on the
/// directory store: staging, ownership, the manifest and the swap are the directory
/// store's (the archives are its store files); the conforming type decides only what
/// goes into each archive.
public protocol ArchiveTileStore: TileStore {
  /// The directory store that stages, owns and publishes the archives.
  var directory: DirectoryTileStore { get }
}

extension ArchiveTileStore {
  public var path: String { directory.path }
  public var existingManifest: Manifest? { directory.existingManifest }
  public var stagingPath: String? { directory.stagingPath }
  public func inspect() throws { try directory.inspect() }
  public func markUpToDate() throws { try directory.markUpToDate() }
  public func begin() throws { try directory.begin() }
  public func commit() throws { try directory.commit() }

  /// Where an archive named `name` is written while the job runs (after `begin()`).
  public func stagedFile(_ name: String) throws -> String {
    guard let staging = directory.stagingPath else { throw TilecutError.output(path: path, reason: "the store was not begun") }
    try directory.checkStagingInPlace()
    return staging + "/" + name
  }

  /// Finishes one archive per floor and tile size of the manifest (empty ones too),
  /// in order, through `finishOne`, then writes the manifest naming them (`tileSets`,
  /// `storeFiles`) with the output's other `files`. Returns the manifest as written.
  public func finishArchives(
    _ manifest: Manifest, files: [String: [UInt8]], store: Manifest.Store, fileName: (Floor, Int) -> String,
    finishOne: (Floor, Int) throws -> Void
  ) throws -> Manifest {
    var final = manifest
    var sets: [Manifest.TileSet] = []
    let keys = Set(manifest.levels.map { LevelKey(floor: $0.floor, tileSize: $0.tileSize, zoom: 0) })
    for key in keys.sorted() {
      do { try finishOne(key.floor, key.tileSize) } catch let error as TilecutError {
        // a staged archive that cannot be finished because the output's folder moved: say so of the output
        try directory.checkStagingInPlace()
        throw error
      }
      sets.append(Manifest.TileSet(floor: key.floor, tileSize: key.tileSize, file: fileName(key.floor, key.tileSize)))
    }
    final.store = store
    final.tileSets = sets
    final.storeFiles = Array(Set(manifest.storeFiles ?? []).union(sets.map(\.file))).sorted()
    return try directory.finish(manifest: final, files: files)
  }
}
