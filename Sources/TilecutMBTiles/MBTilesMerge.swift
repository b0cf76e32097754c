import Foundation
import TilecutCore

extension MBTilesDriver {
  /// Every row of a file, in storage order; a row off the XYZ grid has no coordinate.
  public func forEachTile(_ path: String, _ body: (TileCoordinate?, [UInt8], String) throws -> Void) throws {
    try MBTilesReader(path: path).forEachRow { row in
      try body(row.tile, row.data, "a row (zoom \(row.zoom), column \(row.column), row \(row.row))")
    }
  }

  public func zoomCounts(_ path: String) throws -> [Int: (count: Int, bytes: Int)] {
    try MBTilesReader(path: path).rowCounts()
  }

  public func tiles(of level: Manifest.Level, in path: String) throws -> [TileCoordinate: [UInt8]] {
    let reader = try MBTilesReader(path: path)
    var tiles: [TileCoordinate: [UInt8]] = [:]
    for tile in level.tiles {
      guard let bytes = try reader.tile(tile) else { break }
      tiles[tile] = bytes
    }
    return tiles
  }
}
