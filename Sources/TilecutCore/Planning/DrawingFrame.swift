import Foundation

/// Where a CAD drawing (DXF, DWG) lies in its source pixels, and how it is drawn.
///
/// A drawing has no pixels of its own: tilecut defines one at render scale 1 as
/// `DrawingFrame.groundMetersPerPixel` of ground (by the drawing's units), so that a
/// placement, a footprint and a native zoom read it as they read a PDF's points.
/// Drawing point (`x0`, `yTop`) is the top-left corner of pixel (0, 0); y grows up in
/// the drawing and down in pixels.
public struct DrawingFrame: Hashable, Sendable, Codable {
  /// Ground metres of one source pixel at scale 1, when the drawing's units are known.
  public static let groundMetersPerPixel = 0.05

  public var x0: Double
  public var yTop: Double
  /// Drawing units in one source pixel at scale 1.
  public var unitsPerPixel: Double
  /// Metres in one drawing unit, from `$INSUNITS` (nil: unitless, read as metres).
  public var metersPerUnit: Double?
  /// The unit's name as `$INSUNITS` gives it ("millimetres"), or nil when unitless.
  public var unitName: String?
  /// Pixels of stroke a millimetre of lineweight (as on a 96 dpi screen, at every scale).
  public var pixelsPerLineweightMillimeter: Double
  /// `--layers`: patterns, each "+name" (draw) or "-name" (leave out); nil for all visible layers.
  public var layers: [String]?
  /// A DWG, read through GDAL's CAD driver.
  public var isDWG: Bool
  /// The drawing's own georeference (AutoCAD's GEODATA object), when it has one.
  public var geodata: DrawingGeodata?
  /// Source pixels (at scale 1) of margin around the drawn extent.
  public var padding = 2
  /// The render scale of the deepest zoom, set by the planner. There the drawing's
  /// texts have their own size; at every shallower zoom (each drawn at its own density,
  /// not reduced) a text is at least `minimumTextPixels` high where that takes at most
  /// three times its size, as strokes are at least a pixel wide at every zoom.
  public var deepestScale: Double?

  /// The least height, in pixels, of a text's capitals below the deepest zoom.
  public static let minimumTextPixels = 6.0

  /// The least text height to draw at render scale `scale`: 0 (as drawn) at the deepest zoom.
  public func minimumTextPixels(atScale scale: Double) -> Double {
    guard let deepest = deepestScale, scale < deepest * 0.999 else { return 0 }
    return Self.minimumTextPixels
  }

  public init(
    x0: Double, yTop: Double, unitsPerPixel: Double, metersPerUnit: Double?, unitName: String?, pixelsPerLineweightMillimeter: Double,
    layers: [String]? = nil, isDWG: Bool = false
  ) {
    self.x0 = x0
    self.yTop = yTop
    self.unitsPerPixel = unitsPerPixel
    self.metersPerUnit = metersPerUnit
    self.unitName = unitName
    self.pixelsPerLineweightMillimeter = pixelsPerLineweightMillimeter
    self.layers = layers
    self.isDWG = isDWG
  }

  /// Source pixel (column, row) at scale 1 of drawing point (x, y).
  public func pixel(x: Double, y: Double) -> (column: Double, row: Double) {
    ((x - x0) / unitsPerPixel, (yTop - y) / unitsPerPixel)
  }

  /// Drawing point of source pixel (column, row) at scale 1.
  public func point(column: Double, row: Double) -> (x: Double, y: Double) {
    (x0 + column * unitsPerPixel, yTop - row * unitsPerPixel)
  }
}

/// AutoCAD's GEODATA object: a drawing's own georeference. Design point (`designX`,
/// `designY`) in drawing units lies at reference point (`referenceX`, `referenceY`)
/// in the CRS; a drawing unit is `unitScale` CRS units; north points along
/// (`northX`, `northY`) in the drawing.
public struct DrawingGeodata: Hashable, Sendable, Codable {
  public var designX, designY: Double
  public var referenceX, referenceY: Double
  public var unitScale: Double
  public var northX, northY: Double
  /// GEODATA's design coordinate type: 1 local grid, 2 projected grid, 3 geographic;
  /// nil when its group 70 is no whole number (nan, ±inf, past Int's range).
  public var coordinateType: Int?
  /// The CRS's EPSG code, from the coordinate system definition's alias (nil when it names none).
  public var epsg: Int?

  public init(
    designX: Double, designY: Double, referenceX: Double, referenceY: Double, unitScale: Double, northX: Double, northY: Double,
    coordinateType: Int?, epsg: Int?
  ) {
    self.designX = designX
    self.designY = designY
    self.referenceX = referenceX
    self.referenceY = referenceY
    self.unitScale = unitScale
    self.northX = northX
    self.northY = northY
    self.coordinateType = coordinateType
    self.epsg = epsg
  }

  /// Source pixel (column, row, corners) to CRS coordinates through `frame`: the
  /// drawing turned so that its north direction is the grid's north, scaled and moved.
  public func pixelToCRS(_ frame: DrawingFrame) -> AffineTransform {
    let turn = Double.pi / 2 - atan2(northY, northX)
    let (cs, sn) = (cos(turn) * unitScale, sin(turn) * unitScale)
    let (ox, oy) = (frame.x0 - designX, frame.yTop - designY)
    let u = frame.unitsPerPixel
    return AffineTransform(
      a: cs * u, b: sn * u, c: referenceX + cs * ox - sn * oy,
      d: sn * u, e: -cs * u, f: referenceY + sn * ox + cs * oy)
  }
}

extension PlacementMethod {
  /// A CAD drawing's own GEODATA object.
  public static let geodata = PlacementMethod(rawValue: "geodata")
}
