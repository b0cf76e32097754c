import Foundation
import TilecutCore

extension MBTilesDriver {
  /// The deepest zoom's rows, as XYZ tiles, and the file's `bounds` (the caller uses it,
  /// as GDAL does, only when it is valid).
  public func deepestTiles(_ path: String, maxMemory: Int, overMemory: (Int) -> Error) throws -> StoreSourceTiles {
    let reader = try MBTilesReader(path: path)
    let meta = try reader.metadata()
    try Self.refuseVector(path, format: meta["format"] ?? "")
    guard let zoom = try reader.deepestZoom() else { throw TilecutError.invalidInput(path: path, reason: "has no tiles") }
    guard (0...StoreCell.deepestZoom).contains(zoom) else {
      throw TilecutError.invalidInput(path: path, reason: "has tiles at zoom \(zoom), outside the Web-Mercator grid's 0–\(StoreCell.deepestZoom)")
    }
    var tiles: [TileCoordinate: [UInt8]] = [:]
    var held = 0
    let most = StoreSourceTiles.maxTiles(maxMemory: maxMemory)
    try reader.forEachRow(zoom: zoom) { row in
      guard tiles.count < most else { throw StoreSourceTiles.tooManyTiles(path, zoom: zoom, maxMemory: maxMemory) }
      let n = 1 << zoom
      guard (0..<n).contains(row.column), (0..<n).contains(row.row) else {
        throw TilecutError.invalidInput(
          path: path, reason: "has a tile at zoom \(zoom), column \(row.column), row \(row.row), outside that zoom's grid (0–\(n - 1))")
      }
      let y = n - 1 - row.row
      guard !row.data.isEmpty else {
        throw TilecutError.invalidInput(path: path, reason: "holds an empty tile (0 bytes) at \(zoom)/\(row.column)/\(y): an empty tile is no tile")
      }
      held += row.data.count
      guard held <= maxMemory else { throw overMemory(zoom) }
      tiles[TileCoordinate(zoom: zoom, x: row.column, y: y)] = row.data
    }
    return StoreSourceTiles(zoom: zoom, tiles: tiles, bounds: meta["bounds"])
  }

  static func refuseVector(_ path: String, format: String) throws {
    let f = format.lowercased()
    guard f == "pbf" || f == "mvt" else { return }
    throw TilecutError.invalidInput(
      path: path, reason: "holds vector tiles (format \(format)), which tilecut does not render; give a store of PNG, JPEG or WebP tiles")
  }
}
