import ArgumentParser
import Foundation
import Tilecut
import TilecutCore

/// `tilecut show STORE`: what a store holds.
struct ShowCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "show",
    abstract: "Print what a tile store holds: kind, floors, sizes, zooms, bounds, tile count, metadata.",
    discussion: """
      STORE is an output directory (its manifest names the store), an .mbtiles or .pmtiles file, or an http(s) URL of a \
      .pmtiles file (read with Range requests: the header and root directory only). \
      One tile's bytes: tilecut get STORE Z/X/Y [--floor k] [--tile-size px] [-o file].
      """)

  @Argument(help: ArgumentHelp("An output directory, an .mbtiles or .pmtiles file, or an http(s) URL of a .pmtiles file.", valueName: "store"))
  var store: String

  @Flag(help: "Print the summary as one JSON object on stdout.")
  var json = false

  func run() throws {
    try reportingErrors { _ in
      let summary = try StoreReader(store).summary()
      if json {
        Printer.resultDocument(try StoreReader.json(summary))
      } else {
        Printer.result(StoreReader.text(summary))
      }
      return 0
    }
  }
}

/// `tilecut get STORE Z/X/Y`: one tile's bytes, on stdout or into `-o FILE`.
struct GetCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "get",
    abstract: "Write one tile of a store (its bytes as stored) to stdout or a file.",
    usage: "tilecut get <store> <z>/<x>/<y> [--floor <k>] [--tile-size <px>] [-o <file>]",
    discussion: """
      STORE is an output directory (its manifest names the store), an .mbtiles or .pmtiles file, or an http(s) URL of a \
      .pmtiles file (read with Range requests). The tile is Z/X/Y on the XYZ grid (Z X Y as three words too). \
      A cell with no tile (blank by the no-tile rule, or outside the pyramid) is one error line and exit 1. \
      stdout must not be a terminal: redirect it, or give -o FILE.

      Example:
        tilecut get https://cdn.example.com/L1_256.pmtiles 18/140812/86013 -o t.png
      """)

  @Argument(help: ArgumentHelp("An output directory, an .mbtiles or .pmtiles file, or an http(s) URL of a .pmtiles file.", valueName: "store"))
  var store: String

  @Argument(help: ArgumentHelp("The tile: Z/X/Y (or Z X Y).", valueName: "z/x/y"))
  var tile: [String] = []

  @Option(help: ArgumentHelp("The floor to read (default: the store's first).", valueName: "k"))
  var floor: Int?

  @Option(name: .customLong("tile-size"), help: ArgumentHelp("The tile size to read, in px (default: the store's smallest).", valueName: "px"))
  var tileSize: Int?

  @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Write the tile to this file instead of stdout.", valueName: "file"))
  var output: String?

  /// The tile `words` name: `Z/X/Y` or `Z X Y`, integers.
  static func coordinate(_ words: [String]) throws -> TileCoordinate {
    guard let coordinate = StoreReader.coordinate(words) else {
      let given = words.joined(separator: " ")
      throw ValidationError(
        given.isEmpty
          ? "missing tile: give it as Z/X/Y (integers), e.g. tilecut get STORE 18/140812/86013"
          : "'\(given.prefix(100))' is not a tile: give it as Z/X/Y (integers), e.g. 18/140812/86013")
    }
    return coordinate
  }

  func validate() throws {
    if let tileSize, tileSize <= 0 { throw ValidationError("--tile-size: give a size in px, e.g. 256") }
    if output == nil, isatty(STDOUT_FILENO) == 1 {
      throw ValidationError("stdout is a terminal: redirect it (> tile.png) or give -o FILE; tilecut writes no image bytes to a terminal")
    }
    if let output, output.isEmpty { throw ValidationError("-o: give a file name") }
  }

  func run() throws {
    let coordinate = try Self.coordinate(tile)
    try reportingErrors { printer in
      // the file -o names, before the store is read: never the store (a file, or a
      // folder's manifest or tile), nor a file beside it tilecut reads
      if let output {
        let remote = ["http://", "https://"].contains { store.lowercased().hasPrefix($0) }
        try OptionPaths.check(outputs: [("--output", output)], inputs: remote ? [] : [store], outputDirectory: nil)
      }
      switch try StoreReader(store).cell(coordinate, floor: floor, tileSize: tileSize) {
      case .tile(let bytes):
        if let output {
          try OptionFile.write(bytes, to: output, what: "the tile")
        } else {
          FileHandle.standardOutput.write(Data(bytes))
        }
        return 0
      case .blank(let line), .outside(let line):
        printer.error(line)
        return 1
      }
    }
  }
}
