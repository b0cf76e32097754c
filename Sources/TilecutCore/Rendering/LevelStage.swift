import Foundation

extension PyramidBuilder {
  /// One level's strip accumulator.
  final class Stage {
    let level: DensityLevel
    unowned let builder: PyramidBuilder
    let next: Stage?
    let stride: Int
    var buffer: [UInt8]
    var stripTop: Int?
    /// Where a flushed strip's storage waits while its tiles are encoded in place;
    /// nil when the stage copies its tiles out instead (its strips are too wide to
    /// keep one more, see `PyramidBuilder.inPlaceBudget`).
    let spares: StripPool?

    /// The bytes of a stage's strip buffer.
    static func bufferBytes(_ level: DensityLevel) -> Int {
      level.region.width * 4 * min(level.stripHeight, level.region.height + level.stripHeight)
    }

    init(level: DensityLevel, builder: PyramidBuilder, next: Stage?, inPlace: Bool) {
      self.level = level
      self.builder = builder
      self.next = next
      stride = level.region.width * 4
      let reuse = builder.settings.previous?.levels[LevelID(level)]
      self.reuse = reuse
      let bytes = Self.bufferBytes(level)
      if let columns = reuse?.columns {
        // an incremental rebuild's level of a chain: only its `columns` are cleared,
        // made and read, so the pages of the others are not touched (as a spare's are not)
        buffer = [UInt8](unsafeUninitializedCapacity: bytes) { _, count in count = bytes }
        self.columns = columns
      } else if !level.strips.isEmpty, level.strips.allSatisfy({ $0.columns != nil }) {
        // a direct level whose every strip names the columns anything reads: its
        // reader gives those alone, and the others are not read
        buffer = [UInt8](unsafeUninitializedCapacity: bytes) { _, count in count = bytes }
        columns = 0..<level.region.width
      } else {
        buffer = [UInt8](repeating: 0, count: bytes)
        columns = 0..<level.region.width
      }
      // one strip in flight besides the stage's (and its reader's): a strip's tiles
      // are encoded while the next is read and cut
      spares = inPlace ? StripPool(count: buffer.count, limit: 1) : nil
    }

    /// The columns of the region whose pixels anything reads: all of them but in the
    /// levels of an incremental rebuild's chains (`LevelReuse.columns`).
    let columns: Range<Int>

    /// Clears `rows` rows from `row` of the buffer at `base`, in `columns` only.
    private func clear(_ base: UnsafeMutablePointer<UInt8>, row: Int, rows: Int) {
      guard rows > 0 else { return }
      if columns.count == level.region.width {
        (base + row * stride).update(repeating: 0, count: rows * stride)
      } else {
        for r in row..<(row + rows) { (base + r * stride + columns.lowerBound * 4).update(repeating: 0, count: columns.count * 4) }
      }
    }

    /// In an incremental rebuild: the strips this level makes even when the level
    /// above sends it nothing, and the previous tiles it puts back into them.
    let reuse: LevelReuse?
    /// The next of `reuse.strips` to make.
    private var extraIndex = 0
    /// The top of the last strip flushed (strips go top to bottom).
    private var doneTop: Int?

    /// Moves on to the strip at `strip`: flushes the current one if it is another, and
    /// makes the strips `reuse` asks for above it.
    func advance(to strip: Int) throws {
      if let current = stripTop, current != strip { try flush() }
      if stripTop == nil { try flushExtras(before: strip) }
      begin(strip)
    }

    /// Makes each strip of `reuse.strips` above row `limit` not made yet: the rows the
    /// level above sent it (none) and the previous tiles put back, then cut and reduced.
    func flushExtras(before limit: Int) throws {
      guard let reuse, stripTop == nil else { return }
      while extraIndex < reuse.strips.count, reuse.strips[extraIndex] < limit {
        let top = reuse.strips[extraIndex]
        extraIndex += 1
        if let done = doneTop, top <= done { continue }
        begin(top)
        try flush()
      }
    }

