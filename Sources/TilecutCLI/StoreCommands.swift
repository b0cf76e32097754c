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
      One tile's bytes: tilecut tile STORE Z X Y [--floor k] [--tile-size px].
      """)

  @Argument(help: ArgumentHelp("An output directory, an .mbtiles or .pmtiles file, or an http(s) URL of a .pmtiles file.", valueName: "store"))
  var store: String

  @Flag(help: "Print the summary as one JSON object on stdout.")
  var json = false

  func run() throws {
    try reportingErrors { _ in
      let summary = try StoreReader(store).summary()
      if json {
        let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        Printer.resultDocument(String(decoding: data, as: UTF8.self))
      } else {
        Printer.result(StoreReader.text(summary))
      }
      return 0
    }
  }
}

/// `tilecut tile STORE Z X Y`: one tile's bytes on stdout, read by the tiling command
/// when its first input is a store.
struct TileRead {
  var store: String
  var tile: TileCoordinate
  var floor: Int?
  var tileSize: Int?

  /// The read `inputs` ask for, nil when they are images to tile; a store followed by
  /// anything but Z X Y is a usage error.
  /// `exists` tells whether a path names a file (the three numbers may be images).
  static func parse(
    _ inputs: [String], floor: Int?, tileSizes: String, exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
  ) throws -> TileRead? {
    let numbers = inputs.dropFirst().map { Int($0) }
    // a store, or anything followed by three integers that are not files (images
    // named 1 2 3 are floors to tile)
    let zxy = numbers.count == 3 && !numbers.contains(nil) && !inputs.dropFirst().allSatisfy(exists)
    guard let first = inputs.first, StoreReader.looksLikeStore(first) || zxy else { return nil }
    guard numbers.count == 3, let z = numbers[0], let x = numbers[1], let y = numbers[2] else {
      throw ValidationError("\(first) is a tile store: give the tile as tilecut tile STORE Z X Y (integers)")
    }
    var size: Int? = nil
    if tileSizes != "256,512" {
      guard let one = Int(tileSizes) else { throw ValidationError("--tile-size: reading a store takes one size, got \(tileSizes)") }
      size = one
    }
    return TileRead(store: first, tile: TileCoordinate(zoom: z, x: x, y: y), floor: floor, tileSize: size)
  }

  func run() throws {
    try reportingErrors { printer in
      switch try StoreReader(store).cell(tile, floor: floor, tileSize: tileSize) {
      case .tile(let bytes):
        FileHandle.standardOutput.write(Data(bytes))
        return 0
      case .blank(let line), .outside(let line):
        printer.error(line)
        return 1
      }
    }
  }
}
