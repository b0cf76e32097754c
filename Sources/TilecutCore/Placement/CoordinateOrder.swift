import Foundation

/// The order coordinate options are typed in: tilecut's latitude first (as Google Maps
/// shows them), or GDAL's longitude first (`--lonlat`: x before y, as in gdal_translate
/// -gcp and -a_ullr).
public enum CoordinateOrder: Sendable {
  case latLon
  case lonLat

  /// The flag that reads every coordinate option longitude first, for hints.
  public static let flag = "--lonlat"

  /// The option's text rewritten latitude first. `pairs` are the indices of the
  /// (first, second) coordinate pairs swapped when the text is longitude first;
  /// `shape` names the fields as the user types them in this order.
  public func latitudeFirst(_ text: String, count: Int, pairs: [(Int, Int)], shape: (latLon: String, lonLat: String), option: String) throws
    -> String
  {
    guard self == .lonLat else { return text }
    var parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    guard parts.count == count else {
      throw TilecutError.invalidOption(
        option: option, reason: "'\(Quote.value(text))' should be \(shape.lonLat) with \(Self.flag) (\(count) numbers separated by commas)")
    }
    for (a, b) in pairs { parts.swapAt(a, b) }
    return parts.joined(separator: ",")
  }

  /// --center: LAT,LON or LON,LAT.
  public func center(_ text: String) throws -> String {
    try latitudeFirst(text, count: 2, pairs: [(0, 1)], shape: ("LAT,LON", "LON,LAT"), option: "--center")
  }

  /// --gcp: X,Y,LAT,LON or X,Y,LON,LAT.
  public func controlPoint(_ text: String) throws -> String {
    try latitudeFirst(text, count: 4, pairs: [(2, 3)], shape: ("X,Y,LAT,LON", "X,Y,LON,LAT"), option: "--gcp")
  }

  /// --bounds: SOUTH,WEST,NORTH,EAST or WEST,SOUTH,EAST,NORTH (GDAL's xmin,ymin,xmax,ymax).
  public func bounds(_ text: String) throws -> String {
    try latitudeFirst(
      text, count: 4, pairs: [(0, 1), (2, 3)], shape: ("SOUTH,WEST,NORTH,EAST", "WEST,SOUTH,EAST,NORTH"), option: "--bounds")
  }
}

/// Where a placement landed, read both ways: a warning when the point given lands in
/// open sea but the same numbers swapped land on land (the GDAL user's lon,lat typed
/// where tilecut reads lat,lon, or the other way round).
public enum SwapCheck {
  public static func warning(latitude: Double, longitude: Double, option: String, order: CoordinateOrder) -> String? {
    // a point on a country's outline is not at sea (`GazetteerLocation.atSea`): the
    // usual case, told without reading the places (every run places its plans)
    guard abs(longitude) <= WebMercator.maxLatitude, Gazetteer.country(latitude: latitude, longitude: longitude) == nil,
      let own = Gazetteer.locate(latitude: latitude, longitude: longitude), own.atSea,
      let swapped = Gazetteer.locate(latitude: longitude, longitude: latitude), !swapped.atSea
    else { return nil }
    let typed = order == .latLon ? "LAT,LON" : "LON,LAT"
    let other =
      order == .latLon
      ? "if you typed longitude first (as GDAL does), give \(CoordinateOrder.flag)"
      : "if you typed latitude first, drop \(CoordinateOrder.flag)"
    return String(
      format: "%@ read as %@ puts the plan %@ (%.5f, %.5f); the same numbers swapped put it %@ (%.5f, %.5f): %@", option, typed,
      own.text, latitude, longitude, swapped.text, longitude, latitude, other)
  }
}
