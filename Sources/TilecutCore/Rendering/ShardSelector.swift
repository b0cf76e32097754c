import Foundation

/// Which tiles a run renders, for `--shard K/N`: a fixed hash of the tile picks its shard.
public struct ShardSelector: Hashable, Sendable, Codable {
  public var index: Int
  public var count: Int

  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  public func owns(floor: Floor, tileSize: Int, tile: TileCoordinate) -> Bool {
    guard count > 1 else { return true }
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15
    for v in [floor.number, tileSize, tile.zoom, tile.x, tile.y] {
      h ^= UInt64(bitPattern: Int64(v)) &+ 0x9E37_79B9_7F4A_7C15 &+ (h << 6) &+ (h >> 2)
      h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
      h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
      h ^= h >> 31
    }
    return Int(h % UInt64(count)) == index - 1
  }
}
