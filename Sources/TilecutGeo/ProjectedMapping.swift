import Foundation
import TilecutCore

/// Source pixels in any CRS ↔ the Web-Mercator world, exactly, through PROJ: pixel
/// → CRS by the file's affine map, CRS → EPSG:3857 metres by PROJ, metres → (u, v).
public struct ProjectedMapping: SourceMapping {
  public let crs: CRSDefinition
  /// Source pixel (GDAL continuous) → CRS coordinates (easting, northing).
  public let toCRS: TilecutCore.AffineTransform
  private let fromCRS: TilecutCore.AffineTransform
  let proj: ProjTransformer
  /// Control points fitted as gdalwarp fits them, when they (not `toCRS`) map pixels to the CRS.
  private let controlPoints: GDALControlPointTransformer?

  public init(
    crs: CRSDefinition, toCRS: TilecutCore.AffineTransform, controlPoints: GDALControlPointTransformer? = nil,
    area: [Double]? = nil, option: String = "--source-crs"
  ) throws {
    guard let inverse = toCRS.inverse else {
      throw TilecutError.invalidOption(option: option, reason: "the pixel-to-map transform is degenerate (zero pixel size)")
    }
    self.crs = crs
    self.toCRS = toCRS
    self.controlPoints = controlPoints
    fromCRS = inverse
    proj = try ProjTransformer(crs: crs, area: area, option: option)
  }

  /// The mapping of a `.projected` placement.
  public init(placement: Placement) throws {
    guard placement.projection == .projected, let definition = placement.crs, let toCRS = placement.crsTransform else {
      throw TilecutError.invalidOption(option: "--source-crs", reason: "the placement has no CRS")
    }
    let crs = CRSDefinition(
      definition: definition, name: placement.crsName ?? definition, isWebMercator: false, isWGS84LonLat: false, files: [],
      gdalAxisSwap: placement.crsAxisSwap)
    var fitted: GDALControlPointTransformer?
    if let points = placement.crsControlPoints, let order = placement.crsControlPointOrder, order != 1 {
      let pairs = points.filter { $0.count == 4 }.map { (pixel: PixelPoint(x: $0[0], y: $0[1]), model: PixelPoint(x: $0[2], y: $0[3])) }
      guard let transformer = try GDALControlPointTransformer(pairs, order: order < 0 ? nil : order) else {
        throw TilecutError.invalidOption(option: "--gcp-order", reason: "GDAL cannot fit the placement's control points")
      }
      fitted = transformer
    }
    try self.init(crs: crs, toCRS: toCRS, controlPoints: fitted, area: placement.crsAreaOfInterest)
  }

  public var affine: TilecutCore.AffineTransform? { nil }

  public func world(of pixels: [PixelPoint]) -> [WorldPoint] {
    var x = [Double](repeating: 0, count: pixels.count)
    var y = x
    for (i, p) in pixels.enumerated() {
      if controlPoints != nil {
        (x[i], y[i]) = (p.x, p.y)
      } else {
        let c = toCRS.apply(p.x, p.y)
        (x[i], y[i]) = (c.x, c.y)
      }
    }
    controlPoints?.transform(x: &x, y: &y)
    proj.transform(x: &x, y: &y)
    return (0..<pixels.count).map { i in
      guard x[i].isFinite else { return WorldPoint(u: .nan, v: .nan) }
      return WebMercator.world(metersX: x[i], metersY: y[i])
    }
  }

  public func pixels(of world: [WorldPoint]) -> [PixelPoint] {
    let s = WebMercator.originShift
    var x = world.map { $0.u * 2 * s - s }
    var y = world.map { s - $0.v * 2 * s }
    proj.transform(x: &x, y: &y, inverse: true)
    if let controlPoints {
      controlPoints.transform(x: &x, y: &y, inverse: true)
      return (0..<world.count).map { i in x[i].isFinite ? PixelPoint(x: x[i], y: y[i]) : .undefined }
    }
    return (0..<world.count).map { i in
      guard x[i].isFinite else { return .undefined }
      let p = fromCRS.apply(x[i], y[i])
      return PixelPoint(x: p.x, y: p.y)
    }
  }
}

