import ArgumentParser
import Foundation
import TilecutCore
import TilecutVips

/// `tilecut verify DIR`: the manifest and the files on disk agree.
struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "verify", abstract: "Check that an output's files match its manifest.")

  @Argument(help: ArgumentHelp("An output directory written by tilecut.", valueName: "dir"))
  var directory: String

  func run() throws {
    throw ValidationError("verify: not built yet")
  }
}

/// `tilecut merge OUT SHARD…`: one output from the shards of a `--shard K/N` job.
struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "merge", abstract: "Combine the outputs of --shard runs into one.")

  @Argument(help: ArgumentHelp("The combined output directory.", valueName: "out"))
  var output: String

  @Argument(help: ArgumentHelp("The shard output directories.", valueName: "shard-dir"))
  var shards: [String] = []

  func run() throws {
    throw ValidationError("merge: not built yet")
  }
}

/// `tilecut preview DIR --zoom Z -o sheet.png`: one zoom of one floor as a single image.
struct PreviewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "preview", abstract: "Stitch one zoom level of one floor into a single PNG.")

  @Argument(help: ArgumentHelp("An output directory written by tilecut.", valueName: "dir"))
  var directory: String

  func run() throws {
    throw ValidationError("preview: not built yet")
  }
}
