import Foundation

/// What shapes the pixels and the choice of tiles, beyond the plan.
public struct RenderSettings: Sendable {
  public var background: ColorRule?
  public var knockout: ColorRule?
  public var shard: ShardSelector?
  /// When set, only these cells are made (an incremental rebuild's dirty cells).
  public var only: CellSet?
  /// With `only`: the previous output's tiles that the clean part of each reduced
  /// level is taken from (`DirtyCells.reuse`), so that the densest level is read only
  /// in the strips its own dirty cells need.
  public var previous: PreviousLevels?

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
  /// Single cells (those an edit's blocks reach), looked up without a scan.
  public var tiles: [LevelKey: Set<TileCoordinate>] = [:]

  public init() {}

  public mutating func insert(_ key: LevelKey, _ range: TileRange) { ranges[key, default: []].append(range) }

  public mutating func insert(_ key: LevelKey, _ tile: TileCoordinate) { tiles[key, default: []].insert(tile) }

  public func contains(_ key: LevelKey, _ tile: TileCoordinate) -> Bool {
    if tiles[key]?.contains(tile) == true { return true }
    return ranges[key]?.contains { $0.contains(tile) } ?? false
  }

  /// True when some cell of `range` is in the set.
  public func intersects(_ key: LevelKey, _ range: TileRange) -> Bool {
    if tiles[key]?.contains(where: { range.contains($0) }) == true { return true }
    return ranges[key]?.contains {
      $0.xRange.overlaps(range.xRange) && $0.yRange.overlaps(range.yRange)
    } ?? false
  }

  /// The number of cells in the set (a cell in two of its ranges counted twice).
  public var count: Int { tiles.values.reduce(0) { $0 + $1.count } + ranges.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } } }
}
