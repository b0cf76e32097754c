import Foundation
import Testing

@testable import TilecutCore

@Suite("Web-Mercator tile math, against mercantile")
struct WebMercatorTests {
  // Expected tiles from mercantile 1.2 (mercantile.tile(lon, lat, z)).
  @Test(
    "the tile containing a point",
    arguments: [
      (51.5074, -0.1278, 5, 15, 10), (51.5074, -0.1278, 15, 16372, 10896), (51.5074, -0.1278, 18, 130978, 87169),
      (51.5074, -0.1278, 21, 1_047_831, 697_356), (-33.8688, 151.2093, 10, 942, 614), (-33.8688, 151.2093, 18, 241179, 157310),
      (40.7128, -74.0060, 15, 9647, 12320), (40.7128, -74.0060, 21, 617459, 788488), (85.0, 10.0, 10, 540, 1),
      (85.0, 10.0, 18, 138353, 429), (0.0, 179.9999, 18, 262143, 131072), (0.0, 0.0, 15, 16384, 16384),
    ])
  func tileContaining(lat: Double, lon: Double, zoom: Int, x: Int, y: Int) {
    #expect(WebMercator.tile(containing: GeoPoint(latitude: lat, longitude: lon), zoom: zoom) == TileCoordinate(zoom: zoom, x: x, y: y))
  }

  // Expected ranges from mercantile.tiles(-0.1285, 51.5006, -0.1255, 51.5020, [z]).
  @Test("the tile range of known bounds", arguments: [(16, 32744, 32745, 21793, 21794), (17, 65489, 65490, 43587, 43588), (18, 130978, 130980, 87175, 87177), (19, 261956, 261961, 174351, 174355)])
  func rangeOfBounds(zoom: Int, x0: Int, x1: Int, y0: Int, y1: Int) {
    let rect = WorldRect(enclosing: [
      WebMercator.world(GeoPoint(latitude: 51.5020, longitude: -0.1285)), WebMercator.world(GeoPoint(latitude: 51.5006, longitude: -0.1255)),
    ])
    #expect(WebMercator.tileRange(covering: rect, zoom: zoom, tileSize: 256) == TileRange(zoom: zoom, xRange: x0...x1, yRange: y0...y1))
  }

  @Test("bounds exactly on tile edges give exactly that tile, no extra row or column")
  func tileAlignedBounds() {
    // mercantile.bounds(130978, 87176, 18)
    let rect = WorldRect(enclosing: [
      WebMercator.world(GeoPoint(latitude: 51.50190410761812, longitude: -0.12908935546875)),
      WebMercator.world(GeoPoint(latitude: 51.501049241560175, longitude: -0.127716064453125)),
    ])
    #expect(WebMercator.tileRange(covering: rect, zoom: 18, tileSize: 256) == TileRange(zoom: 18, xRange: 130978...130978, yRange: 87176...87176))
    #expect(WebMercator.tileRange(covering: rect, zoom: 17, tileSize: 512) == TileRange(zoom: 17, xRange: 65489...65489, yRange: 43588...43588))
    #expect(WebMercator.tileRange(covering: rect, zoom: 19, tileSize: 256)?.count == 4)
  }

  @Test("u/v and lon/lat round-trip; latitudes clamp at ±85.05112878°")
  func roundTrips() {
    for lat in stride(from: -85.0, through: 85.0, by: 12.5) {
      #expect(abs(WebMercator.latitudeDegrees(v: WebMercator.v(latitudeDegrees: lat)) - lat) < 1e-9)
    }
    #expect(WebMercator.v(latitudeDegrees: 89) == WebMercator.v(latitudeDegrees: 85.0511287798066))
    #expect(abs(WebMercator.v(latitudeDegrees: 85.0511287798066)) < 1e-12)
    #expect(WebMercator.u(longitudeDegrees: -180) == 0 && WebMercator.u(longitudeDegrees: 0) == 0.5)
  }
}

@Suite("Placements")
struct GeoreferenceTests {
  @Test("bounds put the corners on the lines")
  func boundsCorners() throws {
    let p = try Georeference.bounds(south: 51.5006, west: -0.1285, north: 51.5020, east: -0.1255, width: 1000, height: 700)
    let nw = p.world(col: 0, row: 0)
    let se = p.world(col: 1000, row: 700)
    #expect(abs(WebMercator.geo(nw).latitude - 51.5020) < 1e-9 && abs(WebMercator.geo(nw).longitude + 0.1285) < 1e-9)
    #expect(abs(WebMercator.geo(se).latitude - 51.5006) < 1e-9 && abs(WebMercator.geo(se).longitude + 0.1255) < 1e-9)
    let ll = try Georeference.bounds(south: 10, west: 20, north: 60, east: 40, width: 100, height: 100, projection: .lonLat)
    // the middle row is at the middle latitude, not the middle of Mercator v
    #expect(abs(WebMercator.geo(ll.world(col: 50, row: 50)).latitude - 35) < 1e-9)
  }

