import Foundation

/// One floor, tile size and zoom: the unit the manifest and summary count by.
public struct LevelKey: Hashable, Sendable, Codable, Comparable {
  public var floor: Floor
  public var tileSize: Int
  public var zoom: Int

  public init(floor: Floor, tileSize: Int, zoom: Int) {
    self.floor = floor
    self.tileSize = tileSize
    self.zoom = zoom
  }

  public static func < (l: LevelKey, r: LevelKey) -> Bool {
    (l.floor, l.tileSize, l.zoom) < (r.floor, r.tileSize, r.zoom)
  }
}
