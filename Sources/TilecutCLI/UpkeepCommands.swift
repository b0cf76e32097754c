import ArgumentParser
import Foundation
import Tilecut
import TilecutCore

/// Runs a subcommand body and turns every failure into one line: exit 1, or 2 for usage.
func reportingErrors(_ body: (Printer) throws -> Int32) throws {
  let printer = Printer()
  do {
    let code = try body(printer)
    if code != 0 { throw ExitCode(code) }
  } catch let code as ExitCode {
    throw code
  } catch {
    throw reported(error, printer: printer)
  }
}

/// `tilecut verify DIR`: the manifest and the files on disk agree.
struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check that an output's files match its manifest.",
    discussion:
      "Every cell the manifest lists must exist, decode and have the tile size; no other tile file may exist. Exit 0 when all agree, 1 with a list of problems otherwise."
  )

  @Argument(help: ArgumentHelp("An output directory written by tilecut.", valueName: "dir"), completion: .directory)
  var directory: String

  @Option(parsing: .unconditional, help: ArgumentHelp("Worker threads for decoding (default: all cores).", valueName: "n"))
  var jobs: Int?

  @Flag(help: "Print the result as one JSON object on stdout (examples/json-schema/verify.schema.json) instead of the problems' lines.")
  var json = false

  func validate() throws {
    if let jobs, jobs < 1 { throw ValidationError(OptionNumbers.atLeast("--jobs", 1, got: jobs)) }
    if let jobs, !(1...PlanLimits.maxJobs).contains(jobs) {
      throw ValidationError("--jobs: \(jobs) is outside 1...\(PlanLimits.maxJobs)")
    }
  }

  func run() throws {
    try reportingErrors { printer in
      let report = try Verifier(directory, jobs: jobs).run()
      if json { try Printer.resultDocument(report.json()) }
      if report.isIntact {
        printer.info(report.summary)
        return 0
      }
      if !json { for p in report.problems { Printer.result(p) } }
      printer.error(report.summary)
      return 1
    }
  }
}

/// `tilecut merge OUT SHARD…`: one output from the shards of a `--shard K/N` job.
struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Combine the outputs of --shard runs into one.",
    discussion:
      "Takes every shard 1…N of one job (same sources, options and tool version) and writes the output a single run would have written, replacing OUT whole."
  )

  @Argument(help: ArgumentHelp("The combined output directory.", valueName: "out"), completion: .directory)
  var output: String

  @Argument(help: ArgumentHelp("The shard output directories.", valueName: "shard-dir"), completion: .directory)
  var shards: [String] = []

  func validate() throws {
    if shards.isEmpty { throw ValidationError("give the shard directories to merge") }
  }

  func run() throws {
    try reportingErrors { printer in
      try Merger(shards, into: output).run(printer: printer)
      return 0
    }
  }
}

/// `tilecut preview DIR --zoom Z -o sheet.png`: one zoom of one floor as a single image.
struct PreviewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "preview",
    abstract: "Stitch one zoom level of one floor into a single PNG.",
    discussion: "Cells without a tile stay transparent (or grey with --grid). Handy as a CI artifact.")

  @Argument(help: ArgumentHelp("An output directory written by tilecut.", valueName: "dir"), completion: .directory)
  var directory: String

  @Option(parsing: .unconditional, help: ArgumentHelp("The zoom to stitch.", valueName: "z"))
  var zoom: Int

  @Option(parsing: .unconditional, help: ArgumentHelp("The floor (default: the first in the manifest).", valueName: "k"))
  var floor: Int?

  @Option(help: ArgumentHelp("The tile size to stitch (default: the smallest in the manifest).", valueName: "px"))
  var tileSize: Int?

  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "The PNG to write: a new file, or a sheet an earlier preview wrote (any other file only with --force); not inside DIR.", valueName: "file"))
  var output: String = "sheet.png"

  @Flag(help: "Overwrite the --output file even when it is not a sheet tilecut wrote.")
  var force = false

  @Flag(help: "Draw tile borders and shade cells that have no tile.")
  var grid = false

  @Option(parsing: .unconditional, help: ArgumentHelp("Refuse sheets larger than this many pixels on a side.", valueName: "px"))
  var maxSide: Int = 16384

  func validate() throws {
    if zoom < 0 { throw ValidationError(OptionNumbers.atLeast("--zoom", 0, got: zoom)) }
    if maxSide < 1 { throw ValidationError(OptionNumbers.atLeast("--max-side", 1, got: maxSide)) }
    if !(0...PlanLimits.maxZoom).contains(zoom) { throw ValidationError("--zoom: \(zoom) is outside 0...\(PlanLimits.maxZoom)") }
    if let tileSize, TileSize(tileSize) == nil {
      throw ValidationError("--tile-size: \(tileSize) is not a tile size tilecut makes; use 256, 512 or 768")
    }
    do { _ = try floor.map { try Floor($0, option: "--floor") } } catch let error as TilecutError { throw ValidationError(error.description) }
    if !(1...32768).contains(maxSide) { throw ValidationError("--max-side: \(maxSide) is outside 1...32768") }
  }

  func run() throws {
    try reportingErrors { printer in
      var request = PreviewSheetRequest(directory, zoom: zoom, output: output)
      (request.floor, request.tileSize, request.force, request.grid, request.maxSide) = (floor, tileSize, force, grid, maxSide)
      printer.info(try request.run().summary)
      return 0
    }
  }
}
