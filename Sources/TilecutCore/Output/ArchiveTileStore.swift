/// A store of one archive file per floor and tile size (MBTiles, PMTiles): staging,
/// ownership, the manifest and the swap are the output's (`StagedOutput`; the archives
/// are its store files); the conforming type decides only what goes into each archive.
public protocol ArchiveTileStore: TileStore {
  /// The output directory that stages, owns and publishes the archives.
  var output: StagedOutput { get }
}

extension ArchiveTileStore {
  public var path: String { output.path }
  public var existingManifest: Manifest? { output.existingManifest }
  public var stagingPath: String? { output.stagingPath }
  public func inspect() throws { try output.inspect() }
  public func markUpToDate() throws { try output.markUpToDate() }
  public func begin() throws { try output.begin() }
  public func commit() throws { try output.commit() }

  /// Where an archive named `name` is written while the job runs (after `begin()`).
  public func stagedFile(_ name: String) throws -> String { try output.stagedFile(name) }

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
        try output.checkStagingInPlace()
        throw error
      }
      sets.append(Manifest.TileSet(floor: key.floor, tileSize: key.tileSize, file: fileName(key.floor, key.tileSize)))
    }
    final.store = store
    final.tileSets = sets
    final.storeFiles = Array(Set(manifest.storeFiles ?? []).union(sets.map(\.file))).sorted()
    return try output.finish(manifest: final, files: files)
  }
}
