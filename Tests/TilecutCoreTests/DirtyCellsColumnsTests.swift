import Foundation
import Testing

@testable import TilecutCore

/// An incremental rebuild's plan reads the densest level of a chain only in the
/// columns its dirty cells need (`LevelStrip.columns`), strip by strip: every pixel
/// the level's own dirty tiles, the doubled level's and the reduced levels' need is
/// inside them, and a small edit's strips are a small part of the width.
@Suite("DirtyCells: the columns of the strips a rebuild reads")
struct DirtyCellsColumnsTests {
  /// A `width` × `height` source placed north-up at `levelPerSource` level pixels a
  /// source pixel at zoom 16, 256 and 512 px tiles (512 at the deepest zoom: the
  /// 256 chain's head doubled), turned `degrees`.
  func plan(width: Int = 6000, height: Int = 4000, levelPerSource: Double = 1.3, degrees: Double = 0) throws -> FloorPlan {
    let zoom = 16
    let unit = levelPerSource / (256 * pow(2, Double(zoom)))
    let t = Double.pi * degrees / 180
    let rotate = AffineTransform(a: cos(t), b: -sin(t), c: 0, d: sin(t), e: cos(t), f: 0)
    let transform = AffineTransform.translation(0.3001, 0.4002).concatenating(after: rotate).concatenating(after: .scale(unit, unit))
    let source = SourceDescription(path: "plan.png", width: width, height: height, isVector: false)
    return try PyramidPlanner.plan(
      floor: 1, source: source, placement: Placement(method: PlacementMethod(rawValue: "test"), transform: transform),
      request: PlanRequest(maxZoom: zoom, tileSizes: [256, 512]))
  }

  func dirty(_ plan: FloorPlan, _ rects: [PixelRect]) throws -> CellSet {
    let cells = try #require(DirtyCells.cells(of: plan, sourceRects: rects))
    var set = CellSet()
    for (key, tiles) in cells {
      for tile in tiles { set.insert(key, tile) }
    }
    return set
  }

  /// Level pixels [x0, x1) × [y0, y1) that the kept strips of the chain's head must
  /// make: its own dirty tiles, and the doubled level's dirty tiles halved with the
  /// doubling's border pixel.
  func mustRead(_ plan: FloorPlan, _ dirty: CellSet) throws -> [(x: Range<Int>, y: Range<Int>)] {
    let head = try #require(plan.chain.first)
    var boxes: [(x: Range<Int>, y: Range<Int>)] = []
    for level in plan.levels where level.base == head.base {
      let halve: Int
      if level == head {
        halve = 1
      } else if case .double(let from) = level.recipe, from == head.density {
        halve = 2
      } else {
        continue
      }
      for cut in level.cuts {
        let size = cut.tileSize
        for tile in dirty.tiles[LevelKey(floor: plan.floor, tileSize: size, zoom: cut.zoom)] ?? [] {
          let b = halve == 2 ? 1 : 0  // the doubled level's border pixel
          boxes.append(
            (
              (tile.x * size / halve - b)..<((tile.x + 1) * size / halve + b),
              (tile.y * size / halve - b)..<((tile.y + 1) * size / halve + b)
            ))
        }
      }
    }
    return boxes
  }

