import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutProject
import TilecutVips

@testable import Tilecut

/// Placement, colour and base-map options are values, not text: the command line and
/// the project file read their text once, through the same parser, and a project file's
/// bad values are all reported at once, each at its line and column.
@Suite("typed option values: read once, every bad one reported")
struct TypedOptionValuesTests {
  @Test("the base map's template is read once, refused in the words validate used to say")
  func previewBasemap() throws {
    let osm = try PreviewBasemap(parsing: PreviewBasemap.openStreetMap, attribution: "© OpenStreetMap")
    #expect(osm == PreviewBasemap(urlTemplate: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", attribution: "© OpenStreetMap"))
    #expect(try PreviewBasemap(parsing: "file:///srv/{z}/{x}/{y}.png").attribution == nil)
    let example = "give an XYZ template such as \(PreviewBasemap.openStreetMap)"
    #expect(throws: Failure.usage("--preview-basemap: 'ftp://a/{z}/{x}/{y}' is not an http(s) or file URL; \(example)")) {
      try PreviewBasemap(parsing: "ftp://a/{z}/{x}/{y}")
    }
    #expect(throws: Failure.usage("--basemap: 'https://a/{z}/{x}.png' has no {y}; \(example)")) {
      try PreviewBasemap(parsing: "https://a/{z}/{x}.png", option: "--basemap")
    }
    #expect(
      throws: Failure.usage(
        "--preview-basemap: 'https://a/{z}/{x}/{y}.png?q=\"' has a space, a quote, < or > or a control character; percent-encode them")
    ) { try PreviewBasemap(parsing: "https://a/{z}/{x}/{y}.png?q=\"") }
    // what is left for the group's checks: a base map goes with the preview page
    var output = OutputOptions()
    output.previewBasemap = osm
    #expect(output.problems().map(\.message) == ["--preview-basemap goes with --preview (it is drawn in preview.html)"])
    output.preview = true
    #expect(output.problems().isEmpty)
  }

  @Test("a colour is read once; the encoding group no longer reads text")
  func colours() throws {
    var encoding = EncodingOptions()
    (encoding.background, encoding.knockout) = (try ColorRule(parsing: "white:8", option: "--background"), ColorRule(red: 0, green: 0, blue: 0))
    #expect(encoding.problems().isEmpty)
    // messages repeat the user's own text; it is no part of the value or its coding
    #expect(encoding.background?.spelled == "white:8" && encoding.knockout?.spelled == "#000000")
    let json = JSONEncoder()
    json.outputFormatting = .sortedKeys
    #expect(try String(decoding: json.encode(encoding.background), as: UTF8.self) == #"{"blue":255,"green":255,"red":255,"tolerance":8}"#)
    #expect(encoding.encoder().fill == ColorRule(red: 255, green: 255, blue: 255, tolerance: 8))
  }

  @Test("a floor's coordinates are typed from the file's numbers, in the floor's order whatever key comes first")
  func projectCoordinates() throws {
    let project = try ProjectLoader.parse(
      """
      lonlat: true
      buildings:
        - id: hq
          floors:
            - floor: 1
              source: a.png
              bounds: [-0.1275, 51.5006, -0.1255, 51.5016]
            - floor: 2
              source: a.png
              center: [51.5011, -0.1265]
              metersPerPixel: 0.05
              lonlat: false
            - floor: 3
              source: a.png
              gcp: [[0, 0, -0.1275, 51.5016], [4000, 3000, -0.1255, -0]]
      """, file: "t.yml")
    let floors = project.buildings[0].floors
    let one = try BuildJob.placementOptions(floors[0], in: project)
    #expect(one.bounds == GeoBounds(south: 51.5006, west: -0.1275, north: 51.5016, east: -0.1255) && one.lonLatOrder)
    let two = try BuildJob.placementOptions(floors[1], in: project)
    #expect(two.center == GeoPoint(latitude: 51.5011, longitude: -0.1265) && !two.lonLatOrder)
    let three = try BuildJob.placementOptions(floors[2], in: project)
    #expect(three.gcp.map { $0.text(order: .lonLat) } == ["0,0,-0.1275,51.5016", "4000,3000,-0.1255,0"])
    // -0 is 0, as when the file's numbers went through text
    #expect(three.gcp[1].point.latitude.sign == .plus)
  }

  @Test("several bad values of a project file are reported at once, each at its line:column, the first as before")
  func projectBadValues() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data("not read".utf8).write(to: URL(fileURLWithPath: dir + "/plan.png"))
    let file = dir + "/tilecut.yml"
    try """
    knockout: "white:999"
    background: "#zz"
    buildings:
      - id: hq
        floors:
          - floor: 1
            source: plan.png
            knockout: nope
          - floor: 2
            source: plan.png
            background: "1,2"
    """.write(toFile: file, atomically: true, encoding: .utf8)
    let thrown = #expect(throws: Failure.self) { try BuildJob.run(BuildRequest(file: file)) }
    let failure = try #require(thrown)
    #expect(failure.status == 2)
    let colour = "is not a colour; use a name (white, black), #rrggbb, #rgb or R,G,B, optionally :TOLERANCE"
    #expect(
      [failure.line] + failure.more == [
        // the run's colours in the order the command line reads them: --background first
        "\(file):2:1: background: '#zz' \(colour)",
        "\(file):1:1: knockout: tolerance '999' is not a whole number from 0 to 255",
        "\(file):8:9: hq floor 1: knockout: 'nope' \(colour)",
        "\(file):11:9: hq floor 2: background: '1,2' \(colour)",
      ])
  }
}