    /// Puts the previous output's tiles `reuse` names back into the strip at `top`.
    private func putBack(top: Int, height: Int) throws {
      guard let reuse, let tiles = builder.settings.previous?.tiles else { return }
      let size = reuse.tileSize
      let region = level.region
      let stride = self.stride
      for ty in (top / size)..<((top + height + size - 1) / size) {
        guard let columns = reuse.paste[ty] else { continue }
        let y0 = max(ty * size, top)
        let y1 = min((ty + 1) * size, top + height)
        for tx in columns {
          let x0 = max(tx * size, region.x)
          let x1 = min((tx + 1) * size, region.maxX)
          guard x0 < x1, y0 < y1 else { continue }
          let tile = TileCoordinate(zoom: reuse.zoom, x: tx, y: ty)
          let rgba = try tiles.rgba(floor: builder.plan.floor, tileSize: size, tile: tile)
          if let rgba, rgba.count != size * size * 4 {
            throw TilecutError.output(
              path: "floor \(builder.plan.floor) \(size) px tile \(tile)",
              reason: "of the previous output is not \(size) × \(size) pixels; run again with --force")
          }
          buffer.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            for y in y0..<y1 {
              let dst = base + (y - top) * stride + (x0 - region.x) * 4
              if let rgba {
                rgba.withUnsafeBufferPointer { src in
                  guard let s = src.baseAddress else { return }
                  dst.update(from: s + ((y - ty * size) * size + (x0 - tx * size)) * 4, count: (x1 - x0) * 4)
                }
              } else {
                dst.update(repeating: 0, count: (x1 - x0) * 4)
              }
            }
          }
        }
      }
    }

    /// Rows of the current strip below this one are neither written nor cleared yet:
    /// a reduced stage clears only what the level above does not write, a direct
    /// one (`clear: false`) is filled whole by its reader.
    var filledTo = 0

    func begin(_ top: Int, clear: Bool = true) {
      if stripTop == top { return }
      stripTop = top
      filledTo = clear ? 0 : Int.max
    }

    /// Before strip rows [r0, r1) are written in columns [c0, c1) (the level above
    /// writes its rows in order): clears the rows skipped since the last write, and
    /// this write's rows outside its columns.
    private func prepare(_ base: UnsafeMutablePointer<UInt8>, rows r0: Int, _ r1: Int, columns c0: Int, _ c1: Int) {
      if filledTo < r0 { clear(base, row: filledTo, rows: r0 - filledTo) }
      let (left, right) = (columns.lowerBound, columns.upperBound)
      if c0 > left || c1 < right {
        for r in max(r0, 0)..<r1 {
          if c0 > left { (base + r * stride + left * 4).update(repeating: 0, count: (min(c0, right) - left) * 4) }
          if c1 < right { (base + r * stride + max(c1, left) * 4).update(repeating: 0, count: (right - max(c1, left)) * 4) }
        }
      }
      filledTo = max(filledTo, r1)
    }

    /// Takes `count` reduced rows from the level above, `top` in this level's global rows.
    func receive(_ rows: UnsafePointer<UInt8>, top: Int, count: Int, x: Int, width: Int) throws {
      let region = level.region
      let strip = (top / level.stripHeight) * level.stripHeight
      try advance(to: strip)
      let x0 = max(x, region.x)
      let x1 = min(x + width, region.maxX)
      if x0 < x1 {
        let y0 = max(top, region.y)
        let y1 = min(top + count, region.maxY)
        buffer.withUnsafeMutableBufferPointer { buf in
          guard let base = buf.baseAddress, y0 < y1 else { return }
          prepare(base, rows: y0 - strip, y1 - strip, columns: x0 - region.x, x1 - region.x)
          for y in y0..<y1 {
            let src = rows + (y - top) * width * 4 + (x0 - x) * 4
            let dst = base + (y - strip) * stride + (x0 - region.x) * 4
            dst.update(from: src, count: (x1 - x0) * 4)
          }
        }
      }
      if top + count >= min(strip + level.stripHeight, region.maxY) { try flush() }
    }

