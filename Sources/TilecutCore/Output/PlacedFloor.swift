import Foundation

extension Manifest {
  /// Where one floor lies on the map: the source's mapped edge and the control
  /// points its placement was fitted to, with their residuals (for the preview page).
  public struct PlacedFloor: Codable, Sendable, Equatable {
    public var floor: Floor
    /// How the placement was given (raster, bounds, gcp, center, world-file, …).
    public var method: PlacementMethod
    /// The source's edge on the map: [latitude, longitude] pairs clockwise from the
    /// top-left corner, `sideSteps` per side (a projected placement bends its edges).
    public var outline: [[Double]]
    /// The control points of a `gcp` placement, in the order they were given.
    public var controlPoints: [PlacedControlPoint]?
    /// Root-mean-square of the control points' residuals.
    public var rmsPixels: Double?
    public var rmsMeters: Double?

    /// Points per side of the outline.
    public static let sideSteps = 8

    public init(floor: Floor, method: PlacementMethod, outline: [[Double]], controlPoints: [PlacedControlPoint]? = nil) {
      self.floor = floor
      self.method = method
      self.outline = outline
      self.controlPoints = controlPoints
      if let points = controlPoints, !points.isEmpty {
        let n = Double(points.count)
        rmsPixels = (points.map { $0.residualPixels * $0.residualPixels }.reduce(0, +) / n).squareRoot()
        rmsMeters = (points.map { $0.residualMeters * $0.residualMeters }.reduce(0, +) / n).squareRoot()
      }
    }

    /// The record of a placed source of `width` × `height` pixels; `mapping` maps its
    /// pixels (the placement's own when nil, which a projected placement cannot be).
    public init(floor: Floor, placement: Placement, mapping: (any SourceMapping)?, width: Int, height: Int) {
      let map: (any SourceMapping)? = mapping ?? PlacementMapping(placement)
      let w = Double(width)
      let h = Double(height)
      let n = Self.sideSteps
      var edge: [PixelPoint] = []
      for i in 0..<n { edge.append(PixelPoint(x: w * Double(i) / Double(n), y: 0)) }
      for i in 0..<n { edge.append(PixelPoint(x: w, y: h * Double(i) / Double(n))) }
      for i in 0..<n { edge.append(PixelPoint(x: w * Double(n - i) / Double(n), y: h)) }
      for i in 0..<n { edge.append(PixelPoint(x: 0, y: h * Double(n - i) / Double(n))) }
      let world = map?.world(of: edge) ?? edge.map { placement.world(col: $0.x, row: $0.y) }
      let outline = world.filter { $0.u.isFinite && $0.v.isFinite }.map { w -> [Double] in
        let g = WebMercator.geo(w)
        return [g.latitude, g.longitude]
      }
      let points = placement.controlPoints.map { points in
        PlacedControlPoint.residuals(of: points, mapping: map, placement: placement)
      }
      self.init(floor: floor, method: placement.method, outline: outline, controlPoints: points)
    }
  }

  /// A control point and how far the fitted placement puts it from where it was given.
  public struct PlacedControlPoint: Codable, Sendable, Equatable {
    /// Source pixel (GDAL convention: 0,0 is the top-left corner).
    public var col, row: Double
    /// Where the point was given.
    public var latitude, longitude: Double
    /// Where the placement puts the pixel: the residual arrow runs from the given
    /// place to this one.
    public var fittedLatitude, fittedLongitude: Double
    /// Distance between the pixel and where the placement puts the given place, in source pixels.
    public var residualPixels: Double
    /// Distance between the given and the fitted place, in ground metres.
    public var residualMeters: Double

    /// Residuals measured as `Georeference.fit` measures them.
    static func residuals(of points: [ControlPoint], mapping: (any SourceMapping)?, placement: Placement) -> [PlacedControlPoint] {
      let given = points.map { WebMercator.world($0.point) }
      let pixels = points.map { PixelPoint(x: $0.col, y: $0.row) }
      let fitted = mapping?.world(of: pixels) ?? pixels.map { placement.world(col: $0.x, row: $0.y) }
      let back = mapping?.pixels(of: given) ?? given.map { _ in PixelPoint.undefined }
      return points.indices.map { i in
        let p = points[i]
        let f = WebMercator.geo(fitted[i])
        let meters =
          hypot(fitted[i].u - given[i].u, fitted[i].v - given[i].v) * WebMercator.groundMetersPerWorldUnit(latitudeDegrees: p.point.latitude)
        return PlacedControlPoint(
          col: p.col, row: p.row, latitude: p.point.latitude, longitude: p.point.longitude, fittedLatitude: f.latitude,
          fittedLongitude: f.longitude, residualPixels: hypot(back[i].x - p.col, back[i].y - p.row), residualMeters: meters)
      }
    }
  }
}
