import ArgumentParser

/// The `tilecut` command: tiles by default, with subcommands for the output's upkeep.
public struct TilecutCommand: ParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "tilecut",
    abstract: "Slice large images into Web-Mercator tile pyramids for map tile layers."
  )

  public init() {}

  public func run() throws {}
}
