import Foundation
import TilecutCore
import TilecutPMTiles

extension PMTilesDriver {
  /// The deepest zoom's tiles, gzip tile compression undone; an archive's tiles are
  /// taken whole (no bounds to clip by).
  public func deepestTiles(_ path: String, maxMemory: Int, overMemory: (Int) -> Error) throws -> StoreSourceTiles {
    do {
      let scan = try PMTilesArchiveScan(path: path)
      let h = scan.header
      guard h.tileType != .mvt else {
        throw TilecutError.invalidInput(
          path: path, reason: "holds vector tiles (MVT), which tilecut does not render; give a store of PNG, JPEG or WebP tiles")
      }
      guard h.tileCompression == .none || h.tileCompression == .gzip || h.tileCompression == .unknown else {
        throw TilecutError.invalidInput(
          path: path, reason: "has \(h.tileCompression)-compressed tiles; tilecut undoes gzip tile compression only")
      }
      guard let zoom = try scan.zoomCounts().filter({ $0.value.count > 0 }).keys.max() else {
        throw TilecutError.invalidInput(path: path, reason: "has no tiles")
      }
      var tiles: [TileCoordinate: [UInt8]] = [:]
      var held = 0
      let most = StoreSourceTiles.maxTiles(maxMemory: maxMemory)
      var addressed: UInt64 = 0
      try scan.forEachTileEntry { e in
        addressed += UInt64(e.runLength)
        guard addressed <= h.addressedTiles else {
          throw PMTilesFormatError("its directories address more tiles than the \(h.addressedTiles) its header counts")
        }
        guard let last = PMTilesTileID.zxy(e.tileID + UInt64(max(1, e.runLength)) - 1), let first = PMTilesTileID.zxy(e.tileID) else {
          throw PMTilesFormatError("a tile ID lies past zoom 31")
        }
        guard first.z <= zoom, last.z >= zoom else { return }
        var data = try scan.tileData(e)
        if h.tileCompression == .gzip { data = try PMTilesGzip.decompress(data, limit: 64 << 20) }
        // the run's tiles at that zoom only: a run may span zooms of billions of tiles
        let zoomStart = PMTilesTileID.base(zoom: zoom)
        let zoomEnd = zoomStart + (UInt64(1) << (2 * UInt64(zoom)))
        let runEnd = e.tileID.addingReportingOverflow(UInt64(e.runLength)).partialValue
        for id in max(e.tileID, zoomStart)..<max(max(e.tileID, zoomStart), min(runEnd, zoomEnd)) {
          guard let t = PMTilesTileID.zxy(id), t.z == zoom else { continue }
          guard tiles.count < most else { throw StoreSourceTiles.tooManyTiles(path, zoom: zoom, maxMemory: maxMemory) }
          held += data.count
          guard held <= maxMemory else { throw overMemory(zoom) }
          tiles[TileCoordinate(zoom: zoom, x: t.x, y: t.y)] = data
        }
      }
      return StoreSourceTiles(zoom: zoom, tiles: tiles, bounds: nil)
    } catch let error as PMTilesFormatError {
      throw TilecutError.invalidInput(path: path, reason: "is not a readable PMTiles archive: \(error.reason)")
    }
  }
}
