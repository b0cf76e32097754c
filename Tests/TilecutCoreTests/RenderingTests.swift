import Foundation
import Synchronization
import Testing

@testable import TilecutCore

/// A level source computed from a function of global level pixels.
final class FunctionSource: LevelPixelSource, @unchecked Sendable {
  let region: PixelRect
  let pixel: (Int, Int) -> [UInt8]
  let reads = Mutex<[Int]>([])

  init(region: PixelRect, pixel: @escaping (Int, Int) -> [UInt8]) {
    self.region = region
    self.pixel = pixel
  }

  func read(top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
    reads.withLock { $0.append(top) }
    for row in 0..<count {
      for col in 0..<region.width {
        let p = pixel(region.x + col, region.y + top + row)
        for c in 0..<4 { buffer[(row * region.width + col) * 4 + c] = p[c] }
      }
    }
  }
}

/// Keeps raw tiles in memory instead of encoding them.
final class CapturingSink: TileEncoder, TileWriter, Sendable {
  let tiles = Mutex<[String: [UInt8]]>([:])
  var fileExtension: String { "raw" }
  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] { rgba }
  /// Keyed `size/z_x_y`, the tests' own naming.
  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    tiles.withLock { $0["\(tileSize)/\(tile.zoom)_\(tile.x)_\(tile.y)"] = bytes }
  }
}

/// A source image as a function: W × H, opaque pattern with a transparent hole.
struct Pattern {
  var width: Int
  var height: Int
  /// A block made fully transparent.
  var clear: (x: Range<Int>, y: Range<Int>)? = nil

  func pixel(_ x: Int, _ y: Int) -> [UInt8] {
    guard x >= 0, y >= 0, x < width, y < height else { return [0, 0, 0, 0] }
    if let clear, clear.x.contains(x), clear.y.contains(y) { return [0, 0, 0, 0] }
    if x >= 300 && x < 700 && y >= 100 && y < 200 { return [0, 0, 0, 0] }
    let alpha: UInt8 = (x / 50 + y / 50) % 5 == 0 ? 128 : 255
    return [UInt8(x & 255), UInt8(y & 255), UInt8((x * 7 + y * 3) & 255), alpha]
  }
}

func render(
  _ pattern: Pattern, sizes: [Int], minZoom: Int? = nil, shard: ShardSelector? = nil, jobs: Int = 2,
  inPlaceBudget: Int = PyramidBuilder.inPlaceBudget
) throws
  -> (FloorPlan, [String: [UInt8]], RenderLedger)
{
  let source = SourceDescription(path: "pattern", width: pattern.width, height: pattern.height)
  let maxZoom = PyramidPlanner.rasterMaxZoom(width: pattern.width, height: pattern.height)
  let plan = try PyramidPlanner.plan(
    floor: 1, source: source, placement: .raster(nativeZoom: maxZoom),
    request: PlanRequest(minZoom: minZoom, maxZoom: maxZoom, tileSizes: sizes))
  let sink = CapturingSink()
  let pool = WorkPool(jobs: jobs)
  let ledger = RenderLedger()
  let builder = PyramidBuilder(
    plan: plan, settings: RenderSettings(shard: shard),
    encoder: sink, writer: sink, pool: pool, ledger: ledger, inPlaceBudget: inPlaceBudget,
    openSource: { level in
      // the upsampled level doubles each source pixel
      let scale = 1 << (level.density - maxZoom)
      return FunctionSource(region: level.region) { x, y in pattern.pixel(x / scale, y / scale) }
    })
  try builder.build()
  try pool.drain()
  return (plan, sink.tiles.withLock { $0 }, ledger)
}

/// The reference for a reduced level: premultiplied 2×2 means of the level above.
func reduce(_ tiles: [[UInt8]], size: Int) -> [UInt8] {
  // tiles: 2×2 block (tl, tr, bl, br), each size × size, missing = transparent
  var big = [UInt8](repeating: 0, count: 4 * size * size * 4)
  for (i, t) in tiles.enumerated() where !t.isEmpty {
    let ox = (i % 2) * size
    let oy = (i / 2) * size
    for y in 0..<size {
      for x in 0..<size {
        for c in 0..<4 { big[((oy + y) * 2 * size + ox + x) * 4 + c] = t[(y * size + x) * 4 + c] }
      }
    }
  }
  var out = [UInt8](repeating: 0, count: size * size * 4)
  for y in 0..<size {
    for x in 0..<size {
      var a = 0
      var rgb = [0, 0, 0]
      for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        let o = ((2 * y + dy) * 2 * size + 2 * x + dx) * 4
        let alpha = Int(big[o + 3])
        a += alpha
        for c in 0..<3 { rgb[c] += Int(big[o + c]) * alpha }
      }
      let o = (y * size + x) * 4
      if a > 0 {
        for c in 0..<3 { out[o + c] = UInt8(Double(rgb[c]) / Double(a) + 0.5) }
      }
      out[o + 3] = UInt8(Double(a) / 4 + 0.5)
    }
  }
  return out
}