    func flush() throws {
      guard let top = stripTop else { return }
      stripTop = nil
      doneTop = top
      let height = min(level.stripHeight, level.region.maxY - top)
      guard height > 0 else { return }
      if filledTo < height {
        let from = filledTo
        buffer.withUnsafeMutableBufferPointer { buf in
          buf.baseAddress.map { clear($0, row: from, rows: height - from) }
        }
        filledTo = height
      }
      try putBack(top: top, height: height)
      completePending(stripTop: top)
      // the strip's tiles read it in place; the stage goes on in another buffer when
      // this function returns, having halved this one
      defer { if let spares { buffer = spares.take() } }
      if let spares {
        cut(top: top, height: height, hold: StripHold(buffer, pool: spares))
      } else {
        cutCopies(top: top, height: height)
      }
      if let derived { cutDerived(derived, top: top, height: height) }
      if height > 0 {
        lastRow = Array(buffer[(height - 1) * stride..<height * stride])
        lastRowTop = top + height - 1
      }
      try builder.pool.checkpoint()
      if let next {
        let outHeight = (height + 1) / 2
        // the columns the next level makes from this one (of an incremental rebuild's:
        // its `made`, in its region), as pairs of this level's columns from `first`
        var outColumns = 0..<((level.region.width + 1) / 2)
        if let made = next.reuse?.made, level.region.x % 2 == 0 {
          let x = next.level.region.x - level.region.x / 2
          let narrowed = (made.lowerBound + x)..<(made.upperBound + x)
          if narrowed.overlaps(outColumns) { outColumns = narrowed.clamped(to: outColumns) }
        }
        let first = 2 * outColumns.lowerBound
        let outWidth = outColumns.count
        let width = min(2 * outWidth, level.region.width - first)
        let stride = self.stride
        // --resampling nearest keeps one pixel of each 2×2 block; every other kernel the mean
        let nearest = self.builder.plan.resampling == .nearest
        // halves the strip into `d`, rows `dStride` bytes apart, on all cores
        let reduce = { (d: UnsafeMutablePointer<UInt8>, dStride: Int) in
          self.buffer.withUnsafeBufferPointer { src in
            guard let s = src.baseAddress.map({ $0 + first * 4 }) else { return }
            let bands = min(self.builder.pool.jobs, max(1, outHeight / 32))
            let per = (outHeight + bands - 1) / bands
            let sAddr = UInt(bitPattern: s)
            let dAddr = UInt(bitPattern: d)
            self.builder.pool.parallelFor(bands) { band in
              let y0 = band * per
              let y1 = min(outHeight, y0 + per)
              guard y0 < y1, let sp = UnsafePointer<UInt8>(bitPattern: sAddr),
                let dp = UnsafeMutablePointer<UInt8>(bitPattern: dAddr)
              else { return }
              let rows = min(height - 2 * y0, 2 * (y1 - y0))
              if nearest {
                PixelOps.pick2x(sp + 2 * y0 * stride, srcStride: stride, width: width, height: rows, into: dp + y0 * dStride, dstStride: dStride)
              } else {
                PixelOps.reduce2x(sp + 2 * y0 * stride, srcStride: stride, width: width, height: rows, into: dp + y0 * dStride, dstStride: dStride)
              }
            }
          }
        }
        // straight into the next level's strip when the rows fall inside it, else through a copy
        let x = level.region.x / 2 + outColumns.lowerBound
        if try next.receiveInPlace(top: top / 2, count: outHeight, x: x, width: outWidth, reduce) { return }
        // every byte is written by reduce2x
        var reduced = [UInt8](unsafeUninitializedCapacity: outWidth * 4 * outHeight) { _, count in count = outWidth * 4 * outHeight }
        reduced.withUnsafeMutableBufferPointer { dst in
          if let d = dst.baseAddress { reduce(d, outWidth * 4) }
        }
        try reduced.withUnsafeBufferPointer { buf in
          guard let base = buf.baseAddress else { return }
          try next.receive(base, top: top / 2, count: outHeight, x: x, width: outWidth)
        }
      }
    }

    /// Like `receive`, but the rows are written by `fill` straight into the strip
    /// buffer (its pointer at (x, top) and the buffer's stride); false, with nothing
    /// written, when they do not all fall inside the region and one strip.
    func receiveInPlace(
      top: Int, count: Int, x: Int, width: Int, _ fill: (UnsafeMutablePointer<UInt8>, Int) -> Void
    ) throws -> Bool {
      let region = level.region
      let strip = (top / level.stripHeight) * level.stripHeight
      let stripEnd = min(strip + level.stripHeight, region.maxY)
      guard x >= region.x, x + width <= region.maxX, top >= region.y, top + count <= stripEnd else { return false }
      try advance(to: strip)
      let stride = self.stride
      buffer.withUnsafeMutableBufferPointer { buf in
        guard let base = buf.baseAddress else { return }
        prepare(base, rows: top - strip, top - strip + count, columns: x - region.x, x - region.x + width)
        fill(base + (top - strip) * stride + (x - region.x) * 4, stride)
      }
      if top + count >= stripEnd { try flush() }
      return true
    }

    func finish() throws {
      try flush()
      try flushExtras(before: Int.max)
      completePending(stripTop: nil)
      try next?.finish()
    }

    /// The level twice as dense, whose tiles are this level's blocks doubled.
    var derived: DensityLevel?
    /// The last row of the previous strip, for interpolating across the seam.
    var lastRow: [UInt8] = []
    var lastRowTop: Int?

    /// Derived blocks whose bottom border row is the first row of the next strip.
    var pendingBlocks: [PendingBlock] = []
    /// The level row the pending blocks wait for.
    var pendingRow: Int?
    /// A derived tile's block, complete but for its last row.
    struct PendingBlock {
      var key: LevelKey
      var tile: TileCoordinate
      var size: Int
      var sx: Int
      var block: [UInt8]
    }

