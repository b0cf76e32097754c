import Foundation
import Synchronization

/// Gives the pixels of one direct level, strip by strip, top to bottom.
public protocol LevelPixelSource: AnyObject {
  /// Fills `count` rows starting `top` rows below the region's top edge, each the
  /// region's full width of packed RGBA8 (row stride = 4 × region width).
  func read(top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws
}

/// One strip of a direct level: rows [top, top + count) of its region, which land
/// at row `offset` of a strip buffer.
public struct LevelStrip: Sendable, Equatable {
  public var top: Int
  public var count: Int
  public var offset: Int
}

/// Turns one square RGBA8 tile into file bytes.
public protocol TileEncoder: Sendable {
  var fileExtension: String { get }
  /// `upsampled`: the tile is finer than the source (512 px tiles at the deepest
  /// zoom) and holds no detail of its own, so an encoder may spend less effort on it.
  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8]
}

extension TileEncoder {
  public func encode(rgba: [UInt8], size: Int) throws -> [UInt8] {
    try encode(rgba: rgba, size: size, upsampled: false)
  }
}

/// Takes the encoded tiles of a run: a tile store, or a test's sink. How a tile is
/// named (a file path, an MBTiles row) is the writer's business.
public protocol TileWriter: Sendable {
  func put(_ bytes: [UInt8], floor: Int, tileSize: Int, tile: TileCoordinate) throws
}

/// One floor, tile size and zoom: the unit the manifest and summary count by.
public struct LevelKey: Hashable, Sendable, Codable, Comparable {
  public var floor: Int
  public var tileSize: Int
  public var zoom: Int

  public init(floor: Int, tileSize: Int, zoom: Int) {
    self.floor = floor
    self.tileSize = tileSize
    self.zoom = zoom
  }

  public static func < (l: LevelKey, r: LevelKey) -> Bool {
    (l.floor, l.tileSize, l.zoom) < (r.floor, r.tileSize, r.zoom)
  }
}

/// What was written for one level.
public struct LevelOutcome: Sendable, Codable, Equatable {
  public var tiles: [TileCoordinate] = []
  public var blank: Int = 0
  public var bytes: Int = 0
  public init() {}
}

/// Collects outcomes from every worker.
public final class RenderLedger: Sendable {
  private let state = Mutex<[LevelKey: LevelOutcome]>([:])
  private let onTile: (@Sendable (LevelKey, Bool) -> Void)?

  public init(onTile: (@Sendable (LevelKey, Bool) -> Void)? = nil) { self.onTile = onTile }

  func written(_ key: LevelKey, _ tile: TileCoordinate, bytes: Int) {
    state.withLock {
      $0[key, default: LevelOutcome()].tiles.append(tile)
      $0[key, default: LevelOutcome()].bytes += bytes
    }
    onTile?(key, true)
  }

  func blank(_ key: LevelKey) {
    state.withLock { $0[key, default: LevelOutcome()].blank += 1 }
    onTile?(key, false)
  }

  func touch(_ key: LevelKey) { state.withLock { _ = $0[key, default: LevelOutcome()] } }

  public var outcomes: [LevelKey: LevelOutcome] { state.withLock { $0 } }
}

/// Which tiles a run renders, for `--shard K/N`: a fixed hash of the tile picks its shard.
public struct ShardSelector: Hashable, Sendable, Codable {
  public var index: Int
  public var count: Int

  public init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

  public func owns(floor: Int, tileSize: Int, tile: TileCoordinate) -> Bool {
    guard count > 1 else { return true }
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15
    for v in [floor, tileSize, tile.zoom, tile.x, tile.y] {
      h ^= UInt64(bitPattern: Int64(v)) &+ 0x9E37_79B9_7F4A_7C15 &+ (h << 6) &+ (h >> 2)
      h = (h ^ (h >> 30)) &* 0xBF58_476D_1CE4_E5B9
      h = (h ^ (h >> 27)) &* 0x94D0_49BB_1331_11EB
      h ^= h >> 31
    }
    return Int(h % UInt64(count)) == index - 1
  }
}

/// What shapes the pixels and the choice of tiles, beyond the plan.
public struct RenderSettings: Sendable {
  public var template: TileNameTemplate
  public var background: ColorRule?
  public var knockout: ColorRule?
  public var shard: ShardSelector?

  public init(template: TileNameTemplate, background: ColorRule? = nil, knockout: ColorRule? = nil, shard: ShardSelector? = nil) {
    self.template = template
    self.background = background
    self.knockout = knockout
    self.shard = shard
  }
}

/// Streams one floor's levels in 512-row strips: the densest direct level is read
/// once, cut into every tile size it serves, and halved into the next level, so
/// memory holds about one strip per level whatever the source's size.
public final class PyramidBuilder {
  public static let stripHeight = 512