func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
  var worst = 0
  for i in stride(from: 0, to: a.count, by: 4) {
    let alphaDiff = abs(Int(a[i + 3]) - Int(b[i + 3]))
    worst = max(worst, alphaDiff)
    // colour only matters where a pixel is visible
    if a[i + 3] > 0 && b[i + 3] > 0 {
      for c in 0..<3 { worst = max(worst, abs(Int(a[i + c]) - Int(b[i + c]))) }
    }
  }
  return worst
}

@Suite("Streaming pyramid")
struct PyramidBuilderTests {
  let pattern = Pattern(width: 1000, height: 700)

  @Test("max-zoom 256 tiles are exactly the cells x < ceil(W/256), y < ceil(H/256), each a crop of the source")
  func maxZoomTilesAreCrops() throws {
    let (plan, tiles, _) = try render(pattern, sizes: [256])
    let maxZoom = plan.levels[0].density
    var cells = Set<String>()
    for y in 0..<3 {
      for x in 0..<4 {
        let key = "256/\(maxZoom)_\(x)_\(y)"
        cells.insert(key)
        let tile = try #require(tiles[key])
        var expected = [UInt8]()
        for py in 0..<256 { for px in 0..<256 { expected += pattern.pixel(x * 256 + px, y * 256 + py) } }
        #expect(tile == expected, "tile \(key) differs from its crop")
      }
    }
    #expect(Set(tiles.keys.filter { $0.hasPrefix("256/\(maxZoom)_") }) == cells)
  }

  @Test("a 512 tile at z is the 2×2 block of 256 tiles at z+1")
  func retinaTilesStitch() throws {
    let (plan, tiles, _) = try render(pattern, sizes: [256, 512])
    let maxZoom = plan.levels.map(\.density).max()! - 1
    for z in 0..<maxZoom {
      for (key, tile) in tiles where key.hasPrefix("512/\(z)_") {
        let parts = key.dropFirst(4).split(separator: "_").map { Int($0)! }
        var stitched = [UInt8](repeating: 0, count: 512 * 512 * 4)
        for (i, (dx, dy)) in [(0, 0), (1, 0), (0, 1), (1, 1)].enumerated() {
          guard let child = tiles["256/\(z + 1)_\(2 * parts[1] + dx)_\(2 * parts[2] + dy)"] else { continue }
          _ = i
          for y in 0..<256 {
            for x in 0..<256 {
              for c in 0..<4 { stitched[((dy * 256 + y) * 512 + dx * 256 + x) * 4 + c] = child[(y * 256 + x) * 4 + c] }
            }
          }
        }
        #expect(tile == stitched, "\(key) is not the stitched block of its four children")
      }
    }
  }

