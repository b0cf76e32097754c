import Foundation
import Testing

@testable import TilecutCore

/// Turned buildings side by side on one floor, fed to the compositor tile by tile.
struct TurnedFloor {
  static let size = 256
  /// Per layer: centre in level pixels, half side, angle in degrees.
  var buildings: [(cx: Double, cy: Double, half: Double, degrees: Double)]

  /// Pixel (x, y) of layer `i`, unpremultiplied RGBA: transparent outside the turned
  /// square, and inside it a pattern of opaque, half and faint pixels, with a band of
  /// alpha-0 pixels whose colour is not 0 (what `over` keeps or drops must not change).
  func pixel(_ i: Int, _ x: Int, _ y: Int) -> [UInt8] {
    let b = buildings[i]
    let t = b.degrees * .pi / 180
    let dx = Double(x) + 0.5 - b.cx
    let dy = Double(y) + 0.5 - b.cy
    let u = dx * cos(t) + dy * sin(t)
    let v = -dx * sin(t) + dy * cos(t)
    guard abs(u) < b.half, abs(v) < b.half else { return [0, 0, 0, 0] }
    let band = Int((u + b.half) / 37) % 4
    let alpha: UInt8 = [255, 128, 0, 3][band]
    return [UInt8((x * 3 + i * 40) & 255), UInt8((y * 5) & 255), UInt8((x ^ y ^ (i * 17)) & 255), alpha]
  }

  func tile(_ i: Int, _ cell: TileCoordinate) -> [UInt8] {
    var rgba = [UInt8](repeating: 0, count: Self.size * Self.size * 4)
    for row in 0..<Self.size {
      for col in 0..<Self.size {
        let p = pixel(i, cell.x * Self.size + col, cell.y * Self.size + row)
        for c in 0..<4 { rgba[(row * Self.size + col) * 4 + c] = p[c] }
      }
    }
    return rgba
  }

  /// The tile range of layer `i`'s bounding box, as the planner gives a turned building.
  func range(_ i: Int, zoom: Int) -> TileRange {
    let b = buildings[i]
    let t = b.degrees * .pi / 180
    let reach = b.half * (abs(cos(t)) + abs(sin(t)))
    let s = Double(Self.size)
    return TileRange(
      zoom: zoom, xRange: Int(floor((b.cx - reach) / s))...Int(floor((b.cx + reach) / s)),
      yRange: Int(floor((b.cy - reach) / s))...Int(floor((b.cy + reach) / s)))
  }
}

/// One floor plan per layer whose only cut is a 256 px range (all the compositor reads of a plan).
func layerPlans(_ ranges: [TileRange]) throws -> [FloorPlan] {
  let source = SourceDescription(path: "layer", width: 1024, height: 1024)
  let maxZoom = PyramidPlanner.rasterMaxZoom(width: 1024, height: 1024)
  let plan = try PyramidPlanner.plan(
    floor: 1, source: source, placement: .raster(nativeZoom: maxZoom),
    request: PlanRequest(minZoom: maxZoom, maxZoom: maxZoom, tileSizes: [256]))
  let level = try #require(plan.levels.first { $0.cuts.contains { $0.tileSize == 256 } })
  let cut = try #require(level.cuts.first { $0.tileSize == 256 })
  return ranges.map { range in
    var layer = plan
    var only = level
    only.cuts = [LevelCut(size: cut.size, range: range)]
    layer.levels = [only]
    return layer
  }
}

/// Main's composition rules, written out: per cell, the first layer's tile, each later
/// layer's put over it in order; a cell one layer holds is that layer's tile; a blank
/// composite is no tile. Layers' blank tiles never reach the compositor (as from a builder).
func referenceFloor(_ floor: TurnedFloor, ranges: [TileRange]) -> [String: [UInt8]] {
  var out: [String: [UInt8]] = [:]
  let size = TurnedFloor.size
  let zoom = ranges[0].zoom
  let xs = ranges.map(\.xRange.lowerBound).min()!...ranges.map(\.xRange.upperBound).max()!
  let ys = ranges.map(\.yRange.lowerBound).min()!...ranges.map(\.yRange.upperBound).max()!
  for y in ys {
    for x in xs {
      let cell = TileCoordinate(zoom: zoom, x: x, y: y)
      let holders = ranges.indices.filter { ranges[$0].contains(cell) }
      var composite: [UInt8]?
      for i in holders {
        let tile = floor.tile(i, cell)
        if tile.withUnsafeBufferPointer({ PixelOps.isBlank($0.baseAddress!, stride: size * 4, width: size, height: size, background: nil) }) {
          continue
        }
        if composite == nil {
          composite = tile
        } else {
          LayerCompositor.over(tile, onto: &composite!)
        }
      }
      guard let composite else { continue }
      let blank = composite.withUnsafeBufferPointer {
        PixelOps.isBlank($0.baseAddress!, stride: size * 4, width: size, height: size, background: nil)
      }
      if holders.count > 1 && blank { continue }
      out["\(size)/\(zoom)_\(x)_\(y)"] = composite
    }
  }
  return out
}

