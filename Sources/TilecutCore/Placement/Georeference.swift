import Foundation

/// A source pixel position (GDAL convention: 0,0 is the top-left corner) tied to a place.
public struct ControlPoint: Hashable, Sendable, Codable {
  public var col: Double
  public var row: Double
  public var point: GeoPoint
  /// The option's text it was read from, which messages repeat; not part of the value
  /// (nor of its equality or its coding).
  public var spelling: String?

  /// A control point at source pixel (col, row), tied to `point`.
  public init(col: Double, row: Double, point: GeoPoint) {
    self.col = col
    self.row = row
    self.point = point
  }

  enum CodingKeys: String, CodingKey { case col, row, point }

  public static func == (a: ControlPoint, b: ControlPoint) -> Bool { (a.col, a.row, a.point) == (b.col, b.row, b.point) }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(col)
    hasher.combine(row)
    hasher.combine(point)
  }
}

/// How well control points agree with the fitted placement.
public struct FitReport: Hashable, Sendable {
  /// Root-mean-square distance between each point and where the fit puts it, in source pixels.
  public var rmsPixels: Double
  /// The same on the ground, in metres.
  public var rmsMeters: Double
  /// The largest single distance between a point and the fit, in source pixels.
  public var maxPixels: Double
  /// The index of the point farthest from the fit, or nil when every point fits exactly.
  public var worstIndex: Int?
  /// Size of the image's diagonal, in pixels, for judging the residual.
  public var diagonalPixels: Double

  /// A report from its measurements; `fit` makes these.
  public init(rmsPixels: Double, rmsMeters: Double, maxPixels: Double, worstIndex: Int?, diagonalPixels: Double) {
    self.rmsPixels = rmsPixels
    self.rmsMeters = rmsMeters
    self.maxPixels = maxPixels
    self.worstIndex = worstIndex
    self.diagonalPixels = diagonalPixels
  }

  /// True when a point is probably mistyped: the RMS residual is over both 5 px and
  /// 0.5 % of the image diagonal. Hand-picked points are good to a few pixels on a
  /// small image and to a few tenths of a percent of a large scan; a slip of one
  /// digit in a coordinate is far beyond either. Two or three points fit exactly,
  /// so only four or more can reveal a bad one.
  public var isSuspicious: Bool { rmsPixels > max(5, 0.005 * diagonalPixels) }

  /// The largest RMS residual accepted without --allow-residual: 2 px, or 1 % of the
  /// image diagonal on images large enough for that to be more.
  public var defaultLimitPixels: Double { max(2, 0.01 * diagonalPixels) }
}