  @Test("upsampled 512 tiles at the deepest zoom equal a whole-image doubling, across strip seams")
  func upsampledTilesHaveNoSeams() throws {
    // 1300 rows at zoom 3: strips end at rows 512 and 1024, inside 512 px tile rows' blocks
    let tall = Pattern(width: 700, height: 1300)
    let (plan, tiles, _) = try render(tall, sizes: [256, 512])
    let maxZoom = PyramidPlanner.rasterMaxZoom(width: tall.width, height: tall.height)
    guard let level = plan.levels.first(where: { $0.density == maxZoom }) else {
      Issue.record("no level at the native density")
      return
    }
    let region = level.region
    // the whole level image, with the builder's edge rule: beyond the region, the edge pixel
    func pixel(_ x: Int, _ y: Int) -> [UInt8] {
      tall.pixel(min(max(x, region.x), region.maxX - 1), min(max(y, region.y), region.maxY - 1))
    }
    let upsampled = tiles.filter { $0.key.hasPrefix("512/\(maxZoom)_") }
    #expect(upsampled.count > 4)
    var checked = 0
    for (key, tile) in upsampled {
      let parts = key.dropFirst(4).split(separator: "_").map { Int($0) ?? -1 }
      let (tx, ty) = (parts[1], parts[2])
      let w = 258
      var block = [UInt8](repeating: 0, count: w * w * 4)
      for r in 0..<w {
        for c in 0..<w {
          let p = pixel(tx * 256 - 1 + c, ty * 256 - 1 + r)
          for k in 0..<4 { block[(r * w + c) * 4 + k] = p[k] }
        }
      }
      var expected = [UInt8](repeating: 0, count: 512 * 512 * 4)
      block.withUnsafeBufferPointer { b in
        expected.withUnsafeMutableBufferPointer { o in
          guard let bb = b.baseAddress, let oo = o.baseAddress else { return }
          PixelOps.upsampleTile(bb, blockStride: w * 4, size: 512, into: oo)
        }
      }
      #expect(maxDifference(tile, expected) <= 1, "\(key) differs from the whole-image doubling")
      checked += 1
    }
    #expect(checked == upsampled.count)
  }

  @Test("lower zooms are premultiplied 2× reductions of the level above")
  func lowerZoomsAreReductions() throws {
    let (plan, tiles, _) = try render(pattern, sizes: [256])
    let maxZoom = plan.levels[0].density
    for z in 0..<maxZoom {
      for (key, tile) in tiles where key.hasPrefix("256/\(z)_") {
        let parts = key.dropFirst(4).split(separator: "_").map { Int($0)! }
        let children = [(0, 0), (1, 0), (0, 1), (1, 1)].map { dx, dy in
          tiles["256/\(z + 1)_\(2 * parts[1] + dx)_\(2 * parts[2] + dy)"] ?? []
        }
        #expect(maxDifference(tile, reduce(children, size: 256)) <= 1, "\(key)")
      }
    }
  }

  @Test("reductions stay exact when a level's region is wider than the halved level above (an offset footprint, many strips)")
  func offsetFootprintReductions() throws {
    // 1500 × 1300 px placed 600 px into zoom 4's level: its region starts at 512, the
    // next level's at 0, so columns and rows of each reduced strip are never written
    let pattern = Pattern(width: 1500, height: 1300)
    let world = 4096.0
    let transform = AffineTransform.translation(600 / world, 600 / world).concatenating(after: .scale(1 / world, 1 / world))
    let source = SourceDescription(path: "pattern", width: pattern.width, height: pattern.height)
    let plan = try PyramidPlanner.plan(
      floor: 1, source: source, placement: Placement(method: PlacementMethod(rawValue: "test"), transform: transform, nativeZoom: 4),
      request: PlanRequest(minZoom: 0, maxZoom: 4, tileSizes: [256]))
    let levels = plan.levels
    #expect(levels[0].region.x == 512 && levels[1].region.x == 0 && levels[0].region.height > 4 * levels[0].stripHeight)
    let sink = CapturingSink()
    let pool = WorkPool(jobs: 2)
    let builder = PyramidBuilder(
      plan: plan, settings: RenderSettings(), encoder: sink, writer: sink,
      pool: pool, ledger: RenderLedger(),
      openSource: { _ in FunctionSource(region: levels[0].region) { x, y in pattern.pixel(x - 600, y - 600) } })
    try builder.build()
    try pool.drain()
    let tiles = sink.tiles.withLock { $0 }
    var checked = 0
    for z in 0..<4 {
      for (key, tile) in tiles where key.hasPrefix("256/\(z)_") {
        let parts = key.dropFirst(4).split(separator: "_").compactMap { Int($0) }
        let children = [(0, 0), (1, 0), (0, 1), (1, 1)].map { dx, dy in
          tiles["256/\(z + 1)_\(2 * parts[1] + dx)_\(2 * parts[2] + dy)"] ?? []
        }
        #expect(maxDifference(tile, reduce(children, size: 256)) <= 1, "\(key)")
        checked += 1
      }
    }
    #expect(checked >= 8)
  }