@Suite("LayerCompositor: waiting cells held packed")
struct LayerCompositorTests {
  @Test("a floor of overlapping turned buildings is byte-identical to main's composition rules")
  func turnedFloorIsExact() throws {
    let zoom = PyramidPlanner.rasterMaxZoom(width: 1024, height: 1024)
    // four 460 px buildings turned 0°, 12°, 24°, 35°, centres 260 px apart: they overlap,
    // and their bounding boxes share columns of cells
    let degrees: [Double] = [0, 12, 24, 35]
    let floor = TurnedFloor(buildings: degrees.indices.map { i in (cx: 300 + Double(i) * 260, cy: 400, half: 230, degrees: degrees[i]) })
    let ranges = (0..<4).map { floor.range($0, zoom: zoom) }
    #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.xRange.upperBound >= $1.xRange.lowerBound }, "consecutive ranges share cells")
    let sink = CapturingSink()
    let compositor = LayerCompositor(
      floor: 1, layers: try layerPlans(ranges), encoder: sink, writer: sink, ledger: RenderLedger(), background: nil)
    let key = LevelKey(floor: 1, tileSize: 256, zoom: zoom)
    let pool = WorkPool(jobs: 2)
    var shared = 0
    var packedBytes = 0
    for i in ranges.indices {
      let writer = compositor.layerWriter(i)
      for y in ranges[i].yRange {
        for x in ranges[i].xRange {
          let cell = TileCoordinate(zoom: zoom, x: x, y: y)
          let tile = floor.tile(i, cell)
          let size = TurnedFloor.size
          if tile.withUnsafeBufferPointer({ PixelOps.isBlank($0.baseAddress!, stride: size * 4, width: size, height: size, background: nil) }) {
            continue
          }
          let bytes = try PixelPassEncoder(fileExtension: "raw").encode(rgba: tile, size: size, upsampled: false)
          try writer.put(bytes, floor: 1, tileSize: size, tile: cell)
          if let held = compositor.heldBytes(key, cell) {
            shared += 1
            packedBytes += held
            #expect(held <= tile.count)
          }
        }
      }
      try compositor.layerDone(i, pool: pool)
    }
    try compositor.finish(pool: pool)
    #expect(shared > 0)
    // mostly transparent corners: the waiting cells are held in far fewer bytes than raw
    #expect(packedBytes < shared * 256 * 256 * 4 / 2)
    let got = sink.tiles.withLock { $0 }
    let want = referenceFloor(floor, ranges: ranges)
    #expect(got.keys.sorted() == want.keys.sorted())
    for (name, rgba) in want { #expect(got[name] == rgba, "\(name)") }
  }

  @Test("an all-transparent waiting cell holds no pixels; a layer put over it is what over() gives on zeros")
  func transparentCellHoldsNothing() throws {
    let zoom = PyramidPlanner.rasterMaxZoom(width: 1024, height: 1024)
    let range = TileRange(zoom: zoom, xRange: 0...1, yRange: 0...0)
    let sink = CapturingSink()
    // three layers hold the cell, so it still waits after the second
    let compositor = LayerCompositor(
      floor: 1, layers: try layerPlans([range, range, range]), encoder: sink, writer: sink, ledger: RenderLedger(), background: nil)
    let key = LevelKey(floor: 1, tileSize: 256, zoom: zoom)
    let cell = TileCoordinate(zoom: zoom, x: 1, y: 0)
    let clear = [UInt8](repeating: 0, count: 256 * 256 * 4)
    try compositor.layerWriter(0).put(clear, floor: 1, tileSize: 256, tile: cell)
    #expect(compositor.heldBytes(key, cell) == 0)
    // the top: opaque, half and alpha-0 pixels with colour (over() on zeros drops that colour)
    let top = Self.pattern
    try compositor.layerWriter(1).put(top, floor: 1, tileSize: 256, tile: cell)
    let held = try #require(compositor.heldBytes(key, cell))
    #expect(held > 0 && held < top.count)
    try compositor.finish(pool: WorkPool(jobs: 1))
    var want = clear
    LayerCompositor.over(top, onto: &want)
    #expect(sink.tiles.withLock { $0["256/\(zoom)_1_0"] } == want)
    #expect(compositor.heldBytes(key, cell) == nil)
  }

  /// Opaque, half and alpha-0 pixels with colour.
  static let pattern: [UInt8] = (0..<(256 * 256)).flatMap { (i: Int) -> [UInt8] in
    let alphas: [UInt8] = [255, 128, 0]
    return [UInt8(i & 255), UInt8((i >> 8) & 255), 7, alphas[i % 3]]
  }

  @Test("the last layer over a shared cell writes it at once: nothing waits for layerDone")
  func lastLayerWritesAtOnce() throws {
    let zoom = PyramidPlanner.rasterMaxZoom(width: 1024, height: 1024)
    let first = TileRange(zoom: zoom, xRange: 0...1, yRange: 0...0)
    let second = TileRange(zoom: zoom, xRange: 1...2, yRange: 0...0)
    let sink = CapturingSink()
    let ledger = RenderLedger()
    let compositor = LayerCompositor(
      floor: 1, layers: try layerPlans([first, second]), encoder: sink, writer: sink, ledger: ledger, background: nil)
    let key = LevelKey(floor: 1, tileSize: 256, zoom: zoom)
    let shared = TileCoordinate(zoom: zoom, x: 1, y: 0)
    let below: [UInt8] = (0..<(256 * 256 * 4)).map { (i: Int) -> UInt8 in i % 4 == 3 ? 255 : UInt8((i * 7) & 255) }
    // upsampled below, not above: the composite is not upsampled
    let encoder = PixelPassEncoder(fileExtension: "raw")
    try compositor.layerWriter(0).put(try encoder.encode(rgba: below, size: 256, upsampled: true), floor: 1, tileSize: 256, tile: shared)
    try compositor.layerDone(0, pool: WorkPool(jobs: 1))
    #expect(compositor.heldBytes(key, shared) != nil, "the second layer's range holds it: it waits")
    #expect(sink.tiles.withLock { $0.isEmpty })
    try compositor.layerWriter(1).put(try encoder.encode(rgba: Self.pattern, size: 256, upsampled: false), floor: 1, tileSize: 256, tile: shared)
    #expect(compositor.heldBytes(key, shared) == nil)
    var want = below
    LayerCompositor.over(Self.pattern, onto: &want)
    #expect(sink.tiles.withLock { $0["256/\(zoom)_1_0"] } == want, "written before layerDone")
    #expect(ledger.outcomes[key]?.tiles == [shared])
    try compositor.finish(pool: WorkPool(jobs: 1))
    #expect(sink.tiles.withLock { $0.count } == 1)
  }

  @Test("a layer's tile passes to the compositor as its pixels, upsampled ones with a marker byte")
  func pixelPass() throws {
    let encoder = PixelPassEncoder(fileExtension: "raw")
    let rgba = Self.pattern
    let plain = try encoder.encode(rgba: rgba, size: 256, upsampled: false)
    let marked = try encoder.encode(rgba: rgba, size: 256, upsampled: true)
    #expect(PixelPassEncoder.upsampled(plain, size: 256) == false)
    #expect(PixelPassEncoder.upsampled(marked, size: 256) == true)
    #expect(PixelPassEncoder.rgba(plain, upsampled: false) == rgba)
    #expect(PixelPassEncoder.rgba(marked, upsampled: true) == rgba)
    #expect(PixelPassEncoder.upsampled(rgba, size: 512) == nil)
    // a tile of another size is a bug, not a tile to drop
    let compositor = LayerCompositor(
      floor: 1, layers: try layerPlans([TileRange(zoom: 10, xRange: 0...0, yRange: 0...0)]), encoder: CapturingSink(),
      writer: CapturingSink(), ledger: RenderLedger(), background: nil)
    #expect(throws: PackedTileError.self) {
      try compositor.layerWriter(0).put(plain, floor: 1, tileSize: 512, tile: TileCoordinate(zoom: 10, x: 0, y: 0))
    }
  }
}
