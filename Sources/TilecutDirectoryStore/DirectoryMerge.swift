import TilecutCore

extension DirectoryDriver {
  /// Tile files per level of a shard, as inspecting it counted them (`tally`).
  public func heldTiles(ofShard directory: String, _ manifest: Manifest, tally: [LevelKey: (count: Int, bytes: Int)]) throws -> [LevelKey: Int] {
    tally.mapValues(\.count)
  }

  /// Every tile file a shard's manifest lists, level by level; one another shard lists
  /// too is refused.
  public func copyShardTiles(
    _ dir: String, _ m: Manifest, owners owner: inout [String: String], checkpoint: () throws -> Void,
    put: (_ bytes: [UInt8], _ floor: Floor, _ tileSize: Int, _ tile: TileCoordinate, _ place: String) throws -> Void
  ) throws {
    let template = try TileNameTemplate(m.name)
    for level in m.levels {
      for tile in level.tiles {
        let path = template.path(floor: level.floor, tileSize: level.tileSize, tile: tile)
        if let other = owner[path] {
          throw TilecutError.invalidInput(path: dir, reason: "lists \(path), which \(other) lists too; shards of one job never overlap")
        }
        owner[path] = dir
        try checkpoint()
        let data = try readInside(dir, path)
        try put(data, level.floor, level.tileSize, tile, dir + "/" + path)
      }
    }
  }
}
