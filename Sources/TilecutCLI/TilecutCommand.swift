import ArgumentParser
import Foundation
import TilecutCore
import TilecutVips

/// The `tilecut` command: tiles by default, with subcommands for the output's upkeep.
public struct TilecutCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "tilecut",
    abstract: "Slice large images into Web-Mercator tile pyramids for map tile layers.",
    discussion: """
      Writes 256 px and 512 px (retina: same z/x/y grid, twice the density) tiles named for a \
      URL tile layer, L<floor>_<z>_<x>_<y>.png, skips cells with no tile and lists the rest in \
      manifest.json. Tile (0,0) is the north-west corner (XYZ).

      Examples:
        tilecut plan.png                     a plain image at the NW corner
        tilecut plan.png --bounds 51.5006,-0.1275,51.5016,-0.1255
        tilecut plan.png --gcp 0,0,51.5016,-0.1275 --gcp 4000,3000,51.5006,-0.1255
        tilecut plan.png --center 51.5011,-0.1265 --meters-per-pixel 0.05 \\
          --rotation 12
        tilecut building.pdf --floors 3 --first-floor 0 --knockout white:8
        tilecut ground.png first.png -o tiles --name 'L{floor}_{z}_{x}_{y}.png' \\
          --tile-size 512
        CI matrix: tilecut plan.png --shard $K/4 -o part$K   (K = 1…4), then
          tilecut merge tiles part1 part2 part3 part4

      Subcommands (each has --help):
        tilecut verify DIR                    check files against manifest.json
        tilecut merge OUT SHARD-DIR...        combine --shard outputs
        tilecut preview DIR --zoom Z -o F     stitch one zoom into one PNG

      Exit status: 0 success (also "up to date"), 1 input or processing error, 2 usage error, \
      130/143 interrupted by SIGINT/SIGTERM. The previous output is never damaged.
      """,
    version: tilecutVersion
  )

  /// Subcommands, dispatched by the first argument; everything else tiles.
  static let subcommands: [String: any ParsableCommand.Type] = [
    "verify": VerifyCommand.self, "merge": MergeCommand.self, "preview": PreviewCommand.self,
  ]

  @Argument(help: ArgumentHelp("Source image(s): one per floor, or one with --floors. PDF/TIFF pages: file.pdf[page=N].", valueName: "input"))
  public var inputs: [String] = []

  @OptionGroup(title: "Output") public var output: OutputOptions
  @OptionGroup(title: "Zooms and tile sizes") public var pyramid: PyramidOptions
  @OptionGroup(title: "Floors") public var floors: FloorOptions
  @OptionGroup(title: "Placement on the map") public var placement: PlacementOptions
  @OptionGroup(title: "Pixels and encoding") public var encoding: EncodingOptions
  @OptionGroup(title: "Run") public var runOptions: RunOptions

  public init() {}

  public func run() throws {
    let printer = Printer(verbosity: runOptions.quiet ? .quiet : .normal)
    guard !inputs.isEmpty else {
      throw ValidationError("missing input: give an image to tile (see tilecut --help)")
    }
    do {
      try Vips.start()
      if runOptions.noVector { Vips.blockUntrusted(true) }
      let job = TileJob(
        inputs: inputs, output: output, pyramid: pyramid, floors: floors, placement: placement, encoding: encoding, run: runOptions,
        printer: printer)
      printer.hold()
      let code = try job.execute()
      printer.release()
      if code != 0 { throw ExitCode(code) }
    } catch let interrupted as JobInterrupted {
      printer.discard()
      printer.error("interrupted by \(interrupted.signal == SIGINT ? "SIGINT" : "SIGTERM"); the previous output is unchanged")
      throw ExitCode(128 + interrupted.signal)
    } catch let error as TilecutError {
      printer.discard()
      printer.error(error.description)
      throw ExitCode(error.exitCode)
    } catch let error as VipsError {
      printer.discard()
      printer.error(error.description)
      throw ExitCode(1)
    } catch let code as ExitCode {
      throw code
    } catch {
      // anything else is still a processing failure: one sentence, exit 1
      printer.discard()
      printer.error(sentence(for: error))
      throw ExitCode(1)
    }
  }

  /// Parses, runs, and turns every failure into one stderr line and an exit code:
  /// 0 success, 1 input or processing error, 2 usage error.
  public static func main(_ arguments: [String]? = nil) -> Never {
    // first of all: a signal that comes while arguments are parsed must not be lost
    SignalPipe.shared.install()
    let args = arguments ?? Array(CommandLine.arguments.dropFirst())
    if let first = args.first, let sub = subcommands[first] {
      run(sub, Array(args.dropFirst()))
    }
    run(Self.self, args)
  }

  static func run(_ type: any ParsableCommand.Type, _ args: [String]) -> Never {
    var command: any ParsableCommand
    do {
      command = try type.parseAsRoot(args)
    } catch {
      let exitCode = type.exitCode(for: error)
      if exitCode == .success {
        type.exit(withError: error)
      }
      let message = type.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
      Printer().error(message)
      Foundation.exit((error as? TilecutError)?.exitCode ?? 2)
    }
    do {
      try command.run()
      Foundation.exit(0)
    } catch let code as ExitCode {
      Foundation.exit(code.rawValue)
    } catch let error as ValidationError {
      Printer().error(error.message)
      Foundation.exit(2)
    } catch let error as TilecutError {
      Printer().error(error.description)
      Foundation.exit(error.exitCode)
    } catch {
      // --help and --version arrive here as the parser's own clean exits
      if type.exitCode(for: error) == .success { type.exit(withError: error) }
      Printer().error(sentence(for: error))
      Foundation.exit(1)
    }
  }
}

/// One line for an error that is not tilecut's own (a Foundation or system error).
func sentence(for error: any Error) -> String {
  let ns = error as NSError
  var text = ns.localizedDescription
  if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
    text += " (" + String(cString: strerror(Int32(underlying.code))) + ")"
  }
  let line = text.split(separator: "\n").first.map(String.init) ?? "\(error)"
  return line.isEmpty ? "unexpected failure: \(error)" : line
}
