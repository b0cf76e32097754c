import Foundation
import Testing

@testable import TilecutCore

/// Web-Mercator tile math checked against mercantile, an independent implementation.
@Suite("Web-Mercator tile math, against mercantile")
struct WebMercatorTests {
  /// (lat, lon, zoom, x, y) from mercantile 1.2.1: `mercantile.tile(lon, lat, zoom)`.
  static let tilesContaining: [(Double, Double, Int, Int, Int)] = [
    (51.5074, -0.1278, 0, 0, 0), (51.5074, -0.1278, 1, 0, 0), (51.5074, -0.1278, 5, 15, 10),
    (51.5074, -0.1278, 10, 511, 340), (51.5074, -0.1278, 15, 16372, 10896), (51.5074, -0.1278, 18, 130978, 87169),
    (51.5074, -0.1278, 21, 1_047_831, 697_356),
    (-33.8688, 151.2093, 1, 1, 1), (-33.8688, 151.2093, 5, 29, 19), (-33.8688, 151.2093, 10, 942, 614),
    (-33.8688, 151.2093, 15, 30147, 19663), (-33.8688, 151.2093, 18, 241179, 157310),
    (-33.8688, 151.2093, 21, 1_929_434, 1_258_484),
    (40.7128, -74.006, 5, 9, 12), (40.7128, -74.006, 10, 301, 385), (40.7128, -74.006, 15, 9647, 12320),
    (40.7128, -74.006, 18, 77182, 98561), (40.7128, -74.006, 21, 617_459, 788_488),
    (35.6762, 139.6503, 10, 909, 403), (35.6762, 139.6503, 18, 232762, 103231),
    (-22.9068, -43.1729, 10, 389, 578), (-22.9068, -43.1729, 18, 99634, 148215),
    (85.0, 10.0, 1, 1, 0), (85.0, 10.0, 5, 16, 0), (85.0, 10.0, 10, 540, 1), (85.0, 10.0, 15, 17294, 53),
    (85.0, 10.0, 18, 138353, 429), (85.0, 10.0, 21, 1_106_830, 3434),
    (-85.0, -10.0, 1, 0, 1), (-85.0, -10.0, 10, 483, 1022), (-85.0, -10.0, 18, 123790, 261714),
    (0.0, -180.0, 0, 0, 0), (0.0, -180.0, 5, 0, 16), (0.0, -180.0, 18, 0, 131072),
    (0.0, 180.0, 0, 0, 0), (0.0, 180.0, 1, 1, 1), (0.0, 180.0, 5, 31, 16), (0.0, 180.0, 18, 262143, 131072),
    (0.0, 180.0, 21, 2_097_151, 1_048_576),
    (45.0, 180.0, 10, 1023, 368), (45.0, 180.0, 18, 262143, 94299), (-45.0, -180.0, 10, 0, 655),
    (-45.0, -180.0, 18, 0, 167844),
    (0.0, 0.0, 0, 0, 0), (0.0, 0.0, 1, 1, 1), (0.0, 0.0, 15, 16384, 16384), (0.0, 0.0, 21, 1_048_576, 1_048_576),
  ]

  @Test("the tile containing a point", arguments: tilesContaining)
  func tileContaining(lat: Double, lon: Double, zoom: Int, x: Int, y: Int) {
    let tile = WebMercator.tile(containing: GeoPoint(latitude: lat, longitude: lon), zoom: zoom)
    #expect(tile == TileCoordinate(zoom: zoom, x: x, y: y))
  }

  /// (west, south, east, north, zoom, x0, x1, y0, y1) from mercantile 1.2.1:
  /// min and max of `mercantile.tiles(west, south, east, north, [zoom])`.
  static let rangesOfBounds: [(Double, Double, Double, Double, Int, Int, Int, Int, Int)] = [
    // London, around Westminster
    (-0.1285, 51.5006, -0.1255, 51.502, 0, 0, 0, 0, 0), (-0.1285, 51.5006, -0.1255, 51.502, 3, 3, 3, 2, 2),
    (-0.1285, 51.5006, -0.1255, 51.502, 10, 511, 511, 340, 340),
    (-0.1285, 51.5006, -0.1255, 51.502, 14, 8186, 8186, 5448, 5448),
    (-0.1285, 51.5006, -0.1255, 51.502, 16, 32744, 32745, 21793, 21794),
    (-0.1285, 51.5006, -0.1255, 51.502, 18, 130978, 130980, 87175, 87177),
    // Sydney Opera House
    (151.21, -33.859, 151.217, -33.855, 3, 7, 7, 4, 4), (151.21, -33.859, 151.217, -33.855, 10, 942, 942, 614, 614),
    (151.21, -33.859, 151.217, -33.855, 14, 15073, 15074, 9831, 9831),
    (151.21, -33.859, 151.217, -33.855, 16, 60294, 60296, 39324, 39325),
    (151.21, -33.859, 151.217, -33.855, 18, 241179, 241184, 157298, 157301),
    // Central Park, New York
    (-73.9819, 40.7644, -73.9498, 40.8003, 3, 2, 2, 3, 3), (-73.9819, 40.7644, -73.9498, 40.8003, 10, 301, 301, 384, 384),
    (-73.9819, 40.7644, -73.9498, 40.8003, 14, 4825, 4826, 6154, 6156),
    (-73.9819, 40.7644, -73.9498, 40.8003, 16, 19300, 19305, 24619, 24627),
    (-73.9819, 40.7644, -73.9498, 40.8003, 18, 77200, 77223, 98476, 98511),
    // Iceland
    (-24.5, 63.3, -13.5, 66.6, 3, 3, 3, 1, 2), (-24.5, 63.3, -13.5, 66.6, 6, 27, 29, 15, 17),
    (-24.5, 63.3, -13.5, 66.6, 10, 442, 473, 255, 277),
    // the whole Mercator square
    (-180, -85.0511287798066, 180, 85.0511287798066, 0, 0, 0, 0, 0),
    (-180, -85.0511287798066, 180, 85.0511287798066, 1, 0, 1, 0, 1),
    (-180, -85.0511287798066, 180, 85.0511287798066, 5, 0, 31, 0, 31),
  ]

