import Foundation
import Testing

@testable import TilecutCore

/// The planner under `--retina-depth native`: 512 px cuts finer than a raster source
/// are left out and named as served by 256; documents and `full` keep them.
@Suite("Planner, retina depth")
struct RetinaDepthPlanTests {
  static func plan(_ depth: RetinaDepth, vector: Bool = false, maxZoom: Int? = nil) throws -> FloorPlan {
    let source = SourceDescription(path: "p", width: 3000, height: 2000, isVector: vector)
    return try PyramidPlanner.plan(
      floor: 0, source: source, placement: .raster(nativeZoom: 4),
      request: PlanRequest(maxZoom: maxZoom, tileSizes: [.standard, .retina], retinaDepth: depth))
  }

  static func cuts(_ plan: FloorPlan, size: Int) -> Set<Int> {
    Set(plan.levels.flatMap(\.cuts).filter { $0.tileSize == size }.map(\.zoom))
  }

  @Test("a raster's 512 px cuts stop one zoom short of its native zoom; the rest is full's")
  func rasterNative() throws {
    let full = try Self.plan(.full)
    let native = try Self.plan(.native)
    #expect(Self.cuts(full, size: 512) == Set(0...4))
    #expect(Self.cuts(native, size: 512) == Set(0...3))
    #expect(Self.cuts(native, size: 256) == Self.cuts(full, size: 256))
    #expect(native.substitutes == [LevelSubstitute(tileSize: 512, zoom: 4, servedBy: 256)])
    #expect(full.substitutes.isEmpty)
    // the upsampled level (density 5) is gone: no retina doubling is made
    #expect(!native.levels.contains { $0.upsampled } && full.levels.contains { $0.upsampled })
    // every level both plans have is the same level
    for level in native.levels { #expect(full.levels.contains(level)) }
  }

  @Test("zooms past native: every 512 px cut from the native zoom on is served by 256")
  func pastNative() throws {
    let native = try Self.plan(.native, maxZoom: 6)
    #expect(Self.cuts(native, size: 512) == Set(0...3))
    #expect(native.substitutes.map(\.zoom) == [4, 5, 6])
  }

  @Test("a document has detail at any density: native changes nothing")
  func vectorUnchanged() throws {
    #expect(try Self.plan(.native, vector: true) == Self.plan(.full, vector: true))
  }
}