  @Test("tiles encoded in place from strips still in flight equal tiles copied out, at every size")
  func inPlaceEqualsCopies() throws {
    // 2600 rows: ten 256-row strips at the deepest level, one strip's tiles encoded
    // while the next is cut; a budget of 0 makes every stage copy its tiles instead
    let tall = Pattern(width: 900, height: 2600, clear: (x: 0..<300, y: 0..<700))
    let (_, inPlace, _) = try render(tall, sizes: [256, 512], jobs: 3)
    let (_, copied, _) = try render(tall, sizes: [256, 512], jobs: 3, inPlaceBudget: 0)
    #expect(inPlace.count > 60)
    #expect(inPlace == copied)
    let (_, only256, _) = try render(tall, sizes: [256], jobs: 1)
    let (_, only256Copied, _) = try render(tall, sizes: [256], jobs: 1, inPlaceBudget: 0)
    #expect(only256 == only256Copied && only256.count > 40)
  }

  @Test("fully transparent cells are not written and are counted as skipped")
  func blankCellsSkipped() throws {
    // 700 × 300 at native zoom 2, with the top-left 512 × 256 transparent
    let holed = Pattern(width: 700, height: 300, clear: (0..<512, 0..<256))
    let (_, tiles, ledger) = try render(holed, sizes: [256])
    #expect(tiles["256/2_0_0"] == nil && tiles["256/2_1_0"] == nil)
    #expect(tiles["256/2_2_0"] != nil && tiles["256/2_0_1"] != nil)
    #expect(ledger.outcomes[LevelKey(floor: 1, tileSize: 256, zoom: 2)]?.blank == 2)
    #expect(ledger.outcomes[LevelKey(floor: 1, tileSize: 256, zoom: 2)]?.tiles.count == 4)
    for (_, tile) in tiles {
      #expect(stride(from: 3, to: tile.count, by: 4).contains { tile[$0] != 0 }, "a written tile has visible pixels")
    }
  }

  @Test("shards partition the tiles exactly", arguments: [2, 3])
  func shardsPartition(count: Int) throws {
    let (_, all, _) = try render(pattern, sizes: [256, 512])
    var union: [String: [UInt8]] = [:]
    for k in 1...count {
      let (_, part, _) = try render(pattern, sizes: [256, 512], shard: ShardSelector(index: k, count: count))
      for (key, value) in part {
        #expect(union[key] == nil, "\(key) rendered by two shards")
        union[key] = value
      }
    }
    #expect(union == all)
  }

  @Test("output does not depend on the number of workers")
  func deterministicAcrossJobs() throws {
    let (_, one, _) = try render(pattern, sizes: [256, 512], jobs: 1)
    let (_, four, _) = try render(pattern, sizes: [256, 512], jobs: 4)
    #expect(one == four)
  }

  @Test("the densest level is read once, strip by strip, top to bottom")
  func sourceReadOnceInStrips() throws {
    let big = Pattern(width: 3000, height: 2000)
    let source = SourceDescription(path: "p", width: big.width, height: big.height)
    let plan = try PyramidPlanner.plan(
      floor: 0, source: source, placement: .raster(nativeZoom: 4), request: PlanRequest(minZoom: 0, maxZoom: 4, tileSizes: [256]))
    let sink = CapturingSink()
    let pool = WorkPool(jobs: 2)
    let sources = Mutex<[FunctionSource]>([])
    let builder = PyramidBuilder(
      plan: plan, settings: RenderSettings(), encoder: sink, writer: sink,
      pool: pool, ledger: RenderLedger(),
      openSource: { level in
        let s = FunctionSource(region: level.region) { x, y in big.pixel(x, y) }
        sources.withLock { $0.append(s) }
        return s
      })
    try builder.build()
    try pool.drain()
    let opened = sources.withLock { $0 }
    #expect(opened.count == 1)
    let tops = opened[0].reads.withLock { $0 }
    // 256 rows a strip: a level cut only into 256 px tiles needs no more
    #expect(plan.levels[0].stripHeight == 256)
    #expect(tops == Array(stride(from: 0, to: 2048, by: 256)))
  }
}

