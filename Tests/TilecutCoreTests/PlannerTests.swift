import Foundation
import Testing

@testable import TilecutCore

/// The pyramid planner: zooms, densities, level chains and tile ranges.
@Suite("Planner")
struct PlannerTests {
  @Test(
    "raster max zoom is the smallest z with 256·2^z ≥ the longer side",
    arguments: [
      (1, 1, 0), (256, 256, 0), (257, 10, 1), (10, 257, 1), (512, 512, 1), (513, 1, 2), (1000, 700, 2), (4096, 4096, 4),
      (4097, 100, 5), (5000, 3000, 5), (16384, 1, 6), (16385, 1, 7), (50000, 1, 8),
    ])
  func rasterMaxZoom(width: Int, height: Int, zoom: Int) {
    #expect(PyramidPlanner.rasterMaxZoom(width: width, height: height) == zoom)
  }

  static func ceilDiv(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }

  @Test(
    "raster 256 tiles at zoom k cover exactly the image's pixels shrunk 2^(max − k) times",
    arguments: [(1000, 700), (256, 256), (257, 256), (512, 512), (513, 100), (4096, 3000), (300, 5000)])
  func rasterRanges(width: Int, height: Int) throws {
    let maxZoom = PyramidPlanner.rasterMaxZoom(width: width, height: height)
    let source = SourceDescription(path: "p", width: width, height: height)
    let plan = try PyramidPlanner.plan(floor: 0, source: source, placement: .raster(nativeZoom: maxZoom), request: PlanRequest(tileSizes: [256]))
    let cuts = plan.levels.flatMap(\.cuts)
    #expect(Set(cuts.map(\.zoom)) == Set(0...maxZoom))
    for cut in cuts {
      let shrink = 1 << (maxZoom - cut.zoom)
      let xs = Self.ceilDiv(Self.ceilDiv(width, shrink), 256)
      let ys = Self.ceilDiv(Self.ceilDiv(height, shrink), 256)
      #expect(cut.range == TileRange(zoom: cut.zoom, xRange: 0...(xs - 1), yRange: 0...(ys - 1)), "zoom \(cut.zoom)")
    }
    // at the max zoom: exactly x < ceil(W/256), y < ceil(H/256)
    let top = try #require(cuts.first { $0.zoom == maxZoom })
    #expect(top.range.xRange == 0...(Self.ceilDiv(width, 256) - 1) && top.range.yRange == 0...(Self.ceilDiv(height, 256) - 1))
  }

