import Foundation
import TilecutCore
import TilecutPMTiles

/// The PMTiles store as the rest of tilecut sees it: one PMTiles v3 archive per floor
/// and tile size. Each verb it does is in its own file beside this one.
public struct PMTilesDriver: ArchiveStoreDriver {
  public init() {}

  public var kind: StoreKind { .pmtiles }
  public var displayName: String { "PMTiles" }
  public var fileNoun: String { "PMTiles archive" }
  public var filesNoun: String { "PMTiles archives" }
  public var entryNoun: String { "entry" }
  public var fileExtension: String { "pmtiles" }

  public func fileName(floor: Floor, tileSize: Int) -> String { PMTilesTileStore.fileName(floor: floor, tileSize: tileSize) }

  /// Tiles go into its files, not named by `template`.
  public func makeStore(
    path: String, format: String, template: TileNameTemplate, option: String, digest: @escaping @Sendable ([UInt8]) -> String
  ) -> any TileStore {
    PMTilesTileStore(path: path, format: format, option: option, digest: digest)
  }

  /// Readers of v3 archives open every zoom.
  public func zoomWarning(path: String, deepestZoom: Int) -> String? { nil }

  /// A v3 archive: "PMTiles" and the version byte 3.
  public func holds(head: [UInt8], file: FileHandle) -> Bool {
    head.count >= 8 && head.starts(with: Array("PMTiles".utf8)) && head[7] == 3
  }
}