  @Test("the tile range of known bounds", arguments: rangesOfBounds)
  func rangeOfBounds(
    west: Double, south: Double, east: Double, north: Double, zoom: Int, x0: Int, x1: Int, y0: Int, y1: Int
  ) {
    let rect = WorldRect(enclosing: [
      WebMercator.world(GeoPoint(latitude: north, longitude: west)),
      WebMercator.world(GeoPoint(latitude: south, longitude: east)),
    ])
    let expected = TileRange(zoom: zoom, xRange: x0...x1, yRange: y0...y1)
    #expect(WebMercator.tileRange(covering: rect, zoom: zoom, tileSize: 256) == expected)
  }

  /// (x, y, zoom, west, south, east, north) with the bounds from `mercantile.bounds(x, y, zoom)`.
  static let tileEdges: [(Int, Int, Int, Double, Double, Double, Double)] = [
    (130978, 87176, 18, -0.12908935546875, 51.501049241560175, -0.127716064453125, 51.50190410761812),
    (942, 614, 10, 151.171875, -34.016241889667015, 151.5234375, -33.7243396617476),
    (16372, 10896, 15, -0.1318359375, 51.50190410761812, -0.120849609375, 51.50874245880333),
    (0, 0, 3, -180.0, 79.17133464081945, -135.0, 85.0511287798066),
    (7, 7, 3, 135.0, -85.0511287798066, 180.0, -79.17133464081945),
    (241179, 157310, 18, 151.20895385742188, -33.869275299570795, 151.2103271484375, -33.86813503296863),
  ]

  @Test("bounds exactly on tile edges give exactly that tile, no extra row or column", arguments: tileEdges)
  func tileAlignedBounds(x: Int, y: Int, zoom: Int, west: Double, south: Double, east: Double, north: Double) {
    let rect = WorldRect(enclosing: [
      WebMercator.world(GeoPoint(latitude: north, longitude: west)),
      WebMercator.world(GeoPoint(latitude: south, longitude: east)),
    ])
    #expect(WebMercator.tileRange(covering: rect, zoom: zoom, tileSize: 256) == TileRange(zoom: zoom, xRange: x...x, yRange: y...y))
    // a 512 px tile at the same zoom has the same cell
    #expect(WebMercator.tileRange(covering: rect, zoom: zoom, tileSize: 512) == TileRange(zoom: zoom, xRange: x...x, yRange: y...y))
    // one zoom deeper: exactly the four children (mercantile.children)
    let deeper = TileRange(zoom: zoom + 1, xRange: (2 * x)...(2 * x + 1), yRange: (2 * y)...(2 * y + 1))
    #expect(WebMercator.tileRange(covering: rect, zoom: zoom + 1, tileSize: 256) == deeper)
    // one zoom shallower: the parent alone
    let parent = TileRange(zoom: zoom - 1, xRange: (x / 2)...(x / 2), yRange: (y / 2)...(y / 2))
    #expect(WebMercator.tileRange(covering: rect, zoom: zoom - 1, tileSize: 256) == parent)
    // and bounds(of:) agrees with mercantile.bounds
    let b = WebMercator.bounds(of: TileCoordinate(zoom: zoom, x: x, y: y))
    #expect(abs(b.west - west) < 1e-12 && abs(b.east - east) < 1e-12)
    #expect(abs(b.south - south) < 1e-9 && abs(b.north - north) < 1e-9)
  }

