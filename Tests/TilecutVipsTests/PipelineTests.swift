import CTilecutPNGRead
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// A fresh temporary directory per test.
func temporaryDirectory(_ name: String = #function) throws -> String {
  let safe = name.filter { $0.isLetter || $0.isNumber }
  let path = NSTemporaryDirectory() + "tilecut-vips-\(safe)-\(UUID().uuidString.prefix(8))"
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

/// A W × H test picture: gradients, a transparent hole, half-transparent stripes.
func testImage(width: Int, height: Int) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 4
      let hole = x >= width / 4 && x < width / 2 && y >= height / 5 && y < height / 3
      image.pixels[i] = UInt8((x * 255) / max(width - 1, 1))
      image.pixels[i + 1] = UInt8((y * 255) / max(height - 1, 1))
      image.pixels[i + 2] = UInt8((x ^ y) & 255)
      image.pixels[i + 3] = hole ? 0 : ((x / 40) % 7 == 0 ? 100 : 255)
      if hole {
        image.pixels[i] = 0
        image.pixels[i + 1] = 0
        image.pixels[i + 2] = 0
      }
    }
  }
  return image
}

/// Largest channel difference, ignoring colour where both pixels are transparent.
func difference(_ a: RGBAImage, _ b: RGBAImage) -> Int {
  precondition(a.width == b.width && a.height == b.height)
  var worst = 0
  for i in stride(from: 0, to: a.pixels.count, by: 4) {
    worst = max(worst, abs(Int(a.pixels[i + 3]) - Int(b.pixels[i + 3])))
    if a.pixels[i + 3] > 0 || b.pixels[i + 3] > 0 {
      for c in 0..<3 { worst = max(worst, abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c]))) }
    }
  }
  return worst
}

/// Tiles a file with the real libvips pipeline and encoder, into `out`.
func tile(_ path: String, into out: String, sizes: [Int], maxZoom: Int? = nil) throws -> (FloorPlan, RenderLedger) {
  let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 32)
  let source = SourceDescription(path: path, width: header.width, height: header.height, isVector: header.isVector)
  let zoom = maxZoom ?? PyramidPlanner.rasterMaxZoom(width: header.width, height: header.height)
  let plan = try PyramidPlanner.plan(
    floor: 1, source: source, placement: .raster(nativeZoom: zoom), request: PlanRequest(maxZoom: zoom, tileSizes: sizes))
  let pool = WorkPool(jobs: 2)
  let ledger = RenderLedger()
  let template = try TileNameTemplate(TileNameTemplate.defaultPattern)
  let builder = PyramidBuilder(
    plan: plan, settings: RenderSettings(),
    encoder: VipsTileEncoder(), writer: DirectoryTileWriter(root: out, template: template), pool: pool, ledger: ledger,
    openSource: { try LevelPipeline.open(plan: plan, level: $0, format: header.format) })
  try builder.build()
  try pool.drain()
  return (plan, ledger)
}

