import Foundation
import TilecutCore

/// Source pixels in any CRS ↔ the Web-Mercator world, exactly, through PROJ: pixel
/// → CRS by the file's affine map, CRS → EPSG:3857 metres by PROJ, metres → (u, v).
public struct ProjectedMapping: SourceMapping {
  public let crs: CRSDefinition
  /// Source pixel (GDAL continuous) → CRS coordinates (easting, northing).
  public let toCRS: TilecutCore.AffineTransform
  private let fromCRS: TilecutCore.AffineTransform
  private let proj: ProjTransformer

  public init(crs: CRSDefinition, toCRS: TilecutCore.AffineTransform, option: String = "--source-crs") throws {
    guard let inverse = toCRS.inverse else {
      throw TilecutError.invalidOption(option: option, reason: "the pixel-to-map transform is degenerate (zero pixel size)")
    }
    self.crs = crs
    self.toCRS = toCRS
    fromCRS = inverse
    proj = try ProjTransformer(crs: crs, option: option)
  }

  /// The mapping of a `.projected` placement.
  public init(placement: Placement) throws {
    guard placement.projection == .projected, let definition = placement.crs, let toCRS = placement.crsTransform else {
      throw TilecutError.invalidOption(option: "--source-crs", reason: "the placement has no CRS")
    }
    let crs = CRSDefinition(
      definition: definition, name: placement.crsName ?? definition, isWebMercator: false, isWGS84LonLat: false, files: [])
    try self.init(crs: crs, toCRS: toCRS)
  }

  public var affine: TilecutCore.AffineTransform? { nil }

  public func world(of pixels: [PixelPoint]) -> [WorldPoint] {
    var x = [Double](repeating: 0, count: pixels.count)
    var y = x
    for (i, p) in pixels.enumerated() {
      let c = toCRS.apply(p.x, p.y)
      x[i] = c.x
      y[i] = c.y
    }
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
    method: String, toCRS: TilecutCore.AffineTransform, crs: CRSDefinition, width: Int, height: Int, deepestZoom: Int? = nil,
    option: String
  ) throws -> Placement {
    guard width > 0, height > 0 else {
      throw TilecutError.invalidOption(option: option, reason: "the image is \(width)×\(height) pixels; it needs at least one")
    }
    var placement: Placement
    if crs.isWebMercator {
      placement = try WorldFile.placement(transform: toCRS, crs: .epsg3857)
    } else if crs.isWGS84LonLat && abs(toCRS.b) < 1e-15 && abs(toCRS.d) < 1e-15 {
      placement = try WorldFile.placement(transform: toCRS, crs: .epsg4326)
    } else {
      let mapping = try ProjectedMapping(crs: crs, toCRS: toCRS, option: option)
      guard let local = MappedOutline.localAffine(mapping, width: width, height: height) else {
        throw TilecutError.invalidOption(
          option: option, reason: "the image's centre does not map to Web Mercator from \(crs.name); is the CRS right?")
      }
      placement = Placement(method: method, projection: .projected, transform: local.transform)
      placement.crs = crs.definition
      placement.crsTransform = toCRS
      placement.mappedScale = local.pixelsPerWorldUnit
      let zoom = deepestZoom ?? placement.nativeZoom(width: width, height: height)
      guard
        let footprint = MappedOutline.footprint(
          mapping, width: width, height: height, worldPixels: WebMercator.worldPixels(zoom: min(zoom + 1, 30)))
      else {
        throw TilecutError.invalidOption(option: option, reason: "no edge of the image maps to Web Mercator from \(crs.name)")
      }
      placement.mappedFootprint = footprint
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
