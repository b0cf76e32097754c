import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

@Suite("georef command and preview options")
struct GeorefCommandTests {
  /// The configuration embedded in a georef page.
  func config(_ path: String) throws -> GeorefPage.Config {
    let html = try String(contentsOfFile: path, encoding: .utf8)
    let start = try #require(html.range(of: "type=\"application/json\">"))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    return try JSONDecoder().decode(GeorefPage.Config.self, from: Data(html[start.upperBound..<end.lowerBound].utf8))
  }

  @Test("the page holds the source's own pixels, one to one at its deepest zoom, and the --gcp points")
  func pixels() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = picture(width: 300, height: 200, seed: 4)
    try source.writePNG(to: dir + "/plan.png")
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/g.html", "--gcp", "10.5,20,52.5,13.4", "--gcp", "290,180,52.49,13.41"]) == 0)
    let c = try config(dir + "/g.html")
    #expect(c.width == 300 && c.height == 200 && c.maxZoom == 1)
    #expect(c.gcp == [[10.5, 20, 52.5, 13.4], [290, 180, 52.49, 13.41]])
    #expect(Set(c.tiles.keys) == ["0/0/0", "1/0/0", "1/1/0"])
    for (key, x) in [("1/0/0", 0), ("1/1/0", 256)] {
      let url = try #require(c.tiles[key])
      let bytes = try #require(Data(base64Encoded: String(url.dropFirst("data:image/png;base64,".count))))
      let tile = try RGBAImage.decode(bytes: [UInt8](bytes))
      #expect(tile.width == 256 && tile.height == 256)
      #expect(tile.crop(x: 0, y: 0, width: min(256, 300 - x), height: 200) == source.crop(x: x, y: 0, width: min(256, 300 - x), height: 200))
    }
  }

  @Test("-o replaces only a page georef wrote")
  func output() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 40, height: 30).writePNG(to: dir + "/plan.png")
    try "<html>mine</html>".write(toFile: dir + "/notes.html", atomically: true, encoding: .utf8)
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/notes.html"]) != 0)
    #expect(try String(contentsOfFile: dir + "/notes.html", encoding: .utf8) == "<html>mine</html>")
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/plan.png"]) != 0)
    #expect(try RGBAImage.decode(file: dir + "/plan.png") == picture(width: 40, height: 30))
    try FileManager.default.createDirectory(atPath: dir + "/d", withIntermediateDirectories: false)
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/d"]) != 0)
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/g.html"]) == 0)
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/g.html", "--gcp", "1,2,52.5,13.4", "--gcp", "30,20,52.49,13.41"]) == 0)
    #expect(try config(dir + "/g.html").gcp.count == 2)
  }

  @Test(
    "base map options: a template with {z}/{x}/{y}, with --preview; attribution with a base map",
    arguments: [
      ["--preview-basemap", "https://t.example/{z}/{x}/{y}.png"],
      ["--preview", "--preview-basemap", "https://t.example/{z}/{x}.png"],
      ["--preview", "--preview-basemap", "t.example/{z}/{x}/{y}.png"],
      ["--preview", "--preview-attribution", "someone"],
    ])
  func basemapOptions(_ args: [String]) throws {
    #expect(throws: (any Error).self) { _ = try TilecutCommand.parseAsRoot(["plan.png"] + args) }
  }

  @Test("a base map and its attribution reach the manifest's options, which the page reads")
  func basemapInManifest() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 64, height: 64).writePNG(to: dir + "/plan.png")
    let url = "https://tile.example.org/{z}/{x}/{y}.png"
    #expect(
      try tilecut([
        dir + "/plan.png", "--bounds", "52.5,13.4,52.5005,13.4008", "--tile-size", "256", "-o", dir + "/out", "--preview",
        "--preview-basemap", url, "--preview-attribution", "© someone",
      ]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    #expect(manifest.options["previewBasemap"] == url && manifest.options["previewAttribution"] == "© someone")
    #expect(manifest.placements?.first?.method == .bounds)
    let html = try String(contentsOfFile: dir + "/out/preview.html", encoding: .utf8)
    #expect(html.contains(url) && html.contains("options.previewBasemap"))
  }
}
