import Foundation
import TilecutCore
import TilecutPMTiles

extension PMTilesDriver {
  /// Every tile of a local archive with its bytes, in tile-ID order (a run's content
  /// read once); throws `TilecutError` naming the file when it is damaged.
  public func forEachTile(_ path: String, _ body: (TileCoordinate?, [UInt8], String) throws -> Void) throws {
    do {
      let scan = try PMTilesArchiveScan(path: path)
      // runs are expanded only as far as the header's count of addressed tiles
      var addressed: UInt64 = 0
      try scan.forEachTileEntry { e in
        addressed += UInt64(e.runLength)
        guard addressed <= scan.header.addressedTiles else {
          throw PMTilesFormatError("its directories address more tiles than the \(scan.header.addressedTiles) its header counts")
        }
        let data = try scan.tileData(e)
        for i in 0..<UInt64(e.runLength) {
          guard let t = PMTilesTileID.zxy(e.tileID + i) else { throw PMTilesFormatError("a tile ID lies past zoom 31") }
          let tile = TileCoordinate(zoom: t.z, x: t.x, y: t.y)
          try body(tile, data, "tile \(tile)")
        }
      }
    } catch let error as PMTilesFormatError {
      throw TilecutError.invalidInput(path: path, reason: "is not a readable PMTiles archive: \(error.reason)")
    }
  }

  /// Tiles per zoom of a local archive, from its directories.
  public func zoomCounts(_ path: String) throws -> [Int: (count: Int, bytes: Int)] {
    do { return try PMTilesArchiveScan(path: path).zoomCounts() } catch let error as PMTilesFormatError {
      throw TilecutError.invalidInput(path: path, reason: "is not a readable PMTiles archive: \(error.reason)")
    }
  }

  public func tiles(of level: Manifest.Level, in path: String) throws -> [TileCoordinate: [UInt8]] {
    var tiles: [TileCoordinate: [UInt8]] = [:]
    try forEachTile(path) { found, data, _ in
      if let tile = found, tile.zoom == level.zoom, level.hasTile(x: tile.x, y: tile.y) { tiles[tile] = data }
    }
    return tiles
  }
}
