import Foundation

/// The previous output's tiles, decoded: what an incremental rebuild takes the clean
/// part of a level from, instead of making it again from the level above.
public protocol PreviousTileSource: Sendable {
  /// The tile's RGBA8 pixels (`tileSize`² of them), or nil where the previous output
  /// has no tile (a blank cell: every pixel transparent).
  func rgba(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8]?
}

/// A level of a floor's plan: its chain's base and its density.
public struct LevelID: Hashable, Sendable {
  public var base: Int
  public var density: Int

  public init(base: Int, density: Int) {
    self.base = base
    self.density = density
  }

  public init(_ level: DensityLevel) { self.init(base: level.base, density: level.density) }
}

/// How one level of a reduction chain is made in an incremental rebuild: the strips
/// it goes through even when the level above sends it no rows, and the previous
/// output's tiles put into those strips (clean cells the level below reads).
public struct LevelReuse: Sendable, Equatable {
  /// The cut whose tiles are put back: its tiles cover the level's region exactly.
  public var tileSize: Int
  public var zoom: Int
  /// The tiles put back, as tile row → columns.
  public var paste: [Int: [Int]]
  /// Tops of the strips (the level's rows) made even when nothing reaches them.
  public var strips: [Int]
  /// The columns of the region (from its left edge) whose pixels anything reads, when
  /// not all of them: a stage clears only these, the others may hold anything.
  public var columns: Range<Int>?
  /// The columns of the region the level above makes by reduction, when not all of
  /// them: the level above reduces only these.
  public var made: Range<Int>?

  public init(tileSize: Int, zoom: Int, paste: [Int: [Int]], strips: [Int], columns: Range<Int>? = nil, made: Range<Int>? = nil) {
    self.tileSize = tileSize
    self.zoom = zoom
    self.paste = paste
    self.strips = strips
    self.columns = columns
    self.made = made
  }

  /// The number of tiles put back.
  public var pasteCount: Int { paste.values.reduce(0) { $0 + $1.count } }
}

/// The previous output's tiles and, by level, how a rebuild uses them.
public struct PreviousLevels: Sendable {
  public var tiles: any PreviousTileSource
  public var levels: [LevelID: LevelReuse]

  public init(tiles: any PreviousTileSource, levels: [LevelID: LevelReuse]) {
    self.tiles = tiles
    self.levels = levels
  }
}
