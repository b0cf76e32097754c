import CTilecutResample
import Foundation
import Synchronization

/// Puts the layers of one floor (one per building that has it) into one pyramid.
///
/// Each layer is rendered by its own `PyramidBuilder`, with its own mapping, recipe
/// and pixel options, one after the other, so memory follows the largest layer, not
/// their number. A layer's tiles come here as pixels (`layerEncoder`): a cell only
/// one layer's tile range touches is encoded and written at once, exactly as that
/// building tiled alone. A cell several touch keeps one composite: each layer's tile
/// is put over it as it comes (layers come in the file's order: later over earlier,
/// in premultiplied RGBA), and it is tested for blank and written as soon as the last
/// layer whose range holds it puts its tile there (or, when that tile is blank, once
/// the layer is rendered: `layerDone`), so what waits is one tile
/// per shared cell, not one per layer. A waiting tile is held packed (`PackedTile`):
/// turned buildings' ranges are their bounding boxes, so neighbours share whole
/// columns of cells, most of them transparent corners.
public final class LayerCompositor: Sendable {
  public let floor: Floor
  private let encoder: any TileEncoder
  private let writer: any TileWriter
  private let ledger: RenderLedger
  private let background: ColorRule?
  /// Per tile size and zoom: each layer's tile range (nil where it has none).
  private let ranges: [LevelKey: [TileRange?]]
  /// Cells several layers touch, composited so far: one packed tile per cell, whatever
  /// the number of layers (each arriving layer is put over it at once: the layers come in order).
  private let pending = Mutex<[PendingKey: LayerTile]>([:])

  struct PendingKey: Hashable {
    var key: LevelKey
    var tile: TileCoordinate
  }

  struct LayerTile {
    var pixels: PackedTile
    var upsampled: Bool
  }

  /// `layers`: the floor's plans in the file's order.
  public init(floor: Floor, layers: [FloorPlan], encoder: any TileEncoder, writer: any TileWriter, ledger: RenderLedger, background: ColorRule?) {
    self.floor = floor
    self.encoder = encoder
    self.writer = writer
    self.ledger = ledger
    self.background = background
    var ranges: [LevelKey: [TileRange?]] = [:]
    for (i, layer) in layers.enumerated() {
      for level in layer.levels {
        for cut in level.cuts {
          let key = LevelKey(floor: floor, tileSize: cut.tileSize, zoom: cut.zoom)
          ranges[key, default: [TileRange?](repeating: nil, count: layers.count)][i] = cut.range
        }
      }
    }
    self.ranges = ranges
  }

  /// How many layers' ranges hold the cell.
  func touching(_ key: LevelKey, _ tile: TileCoordinate) -> Int {
    ranges[key]?.reduce(0) { $0 + (($1?.contains(tile) ?? false) ? 1 : 0) } ?? 0
  }

  /// The union of the layers' tile ranges for a tile size and zoom (for the manifest).
  public func range(_ key: LevelKey) -> TileRange? {
    let all = (ranges[key] ?? []).compactMap { $0 }
    guard let first = all.first else { return nil }
    return all.dropFirst().reduce(first) { a, b in
      TileRange(
        zoom: a.zoom, xRange: min(a.xRange.lowerBound, b.xRange.lowerBound)...max(a.xRange.upperBound, b.xRange.upperBound),
        yRange: min(a.yRange.lowerBound, b.yRange.lowerBound)...max(a.yRange.upperBound, b.yRange.upperBound))
    }
  }

  /// Every key any layer cuts.
  public var keys: [LevelKey] { ranges.keys.sorted() }

  /// The encoder a layer's builder uses: it keeps the pixels for `layerWriter`.
  public func layerEncoder() -> any TileEncoder { PixelPassEncoder(fileExtension: encoder.fileExtension) }

  /// The writer of layer `index`: single-layer cells are encoded and written now, the rest wait.
  public func layerWriter(_ index: Int) -> any TileWriter { LayerWriter(compositor: self, layer: index) }

  /// The ledger a layer's builder records into: its blanks count for the floor, and
  /// each of its finished cells, blank or not, tells the main ledger's `onTile` once.
  /// So progress over a composited floor counts every layer's cells (their sum is
  /// what a tracker plans: `cellsPerLayer`), and the compositor's own writes, which
  /// come once per shared cell, are recorded without telling it again.
  public func layerLedger() -> RenderLedger {
    let main = ledger
    return RenderLedger(onTile: { key, written in
      if !written { main.blank(key, notify: false) }
      main.notify(key, written: written)
    })
  }

  /// The cells the layers' builders finish per tile size and zoom, summed over the
  /// layers: what progress over a floor of several buildings counts to.
  public var cellsPerLayer: [LevelKey: Int] {
    ranges.mapValues { $0.reduce(0) { $0 + ($1?.count ?? 0) } }
  }

  /// The last layer whose range holds the cell: once it is rendered, the cell is final.
  func lastLayer(_ key: LevelKey, _ tile: TileCoordinate) -> Int {
    ranges[key]?.lastIndex { $0?.contains(tile) ?? false } ?? -1
  }

