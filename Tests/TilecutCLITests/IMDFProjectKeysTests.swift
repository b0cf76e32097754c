import Foundation
import Testing
import TilecutVips

/// A small venue written by a test: one level (ordinal 0) around a square unit of about
/// 40 m near 52° N, 5° E named "Hall" / "Зал", plus `extraUnits` (GeoJSON features of
/// unit.geojson, as text) and `extraLevel` (a level's `geometry`, as text).
func writeVenue(_ dir: String, extraUnits: [String] = [], levelGeometry: String? = nil) throws -> String {
  let venue = dir + "/venue"
  try FileManager.default.createDirectory(atPath: venue, withIntermediateDirectories: true)
  let square = "[[[5.0,52.0],[5.0006,52.0],[5.0006,52.0004],[5.0,52.0004],[5.0,52.0]]]"
  let outline = levelGeometry ?? "{\"type\":\"Polygon\",\"coordinates\":\(square)}"
  let files = [
    "manifest.json": #"{"version":"1.0.0","language":"en"}"#,
    "level.geojson":
      #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"lvl-0","feature_type":"level","geometry":"#
      + outline + #","properties":{"ordinal":0,"category":"unspecified","short_name":{"en":"G"},"name":{"en":"Ground"}}}]}"#,
    "unit.geojson":
      #"{"type":"FeatureCollection","features":["#
      + ([
        #"{"type":"Feature","id":"unit-hall","feature_type":"unit","geometry":{"type":"Polygon","coordinates":"#
          + square + #"},"properties":{"category":"room","level_id":"lvl-0","name":{"en":"Hall","ru":"Зал"}}}"#
      ] + extraUnits).joined(separator: ",") + "]}",
  ]
  for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: venue + "/" + name)) }
  return venue
}

/// Every PNG tile below `folder`, decoded: name → RGBA pixels.
func decodedTiles(_ folder: String) throws -> [String: [UInt8]] {
  var out: [String: [UInt8]] = [:]
  let names = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
  for name in names { out[name] = try RGBAImage.decode(file: folder + "/" + name).pixels }
  return out
}

/// Pixels, among decoded tiles, that are opaque and pure red (a style file's fill).
func redPixels(_ tiles: [String: [UInt8]]) -> Int {
  var n = 0
  for pixels in tiles.values {
    for i in stride(from: 0, to: pixels.count, by: 4) where pixels[i + 3] > 200 && pixels[i] > 230 && pixels[i + 1] < 30 && pixels[i + 2] < 30 {
      n += 1
    }
  }
  return n
}

/// A project file's `language:` and `venueStyle:` keys, as `--language` and `--venue-style`.
@Suite("project file: an IMDF venue's language and style")
struct IMDFProjectKeysTests {
  func project(_ dir: String, keys: [String]) throws -> String {
    let file = dir + "/tilecut.yml"
    let yaml = """
      minZoom: 20
      maxZoom: 20
      tileSizes: [256]
      output: out
      force: true
      buildings:
        - id: hq
          floors:
            - floor: 0
              source: venue[floor=0]
      """ + keys.map { "\n        \($0)" }.joined()
    try Data(yaml.utf8).write(to: URL(fileURLWithPath: file))
    return file
  }

  @Test("language: draws the labels in that language; venueStyle: (relative to the file) paints the units")
  func languageAndStyle() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = try writeVenue(dir)
    try Data(##"{"unit.room": {"fill": "#ff0000"}}"##.utf8).write(to: URL(fileURLWithPath: dir + "/style.json"))
    var drawn: [String: [String: [UInt8]]] = [:]
    for (name, keys) in [("plain", []), ("en", ["language: en"]), ("ru", ["language: ru"]), ("styled", ["venueStyle: style.json"])] {
      let r = try runTool(["build", try project(dir, keys: keys), "--quiet"], timeout: 120)
      #expect(r.status == 0, "\(r.stderr)")
      drawn[name] = try decodedTiles(dir + "/out")
    }
    #expect(drawn["plain"]?.isEmpty == false)
    #expect(drawn["en"] == drawn["plain"])
    #expect(drawn["ru"] != drawn["en"])
    #expect(redPixels(drawn["plain"] ?? [:]) == 0)
    // the unit is some 270 × 290 px at zoom 20; most of it red
    #expect(redPixels(drawn["styled"] ?? [:]) > 30_000, "\(redPixels(drawn["styled"] ?? [:]))")
  }

  @Test(
    "a wrong language, a missing style file, or either key for a source that is no venue: one line at the key",
    arguments: [
      ("language: \"en us\"", "takes a language tag such as en"),
      ("venueStyle: nowhere.json", "nowhere.json is no regular file"),
      ("language: ru\n        source: plan.png", "'language' is for an IMDF venue's floor"),
    ])
  func refused(key: String, expected: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = try writeVenue(dir)
    var file = try project(dir, keys: [key])
    if key.contains("plan.png") {
      // the floor's source replaced by a plain image
      try Data(repeating: 0, count: 0).write(to: URL(fileURLWithPath: dir + "/plan.png"))
      let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "        source: venue[floor=0]\n", with: "")
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
      file = dir + "/tilecut.yml"
    }
    let r = try runTool(["build", file], timeout: 60)
    #expect(r.status != 0)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("tilecut.yml:") && r.stderr.contains(expected), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }
}
