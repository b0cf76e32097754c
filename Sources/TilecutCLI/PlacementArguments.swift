import ArgumentParser
import Foundation
import Tilecut
import TilecutCore

/// ``PlacementOptions`` as command-line options: where the image lies on the map.
public struct PlacementArguments: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("North-up image between these lines, in degrees (the corners of a GMSCoordinateBounds).", valueName: "south,west,north,east"))
  public var bounds: String?

  @Option(
    help: ArgumentHelp(
      "With --bounds: the image is linear in Web-Mercator (mercator, like a ground overlay) or in lon/lat (lonlat, plate carrée).",
      valueName: "projection"))
  public var sourceProjection: SourceProjection = PlacementOptions().sourceProjection

  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp(
      "A control point: source pixel X,Y (column,row; 0,0 is the top-left corner) at LAT,LON. Give 2 or more.", valueName: "x,y,lat,lon"))
  public var gcp: [String] = []

  @Option(
    name: .customLong("allow-residual"), parsing: .unconditional,
    help: ArgumentHelp(
      "With --gcp or a GeoTIFF's control points: accept a fit whose RMS residual is up to this many source pixels (default: 2 px or 1 % of the image diagonal, whichever is larger).",
      valueName: "px"))
  var allowResidualNumber: OptionDecimal?
  public var allowResidual: Double? {
    get { allowResidualNumber?.value }
    set { allowResidualNumber = newValue.map(OptionDecimal.init) }
  }

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "A file's control points are fitted by a polynomial of this order, like gdalwarp -order (default: gdalwarp's, 1 below 6 points, else 2).",
      valueName: "1|2|3"))
  public var gcpOrder: Int?

  @Flag(help: "A file's control points are fitted by a thin-plate spline, like gdalwarp -tps.")
  public var tps = false

  @Option(parsing: .unconditional, help: ArgumentHelp("The image centre's position, in degrees.", valueName: "lat,lon"))
  public var center: String?

  @Option(
    name: .customLong("meters-per-pixel"), parsing: .unconditional,
    help: ArgumentHelp("With --center: ground metres per source pixel.", valueName: "m"))
  var metersPerPixelNumber: OptionDecimal?
  public var metersPerPixel: Double? {
    get { metersPerPixelNumber?.value }
    set { metersPerPixelNumber = newValue.map(OptionDecimal.init) }
  }

  @Option(
    help: ArgumentHelp(
      "With --center, for a PDF or SVG instead of --meters-per-pixel: the drawing's scale (1:100: one point of paper, 1/72 in, is 100 points on the ground).",
      valueName: "1:n"))
  public var drawingScale: String?

  @Option(
    help: ArgumentHelp(
      "A DXF or DWG drawing's unit (m, cm, mm, in, ft, yd, km, mi, us-ft, or metres in one unit), instead of its $INSUNITS.",
      valueName: "unit"))
  public var drawingUnits: String?

  @Option(
    name: .customLong("rotation"), parsing: .unconditional,
    help: ArgumentHelp("With --center: clockwise turn of the image in degrees (its up then points to this bearing).", valueName: "deg"))
  var rotationNumber: OptionDecimal?
  public var rotation: Double? {
    get { rotationNumber?.value }
    set { rotationNumber = newValue.map(OptionDecimal.init) }
  }

  @Option(help: ArgumentHelp("A world file to use (default: one found beside each input, e.g. plan.pgw).", valueName: "path"))
  public var worldFile: String?

  @Option(
    name: [.customLong("source-crs"), .customLong("world-file-crs")],
    help: ArgumentHelp(
      "The CRS of a world file or GeoTIFF: EPSG:NNNN, a PROJ string, or a file holding WKT (default: the GeoTIFF's keys, or the .prj or GDAL .aux.xml beside the world file).",
      valueName: "crs"))
  public var sourceCrs: String?

  @Flag(
    help:
      "A GeoPDF page is placed whole, legend, title block and margins included (default: only its map frame, GDAL's neatline; the rest is transparent)."
  )
  public var wholePage = false

  @Flag(
    help:
      "Placement warnings (bounds that do not fit the image, swapped latitude and longitude) are errors, and so is an image that nothing placed on the map."
  )
  public var strict = false

  @Flag(
    name: .customLong("lonlat"),
    help: "Read every coordinate option longitude first, in GDAL's order: --center LON,LAT, --gcp X,Y,LON,LAT, --bounds WEST,SOUTH,EAST,NORTH.")
  public var lonLatOrder = false

  @OptionGroup(title: "Source pixels") public var pixels: PixelArguments

  public init() {}

  /// What the options say, as the library takes it; text that is no value is refused
  /// in the option's words.
  public var options: PlacementOptions {
    get throws {
      var options = try placement
      options.pixels = try pixels.options
      return options
    }
  }

  /// The placement options without the nested pixel group (which checks itself).
  var placement: PlacementOptions {
    get throws {
      var options = PlacementOptions()
      options.sourceProjection = sourceProjection
      options.allowResidual = allowResidual
      options.gcpOrder = gcpOrder
      options.tps = tps
      options.metersPerPixel = metersPerPixel
      options.rotation = rotation
      options.worldFile = worldFile
      options.sourceCrs = sourceCrs
      options.wholePage = wholePage
      options.strict = strict
      options.lonLatOrder = lonLatOrder
      // the coordinates, read in the order --lonlat says; one that is no value is
      // refused after every other check of the group, and stands meanwhile as given
      var unreadable: (any Error)?
      func read<T>(_ text: String, standIn: T, _ parse: (String) throws -> T) -> T {
        do { return try parse(text) } catch {
          unreadable = unreadable ?? error
          return standIn
        }
      }
      let order = options.coordinateOrder
      let nowhere = GeoPoint(latitude: .nan, longitude: .nan)
      options.bounds = bounds.map {
        read($0, standIn: GeoBounds(south: .nan, west: .nan, north: .nan, east: .nan)) { try GeoBounds(parsing: $0, order: order) }
      }
      options.gcp = gcp.map { read($0, standIn: ControlPoint(col: .nan, row: .nan, point: nowhere)) { try ControlPoint(parsing: $0, order: order) } }
      options.center = center.map { read($0, standIn: nowhere) { try GeoPoint(parsing: $0, order: order, option: "--center") } }
      var refusal: (any Error)?
      do { options.drawingUnits = try drawingUnits.map(DrawingUnit.init(parsing:)) } catch { refusal = error }
      do {
        options.drawingScale = try drawingScale.map(DrawingScale.init(parsing:))
      } catch {
        refusal = refusal ?? error
        // given, though unreadable: the checks that come before it see it
        options.drawingScale = DrawingScale(denominator: .nan)
      }
      if let refusal {
        // the checks of which options go together come before the units' and the scale's
        let before = ["--bounds, --gcp, --center and --world-file", "--meters-per-pixel, --drawing-scale and --rotation go with"]
        try options.problems().filter { p in before.contains { p.message.hasPrefix($0) } }.throwFirst()
        throw refusal
      }
      if let unreadable {
        try options.problems().throwFirst()
        throw unreadable
      }
      return options
    }
  }

  public func validate() throws { try placement.validate() }
}

