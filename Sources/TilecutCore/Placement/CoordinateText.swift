import Foundation

/// A north-up box in degrees, latitude first: `--bounds` and a project's `bounds`
/// (the corners of a GMSCoordinateBounds).
public struct GeoBounds: Hashable, Sendable, Codable {
  public var south: Double
  public var west: Double
  public var north: Double
  public var east: Double

  public init(south: Double, west: Double, north: Double, east: Double) {
    self.south = south
    self.west = west
    self.north = north
    self.east = east
  }
}

// The one reading of each coordinate option's text (`--bounds`, `--gcp`, `--center`):
// the command line and the project file both come here, and a refusal is worded as it
// always was. The numbers' places (latitude within ±85.0511°, south below north) are
// checked where the image is placed, by the `check` functions below.

extension GeoBounds {
  /// `--bounds`' text, typed in `order` (SOUTH,WEST,NORTH,EAST, or WEST,SOUTH,EAST,NORTH
  /// with `--lonlat`).
  public init(parsing text: String, order: CoordinateOrder = .latLon, option: String = "--bounds") throws {
    let v = try Georeference.numbers(try order.bounds(text), count: 4, option: option, shape: "SOUTH,WEST,NORTH,EAST")
    self.init(south: v[0], west: v[1], north: v[2], east: v[3])
  }

  /// Four numbers typed in `order` (a project file's list), or nil when they are not four.
  public init?(numbers v: [Double], order: CoordinateOrder = .latLon) {
    guard v.count == 4 else { return nil }
    self =
      order == .latLon ? GeoBounds(south: v[0], west: v[1], north: v[2], east: v[3]) : GeoBounds(south: v[1], west: v[0], north: v[3], east: v[2])
  }

  /// Each corner a place on a Web-Mercator map, south below north, west left of east.
  public func check(option: String = "--bounds") throws {
    try Georeference.checkBounds(south: south, west: west, north: north, east: east, option: option)
  }
}

extension ControlPoint {
  /// One `--gcp`'s text, typed in `order` (X,Y,LAT,LON, or X,Y,LON,LAT with `--lonlat`).
  public init(parsing text: String, order: CoordinateOrder = .latLon, option: String = "--gcp") throws {
    let v = try Georeference.numbers(try order.controlPoint(text), count: 4, option: option, shape: "X,Y,LAT,LON")
    self.init(col: v[0], row: v[1], point: GeoPoint(latitude: v[2], longitude: v[3]))
    spelling = text
  }

  /// Four numbers typed in `order` (a row of a project file's `gcp`), or nil when they are not four.
  public init?(numbers v: [Double], order: CoordinateOrder = .latLon) {
    guard v.count == 4 else { return nil }
    let (lat, lon) = order == .latLon ? (v[2], v[3]) : (v[3], v[2])
    self.init(col: v[0], row: v[1], point: GeoPoint(latitude: lat, longitude: lon))
  }

  /// The point as the user wrote it, else as a project file's numbers are quoted, in `order`.
  public func spelled(order: CoordinateOrder = .latLon) -> String { spelling ?? text(order: order) }

  /// The point as the options write it, in `order`: `120.5,80,51.5074,-0.1278`.
  public func text(order: CoordinateOrder = .latLon) -> String {
    let (first, second) = order == .latLon ? (point.latitude, point.longitude) : (point.longitude, point.latitude)
    return [col, row, first, second].map(CoordinateOrder.number).joined(separator: ",")
  }

  /// Its place is one on a Web-Mercator map.
  public func check(option: String = "--gcp") throws { try point.check(option: option) }
}

extension GeoPoint {
  /// `--center`'s text (or another option's LAT,LON), typed in `order` (LON,LAT with `--lonlat`).
  public init(parsing text: String, order: CoordinateOrder = .latLon, option: String) throws {
    let v = try Georeference.numbers(try order.center(text), count: 2, option: option, shape: "LAT,LON")
    self.init(latitude: v[0], longitude: v[1])
  }

  /// Two numbers typed in `order` (a project file's `center`), or nil when they are not two.
  public init?(numbers v: [Double], order: CoordinateOrder = .latLon) {
    guard v.count == 2 else { return nil }
    self = order == .latLon ? GeoPoint(latitude: v[0], longitude: v[1]) : GeoPoint(latitude: v[1], longitude: v[0])
  }

  /// A place on a Web-Mercator map: latitude within ±85.0511°, longitude within ±180°.
  public func check(option: String) throws { try Georeference.check(latitude: latitude, longitude: longitude, option: option) }
}

extension CoordinateOrder {
  /// A number as a project file's value is quoted: `80`, not `80.0`.
  static func number(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
  }
}
