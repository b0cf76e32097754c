import ArgumentParser
import Foundation
import Synchronization
import Tilecut
import TilecutCore
import TilecutVips

/// `tilecut georef SOURCE -o georef.html`: a page to place a plan by clicking pairs of
/// points on it and on a map; it gives the `--gcp` arguments that place it.
struct GeorefCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "georef",
    abstract: "Write a page to place a plan by eye: click points on it and on a map, copy the --gcp arguments.",
    discussion: """
      The page (one file, no network needed but for the base map) shows the source at
      full resolution beside a map. Click a point on the plan, then its place on the map,
      for as many pairs as you like; drag a point to correct it. The page fits them as
      tilecut does (2 points: scale, rotation and position; 3 or more: affine), shows each
      point's residual and the RMS, lays the placed plan over the map, and gives the
      --gcp arguments and the tilecut.yml entry to copy.

        tilecut georef plan.png --basemap 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' \\
          --attribution '© OpenStreetMap contributors' --near 52.5159,13.3790
      """)

  @Argument(help: ArgumentHelp("The plan: an image, or a PDF or SVG (file.pdf[page=N] or --page).", valueName: "source"), completion: .file())
  var source: String

  @Option(help: ArgumentHelp("The page of a PDF or multi-page TIFF (0 is the first).", valueName: "n"))
  var page: Int?

  @Option(name: [.short, .long], help: ArgumentHelp("The page to write; an existing file is replaced only when georef wrote it.", valueName: "file"))
  var output: String = "georef.html"

  @Option(help: ArgumentHelp("The map: an XYZ tile URL template such as \(PreviewBasemap.openStreetMap) (default: a graticule).", valueName: "url"))
  var basemap: String?

  @Option(help: ArgumentHelp("With --basemap: the base map's attribution, shown on the page.", valueName: "text"))
  var attribution: String?

  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp("A control point to start with: source pixel X,Y at LAT,LON (as tilecut --gcp).", valueName: "x,y,lat,lon"))
  var gcp: [String] = []

  @Option(parsing: .unconditional, help: ArgumentHelp("Where the map opens without --gcp.", valueName: "lat,lon"))
  var near: String?

  @Flag(name: [.short, .long], help: "Print nothing but errors.")
  var quiet = false

  func validate() throws {
    if let basemap { _ = try PreviewBasemap(parsing: basemap, option: "--basemap") }
    if attribution != nil && basemap == nil { throw ValidationError("--attribution goes with --basemap (it credits the base map)") }
    if let page, page < 0 { throw ValidationError("--page: \(page) is not a page number (0 is the first)") }
    if page != nil && source.hasSuffix("]") {
      throw ValidationError("--page: the source already names a page ('\(Quote.value(source))'); give one of them")
    }
  }

  func run() throws {
    let printer = Printer(verbosity: quiet ? .quiet : .normal)
    do {
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
      printer.info(
        "wrote \(output) (\(pyramid.tiles.count) tiles of \(config.width) × \(config.height) px, \(Format.bytes(html.utf8.count))); open it in a browser"
      )
    } catch {
      throw reported(error, printer: printer)
    }
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
