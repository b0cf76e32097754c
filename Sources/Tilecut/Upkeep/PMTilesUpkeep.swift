import Foundation
import TilecutCore
import TilecutPMTiles
import TilecutPMTilesStore
import TilecutVips

/// Every tile of a local archive with its bytes, in tile-ID order (a run's content
/// read once); throws `TilecutError` naming the file when it is damaged.
func forEachPMTilesTile(_ path: String, _ body: (TileCoordinate, [UInt8]) throws -> Void) throws {
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
        try body(TileCoordinate(zoom: t.z, x: t.x, y: t.y), data)
      }
    }
  } catch let error as PMTilesFormatError {
    throw TilecutError.invalidInput(path: path, reason: "is not a readable PMTiles archive: \(error.reason)")
  }
}

/// Tiles per zoom of a local archive, from its directories.
func pmtilesZoomCounts(_ path: String) throws -> [Int: (count: Int, bytes: Int)] {
  do { return try PMTilesArchiveScan(path: path).zoomCounts() } catch let error as PMTilesFormatError {
    throw TilecutError.invalidInput(path: path, reason: "is not a readable PMTiles archive: \(error.reason)")
  }
}
