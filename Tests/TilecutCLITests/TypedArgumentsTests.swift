import ArgumentParser
import Foundation
import Testing
import TilecutCore

@testable import Tilecut
@testable import TilecutCLI

/// The command line reads coordinate, colour and base-map text once, into the library's
/// typed values; text that is no value is refused after the group's other checks, in
/// the words the library always used.
@Suite("command-line text becomes typed option values")
struct TypedArgumentsTests {
  /// The line the parser's refusal of `args` prints, or nil when they were accepted.
  static func refusal(_ args: [String]) -> String? {
    switch Result(catching: { try TileCommand.parse(args) }) {
    case .success: return nil
    case .failure(let error): return TileCommand.message(for: error)
    }
  }

  @Test("coordinates, colours and the base map arrive typed, latitude first")
  func typed() throws {
    let command = try TileCommand.parse([
      "a.png", "--lonlat", "--bounds", "-0.1275,51.5006,-0.1255,51.5016", "--knockout", "white:8", "--background", "#f8f8f8",
      "--preview", "--preview-basemap", PreviewBasemap.openStreetMap, "--preview-attribution", "© OSM",
    ])
    let placement = try command.placement.options
    #expect(placement.bounds == GeoBounds(south: 51.5006, west: -0.1275, north: 51.5016, east: -0.1255) && placement.lonLatOrder)
    let encoding = try command.encoding.options
    #expect(encoding.knockout == ColorRule(red: 255, green: 255, blue: 255, tolerance: 8))
    #expect(encoding.background == ColorRule(red: 248, green: 248, blue: 248))
    #expect(try command.output.options.previewBasemap == PreviewBasemap(urlTemplate: PreviewBasemap.openStreetMap, attribution: "© OSM"))
    let points = try TileCommand.parse(["a.png", "--gcp", "0,0,51.5,-0.1", "--gcp", "10, 10, 51.4, 0"]).placement.options.gcp
    #expect(
      points == [
        ControlPoint(col: 0, row: 0, point: GeoPoint(latitude: 51.5, longitude: -0.1)),
        ControlPoint(col: 10, row: 10, point: GeoPoint(latitude: 51.4, longitude: 0)),
      ])
    #expect(
      try TileCommand.parse(["a.png", "--center", "51.5,-0.1", "--meters-per-pixel", "1"]).placement.options.center
        == GeoPoint(latitude: 51.5, longitude: -0.1))
  }

  @Test(
    "unreadable text is refused after the group's other checks, in the library's words",
    arguments: [
      (["--bounds", "x"], "--bounds: 'x' should be SOUTH,WEST,NORTH,EAST (4 numbers separated by commas)"),
      (["--bounds", "x", "--gcp-order", "5"], "--gcp-order is 1, 2 or 3"),
      (["--bounds", "x", "--gcp", "1,2,3,4"], "--bounds, --gcp, --center and --world-file each place the image; give only one of them"),
      (["--center", "1,2,3", "--lonlat"], "--center: '1,2,3' should be LON,LAT with --lonlat (2 numbers separated by commas)"),
      (["--gcp", "0,0,1,1", "--gcp", "1,1,a,1"], "--gcp: 'a' in '1,1,a,1' is not a number"),
      (["--background", "nope", "--quality", "0"], OptionNumbers.atLeast("--quality", 1, got: 0)),
      (
        ["--knockout", "white:300", "--background", "nope"],
        "--background: 'nope' is not a colour; use a name (white, black), #rrggbb, #rgb or R,G,B, optionally :TOLERANCE"
      ),
      (["--preview-basemap", "ftp://a"], "--preview-basemap goes with --preview (it is drawn in preview.html)"),
      (
        ["--preview", "--preview-basemap", "ftp://a"],
        "--preview-basemap: 'ftp://a' is not an http(s) or file URL; give an XYZ template such as \(PreviewBasemap.openStreetMap)"
      ),
      (["--preview-attribution", "x"], "--preview-attribution goes with --preview-basemap (it credits the base map)"),
      (
        ["--store", "mbtiles", "--preview", "--preview-attribution", "x"],
        "--preview: the preview page reads tile files; it goes with --store directory"
      ),
    ])
  func refused(extra: [String], message: String) {
    #expect(Self.refusal(["a.png"] + extra) == message)
  }
}
