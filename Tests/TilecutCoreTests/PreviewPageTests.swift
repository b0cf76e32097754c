import Foundation
import Testing

@testable import TilecutCore

@Suite("Preview page")
struct PreviewPageTests {
  func manifest(name: String) throws -> Manifest {
    let level = Manifest.Level(
      floor: -2, tileSize: 512, range: TileRange(zoom: 4, xRange: 0...1, yRange: 0...0), tiles: [TileCoordinate(zoom: 4, x: 1, y: 0)])
    return Manifest(
      tileSizes: [256, 512], floors: [-2, 7], name: name, levels: [level], footprints: [], generator: .init(version: "t", libvips: "v"),
      sources: [], options: [:], fingerprint: "f")
  }

  @Test("the page is self-contained and embeds the manifest")
  func selfContained() throws {
    let html = PreviewPage.html(manifest: try manifest(name: TileNameTemplate.defaultPattern))
    for banned in ["http://", "https://", "<script src", "<link", "@import", "url("] {
      #expect(!html.contains(banned), "\(banned)")
    }
    let start = try #require(html.range(of: "type=\"application/json\">"))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    let embedded = try Manifest.decode(Data(html[start.upperBound..<end.lowerBound].utf8))
    #expect(embedded.floors == [-2, 7] && embedded.levels.first?.rows == [[0, 1, 1]])
  }

  @Test("a name that contains </script> or <!-- cannot end the embedded JSON")
  func escapesScriptEnd() throws {
    let name = "a</script><!--<script>/{z}_{x}_{y}.png"
    let html = PreviewPage.html(manifest: try manifest(name: name))
    #expect(html.components(separatedBy: "</script>").count == 3)
    #expect(!html.contains("<!--"))
    let start = try #require(html.range(of: "type=\"application/json\">"))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    #expect(try Manifest.decode(Data(html[start.upperBound..<end.lowerBound].utf8)).name == name)
  }

  @Test("the page reads the floors, sizes, name, ranges and rows from the embedded manifest")
  func usesManifest() throws {
    let html = PreviewPage.html(manifest: try manifest(name: TileNameTemplate.defaultPattern))
    for needle in ["M.floors", "M.tileSizes", "M.name", "xRange", "yRange", "l.rows", "no tile"] {
      #expect(html.contains(needle), "\(needle)")
    }
  }
}
