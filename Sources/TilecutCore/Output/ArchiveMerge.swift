import Foundation

extension ArchiveStoreDriver {
  /// Tiles per level of a shard's files, read from their directories.
  public func heldTiles(ofShard directory: String, _ manifest: Manifest, tally: [LevelKey: (count: Int, bytes: Int)]) throws -> [LevelKey: Int] {
    var rows: [LevelKey: Int] = [:]
    for set in manifest.tileSets ?? [] {
      for (zoom, count) in try zoomCounts(directory + "/" + set.file) {
        rows[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: zoom)] = count.count
      }
    }
    return rows
  }

  /// Every tile of a shard's files, in each file's order; one its manifest does not
  /// list, or one another shard holds, is refused.
  public func copyShardTiles(
    _ dir: String, _ m: Manifest, owners owner: inout [String: String], checkpoint: () throws -> Void,
    put: (_ bytes: [UInt8], _ floor: Floor, _ tileSize: Int, _ tile: TileCoordinate, _ place: String) throws -> Void
  ) throws {
    var levels: [LevelKey: Manifest.Level] = [:]
    for level in m.levels { levels[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] = level }
    for set in m.tileSets ?? [] {
      try forEachTile(dir + "/" + set.file) { found, data, what in
        guard let tile = found, let level = levels[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: tile.zoom)],
          level.hasTile(x: tile.x, y: tile.y)
        else {
          throw TilecutError.invalidInput(
            path: dir + "/" + set.file, reason: "has \(what) its manifest does not list; run that shard again")
        }
        let name = "\(set.file) \(tile)"
        if let other = owner[name] {
          throw TilecutError.invalidInput(path: dir, reason: "holds \(name), which \(other) holds too; shards of one job never overlap")
        }
        owner[name] = dir
        try put(data, set.floor, set.tileSize, tile, "\(dir)/\(set.file) tile \(tile)")
      }
    }
  }
}