@Suite("Pixel operations")
struct PixelOpsTests {
  @Test("reduce2x averages premultiplied: a transparent neighbour adds no dark fringe")
  func premultipliedReduction() {
    let src: [UInt8] = [200, 100, 50, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    var dst = [UInt8](repeating: 9, count: 4)
    src.withUnsafeBufferPointer { s in
      dst.withUnsafeMutableBufferPointer { d in
        PixelOps.reduce2x(s.baseAddress!, srcStride: 8, width: 2, height: 2, into: d.baseAddress!, dstStride: 4)
      }
    }
    #expect(dst == [200, 100, 50, 64])
  }

  @Test(
    "upsampleTile is the premultiplied bilinear doubling (9, 3, 3, 1)/16, on flat, repeated and busy blocks",
    arguments: [0, 1, 2, 3])
  func upsampleMatchesReference(kind: Int) {
    let size = 64
    let w = size / 2 + 2
    // kind 0: busy noise with random alpha; 1: flat runs and repeated rows (a drawing);
    // 2: opaque noise; 3: one colour with a transparent border
    var state: UInt32 = 12345 &+ UInt32(kind)
    func random() -> UInt8 {
      state = state &* 1_664_525 &+ 1_013_904_223
      return UInt8(truncatingIfNeeded: state >> 24)
    }
    var block = [UInt8](repeating: 0, count: w * w * 4)
    for y in 0..<w {
      for x in 0..<w {
        let o = (y * w + x) * 4
        switch kind {
        case 0: for c in 0..<4 { block[o + c] = random() }
        case 1:
          let wall = x % 9 == 3 || (y / 5) % 4 == 1
          let px: [UInt8] = wall ? [40, 40, 40, 255] : (x < 5 ? [0, 0, 0, 0] : [250, 248, 245, 255])
          for c in 0..<4 { block[o + c] = px[c] }
        case 2:
          for c in 0..<3 { block[o + c] = random() }
          block[o + 3] = 255
        default:
          let inside = x > 0 && y > 0 && x < w - 1 && y < w - 1
          let px: [UInt8] = inside ? [10, 200, 30, 255] : [0, 0, 0, 0]
          for c in 0..<4 { block[o + c] = px[c] }
        }
      }
    }
    var out = [UInt8](repeating: 7, count: size * size * 4)
    block.withUnsafeBufferPointer { b in
      out.withUnsafeMutableBufferPointer { o in PixelOps.upsampleTile(b.baseAddress!, blockStride: w * 4, size: size, into: o.baseAddress!) }
    }
    var worst = 0
    for oy in 0..<size {
      for ox in 0..<size {
        let i = oy / 2 + 1
        let j = ox / 2 + 1
        let vi = oy % 2 == 0 ? i - 1 : i + 1
        let hj = ox % 2 == 0 ? j - 1 : j + 1
        var a = 0.0
        var rgb = [0.0, 0.0, 0.0]
        for (y, x, weight) in [(i, j, 9.0), (i, hj, 3.0), (vi, j, 3.0), (vi, hj, 1.0)] {
          let o = (y * w + x) * 4
          let alpha = Double(block[o + 3]) * weight
          a += alpha
          for c in 0..<3 { rgb[c] += Double(block[o + c]) * alpha }
        }
        let o = (oy * size + ox) * 4
        worst = max(worst, abs(Int(out[o + 3]) - Int((a / 16).rounded())))
        if a / 16 >= 0.5 {
          for c in 0..<3 { worst = max(worst, abs(Int(out[o + c]) - Int((rgb[c] / a).rounded()))) }
        }
      }
    }
    #expect(worst <= 1)
  }

  @Test("isBlank sees transparency and background tolerance")
  func blankness() throws {
    let white = try ColorRule(parsing: "white:6", option: "--background")
    let paper: [UInt8] = [250, 252, 255, 255, 0, 0, 0, 0]
    let ink: [UInt8] = [250, 252, 255, 255, 240, 255, 255, 255]
    paper.withUnsafeBufferPointer { p in
      #expect(!PixelOps.isBlank(p.baseAddress!, stride: 8, width: 2, height: 1, background: nil))
      #expect(PixelOps.isBlank(p.baseAddress!, stride: 8, width: 2, height: 1, background: white))
    }
    ink.withUnsafeBufferPointer { p in
      #expect(!PixelOps.isBlank(p.baseAddress!, stride: 8, width: 2, height: 1, background: white))
    }
    let clear: [UInt8] = [255, 255, 255, 0]
    clear.withUnsafeBufferPointer { p in
      #expect(PixelOps.isBlank(p.baseAddress!, stride: 4, width: 1, height: 1, background: nil))
    }
  }

  @Test("knock-out makes paper transparent and fades grey edges to black with alpha")
  func knockOut() throws {
    var px: [UInt8] = [255, 255, 255, 255, 128, 128, 128, 255, 0, 0, 0, 255, 250, 250, 250, 255]
    let rule = try ColorRule(parsing: "white:6", option: "--knockout")
    px.withUnsafeMutableBufferPointer { PixelOps.knockOut($0.baseAddress!, count: 4, rule: rule) }
    #expect(px[3] == 0 && px[15] == 0)
    #expect(px[8...11] == [0, 0, 0, 255])
    // mid grey over white ≈ black at half opacity
    #expect(px[4] < 10 && abs(Int(px[7]) - 128) <= 4)
  }

  @Test(
    "colour rules parse names, hex and triples with a tolerance",
    arguments: [
      ("white", ColorRule(red: 255, green: 255, blue: 255)),
      ("#f8f8f8:6", ColorRule(red: 248, green: 248, blue: 248, tolerance: 6)),
      ("#FFF", ColorRule(red: 255, green: 255, blue: 255)),
      ("10,20,30:2", ColorRule(red: 10, green: 20, blue: 30, tolerance: 2)),
    ])
  func colourParsing(text: String, expected: ColorRule) throws {
    #expect(try ColorRule(parsing: text, option: "--background") == expected)
  }

  @Test("bad colours name the option", arguments: ["whit", "#12345", "1,2", "white:300", "#zzzzzz"])
  func badColours(text: String) {
    #expect(throws: TilecutError.self) { try ColorRule(parsing: text, option: "--knockout") }
    do { _ = try ColorRule(parsing: text, option: "--knockout") } catch {
      #expect("\(error)".hasPrefix("--knockout:"))
    }
  }
}

@Suite("Names and manifest")
struct NamingTests {
  @Test("the default template gives the URL-layer convention")
  func defaultTemplate() throws {
    let t = try TileNameTemplate(TileNameTemplate.defaultPattern)
    #expect(t.path(floor: -1, tileSize: 512, tile: TileCoordinate(zoom: 18, x: 130_000, y: 90_000)) == "512/L-1_18_130000_90000.png")
  }

