import Foundation

/// How deep the retina (512 px) tiles go: `full` makes them at every zoom; `native`
/// only where the source has the detail, the deeper zooms' served by the 256 px tile.
public enum RetinaDepth: String, Hashable, Sendable, Codable, CaseIterable {
  /// 512 px tiles at every zoom, upsampled where the source has no finer detail.
  case full
  /// No 512 px tile whose level is upsampled: a 256 px tile of the same z/x/y has the
  /// same detail, and a map scales it into the retina tile.
  case native
}

/// A level a plan does not make because a smaller tile of the same z/x/y serves it.
public struct LevelSubstitute: Hashable, Sendable, Codable {
  public var tileSize: Int
  public var zoom: Int
  /// The tile size whose tile a client shows (scaled) in place of this one.
  public var servedBy: Int

  public init(tileSize: Int, zoom: Int, servedBy: Int) {
    self.tileSize = tileSize
    self.zoom = zoom
    self.servedBy = servedBy
  }
}
