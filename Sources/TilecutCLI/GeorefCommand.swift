import ArgumentParser
import Foundation
import Tilecut
import TilecutCore

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
      var request = GeorefPageRequest(source, output: output)
      (request.page, request.basemap, request.attribution, request.gcp, request.near) = (page, basemap, attribution, gcp, near)
      printer.info(try request.run(printer: printer))
    } catch {
      throw reported(error, printer: printer)
    }
  }
}
