/// One cell of the XYZ grid: x grows east and y grows south from the north-west corner.
public struct TileCoordinate: Hashable, Sendable, Codable, CustomStringConvertible {
  public var zoom: Int
  public var x: Int
  public var y: Int

  public init(zoom: Int, x: Int, y: Int) {
    self.zoom = zoom
    self.x = x
    self.y = y
  }

  public var description: String { "\(zoom)/\(x)/\(y)" }

  /// The four children one zoom deeper, in row-major order.
  public var children: [TileCoordinate] {
    [
      TileCoordinate(zoom: zoom + 1, x: 2 * x, y: 2 * y),
      TileCoordinate(zoom: zoom + 1, x: 2 * x + 1, y: 2 * y),
      TileCoordinate(zoom: zoom + 1, x: 2 * x, y: 2 * y + 1),
      TileCoordinate(zoom: zoom + 1, x: 2 * x + 1, y: 2 * y + 1),
    ]
  }
}

/// An inclusive rectangle of tiles at one zoom.
public struct TileRange: Hashable, Sendable, Codable {
  public var zoom: Int
  public var xRange: ClosedRange<Int>
  public var yRange: ClosedRange<Int>

  public init(zoom: Int, xRange: ClosedRange<Int>, yRange: ClosedRange<Int>) {
    self.zoom = zoom
    self.xRange = xRange
    self.yRange = yRange
  }

  public var count: Int { xRange.count * yRange.count }

  /// The smallest range holding both (same zoom): a floor's levels across buildings.
  public func union(_ other: TileRange) -> TileRange {
    TileRange(
      zoom: zoom, xRange: min(xRange.lowerBound, other.xRange.lowerBound)...max(xRange.upperBound, other.xRange.upperBound),
      yRange: min(yRange.lowerBound, other.yRange.lowerBound)...max(yRange.upperBound, other.yRange.upperBound))
  }

  public func contains(_ tile: TileCoordinate) -> Bool {
    tile.zoom == zoom && xRange.contains(tile.x) && yRange.contains(tile.y)
  }

  enum CodingKeys: String, CodingKey { case zoom, xRange, yRange }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    zoom = try c.decode(Int.self, forKey: .zoom)
    let xs = try c.decode([Int].self, forKey: .xRange)
    let ys = try c.decode([Int].self, forKey: .yRange)
    guard xs.count == 2, ys.count == 2, xs[0] <= xs[1], ys[0] <= ys[1] else {
      throw DecodingError.dataCorruptedError(
        forKey: .xRange, in: c, debugDescription: "a range is [first, last] with first <= last")
    }
    xRange = xs[0]...xs[1]
    yRange = ys[0]...ys[1]
  }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(zoom, forKey: .zoom)
    try c.encode([xRange.lowerBound, xRange.upperBound], forKey: .xRange)
    try c.encode([yRange.lowerBound, yRange.upperBound], forKey: .yRange)
  }
}
