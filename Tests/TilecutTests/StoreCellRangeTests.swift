import Testing
import TilecutCore

@testable import Tilecut

/// `tilecut show` and `tilecut tile` judge a cell against a store's own bounds
/// (an MBTiles file's `bounds`, a PMTiles header's box) with WebMercator.
@Suite("a store's bounds as tile cells")
struct StoreCellRangeTests {
  @Test("the cells of a box are the WebMercator tiles of its corners", arguments: [0, 5, 12, 16, 20, 24])
  func cornerTiles(zoom: Int) {
    // around Pariser Platz, Berlin: no corner on a tile edge at these zooms
    let (west, south, east, north) = (13.3712, 52.5101, 13.3893, 52.5207)
    let cells = StoreReader.cells(west: west, south: south, east: east, north: north, zoom: zoom)
    let nw = WebMercator.tile(containing: GeoPoint(latitude: north, longitude: west), zoom: zoom)
    let se = WebMercator.tile(containing: GeoPoint(latitude: south, longitude: east), zoom: zoom)
    #expect(cells.x == nw.x...se.x)
    #expect(cells.y == nw.y...se.y)
  }

  @Test("a box whose east edge lies on a tile edge does not take the next column")
  func edgeOnBoundary() {
    // 0° and 90°E are column edges at zoom 2 (columns of 90°): the box covers column 2 only
    let cells = StoreReader.cells(west: 0, south: 10, east: 90, north: 20, zoom: 2)
    #expect(cells.x == 2...2)
  }

  @Test(
    "bounds off the world, or not numbers, give cells of the world rather than a trap",
    arguments: [
      [Double.nan, 0, 1, 1], [0, .nan, 1, .nan], [-1e300, -1e300, 1e300, 1e300], [-.infinity, -90, .infinity, 90],
      [.greatestFiniteMagnitude, 0, -.greatestFiniteMagnitude, 1],
    ])
  func farBounds(bounds: [Double]) {
    let cells = StoreReader.cells(west: bounds[0], south: bounds[1], east: bounds[2], north: bounds[3], zoom: 3)
    #expect((0...7).contains(cells.x.lowerBound) && (0...7).contains(cells.x.upperBound))
    #expect((0...7).contains(cells.y.lowerBound) && (0...7).contains(cells.y.upperBound))
  }
}