/// Builds placements from a map of pixels into a CRS: affine ones for Web Mercator
/// and north-up WGS 84 lon/lat, a `.projected` one (PROJ) for everything else.
public enum GeoPlacement {
  /// The placement of a width × height source whose pixels map to `crs` by `toCRS`.
  /// `deepestWorldPixels`: the width of the deepest level, for densifying the outline
  /// (nil: the source's own resolution).
  public static func make(
    method: PlacementMethod, toCRS: TilecutCore.AffineTransform, crs: CRSDefinition, width: Int, height: Int, deepestZoom: Int? = nil,
    controlPoints: [(pixel: PixelPoint, model: PixelPoint)]? = nil, controlPointOrder: Int? = nil, option: String
  ) throws -> Placement {
    guard width > 0, height > 0 else {
      throw TilecutError.invalidOption(option: option, reason: "the image is \(width)×\(height) pixels; it needs at least one")
    }
    var placement: Placement
    var fitted: GDALControlPointTransformer?
    if let controlPoints, let order = controlPointOrder, order != 1 {
      guard let transformer = try GDALControlPointTransformer(controlPoints, order: order < 0 ? nil : order) else {
        throw TilecutError.invalidOption(
          option: option,
          reason: "GDAL cannot fit its \(controlPoints.count) control points with " + (order < 0 ? "a thin-plate spline" : "order \(order)")
            + "; try --gcp-order 1")
      }
      fitted = transformer
    }
    if fitted == nil && crs.isWebMercator {
      placement = try WorldFile.placement(transform: toCRS, crs: .epsg3857, option: option)
    } else if fitted == nil && crs.isWGS84LonLat && abs(toCRS.b) < 1e-15 && abs(toCRS.d) < 1e-15 {
      placement = try WorldFile.placement(transform: toCRS, crs: .epsg4326, option: option)
    } else {
      // the source's extent on its own datum, as GDAL's warper gives PROJ (area of interest)
      let edge = MappedOutline.outline(width: width, height: height, perEdge: 16)
      var ex = edge.map { toCRS.apply($0.x, $0.y).x }
      var ey = edge.map { toCRS.apply($0.x, $0.y).y }
      if let fitted {
        ex = edge.map(\.x)
        ey = edge.map(\.y)
        fitted.transform(x: &ex, y: &ey)
      }
      let area = ProjTransformer.areaOfInterest(crs: crs, x: ex, y: ey)
      let mapping = try ProjectedMapping(crs: crs, toCRS: toCRS, controlPoints: fitted, area: area, option: option)
      guard let local = MappedOutline.localAffine(mapping, width: width, height: height) else {
        throw TilecutError.invalidOption(
          option: option, reason: "the image's centre does not map to Web Mercator from \(crs.name); is the CRS right?")
      }
      placement = Placement(method: method, projection: .projected, transform: local.transform)
      placement.crs = crs.definition
      placement.crsTransform = toCRS
      placement.crsAreaOfInterest = area
      placement.crsAxisSwap = crs.gdalAxisSwap
      placement.mappedScale = local.pixelsPerWorldUnit
      let zoom = deepestZoom ?? placement.nativeZoom(width: width, height: height)
      guard
        let footprint = MappedOutline.footprint(
          mapping, width: width, height: height, worldPixels: WebMercator.worldPixels(zoom: min(zoom + 1, 30)))
      else {
        throw TilecutError.invalidOption(option: option, reason: "no edge of the image maps to Web Mercator from \(crs.name)")
      }
      placement.mappedFootprint = try polarOrCrossing(mapping, footprint: footprint, width: width, height: height, option: option)
      if fitted != nil, let controlPoints {
        placement.crsControlPoints = controlPoints.map { [$0.pixel.x, $0.pixel.y, $0.model.x, $0.model.y] }
        placement.crsControlPointOrder = controlPointOrder
      }
      let centre =
        fitted.map { f -> (Double, Double) in
          var x = [Double(width) / 2]
          var y = [Double(height) / 2]
          f.transform(x: &x, y: &y)
          return (x[0], y[0])
        }
        ?? {
          let c = toCRS.apply(Double(width) / 2, Double(height) / 2)
          return (c.x, c.y)
        }()
      let operation = mapping.proj.operation(atX: centre.0, y: centre.1)
      placement.crsOperation = operation?.summary
      placement.crsOperationWarning = operation?.warning
    }
    placement.method = method
    placement.crsName = crs.name
    placement.sidecars = crs.files
    try Georeference.checkWithinWorld(placement, width: width, height: height, option: option)
    return placement
  }
}

extension ProjectedMapping {
  /// The PROJ mapping a placement needs to be rendered, nil for placements that need none.
  public static func forPlacement(_ placement: Placement) throws -> (any SourceMapping)? {
    placement.projection == .projected ? try ProjectedMapping(placement: placement) : nil
  }
}

extension GeoPlacement {
  /// The footprint of a source whose outline winds around a pole (a polar grid holding
  /// it): every longitude, from the outline to the map's edge. A source whose outline
  /// crosses the antimeridian without holding a pole is refused, as tilecut cannot split it.
  static func polarOrCrossing(
    _ mapping: some SourceMapping, footprint: WorldRect, width: Int, height: Int, option: String
  ) throws -> WorldRect {
    let world = mapping.world(of: MappedOutline.outline(width: width, height: height, perEdge: 256))
    guard world.allSatisfy({ $0.u.isFinite && $0.v.isFinite }) else { return footprint }
    var turn = 0.0
    var jumps = 0
    for (a, b) in zip(world, world.dropFirst() + world.prefix(1)) {
      var du = b.u - a.u
      if du > 0.5 {
        du -= 1
        jumps += 1
      } else if du < -0.5 {
        du += 1
        jumps += 1
      }
      turn += du
    }
    if abs(turn) > 0.5 {
      // the outline goes once round the world: the pole is inside
      let south = world.map(\.v).reduce(0, +) / Double(world.count) > 0.5
      return south
        ? WorldRect(minU: 0, minV: footprint.minV, maxU: 1, maxV: 1) : WorldRect(minU: 0, minV: 0, maxU: 1, maxV: footprint.maxV)
    }
    if jumps > 0 {
      throw TilecutError.invalidOption(
        option: option,
        reason:
          "the image crosses the antimeridian (180°), which tilecut cannot tile in one piece; split it at 180° (gdalwarp -te) into an east and a west part"
      )
    }
    return footprint
  }
}