  let plan: FloorPlan
  let settings: RenderSettings
  let encoder: any TileEncoder
  let writer: any TileWriter
  let pool: WorkPool
  let ledger: RenderLedger
  let openSource: (DensityLevel) throws -> any LevelPixelSource

  public init(
    plan: FloorPlan, settings: RenderSettings, encoder: any TileEncoder, writer: any TileWriter,
    pool: WorkPool, ledger: RenderLedger, openSource: @escaping (DensityLevel) throws -> any LevelPixelSource
  ) {
    self.plan = plan
    self.settings = settings
    self.encoder = encoder
    self.writer = writer
    self.pool = pool
    self.ledger = ledger
    self.openSource = openSource
  }

  /// Renders every level of the floor; tile jobs may still be running on the pool when it returns.
  public func build() throws {
    for level in plan.levels {
      for cut in level.cuts { ledger.touch(LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)) }
    }
    let chain = plan.chain
    // The level just above a raster chain (512 px tiles at the deepest zoom) is the
    // chain's head doubled: no second decode, no second resample.
    let derived = plan.standalone.first { level in
      !plan.source.isVector && chain.first.map { level.density == $0.density + 1 } == true
    }
    for level in plan.standalone where level != derived {
      let stage = Stage(level: level, builder: self, next: nil)
      try stream(level, into: stage)
    }
    try streamChain(chain, derived: derived)
    // The @3x levels (768 px tiles) are a chain of their own: 768 is not 256·2^k.
    try streamChain(plan.chain(base: PyramidPlanner.tripleTileSize), derived: nil)
  }

  /// Streams a chain's direct head into stages that reduce it level by level.
  private func streamChain(_ chain: [DensityLevel], derived: DensityLevel?) throws {
    guard let top = chain.first else { return }
    var next: Stage?
    for level in chain.dropFirst().reversed() { next = Stage(level: level, builder: self, next: next) }
    let head = Stage(level: top, builder: self, next: next)
    head.derived = derived
    try stream(top, into: head)
  }

  /// The strips a direct level is read in, top to bottom: aligned on the level's
  /// pixel grid every `stripHeight` rows (the level's own), so the first and last may be partial.
  public static func strips(of region: PixelRect, stripHeight: Int = stripHeight) -> [LevelStrip] {
    var strips: [LevelStrip] = []
    var top = region.y
    while top < region.maxY {
      let stripTop = (top / stripHeight) * stripHeight
      let count = min(stripTop + stripHeight, region.maxY) - top
      strips.append(LevelStrip(top: top - region.y, count: count, offset: top - stripTop))
      top += count
    }
    return strips
  }

  private func stream(_ level: DensityLevel, into stage: Stage) throws {
    let region = level.region
    let strips = Self.strips(of: region, stripHeight: level.stripHeight)
    let open = openSource
    let reader = try StripReader(open: { try open(level) }, strips: strips, stride: stage.stride, rows: level.stripHeight)
    defer { reader.finish() }
    for (index, strip) in strips.enumerated() {
      try pool.checkpoint()
      let stripTop = region.y + strip.top - strip.offset
      stage.begin(stripTop, clear: false)
      try reader.take(index, into: &stage.buffer)
      if let rule = settings.knockout {
        stage.buffer.withUnsafeMutableBufferPointer { buf in
          guard let base = buf.baseAddress else { return }
          PixelOps.knockOut(base + strip.offset * stage.stride, count: strip.count * region.width, rule: rule)
        }
      }
      try stage.flush()
    }
    try stage.finish()
  }

  /// One level's strip accumulator.
  final class Stage {
    let level: DensityLevel
    unowned let builder: PyramidBuilder
    let next: Stage?
    let stride: Int
    var buffer: [UInt8]
    var stripTop: Int?

    init(level: DensityLevel, builder: PyramidBuilder, next: Stage?) {
      self.level = level
      self.builder = builder
      self.next = next
      stride = level.region.width * 4
      buffer = [UInt8](repeating: 0, count: stride * min(level.stripHeight, level.region.height + level.stripHeight))
    }

    func begin(_ top: Int, clear: Bool = true) {
      if stripTop == top { return }
      stripTop = top
      if clear { _ = buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
    }

    /// Takes `count` reduced rows from the level above, `top` in this level's global rows.
    func receive(_ rows: UnsafePointer<UInt8>, top: Int, count: Int, x: Int, width: Int) throws {
      let region = level.region
      let strip = (top / level.stripHeight) * level.stripHeight
      if let current = stripTop, current != strip { try flush() }
      begin(strip)
      let x0 = max(x, region.x)
      let x1 = min(x + width, region.maxX)
      if x0 < x1 {
        let y0 = max(top, region.y)
        let y1 = min(top + count, region.maxY)
        buffer.withUnsafeMutableBufferPointer { buf in
          guard let base = buf.baseAddress, y0 < y1 else { return }
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
      let height = min(level.stripHeight, level.region.maxY - top)
      guard height > 0 else { return }
      completePending(stripTop: top)
      cut(top: top, height: height)
      if let derived { cutDerived(derived, top: top, height: height) }
      if height > 0 {
        lastRow = Array(buffer[(height - 1) * stride..<height * stride])
        lastRowTop = top + height - 1
      }
      try builder.pool.checkpoint()
      if let next {
        let outWidth = (level.region.width + 1) / 2
        let outHeight = (height + 1) / 2
        let width = level.region.width
        let stride = self.stride
        // halves the strip into `d`, rows `dStride` bytes apart, on all cores
        let reduce = { (d: UnsafeMutablePointer<UInt8>, dStride: Int) in
          self.buffer.withUnsafeBufferPointer { src in
            guard let s = src.baseAddress else { return }
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
              PixelOps.reduce2x(
                sp + 2 * y0 * stride, srcStride: stride, width: width, height: min(height - 2 * y0, 2 * (y1 - y0)),
                into: dp + y0 * dStride, dstStride: dStride)
            }
          }
        }
        // straight into the next level's strip when the rows fall inside it, else through a copy
        if try next.receiveInPlace(top: top / 2, count: outHeight, x: level.region.x / 2, width: outWidth, reduce) { return }
        // every byte is written by reduce2x
        var reduced = [UInt8](unsafeUninitializedCapacity: outWidth * 4 * outHeight) { _, count in count = outWidth * 4 * outHeight }
        reduced.withUnsafeMutableBufferPointer { dst in
          if let d = dst.baseAddress { reduce(d, outWidth * 4) }
        }
        try reduced.withUnsafeBufferPointer { buf in
          guard let base = buf.baseAddress else { return }
          try next.receive(base, top: top / 2, count: outHeight, x: level.region.x / 2, width: outWidth)
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
      if let current = stripTop, current != strip { try flush() }
      begin(strip)
      let stride = self.stride
      buffer.withUnsafeMutableBufferPointer { buf in
        if let base = buf.baseAddress { fill(base + (top - strip) * stride + (x - region.x) * 4, stride) }
      }
      if top + count >= stripEnd { try flush() }
      return true
    }

    func finish() throws {
      try flush()
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

    /// Copies columns sx-1 ..< sx-1+blockWidth of a level row into a block row,
    /// repeating the edge pixel beyond the level's width.
    private static func copyBlockRow(_ row: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<UInt8>, sx: Int, blockWidth: Int, width: Int) {
      let first = min(max(sx - 1, 0), width - 1)
      let lead = min(first - (sx - 1), blockWidth)
      let span = max(min(sx - 1 + blockWidth, width) - first, 0)
      let copied = min(span, blockWidth - lead)
      (dst + 4 * lead).update(from: row + 4 * first, count: 4 * copied)
      for c in 0..<lead { (dst + 4 * c).update(from: row + 4 * first, count: 4) }
      let lastColumn = row + 4 * (first + max(copied, 1) - 1)
      for c in (lead + copied)..<blockWidth { (dst + 4 * c).update(from: lastColumn, count: 4) }
    }

    /// Finishes the blocks that waited for this strip: their last row is its first
    /// row when the strip follows on, else (the level's last strip) the edge row they have.
    private func completePending(stripTop: Int?) {
      guard !pendingBlocks.isEmpty else { return }
      let blocks = pendingBlocks
      pendingBlocks = []
      let follows = stripTop != nil && stripTop == pendingRow
      pendingRow = nil
      let width = level.region.width
      for var p in blocks {
        let blockWidth = p.size / 2 + 2
        if follows {
          buffer.withUnsafeBufferPointer { buf in
            p.block.withUnsafeMutableBufferPointer { b in
              guard let base = buf.baseAddress, let o = b.baseAddress else { return }
              Self.copyBlockRow(base, into: o + (blockWidth - 1) * blockWidth * 4, sx: p.sx, blockWidth: blockWidth, width: width)
            }
          }
        }
        queueDerived(p.key, p.tile, size: p.size, block: p.block)
      }
    }

    /// Queues the tiles of the level above whose pixels are this strip's blocks
    /// doubled: each worker upsamples its own block, and blocks with no visible
    /// pixel are skipped before any work. A block whose bottom border lies in the
    /// next strip waits for it, so strips leave no seam.
    private func cutDerived(_ up: DensityLevel, top: Int, height: Int) {
      let region = level.region
      let hasLast = lastRowTop == top - 1
      let moreBelow = top + height < region.maxY
      eachTile(up.cuts, top: top, height: height, scale: 2) { cut, key, tile in
        let size = cut.tileSize
        let half = size / 2
        let blockWidth = half + 2
        // the block's pixels in this level, with a one-pixel border, clamped
        let sx = tile.x * half - region.x
        let sy = tile.y * half - top
        let rowBytes = blockWidth * 4
        let block = [UInt8](unsafeUninitializedCapacity: blockWidth * rowBytes) { out, count in
          count = blockWidth * rowBytes
          guard let o = out.baseAddress else { return }
          buffer.withUnsafeBufferPointer { buf in
            lastRow.withUnsafeBufferPointer { last in
              guard let base = buf.baseAddress else { return }
              for r in 0..<blockWidth {
                let y = sy - 1 + r
                let rowPtr: UnsafePointer<UInt8>
                if y < 0 {
                  rowPtr = hasLast ? (last.baseAddress ?? base) : base
                } else {
                  rowPtr = base + min(y, height - 1) * stride
                }
                Self.copyBlockRow(rowPtr, into: o + r * rowBytes, sx: sx, blockWidth: blockWidth, width: region.width)
              }
            }
          }
        }
        if moreBelow && sy + half >= height {
          pendingBlocks.append(PendingBlock(key: key, tile: tile, size: size, sx: sx, block: block))
          pendingRow = top + height
        } else {
          queueDerived(key, tile, size: size, block: block)
        }
      }
    }

    /// Queues one derived tile from its finished block, unless no pixel of it is visible.
    private func queueDerived(_ key: LevelKey, _ tile: TileCoordinate, size: Int, block: [UInt8]) {
      let visible = block.withUnsafeBytes { raw in
        (0..<(raw.count / 4)).contains { raw[4 * $0 + 3] != 0 }
      }
      guard visible else {
        builder.ledger.blank(key)
        return
      }
      let rowBytes = (size / 2 + 2) * 4
      let background = builder.settings.background
      enqueue(key, tile, holding: block.count, upsampled: true) {
        let pixels = [UInt8](unsafeUninitializedCapacity: size * size * 4) { p, count in
          count = size * size * 4
          block.withUnsafeBufferPointer { b in
            guard let bb = b.baseAddress, let pp = p.baseAddress else { return }
            PixelOps.upsampleTile(bb, blockStride: rowBytes, size: size, into: pp)
          }
        }
        let blank = pixels.withUnsafeBufferPointer { p in
          p.baseAddress.map { PixelOps.isBlank($0, stride: size * 4, width: size, height: size, background: background) } ?? true
        }
        return blank ? nil : pixels
      }
    }

    /// Queues one tile: `pixels` runs on a worker and gives the tile's RGBA, or nil
    /// when it turns out blank; the worker then encodes, writes and records it.
    /// `holding`: the bytes the queued closure keeps alive until it runs.
    private func enqueue(
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
        let bytes = try encoder.encode(rgba: rgba, size: key.tileSize, upsampled: upsampled)
        try writer.put(bytes, floor: key.floor, tileSize: key.tileSize, tile: tile)
        ledger.written(key, tile, bytes: bytes.count)
      }
    }

    /// Cuts the strip's tiles and queues their encoding.
    private func cut(top: Int, height: Int) {
      let region = level.region
      let settings = builder.settings
      eachTile(level.cuts, top: top, height: height, scale: 1) { cut, key, tile in
        let size = cut.tileSize
        let tx = tile.x
        let ty = tile.y
        let px = tx * size - region.x
        let py = ty * size - top
        let pixels: [UInt8]? = buffer.withUnsafeBufferPointer { buf in
          guard let base = buf.baseAddress else { return nil }
          let origin = base + py * stride + px * 4
          if PixelOps.isBlank(origin, stride: stride, width: size, height: size, background: settings.background) {
            return nil
          }
          return [UInt8](unsafeUninitializedCapacity: size * size * 4) { out, count in
            if let o = out.baseAddress {
              for row in 0..<size { (o + row * size * 4).initialize(from: origin + row * stride, count: size * 4) }
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

    /// Calls `body` for each tile of `cuts` in rows [top, top + height) of this level,
    /// measured in pixels `scale` times finer (2 for the doubled level above), leaving
    /// out the tiles another shard owns.
    private func eachTile(_ cuts: [LevelCut], top: Int, height: Int, scale: Int, _ body: (LevelCut, LevelKey, TileCoordinate) -> Void) {
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
            body(cut, key, tile)
          }
        }
      }
    }
  }
}
