import CTilecutPDFScan
import Foundation

/// The drawing scale a PDF page states in its viewports (ISO 32000 `/VP` with a
/// `/Measure` of `/Subtype /RL`, as AutoCAD's plots write it): not georeferencing, but
/// how much ground one point of the page is, so that `--center` (and `--rotation`)
/// suffice to place the plan.
public struct PDFDrawingScale: Sendable, Equatable {
  /// Ground units in one point of the page (the measure's `/X` `/C`).
  public var unitsPerPoint: Double
  /// The unit as written (`/U`), possibly empty.
  public var unit: String
  /// The scale as written (`/R`, "1 in = 10 ft"), possibly empty.
  public var ratio: String
  /// Viewports on the page that state another scale than the first.
  public var disagreeing: Int

  /// Metres in one `unit`, or nil when the unit is blank or not one tilecut knows.
  public var metersPerUnit: Double? { Self.meters[unit.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ". "))] }

  /// Ground metres in one point, when the unit is known.
  public var metersPerPoint: Double? { metersPerUnit.map { $0 * unitsPerPoint } }

  /// Length units as PDF writers spell them.
  static let meters: [String: Double] = [
    "m": 1, "meter": 1, "meters": 1, "metre": 1, "metres": 1, "cm": 0.01, "mm": 0.001, "km": 1000,
    "in": 0.0254, "inch": 0.0254, "inches": 0.0254, "\"": 0.0254, "ft": 0.3048, "foot": 0.3048, "feet": 0.3048, "'": 0.3048,
    "yd": 0.9144, "yard": 0.9144, "yards": 0.9144, "mi": 1609.344, "mile": 1609.344, "miles": 1609.344,
  ]

  /// Page `page` (from 0)'s scale, or nil when it states none (or qpdf cannot read it).
  public static func read(path: String, page: Int) -> PDFDrawingScale? {
    var found = TcPDFMeasure()
    guard tc_pdf_measure(path, Int32(clamping: page), &found) == 0, found.viewports > 0 else { return nil }
    func text<T>(_ tuple: T) -> String {
      withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    return PDFDrawingScale(
      unitsPerPoint: found.units_per_point, unit: text(found.unit), ratio: text(found.ratio), disagreeing: Int(found.disagreeing))
  }
}
