import Foundation

/// Where a KML `<GroundOverlay>` puts its image, as Google Earth draws it: a
/// `<LatLonBox>` (north, south, east, west, and a `<rotation>` in degrees
/// counter-clockwise about the box's centre, turned in longitude/latitude degrees,
/// Plate Carrée, not in Mercator), or a `<gx:LatLonQuad>` (four longitude, latitude
/// corners counter-clockwise from the image's lower-left).
public enum GroundOverlayGeometry: Hashable, Sendable {
  case box(north: Double, south: Double, east: Double, west: Double, rotation: Double)
  /// Lower-left, lower-right, upper-right, upper-left, each (longitude, latitude).
  case quad([PixelPoint])

  /// "LatLonBox, rotation 45°" or "gx:LatLonQuad", for the placement line.
  public var summary: String {
    switch self {
    case .box(_, _, _, _, let rotation):
      rotation == 0 ? "LatLonBox" : "LatLonBox, rotation " + String(format: "%g", rotation) + "°"
    case .quad: "gx:LatLonQuad"
    }
  }

  /// Why the numbers place nothing, or nil when they are a box or quad on the Earth.
  public var problem: String? {
    switch self {
    case .box(let north, let south, let east, let west, let rotation):
      guard [north, south, east, west, rotation].allSatisfy(\.isFinite) else { return "its LatLonBox holds a number that is not finite" }
      guard abs(north) <= 90, abs(south) <= 90 else { return "its LatLonBox has a latitude beyond ±90° (north \(north), south \(south))" }
      guard north > south else { return "its LatLonBox's north (\(north)) is not north of its south (\(south))" }
      guard abs(east) <= 360, abs(west) <= 360 else { return "its LatLonBox has a longitude beyond ±360° (east \(east), west \(west))" }
      guard east != west else { return "its LatLonBox's east and west are the same longitude (\(east))" }
      return nil
    case .quad(let corners):
      guard corners.count == 4 else { return "its gx:LatLonQuad has \(corners.count) coordinates, not 4" }
      guard corners.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return "its gx:LatLonQuad holds a number that is not finite" }
      guard corners.allSatisfy({ abs($0.y) <= 90 && abs($0.x) <= 360 }) else {
        return "its gx:LatLonQuad has a corner beyond ±90° latitude or ±360° longitude"
      }
      // a quad that folds over itself (corners not in order) or has no area
      var signs: [Double] = []
      for i in 0..<4 {
        let (p, q, r) = (corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4])
        signs.append((q.x - p.x) * (r.y - q.y) - (q.y - p.y) * (r.x - q.x))
      }
      guard signs.allSatisfy({ $0 > 0 }) || signs.allSatisfy({ $0 < 0 }) else {
        return "its gx:LatLonQuad is not a convex quadrilateral (its corners cross, or three are on one line)"
      }
      return nil
    }
  }

  /// For a box: the exact affine map from source pixels (GDAL's continuous
  /// coordinates, 0,0 the top-left corner) of a width × height image to (longitude,
  /// latitude): the box's west..east across, north..south down, then turned about the
  /// box's centre. Nil for a quad.
  public func lonLatTransform(width: Int, height: Int) -> AffineTransform? {
    guard case .box(let north, let south, var east, let west, let rotation) = self, width > 0, height > 0 else { return nil }
    // a box across the antimeridian gives its east past 180
    if east < west { east += 360 }
    let box = AffineTransform(a: (east - west) / Double(width), b: 0, c: west, d: 0, e: -(north - south) / Double(height), f: north)
    let (cos, sin) = Self.cosSin(degrees: rotation)
    let (cx, cy) = ((east + west) / 2, (north + south) / 2)
    // (lon, lat) turned counter-clockwise by `rotation` about (cx, cy)
    let turn = AffineTransform(a: cos, b: -sin, c: cx - cos * cx + sin * cy, d: sin, e: cos, f: cy - sin * cx - cos * cy)
    return turn.concatenating(after: box)
  }

  /// The four pixel corners of a width × height image and the (longitude, latitude) the
  /// overlay gives each: top-left, top-right, bottom-right, bottom-left.
  public func corners(width: Int, height: Int) -> [(pixel: PixelPoint, lonLat: PixelPoint)] {
    let (w, h) = (Double(width), Double(height))
    let pixels = [PixelPoint(x: 0, y: 0), PixelPoint(x: w, y: 0), PixelPoint(x: w, y: h), PixelPoint(x: 0, y: h)]
    switch self {
    case .box:
      guard let t = lonLatTransform(width: width, height: height) else { return [] }
      return pixels.map { p in
        let q = t.apply(p.x, p.y)
        return (p, PixelPoint(x: q.x, y: q.y))
      }
    case .quad(let c):
      guard c.count == 4 else { return [] }
      // KML's order is lower-left, lower-right, upper-right, upper-left
      return [(pixels[0], c[3]), (pixels[1], c[2]), (pixels[2], c[1]), (pixels[3], c[0])]
    }
  }

  /// For a quad: its bilinear map (the image's edges straight in longitude and latitude,
  /// each corner on the quad's) sampled on a `perSide` × `perSide` grid of pixel
  /// positions, corners included, as control points (pixel, (longitude, latitude)).
  public func quadControlPoints(width: Int, height: Int, perSide: Int = 17) -> [(pixel: PixelPoint, lonLat: PixelPoint)] {
    guard case .quad(let c) = self, c.count == 4, perSide >= 2 else { return [] }
    // lower-left, lower-right, upper-right, upper-left
    let (ll, lr, ur, ul) = (c[0], c[1], c[2], c[3])
    var out: [(pixel: PixelPoint, lonLat: PixelPoint)] = []
    for j in 0..<perSide {
      for i in 0..<perSide {
        let (s, t) = (Double(i) / Double(perSide - 1), Double(j) / Double(perSide - 1))
        let x = ul.x * (1 - s) * (1 - t) + ur.x * s * (1 - t) + lr.x * s * t + ll.x * (1 - s) * t
        let y = ul.y * (1 - s) * (1 - t) + ur.y * s * (1 - t) + lr.y * s * t + ll.y * (1 - s) * t
        out.append((PixelPoint(x: s * Double(width), y: t * Double(height)), PixelPoint(x: x, y: y)))
      }
    }
    return out
  }

  /// Cosine and sine of an angle in degrees, exact at multiples of 90°.
  static func cosSin(degrees: Double) -> (Double, Double) {
    let r = degrees.truncatingRemainder(dividingBy: 360)
    let turns = r / 90
    if turns == turns.rounded() {
      switch (Int(turns) % 4 + 4) % 4 {
      case 0: return (1, 0)
      case 1: return (0, 1)
      case 2: return (-1, 0)
      default: return (0, -1)
      }
    }
    let radians = r * .pi / 180
    return (Foundation.cos(radians), Foundation.sin(radians))
  }
}
