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
}
