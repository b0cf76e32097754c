import CTilecutPNGRead
import CVips
import CVipsShim
import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

/// Rows `top..<top + count` of an image, through a libvips region, as RGBA8 bytes.
private func rows(_ image: VipsImageHandle, top: Int, count: Int) throws -> [UInt8] {
  let region = try #require(vips_region_new(image.pointer))
  defer { g_object_unref(region) }
  var out = [UInt8](repeating: 0, count: image.width * 4 * count)
  let status = out.withUnsafeMutableBufferPointer { tc_fetch(region, 0, Int32(top), Int32(image.width), Int32(count), $0.baseAddress) }
  guard status == 0 else { throw VipsError.current("fetch") }
  return out
}

/// A new image of the reader's own over `path`.
private func readerImage(_ path: String) throws -> VipsImageHandle {
  var out: UnsafeMutablePointer<VipsImage>?
  guard tc_png_open(path, &out) == 1, let out else { throw VipsError(operation: "open", message: "the reader left \(path) to libvips") }
  return VipsImageHandle(out)
}

/// Every row `tc_png_scan` hands over, in order, and where each run started.
private final class ScanRows {
  var pixels: [UInt8] = []
  var tops: [Int] = []
  var width = 0
}

private func scan(_ image: VipsImageHandle) -> (status: Int32, rows: ScanRows) {
  let got = ScanRows()
  got.width = image.width
  let status = withExtendedLifetime(got) {
    tc_png_scan(
      image.pointer,
      { context, rows, top, count, stride in
        guard let context, let rows else { return 1 }
        let got = Unmanaged<ScanRows>.fromOpaque(context).takeUnretainedValue()
        got.tops.append(Int(top))
        for y in 0..<Int(count) { got.pixels += UnsafeBufferPointer(start: rows + y * stride, count: got.width * 4) }
        return 0
      }, Unmanaged.passUnretained(got).toOpaque())
  }
  return (status, got)
}

/// Three PNGs in `dir` of the colour types the reader takes: a tall RGBA8 one
/// (`tallPNG`), grey + alpha, and a 4-bit palette with every row filter.
private func colourTypes(_ dir: String, width: Int, height: Int, seed: UInt32 = 1) throws -> (rgba: String, all: [String]) {
  let rgba = dir + "/tall.png"
  _ = try tallPNG(rgba, width: width, height: height, seed: seed)
  let grey = dir + "/grey-alpha.png"
  try testImage(width: 300, height: 700).write(to: grey, as: .greyAlpha)
  var png = PNGBuilder(width: 90, height: 40, colour: 3, depth: 4, palette: (0..<48).map { UInt8($0 * 5) })
  png.filters = [0, 1, 2, 3, 4]
  let palette = try writeFile(png.file(rows: png.samples(seed: 4).map { $0.map { $0 & 0xEE } }), dir, "palette.png")
  return (rgba, [rgba, grey, palette])
}

/// A plan-like picture with noise, tall enough for the reader to leave marks (more
/// rows than two of its 2 MB batches), written compressed by libvips.
private func tallPNG(_ path: String, width: Int = 1024, height: Int = 1500, seed: UInt32 = 1) throws -> RGBAImage {
  var picture = testImage(width: width, height: height)
  var state = seed
  for i in stride(from: 0, to: picture.pixels.count, by: 7) {
    state = state &* 1_664_525 &+ 1_013_904_223
    picture.pixels[i] ^= UInt8(truncatingIfNeeded: state >> 29)
  }
  try picture.writePNG(to: path + "[filter=all]")
  return picture
}

/// Writes `tallPNG(path, seed:)` and returns libvips' decoding of it, the reference the
/// reader's rows are held to; nil, recorded as an issue, when libvips cannot decode it.
private func tallReference(_ path: String, seed: UInt32 = 1) throws -> RGBAImage? {
  _ = try tallPNG(path, seed: seed)
  guard case .success(let reference) = libvipsDecode(path) else {
    Issue.record("libvips does not decode \(path)")
    return nil
  }
  return reference
}

