import Foundation
import TilecutPMTiles

/// One PMTiles archive per floor and tile size (`--store pmtiles`), each a bundled
/// file or an http(s) URL read with Range requests: the first read of an archive
/// fetches its header and root directory, later tiles cost one request once their
/// leaf directory is cached. Safe to use from several threads.
public struct PMTilesTileStore: TileStore {
  public let archives: [MBTilesTileStore.TileSet: PMTilesReader]

  public init(archives: [MBTilesTileStore.TileSet: PMTilesReader]) { self.archives = archives }

  /// Opens each archive: a file URL is memory-mapped, an http(s) URL read with Range
  /// requests (one request here, for the header and root directory).
  public init(urls: [MBTilesTileStore.TileSet: URL]) throws {
    var archives: [MBTilesTileStore.TileSet: PMTilesReader] = [:]
    for (set, url) in urls {
      do {
        archives[set] = try PMTilesReader(url: url)
      } catch let error as PMTilesFormatError {
        throw TileUnavailable("\(url.isFileURL ? url.path : url.absoluteString): \(error.reason)")
      }
    }
    self.archives = archives
  }

  public func data(floor: Int, tileSize: Int, zoom: Int, x: Int, y: Int) throws -> Data? {
    guard let archive = archives[.init(floor: floor, tileSize: tileSize)] else { return nil }
    do {
      return try archive.tile(z: zoom, x: x, y: y).map { Data($0) }
    } catch let error as PMTilesFormatError {
      throw TileUnavailable("\(archive.source.name): \(error.reason)")
    }
  }
}

extension OfflineTiles {
  /// A PMTiles output read where it is served: `manifest` (downloaded from `base`) lists
  /// the `L{floor}_{size}.pmtiles` archives, read from `base` with Range requests. The
  /// manifest answers "no tile" without a request, as for the other stores.
  public init(manifest: TileManifest, pmtilesBase base: URL) throws {
    var urls: [MBTilesTileStore.TileSet: URL] = [:]
    for set in manifest.tileSets where set.file.lowercased().hasSuffix(".pmtiles") {
      urls[.init(floor: set.floor, tileSize: set.tileSize)] = base.appendingPathComponent(set.file)
    }
    guard !urls.isEmpty else { throw TileUnavailable("the manifest lists no .pmtiles archives (it is not a --store pmtiles output)") }
    self.init(manifest: manifest, store: try PMTilesTileStore(urls: urls))
  }
}