/// ``PixelOptions`` as command-line options: how sources that are not 8-bit colour become tiles: bands, scaling, nodata.
public struct PixelArguments: ParsableArguments {
  @Option(help: ArgumentHelp("Bands to tile from a source with more than 4 (or to reorder), 1-based: R,G,B or R,G,B,A.", valueName: "r,g,b[,a]"))
  public var bands: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "For one band of 16-bit or floating-point data: the values shown as black and white (default: the data's range).", valueName: "min,max"))
  public var scale: String?

  @Option(
    name: .customLong("nodata"), parsing: .unconditional,
    help: ArgumentHelp(
      "The value that means no data, made transparent (in 8-bit colour, where every colour band holds it; default: the GeoTIFF's GDAL_NODATA tag).",
      valueName: "v"))
  var nodataNumber: OptionDecimal?
  public var nodata: Double? {
    get { nodataNumber?.value }
    set { nodataNumber = newValue.map(OptionDecimal.init) }
  }

  @Option(
    help: ArgumentHelp(
      "A DXF or DWG drawing's layers to draw: names or patterns (* ?), comma-separated; a leading ! leaves a layer out (default: every layer that is on and not frozen).",
      valueName: "names"))
  public var layers: String?

  public init() {}

  /// What the options say, as the library takes it; text that is no value is refused
  /// in the option's words.
  public var options: PixelOptions {
    get throws {
      var options = PixelOptions()
      options.layers = try layers.map(LayerPattern.list(parsing:))
      options.bands = try bands.map(PixelOptions.bands(parsing:))
      options.scale = try scale.map(PixelOptions.scale(parsing:))
      options.nodata = nodata
      return options
    }
  }

  public func validate() throws { try options.validate() }
}

extension SourceProjection: ExpressibleByArgument {
  /// `projected` is what a CRS makes, not a choice for --bounds.
  public init?(argument: String) { self.init(optionValue: argument) }

  public static var allValueStrings: [String] { optionValues }
}

/// A number option's value (`--rotation`, `--meters-per-pixel`, `--allow-residual`,
/// `--nodata`) as ``OptionNumber`` reads it: decimal only, so `0x10` is refused in the
/// parser's own words for a bad number, as `abc` is.
struct OptionDecimal: ExpressibleByArgument, Sendable {
  var value: Double

  init(_ value: Double) { self.value = value }

  init?(argument: String) {
    guard let value = OptionNumber.parse(argument) else { return nil }
    self.value = value
  }
}
