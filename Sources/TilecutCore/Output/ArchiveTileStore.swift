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
    return staging + "/" + name
  }
}