  @Test(
    "bad templates are refused",
    arguments: ["L{floor}_{z}_{y}.png", "../{z}/{x}/{y}.png", "/abs/{z}_{x}_{y}.png", "{z}_{x}_{y}_{w}.png", "a//{z}_{x}_{y}"])
  func badTemplates(pattern: String) {
    #expect(throws: TilecutError.self) { try TileNameTemplate(pattern) }
  }

  @Test("extension follows the format")
  func extensionFollowsFormat() throws {
    #expect(try TileNameTemplate("{size}/L{floor}_{z}_{x}_{y}.png").withExtension("webp").pattern == "{size}/L{floor}_{z}_{x}_{y}.webp")
    #expect(try TileNameTemplate("{z}/{x}/{y}").withExtension("png").pattern == "{z}/{x}/{y}.png")
  }

  @Test("runs are exact and searchable")
  func runs() {
    let tiles = [(3, 1), (4, 1), (5, 1), (9, 1), (2, 2), (3, 2)].map { TileCoordinate(zoom: 5, x: $0.0, y: $0.1) }
    let runs = TileRuns.runs(of: tiles.shuffled())
    #expect(runs == [[1, 3, 5], [1, 9, 9], [2, 2, 3]])
    for y in 0...3 {
      for x in 0...10 {
        #expect(TileRuns.contains(runs, x: x, y: y) == tiles.contains(TileCoordinate(zoom: 5, x: x, y: y)))
      }
    }
  }

  @Test("a manifest survives encoding")
  func manifestRoundTrip() throws {
    let level = Manifest.Level(
      floor: 0, tileSize: 256, range: TileRange(zoom: 3, xRange: 1...4, yRange: 2...2),
      tiles: [TileCoordinate(zoom: 3, x: 1, y: 2), TileCoordinate(zoom: 3, x: 3, y: 2)])
    let m = Manifest(
      tileSizes: [256], floors: [0], name: "{z}_{x}_{y}.png", levels: [level],
      footprints: [Manifest.Footprint(floor: 0, rect: WorldRect(minU: 0.5, minV: 0.25, maxU: 0.75, maxV: 0.5))],
      generator: .init(version: "t", libvips: "v"), sources: [], options: ["a": "b"], fingerprint: "f")
    let back = try Manifest.decode(try m.encoded())
    #expect(back == m)
    #expect(back.levels[0].hasTile(x: 3, y: 2) && !back.levels[0].hasTile(x: 2, y: 2))
  }
}
