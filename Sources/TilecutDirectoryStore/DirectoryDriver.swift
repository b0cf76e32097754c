import Foundation
import TilecutCore

/// The directory store as the rest of tilecut sees it: one file per tile, named by the
/// run's template, under the output directory beside the manifest.
public struct DirectoryDriver: StoreDriver {
  public init() {}

  public var kind: StoreKind { .directory }
  public var displayName: String { "directory" }

  /// Each tile's SHA-256 is kept as it is put (`digest`), for the content version.
  public func makeStore(
    path: String, format: String, template: TileNameTemplate, option: String, digest: @escaping @Sendable ([UInt8]) -> String
  ) -> any TileStore {
    DirectoryTileStore(path: path, template: template, option: option, digests: TileDigests(digest: digest))
  }

  /// Readers of tile files open every zoom.
  public func zoomWarning(path: String, deepestZoom: Int) -> String? { nil }

  public var tilesAreFiles: Bool { true }

  /// Each listed tile's file, read without following a link out of the output.
  public func levelTiles(_ level: Manifest.Level, of manifest: Manifest, in directory: String) throws -> [TileCoordinate: [UInt8]] {
    let template = try TileNameTemplate(manifest.name)
    var tiles: [TileCoordinate: [UInt8]] = [:]
    for tile in level.tiles {
      tiles[tile] = try readInside(directory, template.path(floor: level.floor, tileSize: level.tileSize, tile: tile))
    }
    return tiles
  }
}