  @Test("a footprint a hair inside or outside a tile edge")
  func nearEdges() {
    let n = 1 << 18
    let x = 130978
    let y = 87176
    func rect(_ grow: Double) -> WorldRect {
      WorldRect(
        minU: (Double(x) - grow / 256) / Double(n), minV: (Double(y) - grow / 256) / Double(n),
        maxU: (Double(x + 1) + grow / 256) / Double(n), maxV: (Double(y + 1) + grow / 256) / Double(n))
    }
    // within ε of a pixel: the same tile
    #expect(WebMercator.tileRange(covering: rect(1e-4), zoom: 18, tileSize: 256)?.count == 1)
    #expect(WebMercator.tileRange(covering: rect(-1e-4), zoom: 18, tileSize: 256)?.count == 1)
    // a tenth of a pixel over each edge: the neighbours too
    #expect(
      WebMercator.tileRange(covering: rect(0.1), zoom: 18, tileSize: 256) == TileRange(zoom: 18, xRange: (x - 1)...(x + 1), yRange: (y - 1)...(y + 1))
    )
  }

  @Test("ranges clamp to the world and vanish outside it")
  func clamping() {
    let beyond = WorldRect(minU: -0.5, minV: -0.25, maxU: 1.5, maxV: 1.25)
    #expect(WebMercator.tileRange(covering: beyond, zoom: 2, tileSize: 256) == TileRange(zoom: 2, xRange: 0...3, yRange: 0...3))
    #expect(WebMercator.tileRange(covering: WorldRect(minU: 1.0, minV: 0.2, maxU: 1.5, maxV: 0.3), zoom: 3, tileSize: 256) == nil)
    #expect(WebMercator.tileSpan(fromPixel: 0, toPixel: 256, tileSize: 256, zoom: 4) == 0...0)
    #expect(WebMercator.tileSpan(fromPixel: 256, toPixel: 512, tileSize: 256, zoom: 4) == 1...1)
    #expect(WebMercator.tileSpan(fromPixel: 255.5, toPixel: 512.5, tileSize: 256, zoom: 4) == 0...2)
  }

  /// (lat, lon, x, y) EPSG:3857 metres from `mercantile.xy(lon, lat)`.
  static let mercatorMeters: [(Double, Double, Double, Double)] = [
    (51.5074, -0.1278, -14226.630923380362, 6711542.475587636),
    (-33.8688, 151.2093, 16832542.27920734, -4011198.6473075734),
    (40.7128, -74.006, -8238310.235647004, 4970071.579142425),
    (85.0, 10.0, 1113194.9079327357, 19971868.880408563),
    (0, 0, 0.0, 0.0),
    (-85.0, -179.5, -19981848.597392607, -19971868.88040857),
  ]

  @Test("EPSG:3857 metres and lat/lon give the same world point", arguments: mercatorMeters)
  func metres(lat: Double, lon: Double, x: Double, y: Double) {
    let fromMeters = WebMercator.world(metersX: x, metersY: y)
    let fromDegrees = WebMercator.world(GeoPoint(latitude: lat, longitude: lon))
    // 1e-12 of the world is 4 cm
    #expect(abs(fromMeters.u - fromDegrees.u) < 1e-12 && abs(fromMeters.v - fromDegrees.v) < 1e-12)
  }

  @Test("u ↔ longitude and v ↔ latitude round-trip")
  func roundTrips() {
    for lon in stride(from: -180.0, through: 180.0, by: 7.5) {
      #expect(abs(WebMercator.longitudeDegrees(u: WebMercator.u(longitudeDegrees: lon)) - lon) < 1e-12)
    }
    for lat in stride(from: -85.0, through: 85.0, by: 2.5) {
      #expect(abs(WebMercator.latitudeDegrees(v: WebMercator.v(latitudeDegrees: lat)) - lat) < 1e-10)
    }
    for v in stride(from: 0.0, through: 1.0, by: 1.0 / 64) {
      #expect(abs(WebMercator.v(latitudeDegrees: WebMercator.latitudeDegrees(v: v)) - v) < 1e-12)
    }
  }

  @Test("known values: the world's edges, the equator, the scale at the equator")
  func knownValues() {
    #expect(WebMercator.u(longitudeDegrees: -180) == 0)
    #expect(WebMercator.u(longitudeDegrees: 0) == 0.5)
    #expect(WebMercator.u(longitudeDegrees: 180) == 1)
    #expect(WebMercator.v(latitudeDegrees: 0) == 0.5)
    #expect(abs(WebMercator.v(latitudeDegrees: WebMercator.maxLatitude)) < 1e-12)
    #expect(abs(WebMercator.v(latitudeDegrees: -WebMercator.maxLatitude) - 1) < 1e-12)
    // latitudes beyond the square clamp to its edge
    #expect(WebMercator.v(latitudeDegrees: 89) == WebMercator.v(latitudeDegrees: WebMercator.maxLatitude))
    #expect(WebMercator.v(latitudeDegrees: -90) == WebMercator.v(latitudeDegrees: -WebMercator.maxLatitude))
    // 2π · 6378137 m
    #expect(abs(WebMercator.groundMetersPerWorldUnit(latitudeDegrees: 0) - 40_075_016.685_578_49) < 1e-6)
    #expect(abs(WebMercator.groundMetersPerWorldUnit(latitudeDegrees: 60) - 40_075_016.685_578_49 / 2) < 1e-6)
    #expect(abs(WebMercator.originShift - .pi * WebMercator.earthRadiusMeters) < 1e-6)
    #expect(WebMercator.worldPixels(zoom: 3, tileSize: 512) == 4096)
  }
}