  @Test(
    "bad bounds name the option",
    arguments: [
      ("51.6,-0.1,51.5,0", "south"), ("91,0,92,1", "latitude"), ("151.20,-33.87,151.21,-33.86", "swap"), ("1,2,3", "SOUTH,WEST,NORTH,EAST"),
      ("a,b,c,d", "not a number"), ("10,170,20,-170", "antimeridian"),
    ])
  func badBounds(text: String, mentions: String) {
    do {
      _ = try Georeference.parseBounds(text)
      Issue.record("\(text) was accepted")
    } catch {
      #expect("\(error)".hasPrefix("--bounds:") && "\(error)".contains(mentions), "\(error)")
    }
  }

  @Test("two control points recover a similarity exactly")
  func twoPoints() throws {
    let truth = try Georeference.center(GeoPoint(latitude: 48.8584, longitude: 2.2945), metersPerPixel: 0.1, rotationDegrees: 30, width: 2000, height: 1000)
    let pts = [(100.0, 50.0), (1900.0, 900.0)].map { c, r in ControlPoint(col: c, row: r, point: WebMercator.geo(truth.world(col: c, row: r))) }
    let (fit, report) = try Georeference.fit(pts, width: 2000, height: 1000)
    #expect(report.rmsPixels < 1e-6)
    for (c, r) in [(0.0, 0.0), (2000.0, 1000.0), (700.0, 300.0)] {
      let a = fit.world(col: c, row: r)
      let b = truth.world(col: c, row: r)
      #expect(abs(a.u - b.u) < 1e-12 && abs(a.v - b.v) < 1e-12)
    }
  }

  @Test("an affine fit of good points has a small residual; a mistyped point is flagged")
  func affineFit() throws {
    let truth = try Georeference.bounds(south: 40.0, west: -74.01, north: 40.01, east: -74.0, width: 3000, height: 4000)
    var pts = [(0.0, 0.0), (3000.0, 0.0), (3000.0, 4000.0), (0.0, 4000.0), (1500.0, 2000.0)].map { c, r in
      ControlPoint(col: c, row: r, point: WebMercator.geo(truth.world(col: c, row: r)))
    }
    let (_, good) = try Georeference.fit(pts, width: 3000, height: 4000)
    #expect(good.rmsPixels < 0.01 && !good.isSuspicious)
    pts[4].point.latitude += 0.001  // a typo of about 110 m
    let (_, bad) = try Georeference.fit(pts, width: 3000, height: 4000)
    #expect(bad.isSuspicious && bad.worstIndex == 4 && bad.rmsMeters > 10)
  }

  @Test("too few, repeated, collinear or mirrored control points are refused")
  func badControlPoints() throws {
    let p = { (c: Double, r: Double, lat: Double, lon: Double) in ControlPoint(col: c, row: r, point: GeoPoint(latitude: lat, longitude: lon)) }
    #expect(throws: TilecutError.self) { try Georeference.fit([p(0, 0, 1, 1)], width: 10, height: 10) }
    #expect(throws: TilecutError.self) { try Georeference.fit([p(0, 0, 1, 1), p(0, 0, 2, 2)], width: 10, height: 10) }
    #expect(throws: TilecutError.self) { try Georeference.fit([p(0, 0, 1, 1), p(5, 5, 1.1, 1.1), p(10, 10, 1.2, 1.2)], width: 10, height: 10) }
    // x grows east but the points put column 10 west of column 0: a mirror image
    #expect(throws: TilecutError.self) { try Georeference.fit([p(0, 0, 1, 1), p(10, 0, 1, 0.99), p(0, 10, 0.99, 1)], width: 10, height: 10) }
    #expect(throws: TilecutError.self) { try Georeference.parseControlPoint("1,2,3") }
  }

  @Test("centre, scale and rotation: 0° is north-up, 90° puts the top edge on the east")
  func centerRotation() throws {
    let centre = GeoPoint(latitude: 60, longitude: 10)
    let up = try Georeference.center(centre, metersPerPixel: 0.5, rotationDegrees: 0, width: 400, height: 200)
    let mid = up.world(col: 200, row: 100)
    #expect(abs(WebMercator.geo(mid).latitude - 60) < 1e-9)
    let top = up.world(col: 200, row: 0)
    #expect(top.v < mid.v && abs(top.u - mid.u) < 1e-15)
    // 400 px × 0.5 m = 200 m across, on the ground at latitude 60
    let west = up.world(col: 0, row: 100)
    let east = up.world(col: 400, row: 100)
    #expect(abs((east.u - west.u) * WebMercator.groundMetersPerWorldUnit(latitudeDegrees: 60) - 200) < 0.01)
    let turned = try Georeference.center(centre, metersPerPixel: 0.5, rotationDegrees: 90, width: 400, height: 200)
    let topMid = turned.world(col: 200, row: 0)
    #expect(topMid.u > mid.u && abs(topMid.v - mid.v) < 1e-12)
    #expect(throws: TilecutError.self) { try Georeference.center(centre, metersPerPixel: 0, rotationDegrees: 0, width: 1, height: 1) }
    #expect(throws: TilecutError.self) { try Georeference.center(centre, metersPerPixel: -1, rotationDegrees: 0, width: 1, height: 1) }
  }

