import Foundation

/// A point on the globe in degrees, written LAT,LON as Google Maps does.
public struct GeoPoint: Hashable, Sendable, Codable {
  public var latitude: Double
  public var longitude: Double

  public init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }
}

/// A point in normalised Web-Mercator world coordinates: u east, v south, both in [0, 1).
public struct WorldPoint: Hashable, Sendable, Codable {
  public var u: Double
  public var v: Double

  public init(u: Double, v: Double) {
    self.u = u
    self.v = v
  }
}

/// An axis-aligned box in normalised world coordinates.
public struct WorldRect: Hashable, Sendable, Codable {
  public var minU: Double
  public var minV: Double
  public var maxU: Double
  public var maxV: Double

  public init(minU: Double, minV: Double, maxU: Double, maxV: Double) {
    self.minU = minU
    self.minV = minV
    self.maxU = maxU
    self.maxV = maxV
  }

  public init(enclosing points: [WorldPoint]) {
    minU = points.map(\.u).min() ?? 0
    maxU = points.map(\.u).max() ?? 0
    minV = points.map(\.v).min() ?? 0
    maxV = points.map(\.v).max() ?? 0
  }

  /// The same box clipped to the world square.
  public var clampedToWorld: WorldRect {
    WorldRect(
      minU: min(max(minU, 0), 1), minV: min(max(minV, 0), 1),
      maxU: min(max(maxU, 0), 1), maxV: min(max(maxV, 0), 1))
  }

  public var isEmpty: Bool { maxU <= minU || maxV <= minV }
}

/// Spherical Web-Mercator (EPSG:3857) conversions, all pure functions.
public enum WebMercator {
  /// The latitude at which the Mercator square ends, in degrees.
  public static let maxLatitude = 85.0511287798066
  /// The WGS84 semi-major axis used by EPSG:3857, in metres.
  public static let earthRadiusMeters = 6_378_137.0
  /// Half the width of the world in EPSG:3857 metres.
  public static let originShift = 20037508.342789244
  /// Points per tile edge: the grid is defined for 256 px tiles.
  public static let baseTileSize = 256

  public static func u(longitudeDegrees lon: Double) -> Double { (lon + 180) / 360 }

  public static func v(latitudeDegrees lat: Double) -> Double {
    let phi = min(max(lat, -maxLatitude), maxLatitude) * .pi / 180
    return (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2
  }

  public static func world(_ point: GeoPoint) -> WorldPoint {
    WorldPoint(u: u(longitudeDegrees: point.longitude), v: v(latitudeDegrees: point.latitude))
  }

  public static func longitudeDegrees(u: Double) -> Double { u * 360 - 180 }

  public static func latitudeDegrees(v: Double) -> Double {
    atan(sinh(.pi * (1 - 2 * v))) * 180 / .pi
  }

  public static func geo(_ point: WorldPoint) -> GeoPoint {
    GeoPoint(latitude: latitudeDegrees(v: point.v), longitude: longitudeDegrees(u: point.u))
  }

  /// EPSG:3857 metres (x east, y north) to world coordinates.
  public static func world(metersX x: Double, metersY y: Double) -> WorldPoint {
    WorldPoint(u: (x + originShift) / (2 * originShift), v: (originShift - y) / (2 * originShift))
  }

  /// Ground metres per world unit at a latitude (the Mercator scale factor applied).
  public static func groundMetersPerWorldUnit(latitudeDegrees lat: Double) -> Double {
    2 * originShift * cos(lat * .pi / 180)
  }

  /// Width of the world in pixels at a zoom for a tile size.
  public static func worldPixels(zoom: Int, tileSize: Int = baseTileSize) -> Double {
    Double(tileSize) * pow(2, Double(zoom))
  }

  /// The tile of size 256 at `zoom` whose cell contains the point.
  public static func tile(containing point: GeoPoint, zoom: Int) -> TileCoordinate {
    let w = world(point)
    let n = Double(1 << zoom)
    let x = min(max(Int(floor(w.u * n)), 0), (1 << zoom) - 1)
    let y = min(max(Int(floor(w.v * n)), 0), (1 << zoom) - 1)
    return TileCoordinate(zoom: zoom, x: x, y: y)
  }

  /// The lat/lon box of one tile.
  public static func bounds(of tile: TileCoordinate) -> (south: Double, west: Double, north: Double, east: Double) {
    let n = Double(1 << tile.zoom)
    return (
      latitudeDegrees(v: Double(tile.y + 1) / n), longitudeDegrees(u: Double(tile.x) / n),
      latitudeDegrees(v: Double(tile.y) / n), longitudeDegrees(u: Double(tile.x + 1) / n)
    )
  }

  /// A tiny fraction of a pixel: edges this close to a tile boundary count as on it.
  public static let edgeEpsilonPixels = 1e-3

  /// The tiles of size `tileSize` at `zoom` that a pixel span [p0, p1) touches,
  /// by first = floor(p0/T + ε), last = ceil(p1/T − ε) − 1, clamped to the world.
  public static func tileSpan(
    fromPixel p0: Double, toPixel p1: Double, tileSize: Int, zoom: Int
  ) -> ClosedRange<Int>? {
    let t = Double(tileSize)
    let eps = edgeEpsilonPixels / t
    let last = (1 << zoom) - 1
    let first = max(Int(floor(p0 / t + eps)), 0)
    let end = min(Int(ceil(p1 / t - eps)) - 1, last)
    guard first <= end, first <= last, end >= 0 else { return nil }
    return first...end
  }

  /// The tile range covering a world box at a zoom and tile size.
  public static func tileRange(covering rect: WorldRect, zoom: Int, tileSize: Int) -> TileRange? {
    // A tile of size T at zoom z has the pixel density of 256 px tiles at z + log2(T/256).
    let pixels = worldPixels(zoom: zoom, tileSize: tileSize)
    guard
      let xs = tileSpan(fromPixel: rect.minU * pixels, toPixel: rect.maxU * pixels, tileSize: tileSize, zoom: zoom),
      let ys = tileSpan(fromPixel: rect.minV * pixels, toPixel: rect.maxV * pixels, tileSize: tileSize, zoom: zoom)
    else { return nil }
    return TileRange(zoom: zoom, xRange: xs, yRange: ys)
  }
}
