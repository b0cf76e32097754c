import Foundation
import TilecutCore
import TilecutGeo
import TilecutVips

/// One `--layers` entry: a layer name or pattern (`*`, `?`) to draw, or with a
/// leading `!` to leave out.
public struct LayerPattern: Sendable, Codable, Equatable {
  /// The name or pattern, without the `!`.
  public var pattern: String
  /// `!pattern`: the layers it matches are not drawn.
  public var leftOut: Bool

  public init(pattern: String, leftOut: Bool = false) {
    self.pattern = pattern
    self.leftOut = leftOut
  }

  /// `--layers`' text (`A-WALL,A-DOOR*,!A-NOTE`), refused as a usage error in the option's words.
  public static func list(parsing text: String) throws -> [LayerPattern] {
    let patterns = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    let list = patterns.map { $0.hasPrefix("!") ? LayerPattern(pattern: String($0.dropFirst()), leftOut: true) : LayerPattern(pattern: $0) }
    if let problem = problem(list) { throw Failure.usage(problem) }
    return list
  }

  /// The longest pattern the drawing reader takes (`layer_drawn` in TilecutGDALDrawing.c).
  static let maxPatternBytes = 510

  /// The most patterns the drawing reader takes: each layer name is matched against
  /// every one (60,000 patterns made a project's drawing take minutes).
  static let maxPatterns = 1000

  /// Whether `name` matches the pattern as the drawing reader matches it (fnmatch,
  /// case-insensitive: FNM_CASEFOLD, 16 in glibc and on macOS).
  func matches(_ name: String) -> Bool { fnmatch(pattern, name, 1 << 4) == 0 }

  /// Refuses patterns to draw of which none matches a layer of the DXF at `path` (the
  /// names its LAYER table and its entities give): the drawing would be drawn empty. A
  /// drawing whose names tilecut cannot read (`DrawingSource.layerNames`) is not checked.
  static func checkMatches(_ list: [LayerPattern], path: String) throws {
    let includes = list.filter { !$0.leftOut }
    guard !includes.isEmpty else { return }
    let names = DrawingSource.layerNames(path: path)
    guard !names.isEmpty, !names.contains(where: { name in includes.contains { $0.matches(name) } }) else { return }
    let shown = names.prefix(8).map { Quote.value($0, limit: 40) }.joined(separator: ", ") + (names.count > 8 ? ", …" : "")
    let given = includes.map { Quote.value($0.pattern, limit: 40) }.joined(separator: ",")
    throw TilecutError.invalidOption(
      option: "--layers",
      reason:
        "'\(given)' matches none of the \(names.count) layers of \(path) (\(shown)); give layers it has, or leave --layers (a project's layers:) out"
    )
  }

  /// What is wrong with a list of patterns, in `--layers`' words, or nil.
  static func problem(_ list: [LayerPattern]) -> String? {
    guard !list.isEmpty, list.allSatisfy({ !$0.pattern.contains("\n") && !$0.pattern.isEmpty && !$0.pattern.contains(",") }) else {
      return "--layers: give layer names or patterns, comma-separated (e.g. 'A-WALL,A-DOOR*,!A-NOTE')"
    }
    if list.count > maxPatterns {
      return
        "--layers: at most \(maxPatterns) names or patterns, and \(list.count) are given; match many layers with one pattern (e.g. 'A-*')"
    }
    // the drawing reader matches patterns of up to this many bytes (a longer one matched
    // nothing and was dropped: every layer drawn)
    if let long = list.first(where: { $0.pattern.utf8.count > maxPatternBytes }) {
      let bytes = long.pattern.utf8.count
      return "--layers: a pattern is at most \(maxPatternBytes) bytes of UTF-8, and one is \(bytes); shorten it (* matches the rest)"
    }
    return nil
  }
}

/// How sources that are not 8-bit colour become tiles: bands, scaling, nodata.
public struct PixelOptions: Sendable, Codable {
  /// `--bands`: 3 or 4 band numbers, counted from 1 (R,G,B or R,G,B,A).
  public var bands: [Int]?
  /// `--scale`: the values shown as black and white.
  public var scale: ClosedRange<Double>?
  /// `--nodata`
  public var nodata: Double?
  /// `--layers`: a DXF or DWG drawing's layers to draw (or leave out).
  public var layers: [LayerPattern]?

