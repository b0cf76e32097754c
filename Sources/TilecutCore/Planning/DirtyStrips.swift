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
    // a level read for its own cells alone: in its dirty cells' columns
    func narrow(_ index: Int) {
      let level = out.levels[index]
      var cells: [Box] = []
      for cut in level.cuts {
        let key = LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)
        let size = cut.tileSize
        cells += (dirty.tiles[key] ?? []).map { Box(x0: $0.x * size, y0: $0.y * size, x1: ($0.x + 1) * size, y1: ($0.y + 1) * size) }
        cells += (dirty.ranges[key] ?? []).map {
          Box(
            x0: $0.xRange.lowerBound * size, y0: $0.yRange.lowerBound * size, x1: ($0.xRange.upperBound + 1) * size,
            y1: ($0.yRange.upperBound + 1) * size)
        }
      }
      out.levels[index].strips = level.strips.map { $0.narrowed(to: cells, region: level.region, top: level.region.y + $0.top) }
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
        narrow(index)
      }
    }
    return out
  }
}

extension DirtyCells {
  /// The plan for an incremental rebuild that takes the clean part of each level of a
  /// reduction chain from the previous output's tiles of that level, and what to take.
  ///
  /// A reduced level's pixel is the 2 × 2 mean of the level above's (`PixelOps.reduce2x`:
  /// a function of those four pixels alone, and of none of their colours where they are
  /// transparent), so the pixels of level j that the dirty cells need are the dirty
  /// cells' own and those under the reach of what level j + 1 makes from them. Of those,
  /// the ones in clean tiles (of a cut whose tiles cover the region exactly) are put back
  /// from the previous output (`LevelReuse.paste`), the others are made from the level
  /// above, which needs the same of its own, up to the chain's head: the head is read
  /// only in the strips its own dirty tiles (and the doubled level's) need, and the
  /// coarse zooms' dirty cells (one tile over the whole plan) no longer read every row
  /// of it. The pixels of a region that no tile of the level holds (a level cut only into
  /// 256 px tiles has a 512-aligned region) are made from the level above where they are
  /// needed. Nil when a level of a chain is cut into no tiles at all.
  ///
  /// `previousHas`: whether the previous output has a tile (not a blank cell, whose pixels
  /// are not known) at a cell of a level's cut. With it, the rows the doubled level's
  /// reach takes from a head strip read for nothing else are put back from the previous
  /// tiles of that strip when they are clean, instead of reading the strip.
  public static func reuse(
    of plan: FloorPlan, dirty: CellSet, previousHas: ((LevelKey, TileCoordinate) -> Bool)? = nil
  ) -> (plan: FloorPlan, levels: [LevelID: LevelReuse])? {
    var out = strips(of: plan, dirty: dirty)
    var levels: [LevelID: LevelReuse] = [:]
    func box(_ t: TileCoordinate, _ size: Int) -> Box { Box(x0: t.x * size, y0: t.y * size, x1: (t.x + 1) * size, y1: (t.y + 1) * size) }
    func clip(_ b: Box, _ r: PixelRect) -> Box? {
      let c = Box(x0: max(b.x0, r.x), y0: max(b.y0, r.y), x1: min(b.x1, r.maxX), y1: min(b.y1, r.maxY))
      return c.x0 < c.x1 && c.y0 < c.y1 ? c : nil
    }
    func meets(_ a: Box, _ b: Box) -> Bool { a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1 }
    for base in Set(plan.levels.map(\.base)).sorted() {
      let chain = plan.chain(base: base)
      guard let head = chain.first, let headIndex = plan.levels.firstIndex(of: head) else { continue }
      // what the level below (coarser) makes from this one, in its own pixels
      var below: [Box] = []
      for (j, level) in chain.enumerated().reversed() {
        let region = level.region
        let covering = level.cuts.filter { cut in
          cut.range.xRange.lowerBound * cut.tileSize == region.x && (cut.range.xRange.upperBound + 1) * cut.tileSize == region.maxX
            && cut.range.yRange.lowerBound * cut.tileSize == region.y && (cut.range.yRange.upperBound + 1) * cut.tileSize == region.maxY
        }
        // a cut whose tiles cover the region exactly, else the one that covers most (its
        // tiles are aligned to their size, the region to 512): the region's pixels that
        // no tile of it holds are made from the level above wherever they are needed
        guard let cut = covering.min(by: { $0.tileSize < $1.tileSize }) ?? level.cuts.max(by: { $0.tileSize < $1.tileSize }) else {
          return nil
        }
        let size = cut.tileSize
        let key = LevelKey(floor: plan.floor, tileSize: size, zoom: cut.zoom)
        let held = Box(
          x0: cut.range.xRange.lowerBound * size, y0: cut.range.yRange.lowerBound * size, x1: (cut.range.xRange.upperBound + 1) * size,
          y1: (cut.range.yRange.upperBound + 1) * size)
        let unheld = [
          Box(x0: region.x, y0: region.y, x1: region.maxX, y1: held.y0), Box(x0: region.x, y0: held.y1, x1: region.maxX, y1: region.maxY),
          Box(x0: region.x, y0: held.y0, x1: held.x0, y1: held.y1), Box(x0: held.x1, y0: held.y0, x1: region.maxX, y1: held.y1),
        ].compactMap { clip($0, region) }
        var own: [Box] = []
        for c in level.cuts {
          let k = LevelKey(floor: plan.floor, tileSize: c.tileSize, zoom: c.zoom)
          own += (dirty.tiles[k] ?? []).compactMap { clip(box($0, c.tileSize), region) }
          own += (dirty.ranges[k] ?? []).compactMap {
            clip(
              Box(
                x0: $0.xRange.lowerBound * c.tileSize, y0: $0.yRange.lowerBound * c.tileSize, x1: ($0.xRange.upperBound + 1) * c.tileSize,
                y1: ($0.yRange.upperBound + 1) * c.tileSize), region)
          }
        }
        // a pair of pixels, and one more for safety at an odd edge
        let input = below.compactMap { clip(Box(x0: 2 * $0.x0 - 1, y0: 2 * $0.y0 - 1, x1: 2 * $0.x1 + 1, y1: 2 * $0.y1 + 1), region) }
        let needed = own + input
        var compute = own
        for u in unheld {
          for n in needed {
            let both = Box(x0: max(u.x0, n.x0), y0: max(u.y0, n.y0), x1: min(u.x1, n.x1), y1: min(u.y1, n.y1))
            if both.x0 < both.x1 && both.y0 < both.y1 { compute.append(both) }
          }
        }
        var paste: [Int: Set<Int>] = [:]
        var seen = Set<TileCoordinate>()
        for b in needed {
          let ty0 = max(cut.range.yRange.lowerBound, b.y0 / size)
          let ty1 = min(cut.range.yRange.upperBound, (b.y1 - 1) / size)
          let tx0 = max(cut.range.xRange.lowerBound, b.x0 / size)
          let tx1 = min(cut.range.xRange.upperBound, (b.x1 - 1) / size)
          guard ty0 <= ty1, tx0 <= tx1 else { continue }
          for ty in ty0...ty1 {
            for tx in tx0...tx1 {
              let tile = TileCoordinate(zoom: cut.zoom, x: tx, y: ty)
              guard seen.insert(tile).inserted else { continue }
              let t = box(tile, size)
              if dirty.contains(key, tile) || own.contains(where: { meets($0, t) }) {
                compute.append(t)
              } else {
                paste[ty, default: []].insert(tx)
              }
            }
          }
        }
        let height = level.stripHeight
        var tops = Set<Int>()
        for b in needed {
          for top in Swift.stride(from: (b.y0 / height) * height, to: b.y1, by: height) { tops.insert(top) }
        }
        // the head's pixels anything reads (see below)
        var headReads: [Box] = []
        if j == 0 {
          // the head: read from the source in the strips its own cells and the doubled
          // level's need, put back in the others
          var read = compute.map { $0.y0...($0.y1 - 1) }
          // the head's pixels anything reads: its own cells, what the level below and
          // the doubled level make from it (with the doubling's reach), and what it
          // makes of the region no tile holds
          var reads = compute + needed
          var margins: [Box] = []
          for other in plan.levels where other.base == base {
            guard case .double(let from) = other.recipe, from == head.density else { continue }
            for c in other.cuts {
              let k = LevelKey(floor: plan.floor, tileSize: c.tileSize, zoom: c.zoom)
              let rows =
                Set((dirty.tiles[k] ?? []).map(\.y)).map { ($0 * c.tileSize)...(($0 + 1) * c.tileSize - 1) }
                + (dirty.ranges[k] ?? []).map { ($0.yRange.lowerBound * c.tileSize)...(($0.yRange.upperBound + 1) * c.tileSize - 1) }
              read += rows.map { ($0.lowerBound / 2)...($0.upperBound / 2) }
              let cells =
                (dirty.tiles[k] ?? []).map { box($0, c.tileSize) }
                + (dirty.ranges[k] ?? []).map {
                  Box(
                    x0: $0.xRange.lowerBound * c.tileSize, y0: $0.yRange.lowerBound * c.tileSize,
                    x1: ($0.xRange.upperBound + 1) * c.tileSize, y1: ($0.yRange.upperBound + 1) * c.tileSize)
                }
              reads += cells.map { Box(x0: floorDiv($0.x0, 2) - 3, y0: floorDiv($0.y0, 2) - 3, x1: ceilDiv($0.x1, 2) + 3, y1: ceilDiv($0.y1, 2) + 3) }
              // the doubling's reach above and below its cells' own rows
              margins += cells.flatMap {
                [
                  Box(x0: floorDiv($0.x0, 2) - 3, y0: floorDiv($0.y0, 2) - 3, x1: ceilDiv($0.x1, 2) + 3, y1: floorDiv($0.y0, 2)),
                  Box(x0: floorDiv($0.x0, 2) - 3, y0: ceilDiv($0.y1, 2), x1: ceilDiv($0.x1, 2) + 3, y1: ceilDiv($0.y1, 2) + 3),
                ]
              }
            }
          }
          // The reach's rows in a strip read anyway come from the source; in another, the
          // head's tiles under them are put back from the previous output when none of
          // them is dirty and each has a previous tile (whose pixels are then known), so
          // that a strip is not read for a few rows of reach. Else the rows are read.
          let readTops = Set(
            read.flatMap { r in Swift.stride(from: (r.lowerBound / height) * height, through: (r.upperBound / height) * height, by: height) })
          for margin in margins {
            guard let m = clip(margin, region) else { continue }
            for top in Swift.stride(from: (m.y0 / height) * height, through: ((m.y1 - 1) / height) * height, by: height) {
              guard !readTops.contains(top) else { continue }
              let part = Box(x0: m.x0, y0: max(m.y0, top), x1: m.x1, y1: min(m.y1, top + height))
              var under: [TileCoordinate] = []
              var known = previousHas != nil && part.x0 >= held.x0 && part.x1 <= held.x1 && part.y0 >= held.y0 && part.y1 <= held.y1
              if known {
                for ty in (part.y0 / size)...((part.y1 - 1) / size) {
                  for tx in (part.x0 / size)...((part.x1 - 1) / size) {
                    let tile = TileCoordinate(zoom: cut.zoom, x: tx, y: ty)
                    if dirty.contains(key, tile) || own.contains(where: { meets($0, box(tile, size)) }) || !(previousHas?(key, tile) ?? false) {
                      known = false
                    }
                    under.append(tile)
                  }
                }
              }
              if known {
                for tile in under { paste[tile.y, default: []].insert(tile.x) }
                tops.insert(top)
              } else {
                read.append(part.y0...(part.y1 - 1))
              }
            }
          }
          headReads = reads
          let kept = plan.levels[headIndex].strips.compactMap { strip -> LevelStrip? in
            let top = region.y + strip.top
            guard read.contains(where: { $0.overlaps(top...(top + strip.count - 1)) }) else { return nil }
            return strip.narrowed(to: reads, region: region, top: top)
          }
          out.levels[headIndex].strips = kept
          let keptTops = Set(kept.map { region.y + $0.top - $0.offset })
          tops.subtract(keptTops)
          for ty in Array(paste.keys) where keptTops.contains((ty * size / height) * height) { paste[ty] = nil }
        }
        // the columns anything reads of the level (its cells, what the levels below and
        // the doubled level take, what it makes), and those made from the level above;
        // nil for all of them, or when there is nothing to narrow to
        func span(_ boxes: [Box]) -> Range<Int>? {
          var x0 = Int.max
          var x1 = Int.min
          for b in boxes {
            guard let c = clip(b, region) else { continue }
            x0 = min(x0, c.x0)
            x1 = max(x1, c.x1)
          }
          guard x0 < x1, x1 - x0 < region.width else { return nil }
          return (x0 - region.x)..<(x1 - region.x)
        }
        levels[LevelID(level)] = LevelReuse(
          tileSize: size, zoom: cut.zoom, paste: paste.mapValues { $0.sorted() }, strips: tops.sorted(),
          columns: span(j == 0 ? headReads : compute + needed), made: j == 0 ? nil : span(compute))
        below = compute
      }
    }
    return (out, levels)
  }
}

extension LevelStrip {
  /// The strip (rows [top, top + count) of `region`, in level pixels) with its
  /// `columns` cut to the span of the `boxes` (level pixels) that meet its rows: all of
  /// the region when they reach both its edges or none meets it.
  func narrowed(to boxes: [DirtyCells.Box], region: PixelRect, top: Int) -> LevelStrip {
    var span: Range<Int>?
    for b in boxes where b.y0 < top + count && top < b.y1 && b.x0 < b.x1 {
      let x0 = max(b.x0, region.x) - region.x
      let x1 = min(b.x1, region.maxX) - region.x
      guard x0 < x1 else { continue }
      span = span.map { min($0.lowerBound, x0)..<max($0.upperBound, x1) } ?? x0..<x1
    }
    var out = self
    guard let span, span.count < region.width else { return out }
    out.columns = span
    return out
  }
}
