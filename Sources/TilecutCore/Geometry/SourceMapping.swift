import Foundation

/// A position in a source image, in GDAL's continuous pixel coordinates.
public struct PixelPoint: Hashable, Sendable, Codable {
  public var x: Double
  public var y: Double

  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// A point no mapping reaches.
  public static let undefined = PixelPoint(x: .nan, y: .nan)
  public var isDefined: Bool { x.isFinite && y.isFinite }
}

/// The map between a source's pixels and the Web-Mercator world, both ways.
///
/// Batched, because a projected mapping hands whole arrays to PROJ. Points that do
/// not map (outside a projection's domain) come back with NaN coordinates.
public protocol SourceMapping: Sendable {
  /// World points of source pixel positions.
  func world(of pixels: [PixelPoint]) -> [WorldPoint]
  /// Source pixel positions of world points.
  func pixels(of world: [WorldPoint]) -> [PixelPoint]
  /// The exact affine map from source pixels to (u, v) when the mapping is one.
  var affine: AffineTransform? { get }
}

/// The mapping of a placement that needs no PROJ: affine in Mercator, or affine in lon/lat.
public struct PlacementMapping: SourceMapping {
  public let placement: Placement
  private let inverse: AffineTransform?

  /// Nil for `.projected` placements, which need TilecutGeo's mapping.
  public init?(_ placement: Placement) {
    guard placement.projection != .projected else { return nil }
    self.placement = placement
    inverse = placement.transform.inverse
  }

  public var affine: AffineTransform? { placement.projection == .webMercator ? placement.transform : nil }

  public func world(of pixels: [PixelPoint]) -> [WorldPoint] {
    pixels.map { placement.world(col: $0.x, row: $0.y) }
  }

  public func pixels(of world: [WorldPoint]) -> [PixelPoint] {
    guard let inverse else { return world.map { _ in .undefined } }
    return world.map { w in
      let p: (x: Double, y: Double)
      switch placement.projection {
      case .webMercator, .projected: p = inverse.apply(w.u, w.v)
      case .lonLat: p = inverse.apply(WebMercator.longitudeDegrees(u: w.u), WebMercator.latitudeDegrees(v: w.v))
      }
      return PixelPoint(x: p.x, y: p.y)
    }
  }
}

/// What a mapping says about a whole source: its outline on the world and its scale.
public enum MappedOutline {
  /// The box of the source's outline, mapped with enough points per edge that
  /// neighbours lie less than one pixel apart at `worldPixels` (the deepest level's
  /// width), so that a curved edge is followed, not cut by its chord. Nil when no
  /// point of the outline maps.
  public static func footprint(
    _ mapping: any SourceMapping, width: Int, height: Int, worldPixels: Double, maxPointsPerEdge: Int = 1 << 18
  ) -> WorldRect? {
    var perEdge = 16
    while true {
      let points = outline(width: width, height: height, perEdge: perEdge)
      let world = mapping.world(of: points)
      let defined = world.filter { $0.u.isFinite && $0.v.isFinite }
      guard !defined.isEmpty else { return nil }
      var gap = 0.0
      for (a, b) in zip(world, world.dropFirst() + world.prefix(1)) where a.u.isFinite && b.u.isFinite {
        gap = max(gap, hypot(a.u - b.u, a.v - b.v) * worldPixels)
      }
      if gap < 1 || perEdge >= maxPointsPerEdge || !gap.isFinite {
        return WorldRect(enclosing: defined)
      }
      perEdge = min(maxPointsPerEdge, Int(Double(perEdge) * (gap * 1.25).rounded(.up)))
    }
  }

  /// Points along the edges of a width × height source, clockwise from the top-left corner.
  public static func outline(width: Int, height: Int, perEdge: Int) -> [PixelPoint] {
    let w = Double(width)
    let h = Double(height)
    var out: [PixelPoint] = []
    out.reserveCapacity(4 * perEdge)
    for i in 0..<perEdge {
      let t = Double(i) / Double(perEdge)
      out.append(PixelPoint(x: t * w, y: 0))
    }
    for i in 0..<perEdge {
      let t = Double(i) / Double(perEdge)
      out.append(PixelPoint(x: w, y: t * h))
    }
    for i in 0..<perEdge {
      let t = Double(i) / Double(perEdge)
      out.append(PixelPoint(x: w - t * w, y: h))
    }
    for i in 0..<perEdge {
      let t = Double(i) / Double(perEdge)
      out.append(PixelPoint(x: 0, y: h - t * h))
    }
    return out
  }

  /// Source pixels per world unit at the source's centre (geometric mean of the two
  /// axes), and the affine map that matches the mapping there.
  public static func localAffine(_ mapping: any SourceMapping, width: Int, height: Int) -> (
    transform: AffineTransform, pixelsPerWorldUnit: Double
  )? {
    let cx = Double(width) / 2
    let cy = Double(height) / 2
    let w = mapping.world(of: [PixelPoint(x: cx, y: cy), PixelPoint(x: cx + 1, y: cy), PixelPoint(x: cx, y: cy + 1)])
    guard w.count == 3, w.allSatisfy({ $0.u.isFinite && $0.v.isFinite }) else { return nil }
    let (a, d) = (w[1].u - w[0].u, w[1].v - w[0].v)
    let (b, e) = (w[2].u - w[0].u, w[2].v - w[0].v)
    let t = AffineTransform(a: a, b: b, c: w[0].u - a * cx - b * cy, d: d, e: e, f: w[0].v - d * cx - e * cy)
    let mean = (hypot(a, d) * hypot(b, e)).squareRoot()
    guard mean > 0, mean.isFinite else { return nil }
    return (t, 1 / mean)
  }
}
