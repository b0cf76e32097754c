import Foundation

/// One strip of a direct level: rows [top, top + count) of its region, which land
/// at row `offset` of a strip buffer.
public struct LevelStrip: Hashable, Sendable, Codable {
  public var top: Int
  public var count: Int
  public var offset: Int
  /// The columns of the region (from its left edge) whose pixels anything reads, when
  /// not all of them: an incremental rebuild's strip made for the dirty cells of one
  /// part of it (`DirtyCells.reuse`). A source may leave the other columns transparent,
  /// and a strip read ahead in chunks leaves them in the stage's buffer as they were.
  public var columns: Range<Int>?

  public init(top: Int, count: Int, offset: Int, columns: Range<Int>? = nil) {
    self.top = top
    self.count = count
    self.offset = offset
    self.columns = columns
  }

  /// Rows of the strips a level with 512 or 768 px tiles is read in (a multiple of both
  /// 256 and 512; 768 px levels use their own base).
  public static let tallest = 512

  /// The strips a direct level is read in, top to bottom: aligned on the level's
  /// pixel grid every `stripHeight` rows (the level's own), so the first and last may be partial.
  public static func strips(of region: PixelRect, stripHeight: Int) -> [LevelStrip] {
    var strips: [LevelStrip] = []
    var top = region.y
    while top < region.maxY {
      let stripTop = (top / stripHeight) * stripHeight
      let count = min(stripTop + stripHeight, region.maxY) - top
      strips.append(LevelStrip(top: top - region.y, count: count, offset: top - stripTop))
      top += count
    }
    return strips
  }
}