@Suite("the PNG reader's marks and whole reads")
struct PNGReaderMarkTests {
  @Test("a second reader starts at the mark above the rows it is asked for: the pixels of a read from the top")
  func secondReaderJumps() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/tall.png"
    guard let reference = try tallReference(path) else { return }
    let stride = reference.width * 4
    func expected(_ top: Int, _ count: Int) -> [UInt8] { Array(reference.pixels[(top * stride)..<((top + count) * stride)]) }
    // a whole read leaves the marks (every 511 rows here: one batch of 4097-byte rows)
    let first = try readerImage(path)
    let whole = scan(first)
    #expect(whole.status == 1 && whole.rows.pixels == reference.pixels)
    let jumps = tc_png_mark_jumps()
    let second = try readerImage(path)
    // past the second mark (1022), then on down, then back up (read again from the top), then past a mark again
    #expect(try rows(second, top: 1100, count: 40) == expected(1100, 40))
    #expect(tc_png_mark_jumps() > jumps)
    #expect(try rows(second, top: 1140, count: 360) == expected(1140, 360))
    #expect(try rows(second, top: 5, count: 20) == expected(5, 20))
    #expect(try rows(second, top: 600, count: 11) == expected(600, 11))
    // right at a mark, and the row above one
    let third = try readerImage(path)
    #expect(try rows(third, top: 1022, count: 1) == expected(1022, 1))
    #expect(try rows(third, top: 1021, count: 2) == expected(1021, 2))
  }

  @Test("a read through a region (a full build's render) leaves no marks; the digest pass's whole read does")
  func regionReadLeavesNoMarks() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/tall.png"
    guard let reference = try tallReference(path, seed: 3) else { return }
    let stride = reference.width * 4
    #expect(try rows(try readerImage(path), top: 0, count: reference.height) == reference.pixels)
    #expect(tc_png_marks_held(path) == 0)
    #expect(try rows(try readerImage(path), top: 1200, count: 30) == Array(reference.pixels[(1200 * stride)..<(1230 * stride)]))
    // the digest pass's whole read leaves them
    #expect(scan(try readerImage(path)).status == 1)
    #expect(tc_png_marks_held(path) > 0)
  }

  @Test("a file written again (other pixels, same name and size) is read from the top, not from the old file's marks")
  func changedFile() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/tall.png"
    _ = try tallPNG(path, seed: 1)
    #expect(scan(try readerImage(path)).status == 1)
    guard let reference = try tallReference(path, seed: 2) else { return }
    let stride = reference.width * 4
    #expect(try rows(try readerImage(path), top: 1200, count: 30) == Array(reference.pixels[(1200 * stride)..<(1230 * stride)]))
  }

  @Test("a file whose first read fails near its end: rows above the damage read from the marks, a read past it fails in one line")
  func damagedAfterMarks() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let good = dir + "/good.png"
    guard let reference = try tallReference(good) else { return }
    // the stream in chunks of 3000 bytes, one bit flipped near its end, the chunk's CRC made right
    let written = chunksOf([UInt8](try Data(contentsOf: URL(fileURLWithPath: good))))
    let stream = written.filter { $0.0 == "IDAT" }.flatMap(\.1)
    var chunks = written.filter { $0.0 != "IDAT" && $0.0 != "IEND" }
    let firstIDAT = chunks.count
    for at in Swift.stride(from: 0, to: stream.count, by: 3000) { chunks.append(("IDAT", Array(stream[at..<min(at + 3000, stream.count)]))) }
    chunks.append(("IEND", []))
    let last = chunks.count - 2
    #expect(last > firstIDAT + 4)
    chunks[last].1[chunks[last].1.count / 2] ^= 0x10
    let path = try writeFile(assemblePNG(chunks), dir, "damaged.png")
    guard case .failure(let error)? = readerDecode(path) else {
      Issue.record("the damaged file decodes")
      return
    }
    #expect(!error.message.isEmpty && !error.message.contains("\n"), "\(error)")
    // the digest pass's whole read fails near the end, its marks above the damage left
    #expect(scan(try readerImage(path)).status == -1)
    let stride = reference.width * 4
    let jumps = tc_png_mark_jumps()
    #expect(try rows(try readerImage(path), top: 1030, count: 20) == Array(reference.pixels[(1030 * stride)..<(1050 * stride)]))
    #expect(tc_png_mark_jumps() > jumps)
    #expect(throws: VipsError.self) { try rows(try readerImage(path), top: 1030, count: 470) }
  }

  @Test("a whole read hands over the rows a region read gives, RGBA8 in place and other colour types expanded")
  func scanned() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (rgba, paths) = try colourTypes(dir, width: 600, height: 1800)
    for path in paths {
      guard case .success(let reference) = libvipsDecode(path) else {
        Issue.record("libvips does not decode \(path)")
        continue
      }
      let image = try readerImage(path)
      let (status, got) = scan(image)
      #expect(status == 1, "\(path)")
      #expect(got.pixels == reference.pixels, "\(path)")
      #expect(got.tops.first == 0 && got.tops == got.tops.sorted(), "\(path)")
      // the image reads again through libvips after a scan
      #expect(try rows(image, top: 3, count: 2) == Array(reference.pixels[(3 * reference.width * 4)..<(5 * reference.width * 4)]))
      // and the digests a scan makes are those of the decoded pixels
      let source = SourceDescription(path: path, width: reference.width, height: reference.height)
      let digests = try #require(try SourcePixelBlocks.digests(of: source, format: .png, block: 128))
      #expect(
        digests == PixelBlockHasherTests.reference(reference.pixels, width: reference.width, height: reference.height, block: 128),
        "\(path)")
    }
    // an image made from the reader's is not the reader's own: left to libvips
    let whole = try readerImage(rgba)
    let made = try whole.map("crop") { tc_crop($0, &$1, 0, 0, 600, 1800) }
    #expect(scan(made).status == 0)
  }

  @Test("rows fetched straight from the reader (no libvips region) are a region's: down, from a mark, back up, other colour types")
  func fetchedStraight() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (rgba, paths) = try colourTypes(dir, width: 700, height: 1600, seed: 5)
    for path in paths {
      guard case .success(let reference) = libvipsDecode(path) else {
        Issue.record("libvips does not decode \(path)")
        continue
      }
      let stride = reference.width * 4
      func expected(_ top: Int, _ count: Int) -> [UInt8] { Array(reference.pixels[(top * stride)..<((top + count) * stride)]) }
      func fetched(_ image: VipsImageHandle, _ top: Int, _ count: Int) throws -> [UInt8] {
        let region = try #require(vips_region_new(image.pointer))
        defer { g_object_unref(region) }
        var out = [UInt8](repeating: 0, count: stride * count)
        try out.withUnsafeMutableBufferPointer {
          try fetchRows(region, width: image.width, top: top, count: count, into: $0.baseAddress!, source: path)
        }
        return out
      }
      // a whole read first, so that the tall file's second reader may start at a mark
      #expect(scan(try readerImage(path)).status == 1)
      let jumps = tc_png_mark_jumps()
      let image = try readerImage(path)
      let h = reference.height
      for (top, count) in [(h * 2 / 3, h / 6), (h * 2 / 3 + h / 6, h - h * 2 / 3 - h / 6), (1, 3), (0, h)] {
        #expect(try fetched(image, top, count) == expected(top, count), "\(path) rows \(top) + \(count)")
      }
      if path == rgba { #expect(tc_png_mark_jumps() > jumps) }
      // the same rows through libvips' region after the straight reads
      #expect(try rows(image, top: 7, count: 5) == expected(7, 5))
      // rows past the end are refused in one line
      var one = [UInt8](repeating: 0, count: stride * 2)
      #expect(one.withUnsafeMutableBufferPointer { tc_png_fetch(image.pointer, Int32(h - 1), 2, $0.baseAddress) } == -1)
    }
    // an image made from the reader's is not the reader's own: fetched through libvips
    let whole = try readerImage(rgba)
    let made = try whole.map("crop") { tc_crop($0, &$1, 0, 0, 700, 1600) }
    var out = [UInt8](repeating: 0, count: 700 * 4)
    #expect(out.withUnsafeMutableBufferPointer { tc_png_fetch(made.pointer, 0, 1, $0.baseAddress) } == 0)
  }
}