  public init() {}

  /// `--layers` as the drawing reader takes it: "+pattern" to draw, "-pattern" to leave out.
  func layerPatterns() -> [String]? {
    layers.map { $0.map { ($0.leftOut ? "-" : "+") + $0.pattern } }
  }

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    if let layers, let problem = LayerPattern.problem(layers) { p.add(problem) }
    if let bands { p.check { try Self.checkBands(bands, text: bands.map(String.init).joined(separator: ",")) } }
    if let scale { p.check { try Self.checkScale(scale, text: "\(Self.number(scale.lowerBound)),\(Self.number(scale.upperBound))") } }
    if let nodata, !nodata.isFinite { p.add("--nodata must be a finite number") }
    return p.items
  }

  /// `--bands`' text (`3,2,1`), refused as a usage error in the option's words.
  public static func bands(parsing text: String) throws -> [Int] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    try checkCount(parts.count, text: text)
    let bands = try parts.map { part in
      guard let n = Int(part), n >= 1 else { throw notBand(part) }
      return n
    }
    return bands
  }

  static func checkCount(_ count: Int, text: String) throws {
    guard count == 3 || count == 4 else {
      throw Failure.usage("--bands takes 3 or 4 band numbers (R,G,B or R,G,B,A), got '\(Quote.value(text))'")
    }
  }

  static func notBand(_ part: String) -> Failure {
    Failure.usage("--bands: '\(Quote.value(part))' is not a band number (they count from 1)")
  }

  static func checkBands(_ bands: [Int], text: String) throws {
    try checkCount(bands.count, text: text)
    if let bad = bands.first(where: { $0 < 1 }) { throw notBand(String(bad)) }
  }

  /// `--scale`'s text (`MIN,MAX`), refused as a usage error in the option's words.
  public static func scale(parsing text: String) throws -> ClosedRange<Double> {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap {
      OptionNumber.parse($0.trimmingCharacters(in: .whitespaces))
    }
    guard parts.count == 2, parts.allSatisfy(\.isFinite), parts[0] < parts[1] else { throw notScale(text) }
    return parts[0]...parts[1]
  }

  static func notScale(_ text: String) -> Failure {
    Failure.usage("--scale takes MIN,MAX with MIN below MAX, got '\(Quote.value(text))'")
  }

  static func checkScale(_ scale: ClosedRange<Double>, text: String) throws {
    guard scale.lowerBound.isFinite, scale.upperBound.isFinite, scale.lowerBound < scale.upperBound else { throw notScale(text) }
  }

  /// The floor's source description with the conversion its samples need, and a note
  /// saying what was done; refuses sources with more than 4 bands unless --bands picks some.
  package func describe(_ floor: FloorSource, printer: Printer) throws -> SourceDescription {
    var description = floor.description
    for warning in floor.header.warnings { printer.warning("\(floor.input.path): \(warning)") }
    if var frame = description.drawing {
      frame.layers = layerPatterns()
      if let layers, !frame.isDWG { try LayerPattern.checkMatches(layers, path: floor.input.path) }
      description.drawing = frame
    } else if layers != nil {
      throw TilecutError.invalidOption(option: "--layers", reason: "\(floor.input.path) is not a DXF or DWG drawing, which has no layers")
    }
    guard !floor.header.isVector else { return description }
    let path = floor.input.path
    // a tile store's raster is its tiles as sRGB RGBA8 (TileMosaic): nothing to choose
    if TileMosaics.mosaic(path: path, floor: description.storeFloor) != nil {
      if bands != nil || nodata != nil || scale != nil {
        throw TilecutError.invalidOption(
          option: bands != nil ? "--bands" : nodata != nil ? "--nodata" : "--scale",
          reason: "\(path) is a tile store, whose tiles are read as 8-bit colour; give the option only for a raster")
      }
      return description
    }
    let layout = try SourcePixels.layout(of: floor.input)
    var conversion = PixelConversion()
    var bandCount = layout.bands
    if let chosen = bands {
      if let bad = chosen.first(where: { $0 > layout.bands }) {
        throw TilecutError.invalidOption(option: "--bands", reason: "\(path) has \(layout.bands) bands; there is no band \(bad)")
      }
      conversion.bands = chosen.map { $0 - 1 }
      bandCount = chosen.count
    } else if layout.bands > 4 {
      throw TilecutError.invalidInput(
        path: path, reason: "has \(layout.bands) bands; choose the 3 or 4 to tile with --bands R,G,B[,A] (1-based, e.g. --bands 3,2,1)")
    }
    let gdal = try Self.gdalMask(floor)
    defer { gdal?.close() }
    let format = floor.header.format
    let tagNodata = format.kind.nodataInTIFFTag(format: format) ? GeoTIFFTags.read(path: path)?.nodata : gdal?.nodata
    let nodataValue = nodata ?? tagNodata
    // one band of data (not 8-bit grey), or 8-bit grey with a nodata value
    if bandCount == 1 && (!layout.isEightBit || nodataValue != nil || scale != nil) {
      let range: ClosedRange<Double>
      var how: String
      if let scale {
        range = scale
        how = "--scale"
      } else if layout.isEightBit {
        range = 0...255
        how = "as is"
      } else {
        guard let found = try SourcePixels.dataRange(of: floor.input, nodata: nodataValue) else {
          throw TilecutError.invalidInput(path: path, reason: "has no data: every sample is nodata or NaN")
        }
        range = found
        how = "its data range (--scale MIN,MAX to choose)"
      }
      conversion.scale = range
      conversion.nodata = nodataValue
      var note =
        "\(path) is one band of \(layout.formatName) samples: grey from \(Self.number(range.lowerBound)) (black) to \(Self.number(range.upperBound)) (white), \(how)"
      if let nodataValue {
        note += "; nodata \(Self.number(nodataValue)) is transparent" + (nodata == nil ? " (GDAL_NODATA tag)" : "")
      }
      printer.note(note)
    } else if let nodataValue, layout.isEightBit {
      // colour: transparent where every colour band holds the value, as gdalwarp does
      conversion.nodata = nodataValue
      printer.note(
        "\(path): pixels whose every colour band is \(Self.number(nodataValue)) are transparent (nodata"
          + (nodata == nil ? ", GDAL_NODATA tag)" : ")"))
    } else if nodata != nil {
      throw TilecutError.invalidOption(
        option: "--nodata", reason: "applies to one band of data or to 8-bit colour; \(path) has \(bandCount) bands of \(layout.formatName) samples")
    }
    if let gdal, gdal.hasDatasetMask {
      // an internal TIFF mask or a .msk beside the raster, as gdalwarp applies it
      conversion.gdalMask = true
      try gdal.verifyMask(path: path)
      printer.note("\(path): pixels masked by GDAL's mask (\(gdal.maskFile.map { "in \($0)" } ?? "inside the file")) are transparent")
    }
    if conversion != PixelConversion() { description.conversion = conversion }
    return description
  }

  /// The raster as GDAL opens it for its mask (a TIFF's first page, a raster GDAL reads:
  /// as its kind says), nil for other formats. A TIFF GDAL cannot open is read without a
  /// mask, as before; a refusal caused by a `.msk` beside it names the `.msk`.
  static func gdalMask(_ floor: FloorSource) throws -> GDALRaster? {
    guard let reading = gdalMaskReading(floor) else { return nil }
    let path = floor.input.path
    do {
      return try GDALRaster.open(path: path, mask: true)
    } catch TilecutError.invalidInput(let at, let why) where at != path || reading == .required {
      throw TilecutError.invalidInput(path: at, reason: why)
    } catch {
      return nil
    }
  }

  /// How GDAL reads the floor's mask and nodata, as its source's kind says.
  static func gdalMaskReading(_ floor: FloorSource) -> GDALMaskReading? {
    floor.header.format.kind.gdalMask(format: floor.header.format, page: floor.input.page)
  }

  static func number(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(format: "%.6g", v)
  }
}
