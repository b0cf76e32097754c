import ArgumentParser
import CTilecutPlatform
import Foundation
import Tilecut
import TilecutCore
import TilecutProject
import TilecutVips

/// The `tilecut` command: tiles by default, with subcommands for the output's upkeep.
///
/// The subcommands are declared to swift-argument-parser, so help and the generated
/// completion scripts know them; `tile` is the default, so `tilecut plan.png` tiles.
/// An input file named like a subcommand is given with a path: `tilecut ./verify`.
public struct TilecutCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "tilecut",
    abstract: TileCommand.configuration.abstract,
    // `tilecut 0.5.0 (290a01b)`; `--version --verbose` adds the notices (VersionText.swift)
    version: tilecutVersionLine,
    subcommands: [
      TileCommand.self, VerifyCommand.self, MergeCommand.self, PreviewCommand.self, GeorefCommand.self, BuildCommand.self, ShowCommand.self,
      GetCommand.self,
    ],
    defaultSubcommand: TileCommand.self
  )

  public init() {}

  /// Parses, runs, and turns every failure into one stderr line and an exit code:
  /// 0 success, 1 input or processing error, 2 usage error.
  public static func main(_ arguments: [String]? = nil) -> Never {
    // before tilecut opens a descriptor of its own: `/dev/fd/N` names only the caller's
    tc_note_inherited_descriptors()
    // first of all: a signal that comes while arguments are parsed must not be lost
    SignalPipe.shared.install()
    // libraries that print to stderr themselves (poppler's font engine, cairo) print
    // into a pipe: tilecut's lines are the only ones on stderr
    _ = tc_capture_library_stderr(ProcessInfo.processInfo.environment["TILECUT_LIBRARY_MESSAGES"] == "1" ? 1 : 0)
    let args = arguments ?? Array(CommandLine.arguments.dropFirst())
    if args.count == 1, ["-h", "--help", "-help", "help"].contains(args[0]) {
      print(helpText())
      Foundation.exit(0)
    }
    if isVerboseVersion(args) {
      print(verboseVersionText())
      Foundation.exit(0)
    }
    if let shell = completionShell(args) {
      print(completionScriptWithDefault(for: shell))
      Foundation.exit(0)
    }
    // a drawing's libgdal loads meanwhile, on a thread of its own
    DrawingSource.preload(forArguments: args)
    var command: any ParsableCommand
    do {
      command = try parseAsRoot(args)
    } catch {
      if exitCode(for: error) == .success {
        DrawingSource.finishPreload()
        exit(withError: error)
      }
      if let hint = PeerSpellings.hint(args) {
        Printer().error(hint)
        finish(ExitStatus.usage.rawValue)
      }
      let message = Quote.firstLine(of: self.message(for: error), values: args)
      Printer().error(message)
      finish((error as? TilecutError)?.exitCode ?? ExitStatus.usage.rawValue)
    }
    do {
      try command.run()
      finish(0)
    } catch let code as ExitCode {
      finish(code.rawValue)
    } catch {
      // `tilecut help SUB` arrives here as the parser's own clean exit
      if !(error is ValidationError), !(error is TilecutError), exitCode(for: error) == .success {
        DrawingSource.finishPreload()
        exit(withError: error)
      }
      finish(reported(error, printer: Printer()).rawValue)
    }
  }

  /// Exits with `code` once the drawing preload, if one runs, is done.
  private static func finish(_ code: Int32) -> Never {
    DrawingSource.finishPreload()
    Foundation.exit(code)
  }

  /// `tilecut --help`: the tiling help (what `tilecut INPUT…` does), then the subcommand list.
  static func helpText() -> String {
    let tiling = helpMessage(for: TileCommand.self)
    let root = helpMessage()
    guard let list = root.range(of: "SUBCOMMANDS:") else { return tiling }
    return tiling.trimmingCharacters(in: .newlines) + "\n\n" + root[list.lowerBound...].trimmingCharacters(in: .newlines)
  }
}

extension TilecutCommand {
  /// The shell of `--generate-completion-script SHELL` (or `=SHELL`) given alone, if known.
  static func completionShell(_ args: [String]) -> CompletionShell? {
    let flag = "--generate-completion-script"
    if args.count == 2, args[0] == flag { return CompletionShell(rawValue: args[1]) }
    if args.count == 1, args[0].hasPrefix(flag + "=") { return CompletionShell(rawValue: String(args[0].dropFirst(flag.count + 1))) }
    return nil
  }

  /// The generated script, taught that a first word which is not a subcommand starts
  /// the default one: `tilecut plan.png --bo<TAB>` completes `--bounds`, and the first
  /// word offers the subcommands and the tiling options and files. A script worded
  /// otherwise (a newer swift-argument-parser) is given as generated.
  static func completionScriptWithDefault(for shell: CompletionShell) -> String {
    patchedCompletionScript(for: shell) ?? completionScript(for: shell)
  }

