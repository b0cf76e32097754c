import Foundation
import Testing

@testable import TilecutCore

/// 768 px tiles: the @3x density on the 256 px z/x/y grid, a level chain of its own.
@Suite("768 px tiles")
struct TripleDensityTests {
  let pattern = Pattern(width: 1000, height: 700)

  @Test("the plan: a 768 chain beside the 256/512 one, its head direct, regions and strips on 768")
  func plan() throws {
    let source = SourceDescription(path: "p", width: 1000, height: 700)
    let plan = try PyramidPlanner.plan(
      floor: 1, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(maxZoom: 2, tileSizes: [256, 512, 768]))
    let triple = plan.chain(base: 768)
    #expect(triple.map(\.density) == [2, 1, 0])
    #expect(triple.first?.source == .direct && triple.dropFirst().allSatisfy { $0.source == .reduced })
    // 768·2^z px per world against the source's 256·2^2: finer at zooms 2 and 1
    #expect(triple.map(\.upsampled) == [true, true, false])
    #expect(plan.chain.map(\.density) == [2, 1, 0] && plan.standalone.map(\.density) == [3])
    for level in triple {
      #expect(level.worldPixels == 768 * pow(2, Double(level.density)))
      #expect(level.stripHeight == 768 && level.cuts.map(\.tileSize) == [768])
      #expect(level.region.x % 768 == 0 && level.region.y % 768 == 0 && level.region.width % 768 == 0)
      // the same cells as the 256 px tiles of that zoom
      let same = plan.levels.first { $0.base == 256 && $0.cuts.contains { $0.tileSize == 256 && $0.zoom == level.density } }
      #expect(same?.cuts.first { $0.tileSize == 256 }?.range == level.cuts[0].range)
    }
    #expect(plan.tileCount == plan.levels.reduce(0) { $0 + $1.tileCount } && plan.levels.count == 7)
  }

  @Test("768 tiles are the 256 tiles' pixels at 3× (max zoom) and 2× reductions within their chain below")
  func render() throws {
    let source = SourceDescription(path: "pattern", width: pattern.width, height: pattern.height)
    let plan = try PyramidPlanner.plan(
      floor: 1, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(maxZoom: 2, tileSizes: [256, 768]))
    let sink = CapturingSink()
    let pool = WorkPool(jobs: 2)
    let pattern = self.pattern
    let builder = PyramidBuilder(
      plan: plan, settings: RenderSettings(), encoder: sink, writer: sink,
      pool: pool, ledger: RenderLedger(),
      openSource: { level in
        // each source pixel repeated 3× for the 768 head (nearest), once for the 256 head
        let repeatCount = level.base == 768 ? 3 : 1
        return FunctionSource(region: level.region) { x, y in pattern.pixel(x / repeatCount, y / repeatCount) }
      })
    try builder.build()
    try pool.drain()
    let tiles = sink.tiles.withLock { $0 }
    #expect(
      Set(tiles.keys.filter { $0.hasPrefix("768/") }.map { $0.dropFirst(4) })
        == Set(tiles.keys.filter { $0.hasPrefix("256/") }.map { $0.dropFirst(4) }))
    // at zoom 2 every 3×3 block of a 768 tile is one pixel of the 256 tile
    for (key, small) in tiles where key.hasPrefix("256/2_") {
      let large = try #require(tiles["768" + key.dropFirst(3)])
      let expected = [UInt8](unsafeUninitializedCapacity: 768 * 768 * 4) { out, count in
        small.withUnsafeBytes { s in
          let src = s.bindMemory(to: UInt32.self)
          out.withMemoryRebound(to: UInt32.self) { dst in
            for y in 0..<768 { for x in 0..<768 { dst[y * 768 + x] = src[(y / 3) * 256 + x / 3] } }
          }
        }
        count = 768 * 768 * 4
      }
      #expect(large == expected, "\(key) is not its 256 px tile at 3×")
    }
    // below, each 768 tile is the premultiplied 2× reduction of its four children in the 768 chain
    for z in 0..<2 {
      for (key, tile) in tiles where key.hasPrefix("768/\(z)_") {
        let parts = key.dropFirst(4).split(separator: "_").compactMap { Int($0) }
        let children = [(0, 0), (1, 0), (0, 1), (1, 1)].map { dx, dy in tiles["768/\(z + 1)_\(2 * parts[1] + dx)_\(2 * parts[2] + dy)"] ?? [] }
        #expect(maxDifference(tile, reduce(children, size: 768)) <= 1, "\(key)")
      }
    }
  }
}
