import Foundation

extension DirtyCells {
  /// The plan with each direct level read only in the strips that the `dirty` cells
  /// need: the rows of its own dirty tiles, and for the head of a reduction chain the
  /// rows every reduced level's dirty tiles (and the doubled level's) come from, with
  /// the reductions' and the doubling's reach. The reader skips the other strips
  /// (sources are read forward, so a later strip still decodes the rows before it, but
  /// nothing is resampled, reduced or cut there); what the kept strips make is what a
  /// full read makes in every dirty cell.
  public static func strips(of plan: FloorPlan, dirty: CellSet) -> FloorPlan {
    var out = plan
    func dirtyRows(_ level: DensityLevel) -> [ClosedRange<Int>] {
      var rows: [ClosedRange<Int>] = []
      for cut in level.cuts {
        let key = LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)
        let size = cut.tileSize
        for y in Set((dirty.tiles[key] ?? []).map(\.y)) { rows.append((y * size)...((y + 1) * size - 1)) }
        for range in dirty.ranges[key] ?? [] { rows.append((range.yRange.lowerBound * size)...((range.yRange.upperBound + 1) * size - 1)) }
      }
      return rows
    }
    func keep(_ index: Int, _ needed: [ClosedRange<Int>]) {
      let level = out.levels[index]
      out.levels[index].strips = level.strips.filter { strip in
        let top = level.region.y + strip.top
        return needed.contains { $0.overlaps(top...(top + strip.count - 1)) }
      }
    }
    for base in Set(plan.levels.map(\.base)) {
      let chain = plan.chain(base: base)
      guard let head = chain.first, let headIndex = plan.levels.firstIndex(of: head) else { continue }
      var needed: [ClosedRange<Int>] = []
      for level in chain {
        let k = head.density - level.density
        let scale = 1 << k
        // each reduction reads a pixel (an odd-aligned pair) further at its own scale
        let margin = 2 * scale + 2
        needed += dirtyRows(level).map { ($0.lowerBound * scale - margin)...(($0.upperBound + 1) * scale + margin) }
      }
      for level in plan.levels where level.base == base {
        guard case .double(let from) = level.recipe, from == head.density else { continue }
        needed += dirtyRows(level).map { ($0.lowerBound / 2 - 3)...($0.upperBound / 2 + 3) }
      }
      keep(headIndex, needed)
      for index in plan.levels.indices where plan.levels[index].base == base && plan.levels[index].density > head.density {
        guard plan.levels[index].recipe.readsSource else { continue }
        keep(index, dirtyRows(plan.levels[index]))
      }
    }
    return out
  }
}
