import Foundation
import TilecutCore
import TilecutGeo
import TilecutVips

/// Placement options read for a CAD drawing: its units (`$INSUNITS` or `--drawing-units`)
/// give a source pixel's ground size, so `--center` needs no `--meters-per-pixel`.
extension PlacementOptions {
  /// Ground metres per source pixel of a drawing from its units, nil for another
  /// source; a unitless drawing without --drawing-units is refused.
  func drawingMetersPerPixel(_ drawing: DrawingFrame?, path: String) throws -> Double? {
    guard let drawing else {
      throw TilecutError.invalidOption(
        option: "--center", reason: "needs --meters-per-pixel (ground metres per source pixel) or, for a PDF or SVG, --drawing-scale 1:N")
    }
    if let drawingUnits { return drawing.unitsPerPixel * drawingUnits.meters }
    guard let meters = drawing.metersPerUnit else {
      throw TilecutError.invalidInput(
        path: path, reason: "has no units ($INSUNITS is unset or 0); give --drawing-units (m, mm, in, ft, …) or --meters-per-pixel")
    }
    return drawing.unitsPerPixel * meters
  }
}

extension PlacementOptions {
  /// A DXF placed by its own GEODATA object: its CRS (an EPSG code) through PROJ,
  /// the design point at the reference point, turned to the drawing's north.
  func geodataPlacement(_ floor: FloorSource, pyramid: PyramidOptions) throws -> Placement? {
    guard let frame = floor.description.drawing, let geodata = frame.geodata else { return nil }
    let path = floor.input.path
    guard let epsg = geodata.epsg else {
      throw TilecutError.invalidInput(
        path: path, reason: "has a GEODATA object whose coordinate system names no EPSG code; place it with --gcp X,Y,LAT,LON in drawing units")
    }
    guard let coordinateType = geodata.coordinateType else {
      throw TilecutError.invalidInput(
        path: path, reason: "has a GEODATA object whose coordinate type (group 70) is not a whole number; place it with --gcp X,Y,LAT,LON")
    }
    guard coordinateType != 3 else {
      throw TilecutError.invalidInput(
        path: path, reason: "has a GEODATA object in geographic coordinates, which tilecut does not read; place it with --gcp X,Y,LAT,LON")
    }
    // a point no number (nan, inf) is named as such, not as a degenerate scale
    for (point, codes, values) in [
      ("design point", "10 and 20", [geodata.designX, geodata.designY]), ("reference point", "11 and 21", [geodata.referenceX, geodata.referenceY]),
    ] where !values.allSatisfy(\.isFinite) {
      throw TilecutError.invalidInput(
        path: path, reason: "has a GEODATA object whose \(point) (groups \(codes)) is not a finite number; place it with --gcp X,Y,LAT,LON")
    }
    let transform = geodata.pixelToCRS(frame)
    guard [transform.a, transform.b, transform.c, transform.d, transform.e, transform.f].allSatisfy(\.isFinite), transform.determinant != 0
    else {
      throw TilecutError.invalidInput(path: path, reason: "has a GEODATA object whose scale or north direction is degenerate")
    }
    let crs = try Self.fromFile(path) { try ProjTransformer.describe("EPSG:\(epsg)", option: path) }
    var placement = try Self.fromFile(path) {
      try GeoPlacement.make(
        method: .geodata, toCRS: transform, crs: crs, width: floor.description.width, height: floor.description.height,
        deepestZoom: pyramid.maxZoom, option: path)
    }
    placement.note = "AutoCAD GEODATA, EPSG:\(epsg)"
    return placement
  }
}