    /// Queues one tile: `pixels` runs on a worker and gives the tile's RGBA, or nil
    /// when it turns out blank; the worker then encodes, writes and records it.
    /// `holding`: the bytes the queued closure keeps alive until it runs.
    func enqueue(
      _ key: LevelKey, _ tile: TileCoordinate, holding: Int, upsampled: Bool,
      pixels: @escaping @Sendable () -> [UInt8]?
    ) {
      let encoder = builder.encoder
      let writer = builder.writer
      let ledger = builder.ledger
      builder.pool.submit(holding: holding) {
        guard let rgba = pixels() else {
          ledger.blank(key)
          return
        }
        let bytes = try encoder.encode(rgba: rgba, key: key, tile: tile, upsampled: upsampled)
        try writer.put(bytes, floor: key.floor, tileSize: key.tileSize, tile: tile)
        ledger.written(key, tile, bytes: bytes.count)
      }
    }

    /// Cuts the strip's tiles into copies and queues their encoding.
    private func cutCopies(top: Int, height: Int) {
      let region = level.region
      let settings = builder.settings
      eachTile(level.cuts, top: top, height: height, scale: 1) { cut, key, tile in
        let size = cut.tileSize
        let origin = (tile.y * size - top) * stride + (tile.x * size - region.x) * 4
        let pixels: [UInt8]? = buffer.withUnsafeBufferPointer { buf in
          guard let base = buf.baseAddress.map({ $0 + origin }),
            !PixelOps.isBlank(base, stride: stride, width: size, height: size, background: settings.background)
          else { return nil }
          return [UInt8](unsafeUninitializedCapacity: size * size * 4) { out, count in
            if let o = out.baseAddress {
              for row in 0..<size { (o + row * size * 4).initialize(from: base + row * stride, count: size * 4) }
            }
            count = size * size * 4
          }
        }
        guard let pixels else {
          builder.ledger.blank(key)
          return
        }
        enqueue(key, tile, holding: pixels.count, upsampled: level.upsampled) { pixels }
      }
    }

    /// Cuts the strip's tiles and queues their encoding, each read in place from the
    /// strip `hold` keeps until the last is done.
    private func cut(top: Int, height: Int, hold: StripHold) {
      let region = level.region
      let settings = builder.settings
      let stride = self.stride
      let upsampled = level.upsampled
      let encoder = builder.encoder
      let writer = builder.writer
      let ledger = builder.ledger
      eachTile(level.cuts, top: top, height: height, scale: 1) { cut, key, tile in
        let size = cut.tileSize
        let offset = (tile.y * size - top) * stride + (tile.x * size - region.x) * 4
        let blank = hold.storage.withUnsafeBufferPointer { buf in
          buf.baseAddress.map { PixelOps.isBlank($0 + offset, stride: stride, width: size, height: size, background: settings.background) }
            ?? true
        }
        if blank {
          ledger.blank(key)
          return
        }
        builder.pool.submit(holding: WorkPool.backlogUnit) {
          let bytes = try hold.storage.withUnsafeBufferPointer { buf -> [UInt8] in
            guard let base = buf.baseAddress else { return [] }
            return try encoder.encode(pixels: base + offset, stride: stride, key: key, tile: tile, upsampled: upsampled)
          }
          try writer.put(bytes, floor: key.floor, tileSize: key.tileSize, tile: tile)
          ledger.written(key, tile, bytes: bytes.count)
        }
      }
    }

    /// Calls `body` for each tile of `cuts` in rows [top, top + height) of this level,
    /// measured in pixels `scale` times finer (2 for the doubled level above), leaving
    /// out the tiles another shard owns.
    func eachTile(_ cuts: [LevelCut], top: Int, height: Int, scale: Int, _ body: (LevelCut, LevelKey, TileCoordinate) -> Void) {
      let plan = builder.plan
      for cut in cuts {
        let size = cut.tileSize
        let key = LevelKey(floor: plan.floor, tileSize: size, zoom: cut.zoom)
        let firstRow = max(cut.range.yRange.lowerBound, (scale * top) / size)
        let lastRow = min(cut.range.yRange.upperBound, (scale * (top + height)) / size - 1)
        guard firstRow <= lastRow else { continue }
        for ty in firstRow...lastRow {
          for tx in cut.range.xRange {
            let tile = TileCoordinate(zoom: cut.zoom, x: tx, y: ty)
            if let shard = builder.settings.shard, !shard.owns(floor: plan.floor, tileSize: size, tile: tile) { continue }
            if let only = builder.settings.only, !only.contains(key, tile) { continue }
            body(cut, key, tile)
          }
        }
      }
    }
  }
}
