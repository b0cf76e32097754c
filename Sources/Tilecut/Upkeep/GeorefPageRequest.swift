import Foundation
import TilecutCore
import TilecutVips

/// `tilecut georef SOURCE -o georef.html`: a page to place a plan by clicking pairs of
/// points on it and on a map; it gives the `--gcp` arguments that place it.
public struct GeorefPageRequest: Sendable {
  /// The plan to place (a PDF or TIFF page as `file.pdf[page=N]`, or with `page`).
  public var source: String
  /// The page of a PDF or multi-page TIFF (0 is the first).
  public var page: Int?
  /// The page to write; an existing file is replaced only when georef wrote it.
  public var output: String
  /// The map's XYZ tile URL template (nil: a graticule).
  public var basemap: String?
  /// The base map's attribution, shown on the page.
  public var attribution: String?
  /// Control points to start with, as `--gcp` words them (`x,y,lat,lon`).
  public var gcp: [String] = []
  /// Where the map opens, `lat,lon` (as `--near` words it).
  public var near: String?

  /// A page for `source`, written to `output`.
  public init(_ source: String, output: String = "georef.html") {
    self.source = source
    self.output = output
  }

  /// Reads the source, makes the page and writes it; the notes on the source go to
  /// `printer`.
  ///
  /// - Returns: the line that says what was written.
  /// - Throws: `TilecutError` naming the option or file at fault; nothing is written then.
  public func run(printer: Printer) throws -> String {
    let points = try gcp.map { try Georeference.parseControlPoint($0) }
    let view = try near.map { try Georeference.parseLatLon($0, option: "--near") }
    try Self.checkOutput(output)
    try Vips.start()
    let input = page.map { "\(source)[page=\($0)]" } ?? source
    let pyramid = try PixelPyramid.make(input: input, printer: printer)
    let config = GeorefPage.Config(
      source: source, page: pyramid.floor.input.page, width: pyramid.floor.description.width, height: pyramid.floor.description.height,
      maxZoom: pyramid.maxZoom, tiles: pyramid.tiles, basemap: basemap ?? "", attribution: attribution ?? "",
      gcp: points.map { [$0.col, $0.row, $0.point.latitude, $0.point.longitude] }, view: view.map { [$0.latitude, $0.longitude] })
    let html = try GeorefPage.html(config: config)
    // checked again just before writing: nothing else may have put a file there meanwhile
    try Self.checkOutput(output)
    try Data(html.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
    return
      "wrote \(output) (\(pyramid.tiles.count) tiles of \(config.width) × \(config.height) px, \(Format.bytes(html.utf8.count))); open it in a browser"
  }

  /// Refuses to replace anything but a page georef wrote: a missing path is fine, a
  /// regular file only when it starts as such a page.
  static func checkOutput(_ path: String) throws {
    var st = stat()
    guard lstat(path, &st) == 0 else { return }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
      throw TilecutError.invalidOption(option: "--output", reason: "\(path) exists and is not a regular file; give another path")
    }
    let start = FileHandle(forReadingAtPath: path).map { handle in
      defer { try? handle.close() }
      return [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
    }
    guard let start, GeorefPage.isGeorefPage(start: start) else {
      throw TilecutError.invalidOption(
        option: "--output", reason: "\(path) exists and is not a page tilecut georef wrote; it is left alone: remove it or give another path")
    }
  }
}