  func put(layer: Int, bytes: [UInt8], tileSize: Int, tile: TileCoordinate) throws {
    guard let upsampled = PixelPassEncoder.upsampled(bytes, size: tileSize) else {
      throw PackedTileError.notATile(bytes: bytes.count, size: tileSize)
    }
    let key = LevelKey(floor: floor, tileSize: tileSize, zoom: tile.zoom)
    if touching(key, tile) <= 1 {
      try write(key, tile, rgba: PixelPassEncoder.rgba(bytes, upsampled: upsampled), upsampled: upsampled)
      return
    }
    // one layer's tile of a cell arrives from one job, and layers one after the other,
    // so the cell is taken out while it is unpacked, composited and packed again
    let cell = PendingKey(key: key, tile: tile)
    let below = pending.withLock { $0.removeValue(forKey: cell) }
    // the last layer whose range holds the cell: the composite is final now, so it is
    // written at once rather than packed to wait for `layerDone`
    let final = layer >= lastLayer(key, tile)
    let count = tileSize * tileSize * 4
    let composite = try bytes.withUnsafeBufferPointer { all -> LayerTile? in
      let top = UnsafeBufferPointer(rebasing: all[0..<count])
      guard let below else {
        // the first layer to draw here: its pixels unchanged, so alone it is that building's tile
        if final {
          try settle(key, tile, rgba: PixelPassEncoder.rgba(bytes, upsampled: upsampled), upsampled: upsampled)
          return nil
        }
        return LayerTile(pixels: PackedTile(top), upsampled: upsampled)
      }
      var rgba = try below.pixels.unpacked()
      Self.over(top, onto: &rgba)
      if final {
        try settle(key, tile, rgba: rgba, upsampled: below.upsampled && upsampled)
        return nil
      }
      return LayerTile(pixels: PackedTile(rgba), upsampled: below.upsampled && upsampled)
    }
    if let composite { pending.withLock { $0[cell] = composite } }
  }

  /// The bytes a waiting cell holds (0 for a transparent one), nil when none waits.
  func heldBytes(_ key: LevelKey, _ tile: TileCoordinate) -> Int? {
    pending.withLock { $0[PendingKey(key: key, tile: tile)]?.pixels.heldBytes }
  }

  private func write(_ key: LevelKey, _ tile: TileCoordinate, rgba: [UInt8], upsampled: Bool) throws {
    let encoded = try encoder.encode(rgba: rgba, key: key, tile: tile, upsampled: upsampled)
    try writer.put(encoded, floor: floor, tileSize: key.tileSize, tile: tile)
    ledger.written(key, tile, bytes: encoded.count, notify: false)
  }

  /// A final composite: counted blank, or encoded and written.
  private func settle(_ key: LevelKey, _ tile: TileCoordinate, rgba: [UInt8], upsampled: Bool) throws {
    let size = key.tileSize
    let blank = rgba.withUnsafeBufferPointer { b in
      b.baseAddress.map { PixelOps.isBlank($0, stride: size * 4, width: size, height: size, background: background) } ?? true
    }
    if blank {
      ledger.blank(key, notify: false)
      return
    }
    try write(key, tile, rgba: rgba, upsampled: upsampled)
  }

  /// Writes the composited cells no later layer touches; call when layer `index` is
  /// rendered and its tile jobs are done (`Int.max`: every cell). `pool` encodes them.
  public func layerDone(_ index: Int, pool: WorkPool) throws {
    let cells = pending.withLock { p -> [(PendingKey, LayerTile)] in
      let ready = p.filter { lastLayer($0.key.key, $0.key.tile) <= index }
      for cell in ready.keys { p[cell] = nil }
      return ready.sorted { ($0.key.key, $0.key.tile.y, $0.key.tile.x) < ($1.key.key, $1.key.tile.y, $1.key.tile.x) }
    }
    for (cell, composite) in cells {
      pool.submit(holding: composite.pixels.count) { [self] in
        try settle(cell.key, cell.tile, rgba: try composite.pixels.unpacked(), upsampled: composite.upsampled)
      }
    }
    try pool.drain()
  }

  /// Composites and writes every cell still waiting; call once every layer is rendered.
  public func finish(pool: WorkPool) throws { try layerDone(Int.max, pool: pool) }

  /// `top` over `bottom` (both unpremultiplied RGBA8), in premultiplied arithmetic, into `bottom`.
  public static func over(_ top: [UInt8], onto bottom: inout [UInt8]) {
    top.withUnsafeBufferPointer { over($0, onto: &bottom) }
  }