/// Placements from bounds, control points, or a centre with scale and rotation.
public enum Georeference {
  /// Parses comma-separated numbers, exactly `count` of them.
  static func numbers(_ text: String, count: Int, option: String, shape: String) throws -> [Double] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    guard parts.count == count else {
      throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(text))' should be \(shape) (\(count) numbers separated by commas)")
    }
    return try parts.map { part in
      guard let v = OptionNumber.parse(part) else {
        throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(part))' in '\(Quote.value(text))' is not a number")
      }
      guard v.isFinite else {
        throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(part))' in '\(Quote.value(text))' is not a finite number")
      }
      return v
    }
  }

  /// Checks a latitude/longitude pair; suggests a swap when that would make it valid.
  static func check(latitude lat: Double, longitude lon: Double, option: String) throws {
    guard lat.isFinite, lon.isFinite else {
      throw TilecutError.invalidOption(option: option, reason: "latitude \(lat) and longitude \(lon) must be finite numbers")
    }
    if abs(lat) > WebMercator.maxLatitude {
      let swapped = abs(lon) <= WebMercator.maxLatitude && abs(lat) <= 180
      throw TilecutError.invalidOption(
        option: option,
        reason: "latitude \(lat) is beyond ±85.0511"
          + (swapped
            ? "; did you swap LAT and LON? (\(CoordinateOrder.flag) reads longitude first, as GDAL does)" : ", the limit of Web-Mercator maps"))
    }
    if abs(lon) > 180 {
      throw TilecutError.invalidOption(option: option, reason: "longitude \(lon) is beyond ±180")
    }
  }

  /// Checks SOUTH,WEST,NORTH,EAST: each corner valid, south below north, west left of east.
  static func checkBounds(south: Double, west: Double, north: Double, east: Double, option: String) throws {
    try check(latitude: south, longitude: west, option: option)
    try check(latitude: north, longitude: east, option: option)
    if south >= north {
      throw TilecutError.invalidOption(
        option: option, reason: "south \(south) is not below north \(north); the order is SOUTH,WEST,NORTH,EAST")
    }
    if west >= east {
      throw TilecutError.invalidOption(
        option: option,
        reason: "west \(west) is not left of east \(east); bounds crossing the antimeridian are not supported (split the image)")
    }
    // sides so close that the map cannot tell them apart (1e-320 apart): a box of no
    // width or height, which no placement fits an image to
    if WebMercator.u(longitudeDegrees: east) <= WebMercator.u(longitudeDegrees: west) {
      throw TilecutError.invalidOption(
        option: option, reason: "west \(west) and east \(east) are too close to tell apart on the map; the box has no width")
    }
    if WebMercator.v(latitudeDegrees: north) >= WebMercator.v(latitudeDegrees: south) {
      throw TilecutError.invalidOption(
        option: option, reason: "south \(south) and north \(north) are too close to tell apart on the map; the box has no height")
    }
  }

  /// Checks that an image has at least one pixel.
  static func checkSize(width: Int, height: Int, option: String) throws {
    guard width > 0, height > 0 else {
      throw TilecutError.invalidOption(option: option, reason: "the image is \(width)×\(height) pixels; it needs at least one")
    }
  }

  /// Parses "LAT,LON".
  public static func parseLatLon(_ text: String, option: String) throws -> GeoPoint {
    let point = try GeoPoint(parsing: text, option: option)
    try point.check(option: option)
    return point
  }

  /// Parses "SOUTH,WEST,NORTH,EAST".
  public static func parseBounds(_ text: String, option: String = "--bounds") throws -> (south: Double, west: Double, north: Double, east: Double) {
    let b = try GeoBounds(parsing: text, option: option)
    try b.check(option: option)
    return (b.south, b.west, b.north, b.east)
  }

  /// The ground width/height ratio of a box of latitudes and longitudes (Mercator is
  /// conformal, so for a box of a few km the ratio of its Mercator sides).
  static func groundAspect(south: Double, west: Double, north: Double, east: Double) -> Double {
    let du = WebMercator.u(longitudeDegrees: east) - WebMercator.u(longitudeDegrees: west)
    let dv = WebMercator.v(latitudeDegrees: south) - WebMercator.v(latitudeDegrees: north)
    return dv > 0 ? du / dv : .infinity
  }

  /// A warning when bounds' ground aspect differs from the image's by more than 5 %,
  /// saying so when reading them with latitude and longitude swapped fits; nil when they fit.
  /// A plate carrée (`.lonLat`) image may have square pixels on the ground or in degrees: either fits.
  public static func aspectWarning(
    south: Double, west: Double, north: Double, east: Double, width: Int, height: Int, projection: SourceProjection = .webMercator
  ) -> String? {
    guard width > 0, height > 0 else { return nil }
    let image = Double(width) / Double(height)
    let box = groundAspect(south: south, west: west, north: north, east: east)
    func fits(_ aspect: Double) -> Bool { aspect.isFinite && abs(aspect / image - 1) <= 0.05 }
    if projection == .lonLat && fits((east - west) / (north - south)) { return nil }
    guard !fits(box) else { return nil }
    let lat = (south + north) / 2
    let metersPerUnit = WebMercator.groundMetersPerWorldUnit(latitudeDegrees: lat)
    let wide = (WebMercator.u(longitudeDegrees: east) - WebMercator.u(longitudeDegrees: west)) * metersPerUnit
    let high = (WebMercator.v(latitudeDegrees: south) - WebMercator.v(latitudeDegrees: north)) * metersPerUnit
    var text = String(
      format: "--bounds: the box is %.0f × %.0f m on the ground (aspect %.3f) but the image is %d × %d px (aspect %.3f); it will be stretched",
      wide, high, box, width, height, image)
    // the same four numbers typed WEST,SOUTH,EAST,NORTH (longitude first)
    let (s2, w2, n2, e2) = (west, south, east, north)
    if abs(s2) <= WebMercator.maxLatitude, abs(n2) <= WebMercator.maxLatitude, s2 < n2, w2 < e2,
      fits(groundAspect(south: s2, west: w2, north: n2, east: e2))
    {
      text +=
        "; latitude and longitude look swapped: did you mean --bounds \(format(s2)),\(format(w2)),\(format(n2)),\(format(e2))? (or keep these numbers and add \(CoordinateOrder.flag), GDAL's order)"
    }
    return text
  }

  private static func format(_ v: Double) -> String {
    var s = String(format: "%.7f", v)
    while s.hasSuffix("0") { s.removeLast() }
    if s.hasSuffix(".") { s.removeLast() }
    return s
  }

  /// A north-up image whose edges lie on these lines.
  public static func bounds(
    south: Double, west: Double, north: Double, east: Double, width: Int, height: Int, projection: SourceProjection = .webMercator
  ) throws -> Placement {
    try checkBounds(south: south, west: west, north: north, east: east, option: "--bounds")
    try checkSize(width: width, height: height, option: "--bounds")
    let w = Double(width)
    let h = Double(height)
    switch projection {
    case .webMercator:
      let u0 = WebMercator.u(longitudeDegrees: west)
      let u1 = WebMercator.u(longitudeDegrees: east)
      let v0 = WebMercator.v(latitudeDegrees: north)
      let v1 = WebMercator.v(latitudeDegrees: south)
      return Placement(method: .bounds, transform: AffineTransform(a: (u1 - u0) / w, b: 0, c: u0, d: 0, e: (v1 - v0) / h, f: v0))
    case .projected:
      throw TilecutError.invalidOption(option: "--source-projection", reason: "is mercator or lonlat with --bounds")
    case .lonLat:
      return Placement(
        method: .bounds, projection: .lonLat,
        transform: AffineTransform(a: (east - west) / w, b: 0, c: west, d: 0, e: (south - north) / h, f: north))
    }
  }

  /// Parses "X,Y,LAT,LON".
  public static func parseControlPoint(_ text: String, option: String = "--gcp") throws -> ControlPoint {
    let point = try ControlPoint(parsing: text, option: option)
    try point.check(option: option)
    return point
  }

  /// Fits a placement to control points in Web-Mercator: two give a similarity
  /// (scale, rotation, translation), three or more a least-squares affine.
  public static func fit(_ points: [ControlPoint], width: Int, height: Int, option: String = "--gcp") throws -> (Placement, FitReport) {
    guard points.count >= 2 else {
      throw TilecutError.invalidOption(option: option, reason: "needs at least 2 control points, got \(points.count)")
    }
    try checkSize(width: width, height: height, option: option)
    for p in points {
      guard p.col.isFinite, p.row.isFinite else {
        throw TilecutError.invalidOption(option: option, reason: "pixel \(p.col),\(p.row) is not finite")
      }
      try check(latitude: p.point.latitude, longitude: p.point.longitude, option: option)
    }
    let world = points.map { WebMercator.world($0.point) }
    for i in 0..<points.count {
      for j in (i + 1)..<points.count {
        if points[i].col == points[j].col && points[i].row == points[j].row {
          throw TilecutError.invalidOption(option: option, reason: "points \(i + 1) and \(j + 1) are at the same pixel")
        }
        if world[i] == world[j] {
          throw TilecutError.invalidOption(option: option, reason: "points \(i + 1) and \(j + 1) are at the same place")
        }
      }
    }
    let transform: AffineTransform
    if points.count == 2 {
      // w = s·p + t with complex p = col + i·row and w = u + i·v (both axes point down)
      let dp = (points[1].col - points[0].col, points[1].row - points[0].row)
      let dw = (world[1].u - world[0].u, world[1].v - world[0].v)
      let den = dp.0 * dp.0 + dp.1 * dp.1
      let sr = (dw.0 * dp.0 + dw.1 * dp.1) / den
      let si = (dw.1 * dp.0 - dw.0 * dp.1) / den
      let tu = world[0].u - (sr * points[0].col - si * points[0].row)
      let tv = world[0].v - (si * points[0].col + sr * points[0].row)
      transform = AffineTransform(a: sr, b: -si, c: tu, d: si, e: sr, f: tv)
    } else {
      guard
        let fitted = AffineTransform.fit(
          from: points.map { PixelPoint(x: $0.col, y: $0.row) }, to: world.map { PixelPoint(x: $0.u, y: $0.v) })
      else {
        throw TilecutError.invalidOption(option: option, reason: "the control points lie on one line; give points that span the image")
      }
      transform = fitted
    }
    // Relative to the squared scale, so that the test means the same at every zoom:
    // 1 for a similarity, near 0 when the points squash the image onto a line.
    let squaredScale = (transform.a * transform.a + transform.b * transform.b + transform.d * transform.d + transform.e * transform.e) / 2
    guard transform.determinant > 1e-6 * squaredScale, squaredScale.isFinite, let inverse = transform.inverse else {
      throw TilecutError.invalidOption(
        option: option,
        reason:
          "the control points give a mirrored or degenerate placement; check that X,Y and LAT,LON are in the right order (\(CoordinateOrder.flag) reads X,Y,LON,LAT)"
      )
    }
    var sumPx = 0.0
    var sumM = 0.0
    var maxPx = 0.0
    var worst: Int?
    for (i, (p, w)) in zip(points, world).enumerated() {
      let back = inverse.apply(w.u, w.v)
      let px = hypot(back.x - p.col, back.y - p.row)
      let fitted = transform.apply(p.col, p.row)
      let meters = hypot(fitted.x - w.u, fitted.y - w.v) * WebMercator.groundMetersPerWorldUnit(latitudeDegrees: p.point.latitude)
      sumPx += px * px
      sumM += meters * meters
      if px > maxPx {
        maxPx = px
        worst = i
      }
    }
    let n = Double(points.count)
    let report = FitReport(
      rmsPixels: (sumPx / n).squareRoot(), rmsMeters: (sumM / n).squareRoot(), maxPixels: maxPx,
      worstIndex: maxPx > 0 ? worst : nil, diagonalPixels: hypot(Double(width), Double(height)))
    var placement = Placement(method: .gcp, transform: transform)
    placement.controlPoints = points
    try checkWithinWorld(placement, width: width, height: height, option: option)
    return (placement, report)
  }

  /// The image centre at `point`, `metersPerPixel` ground metres per source pixel,
  /// turned clockwise by `rotationDegrees` (its up then points to that bearing).
  public static func center(
    _ point: GeoPoint, metersPerPixel: Double, rotationDegrees: Double, width: Int, height: Int
  ) throws -> Placement {
    guard metersPerPixel.isFinite, metersPerPixel > 0 else {
      throw TilecutError.invalidOption(option: "--meters-per-pixel", reason: "\(metersPerPixel) is not a positive number of metres")
    }
    guard rotationDegrees.isFinite else {
      throw TilecutError.invalidOption(option: "--rotation", reason: "\(rotationDegrees) is not a number of degrees")
    }
    try check(latitude: point.latitude, longitude: point.longitude, option: "--center")
    try checkSize(width: width, height: height, option: "--center")
    let origin = WebMercator.world(point)
    let s = metersPerPixel / WebMercator.groundMetersPerWorldUnit(latitudeDegrees: point.latitude)
    let theta = rotationDegrees * .pi / 180
    let cs = cos(theta)
    let sn = sin(theta)
    let a = s * cs
    let b = -s * sn
    let d = s * sn
    let e = s * cs
    let hw = Double(width) / 2
    let hh = Double(height) / 2
    let placement = Placement(
      method: .center, transform: AffineTransform(a: a, b: b, c: origin.u - a * hw - b * hh, d: d, e: e, f: origin.v - d * hw - e * hh))
    try checkWithinWorld(placement, width: width, height: height, option: "--center")
    return placement
  }

  /// Refuses footprints that leave the world east or west other than by crossing the
  /// antimeridian once (or by being a whole world wide): see `Antimeridian`.
  public static func checkWithinWorld(_ placement: Placement, width: Int, height: Int, option: String) throws {
    let f = placement.footprint(width: width, height: height)
    if !Antimeridian.isTileable(placement, width: width, height: height) {
      throw TilecutError.invalidOption(
        option: option, reason: "the image would lie beyond ±180° of longitude; place it within -180..180 (it may cross 180° once)")
    }
    if f.maxV <= 0 || f.minV >= 1 {
      throw TilecutError.invalidOption(option: option, reason: "the image would lie entirely beyond ±85.0511° latitude")
    }
  }
}