  /// The generated script with the default subcommand's patch, or nil when a piece the
  /// patch edits is not found as often as expected in the generated script.
  static func patchedCompletionScript(for shell: CompletionShell) -> String? {
    let script = completionScript(for: shell)
    let names = configuration.subcommands.map { $0._commandName } + ["help"]
    let tile = TileCommand._commandName
    switch shell {
    case .bash:
      let fallback = """
            *)
                # Offer subcommand completions
                COMPREPLY+=($(compgen -W '\(names.joined(separator: " "))' -- "${cur}"))
                ;;
        """
      let defaultCommand = """
            *)
                # not a subcommand: the words of the default one, `\(tile)`
                [[ "${#unparsed_words[@]}" -eq 0 ]] && COMPREPLY+=($(compgen -W '\(names.joined(separator: " "))' -- "${cur}"))
                unparsed_words=("${subcommand}" "${unparsed_words[@]}")
                _tilecut_\(tile)
                ;;
        """
      return patch(script, [(fallback, defaultCommand, 1)])
    case .zsh:
      // the first word (state `command`) and any other first word (state `arg`)
      let subcommands = "        _describe -V subcommand subcommands && ret=0\n"
      let dispatch = "            \"_tilecut_${words[1]}\" && ret=0\n            ;;\n"
      let firstWord = """
                # the first word may also be the default subcommand's: its options, files
                _tilecut_\(tile) && ret=0

        """
      let defaultCommand = """
                *)
                    # not a subcommand: the words of the default one, `\(tile)`
                    words=(\(tile) "${words[@]}")
                    (( CURRENT++ ))
                    _tilecut_\(tile) && ret=0
                    ;;

        """
      return patch(script, [(subcommands, subcommands + firstWord, 1), (dispatch, dispatch + defaultCommand, 1)])
    case .fish:
      // the parse of the words after the root's options, and the two tests of its result
      let dispatch = "\n        switch $unparsed_tokens[1]\n"
      let defaultCommand = """

                # not a subcommand: the words of the default one, `\(tile)`
                set -q unparsed_tokens[1]; and not contains -- $unparsed_tokens[1] \(names.joined(separator: " ")); \
        and set -p unparsed_tokens \(tile)
        """
      let test = #""$commands" = "$expected_commands""#
      let firstWord = #"\( \#(test) -o "$commands" = 'tilecut' -a "$expected_commands" = 'tilecut \#(tile)' \)"#
      return patch(script, [(dispatch, defaultCommand + dispatch, 1), (test, firstWord, 2)])
    default:
      return nil
    }
  }

  /// `script` with each piece replaced, or nil when a piece does not occur exactly `count` times.
  static func patch(_ script: String, _ edits: [(piece: String, replacement: String, count: Int)]) -> String? {
    var result = script
    for edit in edits {
      guard result.components(separatedBy: edit.piece).count - 1 == edit.count else { return nil }
      result = result.replacingOccurrences(of: edit.piece, with: edit.replacement)
    }
    return result
  }
}

/// `tilecut [tile] INPUT…`: slices images into tiles, the default subcommand.
public struct TileCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "tile",
    abstract: "Slice large images into Web-Mercator tile pyramids for map tile layers.",
    usage: "tilecut [tile] <input> ... [<options>]\ntilecut <subcommand> ...",
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
        An input named like a subcommand: tilecut ./verify
        One tile of a store (output directory, .mbtiles, .pmtiles or its URL):
          tilecut get https://cdn.example.com/L1_256.pmtiles 18/140812/86013 -o t.png

      Exit status: 0 success (also "up to date"), 1 input or processing error, 2 usage error, \
      130/143 interrupted by SIGINT/SIGTERM. The previous output is never damaged.
      """
  )

  @Argument(
    help: ArgumentHelp("Source image(s): one per floor, or one with --floors. PDF/TIFF pages: file.pdf[page=N].", valueName: "input"),
    completion: .file())
  public var inputs: [String] = []

  @OptionGroup(title: "Output") public var output: OutputArguments
  @OptionGroup(title: "Zooms and tile sizes") public var pyramid: PyramidArguments
  @OptionGroup(title: "Floors") public var floors: FloorArguments
  @OptionGroup(title: "Placement on the map") public var placement: PlacementArguments
  @OptionGroup(title: "Pixels and encoding") public var encoding: EncodingArguments
  @OptionGroup(title: "Run") public var runOptions: RunArguments

  /// Not a tiling option: `get`'s, answered with a pointer to it or to --first-floor.
  @Option(parsing: .unconditional, help: .hidden)
  public var floor: Int?

  public init() {}

  public func run() throws {
    let printer = Printer(verbosity: runOptions.quiet ? .quiet : .normal)
    guard !inputs.isEmpty else {
      throw ValidationError("missing input: give an image to tile (see tilecut --help)")
    }
    if let hint = OldTileRead.hint(inputs) { throw ValidationError(hint) }
    if floor != nil { throw ValidationError("--floor: names the floor of tilecut get STORE Z/X/Y; to number floors use --first-floor") }
    if let hint = PeerSpellings.positionalOutput(inputs) { throw ValidationError(hint) }
    do {
      let job = TileJob(
        inputs: inputs, output: try output.options, pyramid: try pyramid.options, floors: floors.options, placement: try placement.options,
        encoding: try encoding.options, run: try runOptions.options, printer: printer)
      try runJob(printer: printer) { try job.run(printer: printer) }
    } catch let code as ExitCode {
      throw code
    } catch {
      throw reported(error, printer: printer)
    }
  }
}

/// Runs a job with its progress held back, and turns its failure into one line and
/// an exit code (`tile` and `build` alike).
func runJob(printer: Printer, _ run: () throws -> TileResult) throws {
  do {
    printer.hold()
    _ = try run()
    printer.release()
  } catch let code as ExitCode {
    throw code
  } catch {
    throw reported(error, printer: printer)
  }
}

/// Prints `error` as tilecut's one line (dropping held progress) and returns the exit
/// code to throw; ``Failure`` decides both.
extension Failure {
  /// As ``Failure/init(_:)``, and an option the parser's checks refused
  /// (ArgumentParser's `ValidationError`) is a usage error (exit status 2).
  init(commandLine error: any Error) {
    if let error = error as? ValidationError {
      self = .usage(error.message)
    } else {
      self.init(error)
    }
  }
}

func reported(_ error: any Error, printer: Printer) -> ExitCode {
  printer.discard()
  let failure = Failure(commandLine: error)
  printer.error(failure.line)
  for line in failure.more { printer.error(line) }
  return ExitCode(failure.status)
}