  @Test("latitude beyond the Mercator limit suggests a swap")
  func swapHint() {
    do {
      _ = try Georeference.parseLatLon("151.2,-33.8", option: "--center")
      Issue.record("accepted")
    } catch { #expect("\(error)".contains("swap")) }
  }
}

@Suite("World files")
struct WorldFileTests {
  @Test("a 3857 world file names the centre of the top-left pixel")
  func mercatorWorldFile() throws {
    let text = "0.5\n0\n0\n-0.5\n-14305.25\n6711542.75\n"
    let t = try WorldFile.parse(text, path: "plan.pgw")
    // the corner is half a pixel up and left of the named centre
    #expect(t.apply(0, 0) == (x: -14305.5, y: 6711543.0))
    let p = try WorldFile.placement(transform: t, crs: .epsg3857)
    let corner = p.world(col: 0, row: 0)
    let expected = WebMercator.world(metersX: -14305.5, metersY: 6711543.0)
    #expect(abs(corner.u - expected.u) < 1e-15 && abs(corner.v - expected.v) < 1e-15)
    #expect(p.nativeZoom(width: 1000, height: 1000) == 18)
  }

  @Test("a degrees world file gives a lon/lat placement")
  func degreesWorldFile() throws {
    let t = try WorldFile.parse("0.001\n0\n0\n-0.001\n10.0005\n50.9995\n", path: "m.wld")
    let p = try WorldFile.placement(transform: t, crs: .epsg4326)
    #expect(p.projection == .lonLat)
    let nw = WebMercator.geo(p.world(col: 0, row: 0))
    #expect(abs(nw.longitude - 10) < 1e-12 && abs(nw.latitude - 51) < 1e-9)
  }

  @Test("sidecar names follow the image's extension")
  func sidecars() {
    let c = WorldFile.sidecarCandidates(for: "/x/plan.png")
    #expect(Array(c.prefix(3)) == ["/x/plan.pgw", "/x/plan.PGW", "/x/plan.pngw"])
    #expect(c.contains("/x/plan.wld"))
    #expect(WorldFile.sidecarCandidates(for: "a.tif").first == "a.tfw")
    #expect(WorldFile.sidecarCandidates(for: "a.jpg").first == "a.jgw")
  }

  @Test("malformed world files are refused with the path")
  func malformed() {
    for text in ["1\n2\n3", "1\n0\n0\n-1\nx\n0", "0\n0\n0\n0\n1\n1"] {
      do {
        _ = try WorldFile.parse(text, path: "bad.pgw")
        Issue.record("accepted \(text)")
      } catch { #expect("\(error)".hasPrefix("bad.pgw:")) }
    }
  }
}

@Suite("Planner")
struct PlannerTests {
  @Test("raster max zoom is the smallest z with 256·2^z ≥ the longer side", arguments: [(1, 0), (256, 0), (257, 1), (4096, 4), (5000, 5), (16384, 6), (50000, 8)])
  func rasterMaxZoom(side: Int, zoom: Int) {
    #expect(PyramidPlanner.rasterMaxZoom(width: side, height: side / 2 + 1) == zoom)
  }

  @Test("georeferenced defaults: max zoom not finer than the source, min zoom where one tile holds it all")
  func georeferencedDefaults() throws {
    let p = try Georeference.bounds(south: 51.5006, west: -0.1285, north: 51.5020, east: -0.1255, width: 1000, height: 700)
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    let plan = try PyramidPlanner.plan(floor: 1, source: source, placement: p, request: PlanRequest(tileSizes: [256]))
    let zooms = plan.levels.flatMap { $0.cuts.map(\.zoom) }
    #expect(zooms.max() == 18 && zooms.min() == 14)
    #expect(plan.levels.first?.source == .direct && plan.levels.dropFirst().allSatisfy { $0.source == .reduced })
  }

  @Test("512 tiles at zoom z are cut from density z + 1; raster 512 at max zoom is upsampled")
  func retinaDensity() throws {
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    let plan = try PyramidPlanner.plan(floor: 1, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(maxZoom: 2))
    for level in plan.levels {
      for cut in level.cuts { #expect(level.density == cut.zoom + (cut.tileSize == 512 ? 1 : 0)) }
    }
    #expect(plan.levels[0].density == 3 && plan.levels[0].upsampled && plan.standalone.count == 1)
    #expect(plan.chain.first?.density == 2 && plan.chain.first?.upsampled == false)
    let top = try #require(plan.levels.first { $0.density == 2 }?.cuts.first { $0.tileSize == 256 })
    #expect(top.range == TileRange(zoom: 2, xRange: 0...3, yRange: 0...2))
  }
}