  /// Checks that every pixel `mustRead` names in a kept strip's rows is in its columns,
  /// and that no strip the full plan has is left out that those pixels are in.
  func expectCovered(_ plan: FloorPlan, _ dirty: CellSet, sourceLocation: SourceLocation = #_sourceLocation) throws -> [LevelStrip] {
    let reuse = try #require(DirtyCells.reuse(of: plan, dirty: dirty), sourceLocation: sourceLocation)
    let head = try #require(plan.chain.first)
    let kept = try #require(reuse.plan.levels.first { $0.base == head.base && $0.density == head.density }).strips
    let region = head.region
    for box in try mustRead(plan, dirty) {
      let x = box.x.clamped(to: region.x..<region.maxX)
      guard !x.isEmpty else { continue }
      for strip in head.strips {
        let rows = (region.y + strip.top)..<(region.y + strip.top + strip.count)
        guard rows.overlaps(box.y) else { continue }
        let mine = try #require(kept.first { $0.top == strip.top }, "the strip at \(strip.top) is read", sourceLocation: sourceLocation)
        let columns = mine.columns ?? 0..<region.width
        #expect(
          columns.contains(x.lowerBound - region.x) && columns.contains(x.upperBound - 1 - region.x),
          "strip at \(strip.top): columns \(columns) hold \(x.lowerBound - region.x)..<\(x.upperBound - region.x)",
          sourceLocation: sourceLocation)
      }
    }
    return kept
  }

  @Test("a small edit in the middle: its strips are read in a narrow span of columns that holds every pixel its cells need")
  func middle() throws {
    let plan = try plan()
    let dirty = try dirty(plan, [PixelRect(x: 2900, y: 1900, width: 60, height: 60)])
    let kept = try expectCovered(plan, dirty)
    let head = try #require(plan.chain.first)
    #expect(!kept.isEmpty && kept.count < head.strips.count)
    for strip in kept {
      let columns = try #require(strip.columns, "strip at \(strip.top)")
      #expect(columns.count * 3 < head.region.width, "\(columns) of \(head.region.width)")
    }
  }

  @Test(
    "edits at the left and right edges, across a column of tiles' edge, and two in different strips: every needed pixel is read",
    arguments: [0.0, 12.0])
  func edges(degrees: Double) throws {
    let plan = try plan(degrees: degrees)
    let head = try #require(plan.chain.first)
    let cases: [[PixelRect]] = [
      [PixelRect(x: 0, y: 1500, width: 8, height: 40)],
      [PixelRect(x: 5992, y: 1500, width: 8, height: 40)],
      // across the 512 px tile column edge nearest the middle (north-up: its source column)
      [PixelRect(x: 3000 - 40, y: 2500, width: 80, height: 6)],
      [PixelRect(x: 100, y: 300, width: 30, height: 30), PixelRect(x: 5800, y: 3600, width: 30, height: 30)],
    ]
    for rects in cases {
      let kept = try expectCovered(plan, try dirty(plan, rects))
      #expect(!kept.isEmpty)
      // the two apart lie in different strips: each strip's span is its own edit's
      if rects.count == 2 && degrees == 0 {
        for strip in kept { #expect((strip.columns?.count ?? head.region.width) * 4 < head.region.width, "\(strip)") }
      }
    }
  }

  @Test(
    "a small edit: each level of the chain is cleared and read in a narrow span of columns that holds its dirty tiles and what the level below makes from it",
    arguments: [0.0, 12.0])
  func reducedColumns(degrees: Double) throws {
    let plan = try plan(degrees: degrees)
    let dirty = try dirty(plan, [PixelRect(x: 2900, y: 1900, width: 60, height: 60)])
    let reuse = try #require(DirtyCells.reuse(of: plan, dirty: dirty))
    let chain = plan.chain
    #expect(chain.count > 3)
    var narrowed = 0
    for (j, level) in chain.enumerated() {
      let region = level.region
      let mine = try #require(reuse.levels[LevelID(level)])
      let columns = mine.columns ?? 0..<region.width
      if mine.columns != nil { narrowed += 1 }
      // its own dirty tiles
      for cut in level.cuts {
        for tile in dirty.tiles[LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)] ?? [] {
          let x = (tile.x * cut.tileSize..<(tile.x + 1) * cut.tileSize).clamped(to: region.x..<region.maxX)
          guard !x.isEmpty else { continue }
          #expect(columns.contains(x.lowerBound - region.x) && columns.contains(x.upperBound - 1 - region.x), "level \(j): \(columns) holds \(x)")
        }
      }
      // what it makes from the level above lies in what it reads; the pixel pairs the
      // level above halves into it lie in what that one reads
      if j > 0, let made = mine.made {
        #expect(made.clamped(to: columns) == made, "level \(j): made \(made) in \(columns)")
        let above = chain[j - 1]
        let read = try #require(reuse.levels[LevelID(above)]).columns ?? 0..<above.region.width
        let first = 2 * (region.x + made.lowerBound) - above.region.x
        let last = 2 * (region.x + made.upperBound) - 1 - above.region.x
        #expect(read.contains(max(first, 0)) && read.contains(min(last, above.region.width - 1)), "level \(j - 1): \(read) holds \(first)...\(last)")
      }
    }
    // the head and the first reduced levels, at least, are narrowed
    #expect(narrowed >= 3)
    let head = try #require(chain.first)
    let headColumns = try #require(reuse.levels[LevelID(head)]?.columns)
    #expect(headColumns.count * 2 < head.region.width, "\(headColumns) of \(head.region.width)")
  }

  @Test("a plan read whole (a full build) has no columns on its strips")
  func fullBuild() throws {
    let plan = try plan()
    #expect(plan.levels.allSatisfy { $0.strips.allSatisfy { $0.columns == nil } })
  }
}