  @Test("1000×700 at native zoom 2: 512 tiles at zoom z are cut from density z + 1")
  func retinaDensity() throws {
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    let plan = try PyramidPlanner.plan(floor: 1, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(maxZoom: 2))
    for level in plan.levels {
      for cut in level.cuts { #expect(level.density == cut.zoom + (cut.tileSize == 512 ? 1 : 0)) }
    }
    #expect(plan.levels.map(\.density) == [3, 2, 1, 0])
    // density 3 holds only the 512 cut of zoom 2: finer than the source, so upsampled and standalone
    #expect(plan.levels[0].cuts.map(\.tileSize) == [512] && plan.levels[0].upsampled && plan.levels[0].source == .direct)
    #expect(plan.standalone.map(\.density) == [3])
    #expect(plan.chain.map(\.density) == [2, 1, 0])
    // one direct base, reductions below
    #expect(plan.chain.first?.source == .direct && plan.chain.dropFirst().allSatisfy { $0.source == .reduced })
    #expect(plan.chain.allSatisfy { !$0.upsampled })
    // a 512 tile (z, x, y) holds the 256 tiles (z+1, 2x…2x+1, 2y…2y+1): the same pixels
    let at2 = try #require(plan.levels.first { $0.density == 2 })
    let r256 = try #require(at2.cuts.first { $0.tileSize == 256 }).range
    let r512 = try #require(at2.cuts.first { $0.tileSize == 512 }).range
    #expect(r256 == TileRange(zoom: 2, xRange: 0...3, yRange: 0...2))
    #expect(r512 == TileRange(zoom: 1, xRange: 0...1, yRange: 0...1))
    #expect(plan.levels.first { $0.density == 0 }?.cuts.map(\.range) == [TileRange(zoom: 0, xRange: 0...0, yRange: 0...0)])
  }

  @Test("256-only plans have one direct base and reduced levels below it")
  func chainShape() throws {
    let source = SourceDescription(path: "p", width: 5000, height: 3000)
    let plan = try PyramidPlanner.plan(floor: 0, source: source, placement: .raster(nativeZoom: 5), request: PlanRequest(tileSizes: [256]))
    #expect(plan.levels.map(\.density) == [5, 4, 3, 2, 1, 0])
    #expect(plan.levels.filter { $0.source == .direct }.map(\.density) == [5])
    #expect(plan.standalone.isEmpty && plan.chain.count == 6)
  }

  @Test("level regions are 512-aligned, inside the world, and hold the footprint")
  func regions() throws {
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    let plan = try PyramidPlanner.plan(floor: 0, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(maxZoom: 2))
    for level in plan.levels {
      let world = Int(level.worldPixels)
      let r = level.region
      #expect(r.x % 512 == 0 && r.y % 512 == 0 && r.x >= 0 && r.y >= 0 && r.maxX <= world && r.maxY <= world)
      #expect(r.maxX == world || r.maxX % 512 == 0)
      let scale = level.worldPixels / WebMercator.worldPixels(zoom: 2)
      #expect(Double(r.maxX) >= 1000 * scale - 1e-9 || r.maxX == world)
      #expect(Double(r.maxY) >= 700 * scale - 1e-9 || r.maxY == world)
    }
  }

  @Test("an image on the edges of tile 18/130978/87176 gives exact ranges at every zoom and size")
  func tileAlignedBounds() throws {
    // mercantile.bounds(130978, 87176, 18)
    let p = try Georeference.bounds(
      south: 51.501049241560175, west: -0.12908935546875, north: 51.50190410761812, east: -0.127716064453125,
      width: 1024, height: 1024)
    let source = SourceDescription(path: "p", width: 1024, height: 1024)
    let plan = try PyramidPlanner.plan(floor: 0, source: source, placement: p, request: PlanRequest())
    var ranges: [String: TileRange] = [:]
    for level in plan.levels { for cut in level.cuts { ranges["\(cut.tileSize)@\(cut.zoom)"] = cut.range } }
    let (x, y) = (130978, 87176)
    // 1024 px over a 256 px tile: native zoom 20; one tile holds it all at 18
    #expect(Set(ranges.keys) == ["256@18", "256@19", "256@20", "512@18", "512@19", "512@20"])
    for z in 18...20 {
      let k = 1 << (z - 18)
      let expected = TileRange(zoom: z, xRange: (x * k)...(x * k + k - 1), yRange: (y * k)...(y * k + k - 1))
      #expect(ranges["256@\(z)"] == expected)
      #expect(ranges["512@\(z)"] == expected)
    }
    #expect(plan.chain.first?.density == 20 && plan.standalone.map(\.density) == [21])
    #expect(plan.tileCount == 2 * (1 + 4 + 16))
  }

  @Test("georeferenced defaults: max zoom not finer than the source, min zoom where one tile holds it all")
  func georeferencedDefaults() throws {
    // mercantile: these bounds lie in one tile at zoom 14 (8186, 5448) but two at 15
    let p = try Georeference.bounds(south: 51.5006, west: -0.1285, north: 51.5020, east: -0.1255, width: 1000, height: 700)
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    let plan = try PyramidPlanner.plan(floor: 1, source: source, placement: p, request: PlanRequest(tileSizes: [256]))
    let zooms = plan.levels.flatMap { $0.cuts.map(\.zoom) }
    #expect(zooms.max() == 18 && zooms.min() == 14)
    let cuts = plan.levels.flatMap(\.cuts)
    #expect(cuts.first { $0.zoom == 14 }?.range == TileRange(zoom: 14, xRange: 8186...8186, yRange: 5448...5448))
    #expect(cuts.first { $0.zoom == 16 }?.range == TileRange(zoom: 16, xRange: 32744...32745, yRange: 21793...21794))
    #expect(cuts.first { $0.zoom == 18 }?.range == TileRange(zoom: 18, xRange: 130978...130980, yRange: 87175...87177))
    #expect(plan.levels.first?.source == .direct && plan.levels.dropFirst().allSatisfy { $0.source == .reduced })
  }

  @Test("bad zoom requests name the option")
  func badZooms() {
    let source = SourceDescription(path: "p", width: 100, height: 100)
    for (request, option) in [
      (PlanRequest(maxZoom: 31), "--max-zoom"), (PlanRequest(minZoom: 3, maxZoom: 2), "--min-zoom"), (PlanRequest(minZoom: -1), "--min-zoom"),
    ] {
      do {
        _ = try PyramidPlanner.plan(floor: 0, source: source, placement: .raster(nativeZoom: 0), request: request)
        Issue.record("accepted \(request)")
      } catch {
        #expect("\(error)".hasPrefix(option), "\(error)")
      }
    }
  }

  @Test("tile sizes the builder does not make are refused by the planner, not crashed on", arguments: [1024, 2048, 300, 128, 0, -256])
  func unsupportedTileSizes(size: Int) {
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    #expect(throws: TilecutError.self) {
      _ = try PyramidPlanner.plan(floor: 1, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(tileSizes: [256, size]))
    }
  }
}
