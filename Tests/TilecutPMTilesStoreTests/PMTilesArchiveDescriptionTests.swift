import Foundation
import Testing
import TilecutCore
import TilecutPMTiles
import TilecutPMTilesStore

/// What the PMTiles store writes into each archive's header and metadata, from the manifest.
@Suite("a PMTiles archive's header and metadata from the manifest")
struct PMTilesArchiveDescriptionTests {
  /// Floor -2 at 512 px on zooms 6, 4 and 5 (out of order), floor 7 at 512 px on zoom 9 and at 256 px on zoom 3.
  func manifest() throws -> Manifest {
    func level(_ floor: Int, _ size: Int, _ zoom: Int) throws -> Manifest.Level {
      Manifest.Level(
        floor: try Floor(floor, option: "--floor"), tileSize: size, range: TileRange(zoom: zoom, xRange: 0...0, yRange: 0...0),
        tiles: [TileCoordinate(zoom: zoom, x: 0, y: 0)])
    }
    return Manifest(
      tileSizes: [256, 512], floors: [try Floor(-2, option: "--floor"), try Floor(7, option: "--floor")],
      name: TileNameTemplate.defaultPattern,
      levels: [try level(-2, 512, 6), try level(-2, 512, 4), try level(-2, 512, 5), try level(7, 512, 9), try level(7, 256, 3)],
      footprints: [],
      generator: .init(version: "9.9.9", libvips: "v"), sources: [], options: [:], fingerprint: "f")
  }

  @Test("one file per floor and tile size, a basement's minus sign kept")
  func fileNames() throws {
    #expect(PMTilesTileStore.fileName(floor: try Floor(-2, option: "--floor"), tileSize: 512) == "L-2_512.pmtiles")
    #expect(PMTilesTileStore.fileName(floor: try Floor(0, option: "--floor"), tileSize: 256) == "L0_256.pmtiles")
  }

  @Test("the header's zooms are the floor's and size's levels; without a footprint the bounds are the world")
  func header() throws {
    let (header, _) = try PMTilesTileStore.describe(manifest(), floor: try Floor(-2, option: "--floor"), tileSize: 512, format: "webp")
    #expect(header.tileType == .webp)
    #expect(header.minZoom == 4 && header.maxZoom == 6 && header.centerZoom == 4)
    #expect(header.minLongitude == -180 && header.maxLongitude == 180)
    #expect(abs(header.maxLatitude - WebMercator.maxLatitude) < 1e-6 && abs(header.minLatitude + WebMercator.maxLatitude) < 1e-6)
    #expect(header.centerLongitude == 0 && header.centerLatitude == 0)
  }

  @Test("the metadata names the floor and size, says jpg for JPEG tiles and lists only that set's levels")
  func metadata() throws {
    let (header, bytes) = try PMTilesTileStore.describe(manifest(), floor: try Floor(7, option: "--floor"), tileSize: 512, format: "jpeg")
    #expect(header.tileType == .jpeg && header.minZoom == 9 && header.maxZoom == 9)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    #expect(json["format"] as? String == "jpg")
    #expect(json["name"] as? String == "tilecut floor 7 (512 px)")
    #expect((json["description"] as? String)?.contains("2× density on the 256 px z/x/y grid") == true)
    let facts = try #require(json["tilecut"] as? [String: Any])
    #expect(facts["generator"] as? String == "tilecut 9.9.9")
    let levels = try #require(facts["levels"] as? [[String: Any]])
    #expect(levels.count == 1)
  }
}
