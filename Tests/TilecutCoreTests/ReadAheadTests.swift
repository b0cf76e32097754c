import Foundation
import Synchronization
import Testing

@testable import TilecutCore

/// A source that fails on its `failAt`-th read (0-based), after the ones before it.
final class FailingSource: LevelPixelSource, @unchecked Sendable {
  struct Broken: Error, Equatable {}
  let inner: FunctionSource
  let failAt: Int
  let count = Mutex(0)

  init(inner: FunctionSource, failAt: Int) {
    self.inner = inner
    self.failAt = failAt
  }

  func read(top: Int, count rows: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
    let n = count.withLock { c in
      defer { c += 1 }
      return c
    }
    if n == failAt { throw Broken() }
    try inner.read(top: top, count: rows, into: buffer)
  }
}

/// How many rows each read of the sources wrapped by `RowCountingSource` asked for.
final class RowCounts: Sendable {
  let rows = Mutex<[Int]>([])
}

/// A source that records how many rows each read asks for.
final class RowCountingSource: LevelPixelSource, @unchecked Sendable {
  let inner: any LevelPixelSource
  let counts: RowCounts

  init(inner: any LevelPixelSource, counts: RowCounts) {
    self.inner = inner
    self.counts = counts
  }

  func read(top: Int, count rows: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
    counts.rows.withLock { $0.append(rows) }
    try inner.read(top: top, count: rows, into: buffer)
  }
}

@Suite("Strips read ahead in chunks")
struct ReadAheadTests {
  /// Renders `pattern` as `render` does, with a read-ahead budget and, optionally,
  /// a source failing on a given read; returns the tiles and the read offsets.
  func build(_ pattern: Pattern, sizes: [Int], readAheadBudget: Int, failAt: Int? = nil, counts: RowCounts? = nil) throws -> (
    [String: [UInt8]], [Int]
  ) {
    let source = SourceDescription(path: "pattern", width: pattern.width, height: pattern.height)
    let maxZoom = PyramidPlanner.rasterMaxZoom(width: pattern.width, height: pattern.height)
    let plan = try PyramidPlanner.plan(
      floor: 1, source: source, placement: .raster(nativeZoom: maxZoom),
      request: PlanRequest(minZoom: nil, maxZoom: maxZoom, tileSizes: sizes))
    let sink = CapturingSink()
    let pool = WorkPool(jobs: 2)
    let opened = Mutex<[FunctionSource]>([])
    let builder = PyramidBuilder(
      plan: plan, settings: RenderSettings(), encoder: sink, writer: sink, pool: pool, ledger: RenderLedger(),
      readAheadBudget: readAheadBudget,
      openSource: { level in
        let scale = 1 << (level.density - maxZoom)
        let s = FunctionSource(region: level.region) { x, y in pattern.pixel(x / scale, y / scale) }
        opened.withLock { $0.append(s) }
        if let failAt { return FailingSource(inner: s, failAt: failAt) }
        if let counts { return RowCountingSource(inner: s, counts: counts) }
        return s
      })
    defer { try? pool.drain() }
    try builder.build()
    try pool.drain()
    return (sink.tiles.withLock { $0 }, opened.withLock { $0.flatMap { $0.reads.withLock { $0 } } })
  }

  @Test("a strip read ahead in chunks gives the tiles a whole-strip read ahead gives, at every size")
  func chunkedEqualsWhole() throws {
    // 2600 rows: ten 256-row strips (the last partial) and eleven 512-row ones;
    // a 64 KiB budget reads 900 px rows ahead 9 at a time, a strip in 29 chunks
    let tall = Pattern(width: 900, height: 2600, clear: (x: 0..<300, y: 0..<700))
    for sizes in [[256], [256, 512]] {
      let (whole, wholeReads) = try build(tall, sizes: sizes, readAheadBudget: 64 << 20)
      let (chunked, chunkedReads) = try build(tall, sizes: sizes, readAheadBudget: 64 << 10)
      #expect(whole.count > 40)
      #expect(chunked == whole, "\(sizes)")
      // whole strips: one read a strip; chunks: many, covering the same rows
      #expect(chunkedReads.count > 3 * wholeReads.count)
    }
  }

  @Test("strips read ahead in chunks are read in chunks from the first on: no read asks for more rows than a chunk")
  func firstStripInChunks() throws {
    // a 64 KiB budget: 900 px rows, 9 a chunk; the first strip (256 or 512 rows) was
    // read whole, and a streaming resampler's ring then held a whole strip's band
    let tall = Pattern(width: 900, height: 2600, clear: (x: 0..<300, y: 0..<700))
    for sizes in [[256], [256, 512]] {
      let counts = RowCounts()
      let (tiles, _) = try build(tall, sizes: sizes, readAheadBudget: 64 << 10, counts: counts)
      let (whole, _) = try build(tall, sizes: sizes, readAheadBudget: 64 << 20)
      #expect(tiles == whole, "\(sizes)")
      let asked = counts.rows.withLock { $0 }
      #expect(!asked.isEmpty)
      #expect(asked.allSatisfy { $0 <= 9 }, "\(sizes): reads of \(Set(asked).sorted()) rows")
    }
  }

  @Test("a source failing in a chunk read ahead fails the build with its error, without hanging", arguments: [1, 2, 7, 30])
  func failureInChunk(failAt: Int) throws {
    let tall = Pattern(width: 900, height: 2600)
    #expect(throws: FailingSource.Broken.self) {
      _ = try build(tall, sizes: [256], readAheadBudget: 64 << 10, failAt: failAt)
    }
  }
  @Test(
    "strips that name their columns, read ahead in chunks: only those columns of the caller's buffer are written, the first strip's as the others'"
  )
  func chunkedColumnsWriteOnlyTheirColumns() throws {
    let region = PixelRect(x: 512, y: 0, width: 300, height: 100)
    let source = FunctionSource(region: region) { x, y in [UInt8(x & 0xFF), UInt8(y & 0xFF), UInt8((x + y) & 0xFF), 255] }
    let windows: [Range<Int>?] = [10..<70, 0..<300, nil, 250..<300, 120..<121]
    let strips = LevelStrip.strips(of: region, stripHeight: 20).enumerated().map { k, strip in
      var strip = strip
      strip.columns = windows[k % windows.count]
      return strip
    }
    let stride = region.width * 4
    // a budget of a few rows: every strip is read ahead in chunks
    let reader = try StripReader(open: { source }, strips: strips, stride: stride, rows: 20, readAheadBudget: 6 * stride)
    defer { reader.finish() }
    var buffer = [UInt8](repeating: 0xAB, count: stride * 20)
    for (index, strip) in strips.enumerated() {
      buffer.withUnsafeMutableBufferPointer { $0.update(repeating: 0xAB) }
      try reader.take(index, into: &buffer)
      let columns = strip.columns ?? 0..<region.width
      var wrong: [String] = []
      for row in 0..<strip.count {
        for col in 0..<region.width {
          let at = (strip.offset + row) * stride + col * 4
          let got = Array(buffer[at..<(at + 4)])
          let want = columns.contains(col) ? source.pixel(region.x + col, region.y + strip.top + row) : [0xAB, 0xAB, 0xAB, 0xAB]
          if got != want { wrong.append("(\(col), \(row))") }
        }
      }
      #expect(wrong.isEmpty, "strip \(index), columns \(columns): \(wrong.prefix(4)) of \(wrong.count)")
    }
  }
}
