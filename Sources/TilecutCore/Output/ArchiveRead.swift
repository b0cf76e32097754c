import Foundation

extension ArchiveStoreDriver {
  /// The tile read from the file of its floor's tile set at its size, nil when the
  /// output has no such set or its file no such tile.
  public func outputTile(_ tile: TileCoordinate, floor: Floor, tileSize: Int, of manifest: Manifest, in directory: String) throws -> [UInt8]? {
    guard let set = manifest.tileSets?.first(where: { $0.floor == floor && $0.tileSize == tileSize }) else { return nil }
    return try openFile(path: directory + "/" + set.file, name: set.file).tile(tile)
  }

  /// The file of the tile's set.
  public func outputTilePath(_ tile: TileCoordinate, floor: Floor, tileSize: Int, of manifest: Manifest, in directory: String) -> String? {
    manifest.tileSets?.first { $0.floor == floor && $0.tileSize == tileSize }.map { directory + "/" + $0.file }
  }

  /// The tile sets' files.
  public func tileFiles(of manifest: Manifest) throws -> [String] { (manifest.tileSets ?? []).map(\.file) }
}
