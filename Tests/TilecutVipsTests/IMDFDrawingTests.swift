import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

@Suite("IMDF labels, style and drawing")
struct IMDFDrawingTests {
  static let labels = IMDFLabels(texts: ["en": "Stairs", "ru": "Лестница", "zh-Hant": "樓梯", "fr-CA": "Escalier"])

  @Test(
    "a label in the language asked for, falling back as IMDF's localised names do",
    arguments: [
      ("ru", "en", "Лестница"),  // exact
      ("RU", "en", "Лестница"),  // tags ignore case
      ("en-GB", "ru", "Stairs"),  // same language, another region
      ("zh", "en", "樓梯"),  // a language with a script subtag
      ("fr", "en", "Escalier"),  // a region's name for the bare language
      ("de", "ru", "Лестница"),  // absent: the venue's language
      ("de", "it", "Stairs"),  // neither: the first tag in order (en)
    ])
  func fallback(asked: String, venue: String, expected: String) {
    #expect(Self.labels.text(language: asked, venueLanguage: venue) == expected)
  }

  @Test("a category's paint overrides its layer's, field by field; a style file's over both")
  func paints() throws {
    let style = IMDFStyle.standard
    #expect(style.paint("unit", category: "restroom.female").fill == "#d9e8f5")
    #expect(style.paint("unit", category: "restroom.female").stroke == style.paint("unit").stroke)
    #expect(style.paint("unit", category: "no-such-category").fill == style.paint("unit").fill)
    let dir = NSTemporaryDirectory() + "imdf-style-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = dir + "/style.json"
    try Data(##"{"unit.classroom": {"fill": "#ABC"}, "unit": {"width": 2}}"##.utf8).write(to: URL(fileURLWithPath: file))
    let mine = try style.overlaid(file: file)
    #expect(mine.paint("unit", category: "classroom").fill == "#ABC")
    #expect(mine.paint("unit", category: "classroom").width == 2)
    #expect(mine.paint("unit").fill == style.paint("unit").fill)
    for bad in [##"{"unit": {"fill": "red\" onload=\"x"}}"##, ##"{"roof": {"fill": "#fff"}}"##, ##"{"unit": {"width": 1e9}}"##, "[1]"] {
      try Data(bad.utf8).write(to: URL(fileURLWithPath: file))
      #expect(throws: TilecutError.self) { try style.overlaid(file: file) }
    }
    // a misspelt paint key was ignored (exit 0, the paint not given): refused, naming it and the keys a paint takes
    for (bad, key) in [(##"{"unit.room": {"fil": "#ff0000"}}"##, "fil"), (##"{"unit": {"stroke": "#fff", "strok": "#000"}}"##, "strok")] {
      try Data(bad.utf8).write(to: URL(fileURLWithPath: file))
      #expect(throws: TilecutError.self) { try style.overlaid(file: file) }
      do {
        _ = try style.overlaid(file: file)
      } catch {
        #expect("\(error)".contains("has '\(key)', which is no paint key; a paint takes fill, stroke, width, size"), "\(error)")
      }
    }
  }

  @Test("colours are #rgb, #rrggbb, #rrggbbaa or none; nothing else reaches the SVG")
  func colours() {
    #expect(IMDFStyle.svgColour("#abc")?.colour == "#aabbcc")
    #expect(IMDFStyle.svgColour("#11223380")?.colour == "#112233")
    #expect(abs((IMDFStyle.svgColour("#11223380")?.opacity ?? 0) - 128.0 / 255) < 1e-9)
    #expect(IMDFStyle.svgColour("none")?.colour == "none")
    for bad in ["red", "#12", "#ggg", "#fff\" x=\"", "url(#a)"] { #expect(IMDFStyle.svgColour(bad) == nil) }
    // Character.isHexDigit takes full-width digits and letters: units were drawn black
    for bad in ["#ｆｆ０", "#ＡＢＣ", "#１２３４５６"] { #expect(IMDFStyle.svgColour(bad) == nil, "\(bad)") }
  }

  /// A floor of one square unit of 100 × 100 sheet pixels at zoom 20, named `name`.
  func floor(names: [(String, Double)]) -> IMDFFloor {
    let world = WebMercator.worldPixels(zoom: 20)
    func lonLat(_ x: Double, _ y: Double) -> LonLat {
      LonLat(lon: x / world * 360 - 180, lat: atan(sinh(Double.pi * (1 - 2 * y / world))) * 180 / .pi)
    }
    let (x0, y0) = (world / 2, world / 2)
    let ring = [lonLat(x0, y0), lonLat(x0 + 100, y0), lonLat(x0 + 100, y0 + 100), lonLat(x0, y0 + 100), lonLat(x0, y0)]
    var features = [
      IMDFFeature(
        kind: "unit", id: "u", file: "unit.geojson", category: "room", geometry: .polygons([[ring]]), levelID: "l", name: nil, shortName: nil,
        displayPoint: nil, references: [], ordinal: nil)
    ]
    for (i, (name, priority)) in names.enumerated() {
      features.append(
        IMDFFeature(
          kind: priority > 2 ? "occupant" : "amenity", id: "a\(i)", file: "x.geojson", category: nil, geometry: .points([lonLat(x0 + 50, y0 + 50)]),
          levelID: "l", name: IMDFLabels(texts: ["en": name]), shortName: nil, displayPoint: nil, references: [], ordinal: nil))
    }
    return IMDFFloor(
      ordinal: 0, levels: [], features: features, zoom: 20, originX: Int(x0), originY: Int(y0), width: 100, height: 100, metersPerPixel: 0.1)
  }

  @Test("labels that would overlap keep the one of higher priority; their text is escaped")
  func collisions() {
    let svg = IMDFDrawing.svg(
      floor(names: [("Lift", 1), ("Shop <&> \"A\"", 3)]), scale: 1, style: .standard, language: "en", venueLanguage: "en")
    #expect(svg.contains("Shop &lt;&amp;&gt; &quot;A&quot;"))
    #expect(!svg.contains(">Lift<"))
    // alone, it is drawn
    let both = IMDFDrawing.svg(floor(names: [("Lift", 1)]), scale: 1, style: .standard, language: "en", venueLanguage: "en")
    #expect(both.contains(">Lift<"))
  }

  @Test("line widths, symbols and labels keep their size in tile pixels at every scale")
  func legibleAtEveryScale() {
    for scale in [0.125, 1.0, 8.0] {
      let svg = IMDFDrawing.svg(floor(names: [("Lift", 1)]), scale: scale, style: .standard, language: "en", venueLanguage: "en")
      #expect(svg.contains("font-size=\"\(IMDFDrawing.number(11 / scale))\""))
      #expect(svg.contains("r=\"\(IMDFDrawing.number(3.5 / scale))\""))
    }
  }

  @Test("a file's JSON: a byte-order mark is skipped, nesting is measured outside strings and refused past 64")
  func json() throws {
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(#"{"features": []}"#.utf8)
    #expect((try IMDFVenue.object(bom, file: "unit.geojson") as? [String: Any])?["features"] != nil)
    #expect(IMDFFiles.depth(Array(#"{"a": [[1, 2]], "b": "[[[[["}"#.utf8)) == 3)
    #expect(IMDFFiles.depth(Array("]".utf8)) == nil)
    let deep = Array((String(repeating: "[", count: 65) + String(repeating: "]", count: 65)).utf8)
    #expect(throws: KMLProblem.self) { try IMDFVenue.object(deep, file: "unit.geojson") }
  }
}