@Suite("libvips pipeline, end to end")
struct PipelineTests {
  @Test("a PNG source's max-zoom tiles are its crops, decoded back within ±2")
  func maxZoomTilesMatchSource() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = testImage(width: 777, height: 530)
    try source.writePNG(to: dir + "/src.png")
    let (_, ledger) = try tile(dir + "/src.png", into: dir + "/out", sizes: [256, 512])
    let written = ledger.outcomes[LevelKey(floor: 1, tileSize: 256, zoom: 2)]?.tiles ?? []
    #expect(Set(written) == Set((0..<3).flatMap { y in (0..<4).map { TileCoordinate(zoom: 2, x: $0, y: y) } }))
    for t in written {
      let decoded = try RGBAImage.decode(file: dir + "/out/256/L1_2_\(t.x)_\(t.y).png")
      #expect(decoded.width == 256 && decoded.height == 256)
      #expect(difference(decoded, source.crop(x: t.x * 256, y: t.y * 256, width: 256, height: 256)) <= 2, "tile \(t)")
    }
  }

  @Test("512 px tiles equal the stitched 256 px tiles one zoom deeper, on disk")
  func retinaOnDisk() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try testImage(width: 600, height: 420).writePNG(to: dir + "/src.png")
    let (_, ledger) = try tile(dir + "/src.png", into: dir + "/out", sizes: [256, 512])
    for z in 0...1 {
      for t in ledger.outcomes[LevelKey(floor: 1, tileSize: 512, zoom: z)]?.tiles ?? [] {
        let big = try RGBAImage.decode(file: dir + "/out/512/L1_\(z)_\(t.x)_\(t.y).png")
        var stitched = RGBAImage(width: 512, height: 512)
        for child in t.children {
          let path = dir + "/out/256/L1_\(child.zoom)_\(child.x)_\(child.y).png"
          guard FileManager.default.fileExists(atPath: path) else { continue }
          stitched.paste(try RGBAImage.decode(file: path), x: (child.x - 2 * t.x) * 256, y: (child.y - 2 * t.y) * 256)
        }
        #expect(difference(big, stitched) == 0, "512 tile \(t)")
      }
    }
  }

  @Test("outside the image is transparent, never white")
  func edgesAreTransparent() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var white = RGBAImage(width: 300, height: 300)
    for i in stride(from: 0, to: white.pixels.count, by: 1) { white.pixels[i] = 255 }
    try white.writePNG(to: dir + "/white.png")
    _ = try tile(dir + "/white.png", into: dir + "/out", sizes: [256])
    let edge = try RGBAImage.decode(file: dir + "/out/256/L1_1_1_1.png")
    #expect(edge[43, 43].a == 255 && edge[44, 44].a == 0 && edge[200, 10].a == 0)
  }

  @Test("the PNG encoder round-trips RGBA and opaque (RGB) tiles exactly")
  func encoderRoundTrip() throws {
    for opaque in [false, true] {
      var image = testImage(width: 256, height: 256)
      if opaque { for i in stride(from: 3, to: image.pixels.count, by: 4) { image.pixels[i] = 255 } }
      if !opaque { for i in stride(from: 3, to: image.pixels.count, by: 4) where image.pixels[i] == 0 { image.pixels[i - 3] = 0 } }
      for level in [0, 1, 6, 9] {
        let bytes = try VipsTileEncoder(pngCompression: level).encode(rgba: image.pixels, size: 256)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let back = try RGBAImage.decode(bytes: bytes)
        #expect(back.pixels == image.pixels, "level \(level) opaque \(opaque)")
      }
    }
  }

  @Test(
    "tiles of at most 256 colours are written as palette PNGs of the fewest bits, decoding to the same pixels",
    arguments: [1, 2, 3, 4, 5, 16, 17, 200, 256, 257, 4000])
  func exactPalette(colours: Int) throws {
    for size in [13, 256] {
      // a palette with opaque, half-transparent and transparent entries, scattered
      let entry = { (k: Int) -> [UInt8] in
        let a: UInt8 = k % 5 == 1 ? 0 : (k % 5 == 2 ? UInt8(40 + k % 200) : 255)
        return a == 0 ? [0, 0, 0, 0] : [UInt8(k & 255), UInt8((k * 7) & 255), UInt8(((k >> 8) * 50 + 3) & 255), a]
      }
      var pixels = [UInt8]()
      for y in 0..<size {
        for x in 0..<size { pixels += entry((x * 7 + y * 3 + (x * y) % 5) % colours) }
      }
      let distinct = Set(stride(from: 0, to: pixels.count, by: 4).map { Array(pixels[$0..<$0 + 4]) }).count
      let bytes = try VipsTileEncoder().encode(rgba: pixels, size: size)
      let back = try RGBAImage.decode(bytes: bytes)
      #expect(back.pixels == pixels, "\(colours) colours, \(size) px")
      let depth = Int(bytes[24])
      let colourType = Int(bytes[25])
      if distinct <= 256 {
        #expect(colourType == 3)
        #expect(depth == (distinct <= 2 ? 1 : distinct <= 4 ? 2 : distinct <= 16 ? 4 : 8), "\(distinct) colours")
      } else {
        #expect(colourType == 6 && depth == 8)
      }
      // --palette: the same exact palette when it fits, libimagequant's otherwise
      let quantised = try VipsTileEncoder(palette: true).encode(rgba: pixels, size: size)
      #expect(Int(quantised[25]) == 3)
      let q = try RGBAImage.decode(bytes: quantised)
      if distinct <= 256 { #expect(q.pixels == pixels) } else { #expect(q.pixels.count == pixels.count) }
    }
  }

  /// The plan of `image` (written at `path`) turned `degrees`, mirrored by `flip`, and
  /// scaled to `levelPerSource` level pixels a source pixel at zoom 12, 256 px tiles.
  /// A 1100 × 903 test image (wider than a few 256 px tiles, with a ragged last tile and
  /// a ragged last group of rows) written into `dir`, its turned plan, the plan's first
  /// level and that level's streaming resample; nil, with an issue recorded, when the
  /// placement is not resampled streaming.
  func streamingLevel(
    in dir: String, degrees: Double, flip: Double, scale: Double
  ) throws -> (RGBAImage, FloorPlan, DensityLevel, Resample)? {
    let image = testImage(width: 1100, height: 903)
    try image.writePNG(to: dir + "/src.png")
    let plan = try turnedPlan(dir + "/src.png", image, degrees: degrees, flip: flip, levelPerSource: scale)
    let level = try #require(plan.levels.first)
    guard case .resample(let planned) = level.recipe, planned.access == .streaming else {
      Issue.record("a turned placement is resampled streaming, not \(level.recipe)")
      return nil
    }
    return (image, plan, level, planned)
  }

  func turnedPlan(_ path: String, _ image: RGBAImage, degrees: Double, flip: Double, levelPerSource: Double) throws -> FloorPlan {
    let zoom = 12
    let unit = levelPerSource / (256 * pow(2, Double(zoom)))  // world units per source pixel
    let t = Double.pi * degrees / 180
    let rotate = TilecutCore.AffineTransform(a: cos(t), b: -sin(t), c: 0, d: sin(t), e: cos(t), f: 0)
    let transform = TilecutCore.AffineTransform.translation(0.3001, 0.4002)
      .concatenating(after: rotate).concatenating(after: .scale(unit, unit * flip))
    let source = SourceDescription(path: path, width: image.width, height: image.height, isVector: false)
    return try PyramidPlanner.plan(
      floor: 1, source: source, placement: Placement(method: PlacementMethod(rawValue: "test"), transform: transform),
      request: PlanRequest(maxZoom: zoom, tileSizes: [256]))
  }

  /// The densest level of `image` placed rotated and scaled (`levelPerSource` level
  /// pixels a source pixel at zoom 12), read whole through the streaming resampler
  /// and through libvips' random-access affine.
  func resampledBothWays(
    _ image: RGBAImage, degrees: Double, flip: Double, levelPerSource: Double
  ) throws -> (streaming: [UInt8], fallback: [UInt8], levelPerSource: Double, isStreaming: Bool) {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try image.writePNG(to: dir + "/src.png")
    let plan = try turnedPlan(dir + "/src.png", image, degrees: degrees, flip: flip, levelPerSource: levelPerSource)
    // the densest level: the chain's head, or an upsampled level above it
    let level = try #require(plan.levels.first)
    #expect(level.source == .direct)
    let streaming = try LevelPipeline.open(plan: plan, level: level, jobs: 2)
    // the same level with the plan's choice turned to random access
    var randomAccess = level
    guard case .resample(var recipe) = level.recipe else {
      Issue.record("a turned placement is resampled, not \(level.recipe)")
      throw CancellationError()
    }
    recipe.access = .randomAccess
    randomAccess.recipe = .resample(recipe)
    let fallback = try LevelPipeline.open(plan: plan, level: randomAccess)
    #expect(!(fallback is StreamingResampleSource))
    let width = level.region.width
    var a = [UInt8](repeating: 0, count: width * level.region.height * 4)
    var b = a
    // the strips the builder reads: the ring is sized for them
    for strip in LevelStrip.strips(of: level.region, stripHeight: level.stripHeight) {
      let (top, count) = (strip.top, strip.count)
      try a.withUnsafeMutableBufferPointer { try streaming.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
      try b.withUnsafeMutableBufferPointer { try fallback.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
    }
    let unit = levelPerSource / (256 * pow(2, 12.0))  // world units per source pixel, as turnedPlan places it
    return (a, b, level.worldPixels * unit, streaming is StreamingResampleSource)
  }

  @Test(
    "the streaming resampler agrees with libvips' random-access affine where both are bilinear: rotated, mirrored, upsampled",
    arguments: [(25.0, 1.0, 1.0), (-70.0, 1.0, 1.0), (10.0, -1.0, 1.0), (180.0, 1.0, 1.0), (15.0, 1.0, 3.1)])
  func streamingResamplerMatchesAffine(degrees: Double, flip: Double, scale: Double) throws {
    let (a, b, levelPerSource, isStreaming) = try resampledBothWays(
      testImage(width: 700, height: 450), degrees: degrees, flip: flip, levelPerSource: scale)
    #expect(levelPerSource >= 1)
    #expect(isStreaming)
    var compared = 0
    for i in stride(from: 0, to: a.count, by: 4) {
      #expect(abs(Int(a[i + 3]) - Int(b[i + 3])) <= 2, "alpha at pixel \(i / 4)")
      if a[i + 3] == 255 && b[i + 3] == 255 {
        compared += 1
        for c in 0..<3 where abs(Int(a[i + c]) - Int(b[i + c])) > 2 {
          Issue.record("channel \(c) at pixel \(i / 4): \(a[i + c]) vs \(b[i + c])")
        }
      }
    }
    // most of the source's area is opaque and inside the level
    #expect(Double(compared) > 0.5 * 700 * 450 * levelPerSource * levelPerSource)
  }

  @Test(
    "rows held deflated resample to the same bytes as the plain ring, every kernel: rotated, mirrored, up- and downsampled",
    arguments: [(35.0, 1.0, 1.0), (-70.0, 1.0, 1.0), (10.0, -1.0, 1.0), (180.0, 1.0, 1.0), (15.0, 1.0, 3.1), (50.0, 1.0, 0.45)])
  func packedRowsGiveTheSameBytes(degrees: Double, flip: Double, scale: Double) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let (image, plan, level, planned) = try streamingLevel(in: dir, degrees: degrees, flip: flip, scale: scale) else { return }
    // the plan's own kernel and ring (which rows the deflated store lets go), then
    // every kernel with room for Lanczos' reach in the plain ring too
    let cases = [(planned.filter, planned.ringRows)] + [ResampleFilter.bilinear, .nearest, .average, .lanczos3].map { ($0, image.height + 8) }
    for (filter, ringRows) in cases {
      var recipe = planned
      recipe.filter = filter
      recipe.ringRows = ringRows
      var turned = level
      turned.recipe = .resample(recipe)
      let plain = try LevelPipeline.open(plan: plan, level: turned, jobs: 2, packing: false)
      let packed = try LevelPipeline.open(plan: plan, level: turned, jobs: 2, packing: true)
      let width = level.region.width
      var a = [UInt8](repeating: 1, count: width * level.region.height * 4)
      var b = [UInt8](repeating: 2, count: a.count)
      for strip in LevelStrip.strips(of: level.region, stripHeight: level.stripHeight) {
        let (top, count) = (strip.top, strip.count)
        try a.withUnsafeMutableBufferPointer { try plain.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
        try b.withUnsafeMutableBufferPointer { try packed.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
      }
      let opaque = stride(from: 3, to: a.count, by: 4).filter { a[$0] > 0 }.count
      #expect(opaque > 1000, "\(filter): the source lands in the level")
      let first = a.indices.first { a[$0] != b[$0] }
      #expect(first == nil, "\(filter) at \(degrees)°, scale \(scale): first differing byte \(first ?? -1) of \(a.count)")
    }
  }

  @Test(
    "a strip read in some of its columns gives those columns' bytes of the whole rows and leaves the others transparent: plain and deflated rows, every kernel",
    arguments: [(180.0, 1.0, 1.0), (12.0, 1.0, 1.0), (35.0, -1.0, 0.45)])
  func columnsGiveTheWholeRowsBytes(degrees: Double, flip: Double, scale: Double) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let (image, plan, level, planned) = try streamingLevel(in: dir, degrees: degrees, flip: flip, scale: scale) else { return }
    let width = level.region.width
    #expect(width >= 512)
    // the left edge, a span across a 256 px block's edge (the deflated rows' unit), the
    // right edge, one column, none
    let windows = [0..<37, 200..<min(611, width), (width - 50)..<width, 300..<301, 400..<400]
    for filter in [planned.filter, .nearest, .average, .lanczos3] {
      for packing in [false, true] {
        var recipe = planned
        recipe.filter = filter
        recipe.ringRows = image.height + 8
        var turned = level
        turned.recipe = .resample(recipe)
        let whole = try LevelPipeline.open(plan: plan, level: turned, jobs: 2, packing: packing)
        let part = try LevelPipeline.open(plan: plan, level: turned, jobs: 2, packing: packing)
        var a = [UInt8](repeating: 1, count: width * level.region.height * 4)
        var b = [UInt8](repeating: 2, count: a.count)
        var inside = 0
        for (k, strip) in LevelStrip.strips(of: level.region, stripHeight: level.stripHeight).enumerated() {
          let (top, count) = (strip.top, strip.count)
          let columns = windows[k % windows.count]
          try a.withUnsafeMutableBufferPointer { try whole.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
          try b.withUnsafeMutableBufferPointer {
            try part.read(top: top, count: count, columns: columns, into: $0.baseAddress! + top * width * 4)
          }
          var wrong: [Int] = []
          for row in top..<(top + count) {
            let start = row * width * 4
            let (c0, c1) = (start + columns.lowerBound * 4, start + columns.upperBound * 4)
            let same = b[c0..<c1].elementsEqual(a[c0..<c1])
            let clear = !b[start..<c0].contains { $0 != 0 } && !b[c1..<(start + width * 4)].contains { $0 != 0 }
            if !(same && clear) { wrong.append(row) }
            inside += stride(from: c0 + 3, to: c1, by: 4).filter { a[$0] > 0 }.count
          }
          #expect(wrong.isEmpty, "\(filter), packed: \(packing), strip at \(top), columns \(columns): rows \(wrong.prefix(5)) differ")
        }
        #expect(inside > 100, "\(filter), packed: \(packing): the windows hold some of the source")
      }
    }
  }

  @Test(
    "strips that name their columns fetch only the source columns they reach into the ring, and read the bytes of whole rows there: every kernel, turned and scaled down",
    arguments: [(0.0, 1.0, 1.0), (12.0, 1.0, 1.0), (35.0, -1.0, 0.45)])
  func stripsColumnsFetchTheirReach(degrees: Double, flip: Double, scale: Double) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let (image, plan, level, planned) = try streamingLevel(in: dir, degrees: degrees, flip: flip, scale: scale) else { return }
    let width = level.region.width
    #expect(width >= 512)
    // a window a strip: the left edge, across a 256 px block's edge, one column
    let windows = [0..<37, 200..<min(611, width), 300..<301]
    var narrowed = 0
    for filter in [planned.filter, .nearest, .average, .lanczos3] {
      var recipe = planned
      recipe.filter = filter
      recipe.ringRows = image.height + 8
      var turned = level
      turned.recipe = .resample(recipe)
      var some = turned
      some.strips = LevelStrip.strips(of: level.region, stripHeight: level.stripHeight).enumerated().map { k, strip in
        var strip = strip
        strip.columns = windows[k % windows.count]
        return strip
      }
      let whole = try LevelPipeline.open(plan: plan, level: turned, jobs: 2, packing: false)
      let part = try LevelPipeline.open(plan: plan, level: some, jobs: 2, packing: false)
      let fetched = try #require(part as? StreamingResampleSource).fetchedColumns
      if let fetched {
        #expect(fetched.lowerBound >= 0 && fetched.upperBound <= image.width && fetched.count < image.width)
        narrowed += 1
      }
      var a = [UInt8](repeating: 1, count: width * level.region.height * 4)
      var b = [UInt8](repeating: 2, count: a.count)
      var inside = 0
      for strip in some.strips {
        let (top, count, columns) = (strip.top, strip.count, strip.columns ?? 0..<width)
        try a.withUnsafeMutableBufferPointer { try whole.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
        try b.withUnsafeMutableBufferPointer {
          try part.read(top: top, count: count, columns: columns, into: $0.baseAddress! + top * width * 4)
        }
        var wrong: [Int] = []
        for row in top..<(top + count) {
          let start = row * width * 4
          let (c0, c1) = (start + columns.lowerBound * 4, start + columns.upperBound * 4)
          if !b[c0..<c1].elementsEqual(a[c0..<c1]) { wrong.append(row) }
          inside += stride(from: c0 + 3, to: c1, by: 4).filter { a[$0] > 0 }.count
        }
        #expect(
          wrong.isEmpty, "\(filter), strip at \(top), columns \(columns), fetched \(String(describing: fetched)): rows \(wrong.prefix(5)) differ")
      }
      #expect(inside > 100, "\(filter): the windows hold some of the source")
    }
    // north-up, the windows reach a part of the source's width
    if degrees == 0 { #expect(narrowed == 4) }
  }

  @Test(
    "strips read in chunks of rows hold only a chunk's band in the ring, with the bytes of whole strips held deflated: turned and scaled down",
    arguments: [(3.0, 1.0, 1.0), (0.0, 1.0, 0.45), (-2.0, 1.0, 0.7)])
  func chunkedReadsHoldAChunksBand(degrees: Double, flip: Double, scale: Double) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let (_, plan, level, planned) = try streamingLevel(in: dir, degrees: degrees, flip: flip, scale: scale) else { return }
    let chunked = try #require(try LevelPipeline.open(plan: plan, level: level, jobs: 2, packing: false) as? StreamingResampleSource)
    let packed = try LevelPipeline.open(plan: plan, level: level, jobs: 2, packing: true)
    let width = level.region.width
    var a = [UInt8](repeating: 1, count: width * level.region.height * 4)
    var b = [UInt8](repeating: 2, count: a.count)
    // as `StripReader` reads a strip wider than its read-ahead budget: chunks of rows
    let chunk = 24
    for strip in LevelStrip.strips(of: level.region, stripHeight: level.stripHeight) {
      for top in stride(from: strip.top, to: strip.top + strip.count, by: chunk) {
        let count = min(chunk, strip.top + strip.count - top)
        try a.withUnsafeMutableBufferPointer { try chunked.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
      }
      let (top, count) = (strip.top, strip.count)
      try b.withUnsafeMutableBufferPointer { try packed.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
    }
    let first = a.indices.first { a[$0] != b[$0] }
    #expect(first == nil, "\(degrees)°, scale \(scale): first differing byte \(first ?? -1) of \(a.count)")
    #expect(stride(from: 3, to: a.count, by: 4).filter { a[$0] > 0 }.count > 1000, "the source lands in the level")
    // the plan's ring holds a whole strip's band; a chunk's band is a fraction of it
    let plannedRows = try #require(planned.ringRows)
    #expect(chunked.ringRows < plannedRows / 2, "ring \(chunked.ringRows) rows, planned \(plannedRows)")
  }

  /// Nearest resampling shrinks a level at half the source's density by libvips'
  /// subsample, which asks for each source row in pieces of 100 px or less. The PNG
  /// reader goes back to the top of the file for a row above the one it stands at, so
  /// without a line cache between every piece after a row's first decoded the file
  /// again: 4,511 restarts for this 1100 × 903 source (a harness counted them), and the
  /// time grew with the square of the height. Read through the cache, the rows come
  /// whole and once. (Other suites' readers may go back now and then meanwhile: the
  /// bound leaves them room.)
  @Test("nearest at a shrink of 2 reads the source PNG top to bottom once, not once for each piece of a row")
  func nearestShrinkReadsOnce() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let (_, plan, level, planned) = try streamingLevel(in: dir, degrees: 35, flip: 1, scale: 0.45) else { return }
    var recipe = planned
    recipe.filter = .nearest
    var turned = level
    turned.recipe = .resample(recipe)
    let before = tc_png_rewinds()
    let source = try LevelPipeline.open(plan: plan, level: turned, jobs: 2, packing: false)
    let width = level.region.width
    var pixels = [UInt8](repeating: 0, count: width * level.region.height * 4)
    for strip in LevelStrip.strips(of: level.region, stripHeight: level.stripHeight) {
      let (top, count) = (strip.top, strip.count)
      try pixels.withUnsafeMutableBufferPointer { try source.read(top: top, count: count, into: $0.baseAddress! + top * width * 4) }
    }
    #expect(stride(from: 3, to: pixels.count, by: 4).filter { pixels[$0] > 0 }.count > 1000, "the source lands in the level")
    let rewinds = tc_png_rewinds() - before
    #expect(rewinds < 100, "the PNG reader went back to the top \(rewinds) times")
  }

  @Test("reducing, the streaming resampler averages thin lines (a tent filter) where bilinear skips them", arguments: [0.0, 7.0])
  func reducingAveragesLines(degrees: Double) throws {
    // one black column in three on white: 170 on average at any coarser scale
    var lines = RGBAImage(width: 600, height: 400)
    for y in 0..<400 {
      for x in 0..<600 {
        let v: UInt8 = x % 3 == 0 ? 0 : 255
        let i = (y * 600 + x) * 4
        (lines.pixels[i], lines.pixels[i + 1], lines.pixels[i + 2], lines.pixels[i + 3]) = (v, v, v, 255)
      }
    }
    let (a, b, levelPerSource, isStreaming) = try resampledBothWays(lines, degrees: degrees, flip: 1, levelPerSource: 0.6)
    #expect(isStreaming && levelPerSource == 0.6)
    func spread(_ p: [UInt8]) -> (mean: Double, deviation: Double, count: Int) {
      let values = stride(from: 0, to: p.count, by: 4).filter { p[$0 + 3] == 255 }.map { Double(p[$0]) }
      let mean = values.reduce(0, +) / Double(max(values.count, 1))
      let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(max(values.count, 1))
      return (mean, variance.squareRoot(), values.count)
    }
    let tent = spread(a)
    let bilinear = spread(b)
    #expect(tent.count > 50_000)
    #expect(abs(tent.mean - 170) < 4)
    #expect(tent.deviation < 0.5 * bilinear.deviation, "tent \(tent) vs bilinear \(bilinear)")
  }

  @Test("multi-page files report their pages and load each")
  func multiPage() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pages = (0..<3).map { k -> RGBAImage in
      var p = testImage(width: 64, height: 48)
      for i in stride(from: 0, to: p.pixels.count, by: 4) { p.pixels[i + 2] = UInt8(k * 100) }
      return p
    }
    try RGBAImage.writePages(pages, to: dir + "/floors.tif")
    let header = try SourceImage.header(of: InputName(path: dir + "/floors.tif"), maxPixels: 1 << 30)
    #expect(header.pages == 3 && header.width == 64 && header.height == 48)
    let page2 = try SourceImage.header(of: try InputName(parsing: dir + "/floors.tif[page=2]"), maxPixels: 1 << 30)
    #expect(page2.height == 48)
    #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: dir + "/floors.tif", page: 3), maxPixels: 1 << 30) }
  }

  @Test("sha-256 matches a known digest")
  func digest() throws {
    #expect(Vips.sha256(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }
}
