import Foundation
import Testing

@testable import TilecutCore

/// The one reading of `--bounds`, `--gcp` and `--center` text into typed values, for the
/// command line and the project file alike, refused in the words the options always used.
@Suite("coordinate options: text read once into typed values")
struct CoordinateTextTests {
  /// The line a refusal prints (`--bounds: …`), or nil when the text was read.
  static func refusal(_ body: () throws -> Void) -> String? {
    do {
      try body()
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test("good values, latitude first or in --lonlat's order")
  func goodValues() throws {
    let london = GeoBounds(south: 51.5006, west: -0.1275, north: 51.5016, east: -0.1255)
    #expect(try GeoBounds(parsing: "51.5006,-0.1275,51.5016,-0.1255") == london)
    #expect(try GeoBounds(parsing: " 51.5006 , -0.1275,51.5016, -0.1255 ") == london)
    #expect(try GeoBounds(parsing: "-0.1275,51.5006,-0.1255,51.5016", order: .lonLat) == london)
    #expect(GeoBounds(numbers: [51.5006, -0.1275, 51.5016, -0.1255]) == london)
    #expect(GeoBounds(numbers: [-0.1275, 51.5006, -0.1255, 51.5016], order: .lonLat) == london)
    #expect(GeoBounds(numbers: [1, 2, 3]) == nil)

    let point = ControlPoint(col: 120.5, row: 80, point: GeoPoint(latitude: 51.5074, longitude: -0.1278))
    #expect(try ControlPoint(parsing: "120.5, 80, 51.5074, -0.1278") == point)
    #expect(try ControlPoint(parsing: "120.5,80,-0.1278,51.5074", order: .lonLat) == point)
    #expect(ControlPoint(numbers: [120.5, 80, -0.1278, 51.5074], order: .lonLat) == point)
    #expect(point.text() == "120.5,80,51.5074,-0.1278")
    #expect(point.text(order: .lonLat) == "120.5,80,-0.1278,51.5074")
    // messages repeat the user's own text; it is no part of the value or its coding
    let typed = try ControlPoint(parsing: "120.5, 80, 51.50740, -0.1278")
    #expect(typed.spelled() == "120.5, 80, 51.50740, -0.1278" && point.spelled(order: .lonLat) == "120.5,80,-0.1278,51.5074")
    let json = JSONEncoder()
    json.outputFormatting = .sortedKeys
    #expect(try json.encode(typed) == json.encode(point))

    let centre = GeoPoint(latitude: -33.8688, longitude: 151.2093)
    #expect(try GeoPoint(parsing: "-33.8688,151.2093", option: "--center") == centre)
    #expect(try GeoPoint(parsing: "151.2093, -33.8688", order: .lonLat, option: "--center") == centre)
    #expect(GeoPoint(numbers: [151.2093, -33.8688], order: .lonLat) == centre)

    // typed values are Codable: a placement request round-trips through JSON
    let decoded = try JSONDecoder().decode([GeoBounds].self, from: JSONEncoder().encode([london]))
    #expect(decoded == [london])
  }

  static let badText: [(String, String, String)] = [
    ("bounds", "1,2,3", "--bounds: '1,2,3' should be SOUTH,WEST,NORTH,EAST (4 numbers separated by commas)"),
    ("bounds", "a,b,c,d", "--bounds: 'a' in 'a,b,c,d' is not a number"),
    ("bounds", "1,2,nan,4", "--bounds: 'nan' in '1,2,nan,4' is not a finite number"),
    ("bounds-lonlat", "1,2,3", "--bounds: '1,2,3' should be WEST,SOUTH,EAST,NORTH with --lonlat (4 numbers separated by commas)"),
    // the text is read latitude first, as it always was: the message quotes it so
    ("bounds-lonlat", "a,2,3,4", "--bounds: 'a' in '2,a,4,3' is not a number"),
    ("gcp", "1,2,3", "--gcp: '1,2,3' should be X,Y,LAT,LON (4 numbers separated by commas)"),
    ("gcp", "x,2,3,4", "--gcp: 'x' in 'x,2,3,4' is not a number"),
    ("gcp-lonlat", "1,2,3,4,5", "--gcp: '1,2,3,4,5' should be X,Y,LON,LAT with --lonlat (4 numbers separated by commas)"),
    ("center", "51.5", "--center: '51.5' should be LAT,LON (2 numbers separated by commas)"),
    ("center", "51.5,inf", "--center: 'inf' in '51.5,inf' is not a finite number"),
    ("center-lonlat", "1,2,3", "--center: '1,2,3' should be LON,LAT with --lonlat (2 numbers separated by commas)"),
  ]

  @Test("each bad text is refused in the option's words", arguments: badText)
  func badValues(kind: String, text: String, message: String) {
    let order: CoordinateOrder = kind.hasSuffix("-lonlat") ? .lonLat : .latLon
    let got = Self.refusal {
      switch kind.split(separator: "-")[0] {
      case "bounds": _ = try GeoBounds(parsing: text, order: order)
      case "gcp": _ = try ControlPoint(parsing: text, order: order)
      default: _ = try GeoPoint(parsing: text, order: order, option: "--center")
      }
    }
    #expect(got == message)
  }

  @Test("the places are checked apart from the reading, in the words parseBounds and parseLatLon use")
  func placeChecks() {
    #expect(Self.refusal { try GeoBounds(south: 51.5, west: -0.1, north: 51.6, east: 0).check() } == nil)
    #expect(
      Self.refusal { try GeoBounds(south: 51.6, west: -0.1, north: 51.5, east: 0).check() }
        == "--bounds: south 51.6 is not below north 51.5; the order is SOUTH,WEST,NORTH,EAST")
    #expect(Self.refusal { try GeoPoint(latitude: 0, longitude: 181).check(option: "--center") } == "--center: longitude 181.0 is beyond ±180")
    let swapped = ControlPoint(col: 0, row: 0, point: GeoPoint(latitude: 151.2, longitude: -33.8))
    #expect(Self.refusal { try swapped.check() }?.hasPrefix("--gcp: latitude 151.2 is beyond ±85.0511; did you swap LAT and LON?") == true)
    // sides the map cannot tell apart: no box (was "puts the image outside the Web-Mercator world")
    let tiny = Double.leastNonzeroMagnitude
    #expect(
      Self.refusal { try GeoBounds(south: 51.5006, west: 0, north: 51.5016, east: tiny).check() }
        == "--bounds: west 0.0 and east 5e-324 are too close to tell apart on the map; the box has no width")
    #expect(
      Self.refusal { try GeoBounds(south: 0, west: 0, north: tiny, east: 1).check() }
        == "--bounds: south 0.0 and north 5e-324 are too close to tell apart on the map; the box has no height")
    #expect(Self.refusal { try GeoBounds(south: 51.5006, west: 0, north: 51.500601, east: 1e-6).check() } == nil)
    // the old entry points read and check in one call, as before
    #expect(
      Self.refusal { _ = try Georeference.parseBounds("51.6,-0.1,51.5,0") }
        == Self.refusal { try GeoBounds(south: 51.6, west: -0.1, north: 51.5, east: 0).check() })
  }
}
