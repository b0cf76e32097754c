import Foundation
import Testing

@testable import TilecutCore

/// The job plan: one Codable value naming every level's recipe, strips and tile ranges.
@Suite("job plan")
struct JobPlanTests {
  /// A raster floor (embed, reduce, double), a turned floor (resample) and a lon/lat floor (rows).
  func threeFloors() throws -> JobPlan {
    let source = SourceDescription(path: "plan.png", width: 1000, height: 700)
    let t = 0.3
    let unit = 1 / (256 * pow(2, 14.0))
    let turned = Placement(
      method: .center,
      transform: AffineTransform.translation(0.52, 0.33).concatenating(
        after: AffineTransform(a: cos(t) * unit, b: -sin(t) * unit, c: 0, d: sin(t) * unit, e: cos(t) * unit, f: 0)))
    let lonLat = Placement(
      method: .bounds, projection: .lonLat, transform: AffineTransform(a: 0.0001, b: 0, c: 13.37, d: 0, e: -0.0001, f: 52.51))
    return try PyramidPlanner.plan(
      floors: [
        FloorInput(floor: 0, source: source, placement: .raster(nativeZoom: 2)),
        FloorInput(floor: 1, source: source, placement: turned),
        FloorInput(floor: 2, source: source, placement: lonLat),
      ],
      request: PlanRequest(maxZoom: nil, tileSizes: [.standard, .retina, .triple]))
  }

  @Test("the plan survives JSON encoding and decoding unchanged")
  func roundTrip() throws {
    let plan = try threeFloors()
    let data = try JSONEncoder().encode(plan)
    let decoded = try JSONDecoder().decode(JobPlan.self, from: data)
    #expect(decoded == plan)
    let kinds = Set(plan.floors.flatMap { $0.levels.map(\.recipe.kind) })
    #expect(kinds == [.embed, .resample, .reduce, .double])
  }

  @Test("every level names its recipe: the chain heads read the source in strips, the rest reduce or double")
  func recipes() throws {
    let plan = try threeFloors()
    let raster = plan.floors[0]
    #expect(raster.mapping == .affine(transform: raster.placement.transform))
    #expect(plan.floors[2].mapping == .lonLatRows(transform: plan.floors[2].placement.transform))
    for floor in plan.floors {
      for base in [256, 768] {
        let chain = floor.chain(base: base)
        guard let head = chain.first else { continue }
        #expect(head.recipe.readsSource, "floor \(floor.floor) base \(base)")
        #expect(head.strips == LevelStrip.strips(of: head.region, stripHeight: head.stripHeight))
        for (upper, lower) in zip(chain, chain.dropFirst()) {
          #expect(lower.recipe == .reduce(fromDensity: upper.density))
          #expect(lower.strips.isEmpty)
        }
      }
    }
    // the 512 px tiles at the deepest zoom: the 256 chain's head doubled
    let doubled = try #require(raster.levels.first { $0.recipe.kind == .double })
    #expect(doubled.recipe == .double(fromDensity: raster.chain.first?.density ?? -1))
    #expect(doubled.cuts.map(\.tileSize) == [512])
    // a raster placement is a whole-pixel shift; a turned one is resampled through a ring
    #expect(raster.chain.first?.recipe == .embed(documentScale: nil, x: 0, y: 0))
    guard case .resample(let r) = plan.floors[1].chain.first?.recipe else {
      Issue.record("the turned floor's head is \(String(describing: plan.floors[1].chain.first?.recipe))")
      return
    }
    #expect(r.access == .streaming && (r.ringRows ?? 0) > 0 && r.shrink >= 1)
  }

  @Test("a document is rendered at the density of its densest tiles, never doubled from a coarser level")
  func documentRecipes() throws {
    let source = SourceDescription(path: "plan.svg", width: 1000, height: 700, isVector: true)
    let plan = try PyramidPlanner.plan(floor: 1, source: source, placement: .raster(nativeZoom: 2), request: PlanRequest(maxZoom: 3))
    #expect(!plan.levels.contains { $0.recipe.kind == .double })
    let direct = plan.levels.filter(\.recipe.readsSource)
    #expect(direct.count == 1)
    for level in direct {
      guard case .embed(let scale, 0, 0) = level.recipe else {
        Issue.record("density \(level.density): \(level.recipe)")
        continue
      }
      #expect(scale == plan.documentScale(for: level))
    }
    // zoom 3's 512 px tiles are density 4: four times the native density 2
    #expect(direct.first?.density == 4 && plan.documentScale(for: direct[0]) == 4)
  }

  @Test("a level whose bands exceed the ring budget is planned as random access")
  func randomAccessPastBudget() throws {
    // a wide source turned 90°: each strip needs every source row
    let source = SourceDescription(path: "wide.png", width: 60_000, height: 4000)
    let unit = 1 / (256 * pow(2, 16.0))
    let placement = Placement(
      method: .center,
      transform: AffineTransform.translation(0.5, 0.5).concatenating(after: AffineTransform(a: 0, b: -unit, c: 0, d: unit, e: 0, f: 0)))
    let plan = try PyramidPlanner.plan(floor: 1, source: source, placement: placement, request: PlanRequest(maxZoom: 16, tileSizes: [.standard]))
    guard case .resample(let r) = plan.chain.first?.recipe else {
      Issue.record("not resampled: \(String(describing: plan.chain.first?.recipe))")
      return
    }
    #expect(r.access == .randomAccess && r.ringRows == nil)
  }

  @Test("the ring holds the widest reach back over the bands read so far")
  func ringCapacity() {
    #expect(LevelGeometry.ringCapacity([0..<10, 5..<20, 18..<30], rowBytes: 4) == 15)
    #expect(LevelGeometry.ringCapacity([0..<10, 5..<20], rowBytes: 1 << 20, budget: 10 << 20) == nil)
  }

  @Test("tile sizes are parsed once: 256, 512 and 768, sorted, repeats dropped", arguments: ["512,256", "256, 512 ,512"])
  func tileSizes(text: String) throws {
    #expect(try TileSize.parseList(text) == [.standard, .retina])
    #expect(try TileSize.parseList("768") == [.triple])
  }

  @Test("a size tilecut does not make is one sentence naming --tile-size", arguments: ["300", "", "1024", "256,", "abc", "-256"])
  func badTileSizes(text: String) {
    do {
      _ = try TileSize.parseList(text)
      Issue.record("accepted '\(text)'")
    } catch {
      #expect("\(error)".hasPrefix("--tile-size: "), "\(error)")
      #expect(!"\(error)".contains("\n"))
    }
  }

  @Test("a tile size decodes from its number and refuses others")
  func tileSizeCoding() throws {
    #expect(try JSONDecoder().decode([TileSize].self, from: Data("[256,768]".utf8)) == [.standard, .triple])
    #expect(throws: DecodingError.self) { try JSONDecoder().decode([TileSize].self, from: Data("[300]".utf8)) }
    #expect(String(decoding: try JSONEncoder().encode([TileSize.retina]), as: UTF8.self) == "[512]")
  }
}
