import Foundation
import TilecutCore
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
    if let drawingUnits, let unit = DrawingSource.unit(named: drawingUnits) { return drawing.unitsPerPixel * unit.meters }
    guard let meters = drawing.metersPerUnit else {
      throw TilecutError.invalidInput(
        path: path, reason: "has no units ($INSUNITS is unset or 0); give --drawing-units (m, mm, in, ft, …) or --meters-per-pixel")
    }
    return drawing.unitsPerPixel * meters
  }
}
