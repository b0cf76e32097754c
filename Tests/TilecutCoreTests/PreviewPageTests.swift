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

@Suite("Placements in the manifest and the georef page")
struct PlacedFloorTests {
  static let points = [
    ControlPoint(col: 10, row: 15, point: GeoPoint(latitude: 52.5162, longitude: 13.3781)),
    ControlPoint(col: 390, row: 20, point: GeoPoint(latitude: 52.51615, longitude: 13.3801)),
    ControlPoint(col: 385, row: 280, point: GeoPoint(latitude: 52.51535, longitude: 13.38005)),
    ControlPoint(col: 15, row: 275, point: GeoPoint(latitude: 52.5154, longitude: 13.37815)),
  ]

  @Test("a gcp placement's record has the fit's residuals and the image's mapped edge")
  func residuals() throws {
    let (placement, report) = try Georeference.fit(Self.points, width: 400, height: 300)
    let floor = Floor(3)
    let placed = Manifest.PlacedFloor(floor: floor, placement: placement, mapping: nil, width: 400, height: 300)
    #expect(placed.method == .gcp)
    let points = try #require(placed.controlPoints)
    #expect(points.count == 4)
    #expect(abs((placed.rmsPixels ?? 0) - report.rmsPixels) <= 1e-9 * max(1, report.rmsPixels))
    #expect(abs((placed.rmsMeters ?? 0) - report.rmsMeters) <= 1e-9 * max(1, report.rmsMeters))
    #expect(report.rmsPixels > 0.1)
    #expect(abs(points.map(\.residualPixels).max()! - report.maxPixels) <= 1e-9)
    // the fitted place of each point is where the placement puts its pixel
    for (p, c) in zip(points, Self.points) {
      let fitted = WebMercator.geo(placement.world(col: c.col, row: c.row))
      #expect(abs(p.fittedLatitude - fitted.latitude) < 1e-12 && abs(p.fittedLongitude - fitted.longitude) < 1e-12)
    }
    #expect(placed.outline.count == 4 * Manifest.PlacedFloor.sideSteps)
    let corners = placement.corners(width: 400, height: 300).map(WebMercator.geo)
    for (k, corner) in corners.enumerated() {
      let q = placed.outline[k * Manifest.PlacedFloor.sideSteps]
      #expect(abs(q[0] - corner.latitude) < 1e-12 && abs(q[1] - corner.longitude) < 1e-12)
    }
    // a placement without control points has none in its record
    let bounds = try Georeference.bounds(south: 52.5, west: 13.3, north: 52.6, east: 13.4, width: 400, height: 300)
    #expect(Manifest.PlacedFloor(floor: floor, placement: bounds, mapping: nil, width: 400, height: 300).controlPoints == nil)
  }

  @Test("placements round-trip through manifest.json; a manifest without them still decodes")
  func roundTrip() throws {
    let (placement, _) = try Georeference.fit(Self.points, width: 400, height: 300)
    let level = Manifest.Level(floor: Floor(1), tileSize: 256, range: TileRange(zoom: 2, xRange: 0...0, yRange: 0...0), tiles: [])
    var manifest = Manifest(
      tileSizes: [256], floors: [Floor(1)], name: TileNameTemplate.defaultPattern, levels: [level], footprints: [],
      generator: .init(version: "t", libvips: "v"), sources: [], options: [:], fingerprint: "f")
    let old = try Manifest.decode(try manifest.encoded())
    #expect(old.placements == nil)
    manifest.placements = [Manifest.PlacedFloor(floor: Floor(1), placement: placement, mapping: nil, width: 400, height: 300)]
    let decoded = try Manifest.decode(try manifest.encoded())
    #expect(decoded.placements == manifest.placements)
    let html = PreviewPage.html(manifest: manifest)
    for needle in ["M.placements", "controlPoints", "residualPixels", "tilecutPreview", "previewBasemap", "graticule"] {
      #expect(html.contains(needle), "\(needle)")
    }
  }

  @Test("the georef page is self-contained, marked as tilecut's, and embeds its configuration safely")
  func georefPage() throws {
    let config = GeorefPage.Config(
      source: "a</script><!--b.png", page: nil, width: 300, height: 200, maxZoom: 1, tiles: ["1/0/0": GeorefPage.dataURL(png: [1, 2, 3])],
      gcp: [[1, 2, 52.5, 13.4]])
    let html = try GeorefPage.html(config: config)
    for banned in ["http://", "https://", "<script src", "<link", "@import", "url(", "<!--"] {
      #expect(!html.contains(banned), "\(banned)")
    }
    #expect(html.components(separatedBy: "</script>").count == 3)
    #expect(GeorefPage.isGeorefPage(start: Array(html.utf8.prefix(4096))))
    #expect(!GeorefPage.isGeorefPage(start: Array(PreviewPage.template.utf8.prefix(4096))))
    let start = try #require(html.range(of: "type=\"application/json\">"))
    let end = try #require(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
    let embedded = try JSONDecoder().decode(GeorefPage.Config.self, from: Data(html[start.upperBound..<end.lowerBound].utf8))
    #expect(embedded == config)
    #expect(embedded.tiles["1/0/0"] == "data:image/png;base64,AQID")
  }
}