  /// `over` from a tile's pixels where they lie (a layer's tile as it came, not copied).
  static func over(_ t: UnsafeBufferPointer<UInt8>, onto bottom: inout [UInt8]) {
    let n = min(t.count, bottom.count) / 4
    bottom.withUnsafeMutableBufferPointer { b in
      for i in 0..<n {
        let o = 4 * i
        let sa = Int(t[o + 3])
        if sa == 255 {
          b[o] = t[o]
          b[o + 1] = t[o + 1]
          b[o + 2] = t[o + 2]
          b[o + 3] = 255
          continue
        }
        if sa == 0 { continue }
        let da = Int(b[o + 3])
        // alpha and premultiplied colour in units of 255 × 255
        let outA = sa * 255 + da * (255 - sa)
        guard outA > 0 else { continue }
        for c in 0..<3 {
          let premultiplied = Int(t[o + c]) * sa * 255 + Int(b[o + c]) * da * (255 - sa)
          b[o + c] = UInt8(min(255, (premultiplied + outA / 2) / outA))
        }
        b[o + 3] = UInt8((outA + 127) / 255)
      }
    }
  }
}

/// A waiting composite tile, packed: all bytes zero (transparent, and so exact to
/// composite over: `over` onto zeros is what it was before) is a marker with no
/// pixels, any other tile is deflated (libdeflate, level 1), or kept raw when that
/// does not shrink it. `unpacked()` gives the same bytes back.
struct PackedTile {
  private enum Storage {
    case zero
    case deflated([UInt8])
    case raw([UInt8])
  }

  private let storage: Storage
  /// The raw tile's byte count.
  let count: Int

  init(_ rgba: [UInt8]) {
    self = rgba.withUnsafeBufferPointer { PackedTile($0, raw: rgba) }
  }

  /// A tile's pixels where they lie (a layer's tile as it came, not copied first).
  init(_ pixels: UnsafeBufferPointer<UInt8>) { self.init(pixels, raw: nil) }

  /// `raw`: the same bytes as an array, kept as they are when deflating does not shrink them.
  private init(_ b: UnsafeBufferPointer<UInt8>, raw: [UInt8]?) {
    count = b.count
    if b.baseAddress.map({ tc_tile_is_zero($0, b.count) != 0 }) ?? true {
      storage = .zero
      return
    }
    // deflated into scratch and copied out at its size (an array keeps its capacity);
    // a capacity one short of the raw size: 0 when deflating does not shrink it
    let packed = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: b.count) { out -> [UInt8]? in
      let size = tc_tile_deflate(b.baseAddress, b.count, out.baseAddress, b.count - 1)
      return size > 0 ? Array(out[0..<size]) : nil
    }
    storage = packed.map { .deflated($0) } ?? .raw(raw ?? Array(b))
  }

  /// The bytes held: 0 for a transparent tile.
  var heldBytes: Int {
    switch storage {
    case .zero: 0
    case .deflated(let bytes), .raw(let bytes): bytes.count
    }
  }

  func unpacked() throws -> [UInt8] {
    switch storage {
    case .zero:
      return [UInt8](repeating: 0, count: count)
    case .raw(let bytes):
      return bytes
    case .deflated(let bytes):
      var status: Int32 = 0
      let rgba = bytes.withUnsafeBufferPointer { b in
        [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
          status = tc_tile_inflate(b.baseAddress, b.count, out.baseAddress, count)
          initialized = status == 0 ? count : 0
        }
      }
      guard status == 0 else { throw PackedTileError.corrupt(bytes: bytes.count, expected: count) }
      return rgba
    }
  }
}

/// A packed tile that does not inflate to its size, or a layer's tile that is not
/// one tile's pixels: a bug, never the user's input.
enum PackedTileError: Error, CustomStringConvertible {
  case corrupt(bytes: Int, expected: Int)
  case notATile(bytes: Int, size: Int)

  var description: String {
    switch self {
    case .corrupt(let bytes, let expected):
      "internal error: a waiting composited tile (\(bytes) bytes deflated) does not inflate to \(expected) bytes"
    case .notATile(let bytes, let size):
      "internal error: a layer's \(size) px tile came to the compositor as \(bytes) bytes"
    }
  }
}

/// The writer a layer's builder writes into.
struct LayerWriter: TileWriter {
  let compositor: LayerCompositor
  let layer: Int

  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    try compositor.put(layer: layer, bytes: bytes, tileSize: tileSize, tile: tile)
  }
}

/// An "encoder" that keeps a tile's pixels (and whether it is upsampled) for the
/// compositor: the pixels themselves (not copied) when the tile is not upsampled, and
/// followed by one byte when it is, so a cell's pixels reach the compositor as the
/// layer's builder made them.
struct PixelPassEncoder: TileEncoder {
  var fileExtension: String

  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] { upsampled ? rgba + [1] : rgba }

  /// Whether `bytes` (from `encode`, of a `size` px tile) are upsampled; nil when they are no tile of that size.
  static func upsampled(_ bytes: [UInt8], size: Int) -> Bool? {
    switch bytes.count - size * size * 4 {
    case 0: false
    case 1: true
    default: nil
    }
  }

  /// The tile's pixels: `bytes` themselves, or without the upsampled marker.
  static func rgba(_ bytes: [UInt8], upsampled: Bool) -> [UInt8] { upsampled ? Array(bytes.dropLast()) : bytes }
}
