import Foundation

/// What shapes the pixels and the choice of tiles, beyond the plan.
public struct RenderSettings: Sendable {
  public var background: ColorRule?
  public var knockout: ColorRule?
  public var shard: ShardSelector?
  /// When set, only these cells are made (an incremental rebuild's dirty cells).
  public var only: CellSet?

  public init(background: ColorRule? = nil, knockout: ColorRule? = nil, shard: ShardSelector? = nil) {
    self.background = background
    self.knockout = knockout
    self.shard = shard
  }
}

/// Cells by floor, tile size and zoom, as rectangles of tiles: what an incremental
/// rebuild makes again.
public struct CellSet: Sendable, Equatable {
  public var ranges: [LevelKey: [TileRange]] = [:]

  public init() {}

  public mutating func insert(_ key: LevelKey, _ range: TileRange) { ranges[key, default: []].append(range) }

  public func contains(_ key: LevelKey, _ tile: TileCoordinate) -> Bool {
    ranges[key]?.contains { $0.contains(tile) } ?? false
  }

  /// True when some cell of `range` is in the set.
  public func intersects(_ key: LevelKey, _ range: TileRange) -> Bool {
    ranges[key]?.contains {
      $0.xRange.overlaps(range.xRange) && $0.yRange.overlaps(range.yRange)
    } ?? false
  }
}
