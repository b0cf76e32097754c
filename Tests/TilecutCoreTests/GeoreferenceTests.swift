import Foundation
import Testing

@testable import TilecutCore

/// Placements from bounds, control points and a centre with scale and rotation.
@Suite("Georeference")
struct GeoreferenceTests {
  /// The error message a throwing call produces, or nil when it does not throw.
  static func message(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// Great-circle distance on the EPSG:3857 sphere, in metres (haversine).
  static func groundMeters(_ p: GeoPoint, _ q: GeoPoint) -> Double {
    let r = 6_378_137.0
    let rad = Double.pi / 180
    let dLat = (q.latitude - p.latitude) * rad
    let dLon = (q.longitude - p.longitude) * rad
    let h = pow(sin(dLat / 2), 2) + cos(p.latitude * rad) * cos(q.latitude * rad) * pow(sin(dLon / 2), 2)
    return 2 * r * asin(h.squareRoot())
  }

  static func gcp(_ col: Double, _ row: Double, _ lat: Double, _ lon: Double) -> ControlPoint {
    ControlPoint(col: col, row: row, point: GeoPoint(latitude: lat, longitude: lon))
  }

  // MARK: LAT,LON

  @Test("LAT,LON parses with or without spaces")
  func parseLatLon() throws {
    #expect(try Georeference.parseLatLon("51.5074,-0.1278", option: "--center") == GeoPoint(latitude: 51.5074, longitude: -0.1278))
    #expect(try Georeference.parseLatLon(" -33.8688 , 151.2093 ", option: "--center") == GeoPoint(latitude: -33.8688, longitude: 151.2093))
    #expect(try Georeference.parseLatLon("85.05,180", option: "--center") == GeoPoint(latitude: 85.05, longitude: 180))
  }

  static let badLatLonCases: [(String, String)] = [
    ("abc,1", "'abc' in 'abc,1' is not a number"),
    ("51.5", "should be LAT,LON"),
    ("51.5,-0.1,3", "should be LAT,LON"),
    ("nan,0", "not a finite number"),
    ("0,inf", "not a finite number"),
    ("151.2,-33.8", "latitude 151.2 is beyond ±85.0511; did you swap LAT and LON?"),
    ("86,100", "latitude 86.0 is beyond ±85.0511, the limit of web-mercator maps"),
    ("0,181", "longitude 181.0 is beyond ±180"),
    ("-90,0", "beyond ±85.0511"),
  ]

  @Test("bad LAT,LON is refused with a one-line message naming the option", arguments: badLatLonCases)
  func badLatLon(text: String, mentions: String) {
    let m = Self.message { _ = try Georeference.parseLatLon(text, option: "--center") }
    #expect(m?.hasPrefix("--center: ") == true, "\(m ?? "accepted")")
    #expect(m?.lowercased().contains(mentions.lowercased()) == true, "\(m ?? "accepted")")
    #expect(m?.contains("\n") == false)
  }

  // MARK: bounds

  @Test("Mercator bounds: the corners map to the lines, linearly in u and v")
  func boundsCorners() throws {
    let (s, w, n, e) = (51.5006, -0.1285, 51.5020, -0.1255)
    let p = try Georeference.bounds(south: s, west: w, north: n, east: e, width: 1000, height: 700, projection: .webMercator)
    #expect(p.method == .bounds && p.projection == .webMercator)
    let nw = p.world(col: 0, row: 0)
    let se = p.world(col: 1000, row: 700)
    let ne = p.world(col: 1000, row: 0)
    #expect(abs(nw.u - WebMercator.u(longitudeDegrees: w)) < 1e-15 && abs(nw.v - WebMercator.v(latitudeDegrees: n)) < 1e-15)
    #expect(abs(se.u - WebMercator.u(longitudeDegrees: e)) < 1e-15 && abs(se.v - WebMercator.v(latitudeDegrees: s)) < 1e-15)
    #expect(abs(ne.u - se.u) < 1e-15 && abs(ne.v - nw.v) < 1e-15)
    // north-up, no rotation; the middle row is midway in v
    #expect(p.transform.b == 0 && p.transform.d == 0 && p.transform.a > 0 && p.transform.e > 0)
    let mid = p.world(col: 500, row: 350)
    #expect(abs(mid.v - (nw.v + se.v) / 2) < 1e-15)
    let geo = WebMercator.geo(nw)
    #expect(abs(geo.latitude - n) < 1e-9 && abs(geo.longitude - w) < 1e-9)
  }

  @Test("lon/lat bounds: the affine map gives degrees, the middle row is the middle latitude")
  func lonLatBounds() throws {
    let p = try Georeference.bounds(south: 10, west: 20, north: 60, east: 40, width: 100, height: 200, projection: .lonLat)
    #expect(p.projection == .lonLat && p.method == .bounds)
    #expect(p.transform.apply(0, 0) == (x: 20, y: 60))
    #expect(p.transform.apply(100, 200) == (x: 40, y: 10))
    #expect(abs(WebMercator.geo(p.world(col: 50, row: 100)).latitude - 35) < 1e-9)
    // which is not the Mercator middle
    let mercator = try Georeference.bounds(south: 10, west: 20, north: 60, east: 40, width: 100, height: 200, projection: .webMercator)
    #expect(WebMercator.geo(mercator.world(col: 50, row: 100)).latitude > 36)
  }

  @Test("bounds on the edges of tile 18/130978/87176 (mercantile.bounds) cover exactly that tile")
  func tileAlignedBounds() throws {
    let p = try Georeference.bounds(
      south: 51.501049241560175, west: -0.12908935546875, north: 51.50190410761812, east: -0.127716064453125,
      width: 256, height: 256)
    let rect = p.footprint(width: 256, height: 256)
    #expect(WebMercator.tileRange(covering: rect, zoom: 18, tileSize: 256) == TileRange(zoom: 18, xRange: 130978...130978, yRange: 87176...87176))
    // source pixel (i, j) is level pixel (i, j) of that tile at zoom 18
    let worldPixels = WebMercator.worldPixels(zoom: 18)
    let corner = p.world(col: 100, row: 200)
    #expect(abs(corner.u * worldPixels - (130978 * 256 + 100)) < 1e-6)
    #expect(abs(corner.v * worldPixels - (87176 * 256 + 200)) < 1e-6)
    #expect(p.nativeZoom(width: 256, height: 256) == 18)
  }

  static let badBoundsCases: [(String, String)] = [
    ("51.6,-0.1,51.5,0", "south 51.6 is not below north 51.5"),
    ("51.5,-0.1,51.5,0", "is not below north"),
    ("10,170,20,-170", "bounds crossing the antimeridian are not supported (split the image)"),
    ("10,5,20,5", "antimeridian"),
    ("151.20,-33.87,151.21,-33.86", "did you swap LAT and LON?"),
    ("86,0,87,1", "beyond ±85.0511"),
    ("0,-190,1,0", "longitude -190.0 is beyond ±180"),
    ("1,2,3", "should be SOUTH,WEST,NORTH,EAST"),
    ("1,2,3,4,5", "should be SOUTH,WEST,NORTH,EAST"),
    ("a,b,c,d", "'a' in 'a,b,c,d' is not a number"),
    ("1,2,nan,4", "not a finite number"),
    ("", "should be SOUTH,WEST,NORTH,EAST"),
  ]

  @Test("bad bounds are refused, naming --bounds", arguments: badBoundsCases)
  func badBounds(text: String, mentions: String) {
    let m = Self.message { _ = try Georeference.parseBounds(text) }
    #expect(m?.hasPrefix("--bounds: ") == true, "\(m ?? "accepted")")
    #expect(m?.contains(mentions) == true, "\(m ?? "accepted")")
  }

  @Test("bounds() itself checks what parseBounds checks")
  func boundsChecks() {
    let swapped = Self.message { _ = try Georeference.bounds(south: 151.2, west: -33.9, north: 151.3, east: -33.8, width: 10, height: 10) }
    #expect(swapped?.hasPrefix("--bounds: ") == true && swapped?.contains("swap") == true)
    let across = Self.message { _ = try Georeference.bounds(south: 0, west: 179, north: 1, east: -179, width: 10, height: 10) }
    #expect(across?.contains("antimeridian") == true)
    #expect(throws: TilecutError.self) { try Georeference.bounds(south: 0, west: 0, north: 1, east: 1, width: 0, height: 10) }
  }

  // MARK: control points

  @Test("X,Y,LAT,LON parses; bad ones name --gcp")
  func parseControlPoints() throws {
    let p = try Georeference.parseControlPoint("120.5, 80, 51.5074, -0.1278")
    #expect(p == ControlPoint(col: 120.5, row: 80, point: GeoPoint(latitude: 51.5074, longitude: -0.1278)))
    for (text, mentions) in [("1,2,3", "should be X,Y,LAT,LON"), ("1,2,151.2,-33.8", "swap"), ("x,2,3,4", "not a number")] {
      let m = Self.message { _ = try Georeference.parseControlPoint(text) }
      #expect(m?.hasPrefix("--gcp: ") == true && m?.contains(mentions) == true, "\(m ?? "accepted")")
    }
  }

  /// (scale in world units per pixel, rotation in degrees, u0, v0) for known similarities.
  static let similarities: [(Double, Double, Double, Double)] = [
    (1e-8, 0, 0.4997, 0.3321), (2.5e-9, 30, 0.2, 0.7), (4e-7, -75, 0.9, 0.1), (1e-9, 180, 0.5, 0.5), (3e-8, 123.4, 0.31, 0.62),
  ]

  @Test("two control points recover a known similarity exactly", arguments: similarities)
  func twoPoints(scale: Double, degrees: Double, u0: Double, v0: Double) throws {
    let t = degrees * .pi / 180
    let truth = TilecutCore.AffineTransform(a: scale * cos(t), b: -scale * sin(t), c: u0, d: scale * sin(t), e: scale * cos(t), f: v0)
    let points = [(37.0, 11.0), (1650.0, 980.0)].map { c, r in
      let w = truth.apply(c, r)
      return ControlPoint(col: c, row: r, point: WebMercator.geo(WorldPoint(u: w.x, v: w.y)))
    }
    let (fit, report) = try Georeference.fit(points, width: 2000, height: 1000)
    #expect(fit.method == .gcp && fit.projection == .webMercator)
    for (got, want) in [(fit.transform.a, truth.a), (fit.transform.b, truth.b), (fit.transform.d, truth.d), (fit.transform.e, truth.e)] {
      #expect(abs(got - want) < 1e-6 * scale)
    }
    for (c, r) in [(0.0, 0.0), (2000.0, 1000.0), (700.0, 300.0)] {
      let a = fit.transform.apply(c, r)
      let b = truth.apply(c, r)
      // 1e-12 of the world is 4 cm
      #expect(abs(a.x - b.x) < 1e-12 && abs(a.y - b.y) < 1e-12)
    }
    #expect(report.rmsPixels < 1e-4 && report.maxPixels < 1e-4 && !report.isSuspicious)
  }

  @Test("two points agree with a centre + scale + rotation placement")
  func twoPointsMatchCenter() throws {
    let truth = try Georeference.center(
      GeoPoint(latitude: 48.8584, longitude: 2.2945), metersPerPixel: 0.1, rotationDegrees: 30, width: 2000, height: 1000)
    let pts = [(100.0, 50.0), (1900.0, 900.0)].map { c, r in ControlPoint(col: c, row: r, point: WebMercator.geo(truth.world(col: c, row: r))) }
    let (fit, _) = try Georeference.fit(pts, width: 2000, height: 1000)
    for (c, r) in [(0.0, 0.0), (2000.0, 1000.0)] {
      let a = fit.world(col: c, row: r)
      let b = truth.world(col: c, row: r)
      #expect(abs(a.u - b.u) < 1e-12 && abs(a.v - b.v) < 1e-12)
    }
  }

  /// A sheared, anisotropic map over Manhattan with pixels of about 6 cm.
  static let affineTruth = TilecutCore.AffineTransform(a: 2.1e-9, b: 4e-10, c: 0.29432, d: -3e-10, e: 2.6e-9, f: 0.37591)

  static func points(_ pixels: [(Double, Double)], truth: TilecutCore.AffineTransform, jitter: (Int) -> (Double, Double) = { _ in (0, 0) })
    -> [ControlPoint]
  {
    pixels.enumerated().map { i, p in
      let w = truth.apply(p.0, p.1)
      let j = jitter(i)
      return ControlPoint(col: p.0 + j.0, row: p.1 + j.1, point: WebMercator.geo(WorldPoint(u: w.x, v: w.y)))
    }
  }

  @Test("three points recover an affine map exactly")
  func threePoints() throws {
    let pts = Self.points([(0, 0), (3000, 100), (200, 4000)], truth: Self.affineTruth)
    let (fit, report) = try Georeference.fit(pts, width: 3000, height: 4000)
    let t = fit.transform
    let u = Self.affineTruth
    for (got, want) in [(t.a, u.a), (t.b, u.b), (t.d, u.d), (t.e, u.e)] { #expect(abs(got - want) < 1e-6 * 2.6e-9) }
    #expect(abs(t.c - u.c) < 1e-12 && abs(t.f - u.f) < 1e-12)
    #expect(report.rmsPixels < 1e-3)
  }

  static let grid: [(Double, Double)] = [
    (0, 0), (1500, 0), (3000, 0), (0, 2000), (1500, 2000), (3000, 2000), (0, 4000), (1500, 4000), (3000, 4000), (700, 3100),
  ]
  /// A fixed ±0.5 px pattern of pixel-picking errors.
  static func jitter(_ i: Int) -> (Double, Double) {
    let s: [Double] = [0.4, -0.3, 0.1, -0.5, 0.2, 0.5, -0.2, -0.4, 0.3, -0.1]
    return (s[i % s.count], s[(i + 3) % s.count])
  }

  @Test("a least-squares fit of slightly noisy points has a small residual and is close to the truth")
  func noisyAffine() throws {
    let pts = Self.points(Self.grid, truth: Self.affineTruth, jitter: Self.jitter)
    let (fit, report) = try Georeference.fit(pts, width: 3000, height: 4000)
    #expect(report.rmsPixels > 0.05 && report.rmsPixels < 0.6)
    #expect(report.maxPixels >= report.rmsPixels && report.maxPixels < 1)
    #expect(!report.isSuspicious)
    // ground residual ≈ pixel residual × ground metres per pixel (the map is close to conformal)
    let lat = WebMercator.latitudeDegrees(v: 0.37591)
    let metersPerPixel = (Self.affineTruth.determinant).squareRoot() * WebMercator.groundMetersPerWorldUnit(latitudeDegrees: lat)
    #expect(abs(report.rmsMeters / (report.rmsPixels * metersPerPixel) - 1) < 0.15)
    // the fitted corners are within two pixels of the truth
    for (c, r) in [(0.0, 0.0), (3000.0, 4000.0)] {
      let a = fit.transform.apply(c, r)
      let b = Self.affineTruth.apply(c, r)
      #expect(hypot(a.x - b.x, a.y - b.y) < 2 * 2.6e-9)
    }
  }

  @Test("a mistyped control point makes the fit suspicious and is named as the worst")
  func mistypedPoint() throws {
    var pts = Self.points(Self.grid, truth: Self.affineTruth, jitter: Self.jitter)
    let (_, good) = try Georeference.fit(pts, width: 3000, height: 4000)
    #expect(!good.isSuspicious)
    pts[7].point.latitude += 0.001  // one wrong digit: about 110 m, some 1700 px here
    let (_, bad) = try Georeference.fit(pts, width: 3000, height: 4000)
    #expect(bad.isSuspicious)
    #expect(bad.worstIndex == 7)
    #expect(bad.rmsMeters > 10 && bad.maxPixels > 50)
  }

  @Test(
    "suspicious means an RMS over both 5 px and 0.5 % of the diagonal",
    arguments: [(4.9, 100.0, false), (5.1, 100.0, true), (40.0, 10_000.0, false), (60.0, 10_000.0, true), (0.0, 1.0, false)])
  func suspicion(rms: Double, diagonal: Double, suspicious: Bool) {
    let r = FitReport(rmsPixels: rms, rmsMeters: 0, maxPixels: rms, worstIndex: 0, diagonalPixels: diagonal)
    #expect(r.isSuspicious == suspicious)
  }

  @Test("too few control points")
  func tooFew() {
    #expect(
      Self.message { _ = try Georeference.fit([Self.gcp(0, 0, 1, 1)], width: 10, height: 10) } == "--gcp: needs at least 2 control points, got 1")
    #expect(Self.message { _ = try Georeference.fit([], width: 10, height: 10) } == "--gcp: needs at least 2 control points, got 0")
  }

  static let badSets: [([ControlPoint], String)] = [
    ([gcp(5, 5, 1, 1), gcp(5, 5, 2, 2)], "same pixel"),
    ([gcp(0, 0, 1, 1), gcp(9, 9, 1, 1)], "same place"),
    ([gcp(0, 0, 1, 1), gcp(5, 5, 1.1, 1.1), gcp(10, 10, 1.2, 1.2)], "lie on one line"),
    ([gcp(0, 0, 1, 1), gcp(5, 0, 1.1, 1.1), gcp(10, 0, 1.2, 1.3), gcp(3, 0, 1.3, 1.4)], "lie on one line"),
    // pixels spread out, but the places on one line: the image would be squashed flat
    ([gcp(0, 0, 1, 1), gcp(10, 0, 1, 1.1), gcp(0, 10, 1, 1.2)], "mirrored or degenerate"),
    // column 10 lies west of column 0: a mirror image
    ([gcp(0, 0, 1, 1), gcp(10, 0, 1, 0.99), gcp(0, 10, 0.99, 1)], "mirrored"),
    ([gcp(0, 0, 1, 1), gcp(10, 0, 1, 0.99), gcp(0, 10, 0.99, 1), gcp(10, 10, 0.99, 0.99)], "mirrored"),
  ]

  @Test("repeated, collinear, flat or mirrored control points are refused", arguments: badSets)
  func badControlPoints(points: [ControlPoint], mentions: String) {
    let m = Self.message { _ = try Georeference.fit(points, width: 10, height: 10) }
    #expect(m?.hasPrefix("--gcp: ") == true && m?.contains(mentions) == true, "\(m ?? "accepted")")
  }

  @Test("nearly collinear points are caught at any scale (relative tolerance)")
  func nearlyCollinear() {
    for k in [1e-3, 1.0, 1e4] {
      // the third point is off the line by a billionth of the spread
      let pts = [Self.gcp(0, 0, 10, 10), Self.gcp(100 * k, 100 * k, 10.1, 10.1), Self.gcp(50 * k, 50 * k + 1e-7 * k, 10.05, 10.06)]
      #expect(throws: TilecutError.self) { try Georeference.fit(pts, width: 10, height: 10) }
    }
  }

  // MARK: centre, scale, rotation

  @Test("centre: 0° keeps north up, the centre pixel on the point")
  func centerNorthUp() throws {
    let centre = GeoPoint(latitude: 60, longitude: 10)
    let p = try Georeference.center(centre, metersPerPixel: 0.5, rotationDegrees: 0, width: 400, height: 200)
    #expect(p.method == .center && p.projection == .webMercator)
    let mid = p.world(col: 200, row: 100)
    let g = WebMercator.geo(mid)
    #expect(abs(g.latitude - 60) < 1e-12 && abs(g.longitude - 10) < 1e-12)
    let top = p.world(col: 200, row: 0)
    let right = p.world(col: 400, row: 100)
    #expect(top.v < mid.v && abs(top.u - mid.u) < 1e-18)
    #expect(right.u > mid.u && abs(right.v - mid.v) < 1e-18)
  }

  @Test("centre: 90° puts the image's top edge on the east side")
  func centerQuarterTurn() throws {
    let centre = GeoPoint(latitude: 60, longitude: 10)
    let p = try Georeference.center(centre, metersPerPixel: 0.5, rotationDegrees: 90, width: 400, height: 200)
    let mid = p.world(col: 200, row: 100)
    let top = p.world(col: 200, row: 0)
    let right = p.world(col: 400, row: 100)
    let left = p.world(col: 0, row: 100)
    #expect(top.u > mid.u && abs(top.v - mid.v) < 1e-15)  // top edge faces east
    #expect(right.v > mid.v && abs(right.u - mid.u) < 1e-15)  // right edge faces south
    #expect(left.v < mid.v)  // left edge faces north
    // the whole top row lies east of the whole bottom row
    let bottom = p.world(col: 200, row: 200)
    #expect(min(p.world(col: 0, row: 0).u, p.world(col: 400, row: 0).u) > bottom.u)
  }

  @Test("centre: the image's up points to bearing DEG, clockwise from north", arguments: [0.0, 30, 90, 135, 180, 225, 270, -45, 370])
  func centerBearing(degrees: Double) throws {
    let p = try Georeference.center(
      GeoPoint(latitude: -33.8688, longitude: 151.2093), metersPerPixel: 2, rotationDegrees: degrees, width: 300, height: 300)
    let mid = p.world(col: 150, row: 150)
    let top = p.world(col: 150, row: 0)
    // Mercator is conformal: bearings read straight off (east = +u, north = −v)
    var bearing = atan2(top.u - mid.u, -(top.v - mid.v)) * 180 / .pi
    var want = degrees.truncatingRemainder(dividingBy: 360)
    if bearing < 0 { bearing += 360 }
    if want < 0 { want += 360 }
    let diff = abs(bearing - want)
    #expect(min(diff, 360 - diff) < 1e-9)
    #expect(p.transform.determinant > 0)  // a turn, never a mirror
  }

  @Test(
    "centre: pixel distances are metersPerPixel on the ground",
    arguments: [(0.5, 0.0, 60.0), (0.05, 37.0, 51.5), (3.0, 90.0, -33.9), (0.25, 200.0, 0.0)])
  func centerScale(metersPerPixel: Double, degrees: Double, lat: Double) throws {
    let (w, h) = (400, 300)
    let p = try Georeference.center(
      GeoPoint(latitude: lat, longitude: 10), metersPerPixel: metersPerPixel, rotationDegrees: degrees, width: w, height: h)
    let geo = { (c: Double, r: Double) in WebMercator.geo(p.world(col: c, row: r)) }
    // across the middle, and corner to corner
    let across = Self.groundMeters(geo(0, 150), geo(400, 150))
    let down = Self.groundMeters(geo(200, 0), geo(200, 300))
    let diagonal = Self.groundMeters(geo(0, 0), geo(400, 300))
    #expect(abs(across / (400 * metersPerPixel) - 1) < 1e-3)
    #expect(abs(down / (300 * metersPerPixel) - 1) < 1e-3)
    #expect(abs(diagonal / (500 * metersPerPixel) - 1) < 1e-3)
  }

  static let badCenters: [(Double, Double, String)] = [
    (0, 0, "--meters-per-pixel: "), (-1, 0, "--meters-per-pixel: "), (.nan, 0, "--meters-per-pixel: "),
    (.infinity, 0, "--meters-per-pixel: "), (1, .nan, "--rotation: "), (1, .infinity, "--rotation: "),
  ]

  @Test("bad scale or rotation names the option", arguments: badCenters)
  func badCenter(metersPerPixel: Double, degrees: Double, prefix: String) {
    let m = Self.message {
      _ = try Georeference.center(
        GeoPoint(latitude: 1, longitude: 1), metersPerPixel: metersPerPixel, rotationDegrees: degrees, width: 10, height: 10)
    }
    #expect(m?.hasPrefix(prefix) == true, "\(m ?? "accepted")")
  }

  @Test("a centred image across the antimeridian is placed, to be tiled in two pieces one world apart")
  func centerAcrossAntimeridian() throws {
    let p = try Georeference.center(GeoPoint(latitude: 0, longitude: 179.9999), metersPerPixel: 10, rotationDegrees: 0, width: 1000, height: 1000)
    #expect(Antimeridian.shifts(p, width: 1000, height: 1000) == [0, -1])
    let pieces = Antimeridian.pieces(p, width: 1000, height: 1000)
    try #require(pieces.count == 2)
    let west = pieces[0].footprint(width: 1000, height: 1000)
    let east = pieces[1].footprint(width: 1000, height: 1000)
    #expect(west.minU < 1 && west.maxU > 1 && east.minU < 0 && east.maxU > 0, "\(west) \(east)")
    #expect(abs(east.minU - (west.minU - 1)) < 1e-12 && abs(east.maxU - (west.maxU - 1)) < 1e-12)
    // one within the world is one piece, unmoved
    let inside = try Georeference.center(GeoPoint(latitude: 0, longitude: 170), metersPerPixel: 10, rotationDegrees: 0, width: 1000, height: 1000)
    #expect(Antimeridian.pieces(inside, width: 1000, height: 1000) == [inside])
  }
}

/// The --bounds aspect check: the image's shape against the box's on the ground.
@Suite("Bounds aspect")
struct BoundsAspectTests {
  @Test("Berlin typed longitude first: the warning names both aspects and the swap")
  func swapped() throws {
    let text = try #require(
      Georeference.aspectWarning(south: 13.37, west: 52.51, north: 13.385, east: 52.516, width: 1520, height: 1000))
    #expect(text.contains("aspect 0.389") && text.contains("aspect 1.520"))
    #expect(text.contains("latitude and longitude look swapped: did you mean --bounds 52.51,13.37,52.516,13.385?"))
    #expect(Georeference.aspectWarning(south: 52.51, west: 13.37, north: 52.516, east: 13.385, width: 1520, height: 1000) == nil)
  }

  @Test("within 5 % is silent; beyond, a warning without a swap that would not fit either")
  func tolerance() {
    // ground aspect of this box: 1.520
    #expect(Georeference.aspectWarning(south: 52.51, west: 13.37, north: 52.516, east: 13.385, width: 1580, height: 1000) == nil)
    let far = Georeference.aspectWarning(south: 52.51, west: 13.37, north: 52.516, east: 13.385, width: 1000, height: 1000)
    #expect(far != nil && far?.contains("swapped") == false)
  }

  @Test("a lon/lat source may have square pixels in degrees")
  func lonLatDegrees() {
    // 0.015° × 0.006°: 2.5:1 in degrees, 1.52:1 on the ground
    #expect(
      Georeference.aspectWarning(south: 52.51, west: 13.37, north: 52.516, east: 13.385, width: 2500, height: 1000, projection: .lonLat)
        == nil)
    #expect(Georeference.aspectWarning(south: 52.51, west: 13.37, north: 52.516, east: 13.385, width: 2500, height: 1000) != nil)
  }
}
