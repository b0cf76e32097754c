import Foundation
import TilecutCore
import TilecutGeo
import TilecutVips

extension PlacementMethod {
  /// A KML or KMZ GroundOverlay's LatLonBox or gx:LatLonQuad.
  public static let kml = PlacementMethod(rawValue: "kml")
}

/// Placement from a KML GroundOverlay, through the same path as a GeoTIFF in EPSG:4326:
/// a LatLonBox (turned or not) is an exact affine map from pixels to longitude and
/// latitude; a gx:LatLonQuad is affine when it is a parallelogram (exact everywhere),
/// else its bilinear map (each image corner on a quad corner, the edges straight in
/// longitude and latitude) sampled on a 17 × 17 grid of control points and fitted by a
/// thin-plate spline, which passes through every one of them: exact at the corners and
/// at the grid's points, the bilinear map to within a small fraction of a pixel between.
extension PlacementOptions {
  func kmlPlacement(_ overlay: OverlaySource, floor: FloorSource, pyramid: PyramidOptions) throws -> Placement {
    let path = overlay.document
    let (width, height) = (floor.description.width, floor.description.height)
    if floor.input.page == nil && overlay.overlays.count > 1 {
      let names = overlay.overlays.prefix(5).enumerated().map { $0.element.label(index: $0.offset) }.joined(separator: ", ")
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "holds \(overlay.overlays.count) GroundOverlays (\(names)\(overlay.overlays.count > 5 ? ", …" : "")); name one as '\(path)[page=N]' (N from 0 to \(overlay.overlays.count - 1)), or give --floors \(overlay.overlays.count) to tile each as a floor"
      )
    }
    if floor.description.crop != nil {
      throw TilecutError.invalidInput(
        path: path, reason: "a GroundOverlay places its whole image, which --floors cannot cut into bands; give one floor per overlay")
    }
    guard let geometry = overlay.overlay.geometry else {
      throw TilecutError.invalidInput(path: path, reason: "its GroundOverlay has no LatLonBox or gx:LatLonQuad")
    }
    let crs = try ProjTransformer.describe("EPSG:4326", option: path)
    var placement: Placement
    switch geometry {
    case .box:
      guard let transform = geometry.lonLatTransform(width: width, height: height) else {
        throw TilecutError.invalidInput(path: path, reason: "its LatLonBox places no pixel")
      }
      placement = try Self.fromFile(path) {
        try GeoPlacement.make(
          method: .kml, toCRS: transform, crs: crs, width: width, height: height, deepestZoom: pyramid.maxZoom, option: path)
      }
    case .quad:
      let points = geometry.corners(width: width, height: height).map { (pixel: $0.pixel, model: $0.lonLat) }
      guard let affine = TilecutCore.AffineTransform.fit(from: points.map(\.pixel), to: points.map(\.model)), affine.inverse != nil else {
        throw TilecutError.invalidInput(path: path, reason: "its gx:LatLonQuad has no area")
      }
      // a parallelogram is affine: exact everywhere; any other quad is exact at its corners
      let worst =
        points.map { p in
          let q = affine.apply(p.pixel.x, p.pixel.y)
          return hypot(q.x - p.model.x, q.y - p.model.y)
        }.max() ?? 0
      let span = max(abs(affine.a) + abs(affine.b), abs(affine.d) + abs(affine.e))
      let parallelogram = worst <= 1e-6 * span
      // any other quad: its bilinear map (edges straight in lon/lat) on a 17 × 17 grid, through which the spline passes
      let grid = geometry.quadControlPoints(width: width, height: height).map { (pixel: $0.pixel, model: $0.lonLat) }
      placement = try Self.fromFile(path) {
        try GeoPlacement.make(
          method: .kml, toCRS: affine, crs: crs, width: width, height: height, deepestZoom: pyramid.maxZoom,
          controlPoints: parallelogram ? nil : grid, controlPointOrder: parallelogram ? nil : -1, option: path)
      }
    }
    placement.note = "KML " + overlay.summary + ", " + geometry.summary
    if case .file(let image) = overlay.image { placement.sidecars = [image] }
    return placement
  }

  /// The content of a KML's image file (beside it, not in it), for the fingerprint: the
  /// source digest is the KML's, which an edited image leaves alone. Nil for other placements.
  static func overlayImageDigest(_ placement: Placement) -> String? {
    guard placement.method == .kml, let image = placement.sidecars.first else { return nil }
    return (try? Vips.sha256(ofFile: image)) ?? "unreadable"
  }
}
