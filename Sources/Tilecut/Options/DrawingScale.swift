import Foundation
import TilecutCore
import TilecutVips

/// `--drawing-scale 1:N`: the ground size of a PDF or SVG from the paper units it states.
///
/// tilecut renders a document at 72 dpi (pdfload's and svgload's rule), so one
/// source pixel is one point of paper, 1/72 in = 0.3528 mm; at 1:N it is N times
/// that on the ground (0.03528 m at 1:100).
public struct DrawingScale: Sendable, Codable, Equatable, CustomStringConvertible {
  /// The N of 1:N: one unit of paper is N on the ground.
  public var denominator: Double

  public init(denominator: Double) { self.denominator = denominator }

  /// `--drawing-scale`'s text (`1:100`, also `100`), refused as a usage error in the option's words.
  public init(parsing text: String) throws {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    let denominator: Double?
    if parts.count == 2, OptionNumber.parse(parts[0]) == 1 {
      denominator = OptionNumber.parse(parts[1])
    } else if parts.count == 1 {
      denominator = OptionNumber.parse(parts[0])
    } else {
      denominator = nil
    }
    guard let denominator else { throw Self.notAScale(text) }
    self.denominator = denominator
    if let problem = problem(text: text) { throw Failure.usage(problem) }
  }

  static func notAScale(_ text: String) -> Failure {
    Failure.usage("--drawing-scale: '\(Quote.value(text))' is not a scale like 1:100 (one unit of paper is 100 on the ground)")
  }

  /// What is wrong with the scale, in the option's words (quoting `text`), or nil.
  func problem(text: String? = nil) -> String? {
    guard denominator.isFinite, denominator > 0, denominator <= 1e7 else { return Self.notAScale(text ?? description).line }
    return nil
  }

  /// As the option writes it: `1:100`.
  public var description: String { "1:" + PlacementOptions.number(denominator) }
}

/// `--drawing-units`: the ground length of one unit of a DXF or DWG drawing.
public struct DrawingUnit: Sendable, Codable, Equatable {
  /// Metres in one unit.
  public var meters: Double
  /// The unit as named (`ft`, `us-ft`, or `0.3048 m` for a number of metres).
  public var name: String

  public init(meters: Double, name: String) {
    self.meters = meters
    self.name = name
  }

  /// `--drawing-units`' text (m, cm, mm, in, ft, yd, km, mi, us-ft, or metres in one
  /// unit), refused as a usage error in the option's words.
  public init(parsing text: String) throws {
    guard let unit = DrawingSource.unit(named: text) else { throw Self.notAUnit(text) }
    self.init(meters: unit.meters, name: unit.name)
  }

  static func notAUnit(_ text: String) -> Failure {
    Failure.usage("--drawing-units: '\(Quote.value(text))' is not a unit (m, cm, mm, in, ft, yd, km, mi, us-ft, or metres in one unit)")
  }

  /// What is wrong with the unit, in the option's words, or nil.
  var problem: String? { DrawingSource.unitMeters.contains(meters) ? nil : Self.notAUnit(name).line }
}

extension PlacementOptions {
  /// Metres of paper in one point (1/72 in).
  public static let metersPerPoint = 0.0254 / 72

  func validateDrawingScale() throws {
    guard let drawingScale else { return }
    if let problem = drawingScale.problem() { throw Failure.usage(problem) }
    if metersPerPixel != nil {
      throw Failure.usage("--drawing-scale and --meters-per-pixel both give the drawing's size on the ground; keep one")
    }
  }

  /// Ground metres per source pixel (one point) of a document at --drawing-scale, or nil without it.
  func drawingScaleMetersPerPixel() -> Double? {
    drawingScale.map { $0.denominator * Self.metersPerPoint }
  }

  /// Ground metres per point that page `page` of a PDF states in its viewport
  /// (`/Measure /RL`), with a note for the placement line; refuses, naming --center,
  /// when the source states none, states several, or names no unit tilecut knows.
  func viewportScale(imagePath: String, page: Int?) throws -> (Double, String?) {
    let need = "--center needs --meters-per-pixel (ground metres per source pixel) or, for a PDF or SVG, --drawing-scale 1:N"
    let statesScale = (try? SourceFormat.detect(path: imagePath))?.kind.pagesStatePlacement == true
    guard statesScale, let scale = PDFDrawingScale.read(path: imagePath, page: page ?? 0) else {
      throw Failure.usage(need)
    }
    let stated = "\(imagePath) page \((page ?? 0) + 1) states its scale in its viewport (/Measure /RL) as 1 pt = \(Self.number(scale.unitsPerPoint))"
    guard scale.disagreeing == 0 else {
      throw TilecutError.invalidOption(
        option: "--center", reason: "\(stated) \(scale.unit) in one viewport and otherwise in \(scale.disagreeing) more; give --drawing-scale 1:N")
    }
    guard let meters = scale.metersPerPoint, meters.isFinite, meters >= 1e-6, meters <= 1e6 else {
      // a blank unit (AutoCAD writes " "): what the scale would be in the likely ones
      let inches = scale.unitsPerPoint / (Self.metersPerPoint / 0.0254)
      let feet = inches * 12
      let unit = scale.unit.isEmpty ? "units it does not name" : "'\(Quote.value(scale.unit))', a unit tilecut does not know"
      throw TilecutError.invalidOption(
        option: "--center",
        reason:
          "\(stated) \(unit); give --drawing-scale 1:N (1:\(Self.number(inches)) if those are inches, 1:\(Self.number(feet)) if feet) or --meters-per-pixel"
      )
    }
    let ratio = scale.ratio.isEmpty ? "" : ", \"\(Quote.value(scale.ratio))\""
    return (meters, "scale from the page's viewport: 1 pt = \(Self.number(scale.unitsPerPoint)) \(scale.unit)\(ratio)")
  }

  /// A number as people write it: up to 6 significant digits.
  static func number(_ value: Double) -> String { String(format: "%.6g", value) }

  /// --drawing-scale reads paper units, which only PDF and SVG state.
  func checkDrawingScale(_ floors: [FloorSource]) throws {
    guard drawingScale != nil else { return }
    for floor in floors where !floor.header.isVector {
      throw TilecutError.invalidOption(
        option: "--drawing-scale",
        reason: "\(floor.input.path) is a raster image, whose pixels have no paper size; give --meters-per-pixel (ground metres per pixel)")
    }
  }
}
