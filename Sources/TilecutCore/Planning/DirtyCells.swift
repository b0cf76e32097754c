import Foundation

/// The cells of a floor's pyramid whose pixels can depend on given source pixels:
/// what an edit that changed those pixels makes again, at every zoom and size.
///
/// Each direct level reads a source pixel through its kernel (the box shrink, then the
/// filter's support, stretched to a level pixel when it reduces); each reduced level
/// takes 2 × 2 blocks of the level above (pairs that may start at an odd pixel when
/// the region does); the doubled retina level interpolates between neighbours. The
/// areas are followed through those steps with a margin of whole pixels at each, so
/// that the cells found hold every tile whose bytes can change: a tile outside them
/// reads no pixel that changed. The margins make the set larger than the tiles that
/// do change by a pixel or two of reach, never smaller.
public enum DirtyCells {
  /// A box of level pixels, [x0, x1) × [y0, y1).
  struct Box {
    var x0, y0, x1, y1: Int
  }

  /// The cells of `plan` that read any pixel of `rects` (source pixels, as the
  /// source is decoded, `PixelBlocks`' coordinates); nil when the plan's pixels
  /// cannot be bounded this way: a document rendered at each density (PDF, SVG),
  /// or a placement through PROJ's mesh.
  public static func cells(of plan: FloorPlan, sourceRects rects: [PixelRect]) -> [LevelKey: Set<TileCoordinate>]? {
    guard !plan.source.isVector, plan.placement.projection != .projected else { return nil }
    guard !rects.isEmpty else { return [:] }
    var boxes: [String: [Box]] = [:]
    func id(_ base: Int, _ density: Int) -> String { "\(base)/\(density)" }
    // densest first within each base, so that a reduced level finds the level above it
    let ordered = plan.levels.sorted { ($0.base, -$0.density) < ($1.base, -$1.density) }
    for level in ordered {
      switch level.recipe {
      case .embed(let scale, _, _):
        guard scale == nil || scale == 1 else { return nil }
        boxes[id(level.base, level.density)] = rects.map { direct($0, plan: plan, level: level, shrink: 1, support: 1) }
      case .resample(let recipe):
        guard recipe.documentScale == nil || recipe.documentScale == 1 else { return nil }
        boxes[id(level.base, level.density)] = rects.map {
          direct($0, plan: plan, level: level, shrink: max(1, recipe.shrink), support: recipe.filter.support)
        }
      case .draw:
        return nil
      case .reduce(let from):
        guard let above = boxes[id(level.base, from)] else { return nil }
        boxes[id(level.base, level.density)] = above.map { b in
          Box(x0: floorDiv(b.x0, 2) - 1, y0: floorDiv(b.y0, 2) - 1, x1: ceilDiv(b.x1, 2) + 1, y1: ceilDiv(b.y1, 2) + 1)
        }
      case .double:
        continue
      }
    }
    // the doubled level: from its head, once that is known
    for level in ordered {
      guard case .double(let from) = level.recipe else { continue }
      guard let below = boxes[id(level.base, from)] else { return nil }
      boxes[id(level.base, level.density)] = below.map { b in Box(x0: 2 * b.x0 - 3, y0: 2 * b.y0 - 3, x1: 2 * b.x1 + 3, y1: 2 * b.y1 + 3) }
    }
    var out: [LevelKey: Set<TileCoordinate>] = [:]
    for level in plan.levels {
      guard let mine = boxes[id(level.base, level.density)] else { return nil }
      for cut in level.cuts {
        let size = cut.tileSize
        let key = LevelKey(floor: plan.floor, tileSize: size, zoom: cut.zoom)
        for b in mine where b.x0 < b.x1 && b.y0 < b.y1 {
          let tx0 = max(cut.range.xRange.lowerBound, floorDiv(b.x0, size))
          let tx1 = min(cut.range.xRange.upperBound, floorDiv(b.x1 - 1, size))
          let ty0 = max(cut.range.yRange.lowerBound, floorDiv(b.y0, size))
          let ty1 = min(cut.range.yRange.upperBound, floorDiv(b.y1 - 1, size))
          guard tx0 <= tx1, ty0 <= ty1 else { continue }
          for y in ty0...ty1 {
            for x in tx0...tx1 { out[key, default: []].insert(TileCoordinate(zoom: cut.zoom, x: x, y: y)) }
          }
        }
      }
    }
    return out
  }

  /// The level pixels a direct level reads `rect` into: the rectangle grown by the
  /// kernel's reach in source pixels (for a level that enlarges the source), mapped,
  /// and grown by its reach in level pixels (for one that reduces it).
  static func direct(_ rect: PixelRect, plan: FloorPlan, level: DensityLevel, shrink: Int, support: Double) -> Box {
    let reach = Int(support.rounded(.up)) + 2
    let grow = Double(shrink * reach)
    let x0 = Double(rect.x) - grow
    let y0 = Double(rect.y) - grow
    let x1 = Double(rect.maxX) + grow
    let y1 = Double(rect.maxY) + grow
    let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map { plan.placement.world(col: $0.0, row: $0.1) }
    let scale = level.worldPixels
    let us = corners.map { $0.u * scale }
    let vs = corners.map { $0.v * scale }
    func low(_ values: [Double]) -> Int {
      let v = values.min() ?? 0
      return v.isFinite ? Int(max(-1e15, v).rounded(.down)) - reach : Int.min / 4
    }
    func high(_ values: [Double]) -> Int {
      let v = values.max() ?? 0
      return v.isFinite ? Int(min(1e15, v).rounded(.up)) + reach : Int.max / 4
    }
    return Box(x0: low(us), y0: low(vs), x1: high(us), y1: high(vs))
  }

  static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
  static func ceilDiv(_ a: Int, _ b: Int) -> Int { -floorDiv(-a, b) }
}
