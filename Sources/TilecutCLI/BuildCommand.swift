import ArgumentParser
import Foundation
import Tilecut
import TilecutCore
import TilecutProject
import TilecutVips

/// `tilecut build [FILE]`: tiles the campus a project file describes.
public struct BuildCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "build",
    abstract: "Tile a campus described by a project file: every building's floors, each placed on its own, one pyramid per floor number.",
    discussion: """
      Reads FILE (default: tilecut.yml in the current directory): run-wide options (the \
      camelCase of the long options: output, maxZoom, tileSizes, format, …) and buildings, \
      each with floors, each floor one drawing with its own placement (gcp, center with \
      metersPerPixel, drawingScale or a CAD drawing's drawingUnits, bounds, worldFile, or \
      the file's georeference) and pixel options (knockout, background, bands, scale, \
      nodata, a CAD drawing's layers, an IMDF venue's language and venueStyle). The floors of every \
      building with the same number go into one pyramid, later buildings over earlier. \
      A mistake in the file is one line with its line and column; exit status 2.
      """)

  @Argument(help: ArgumentHelp("The project file.", valueName: "file"), completion: .file(extensions: ["yml", "yaml"]))
  public var file: String = ProjectLoader.defaultFileName

  @Flag(help: "Place and plan every building and floor, print the plan, write nothing.")
  public var dryRun = false

  @Flag(help: "Print the plan (with --dry-run) or the result as one JSON document on stdout.")
  public var json = false

  @Flag(name: [.short, .long], help: "Print only errors.")
  public var quiet = false

  @Flag(help: "Rebuild even when the output is up to date.")
  public var force = false

  @Option(help: ArgumentHelp("Worker threads (default: the file's jobs, else all cores).", valueName: "n"))
  public var jobs: Int?

  @Option(help: ArgumentHelp("Write a make dependency file: the project file, every source and sidecar (overrides the file's).", valueName: "file"))
  public var depfile: String?

  @Option(help: ArgumentHelp("Write the tile files this run added, modified or deleted (overrides the file's).", valueName: "file"))
  public var changes: String?

  @Option(
    help: ArgumentHelp(
      "Where tiles go: directory, or mbtiles or pmtiles, one file per floor and tile size (overrides the file's; those two leave out the file's preview).",
      valueName: "kind"))
  public var store: StoreKind?

  @Option(
    help: ArgumentHelp(
      "Render a deterministic share K of N of the campus's tiles and write a partial manifest (join with `tilecut merge`); 'env' or 'env/N' as for a single run.",
      valueName: "k/n|env[/n]"))
  public var shard: String?

  @Option(
    name: [.short, .long],
    help: ArgumentHelp("Write into this directory instead of the file's output (relative to the current directory).", valueName: "dir"),
    completion: .directory)
  public var output: String?

  @Option(
    help: ArgumentHelp(
      "Tile path template (overrides the file's name); start it with {building}/ for a pyramid per building, e.g. '{building}/{size}/L{floor}_{z}_{x}_{y}.png'.",
      valueName: "template"))
  public var name: String?

  public init() {}

  public func run() throws {
    let printer = Printer(verbosity: quiet ? .quiet : .normal)
    do {
      let overrides = BuildOverrides(
        dryRun: dryRun, json: json, quiet: quiet, force: force, jobs: jobs, depfile: depfile, changes: changes, shard: shard,
        output: output, name: name, store: store)
      let job = try BuildJob.prepare(BuildRequest(file: file, overrides: overrides), printer: printer)
      try runJob(printer: printer) { try job.run() }
    } catch let code as ExitCode {
      throw code
    } catch {
      throw reported(error, printer: printer)
    }
  }
}
