import CTilecutPNG
import CTilecutPNGRead
import CVipsShim
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// Builds PNG files byte by byte, so that every colour type, bit depth, row filter,
/// palette, tRNS and chunk layout can be made on purpose. Deflate uses stored blocks.
struct PNGBuilder {
  var width: Int
  var height: Int
  var colour: Int
  var depth: Int
  var palette: [UInt8]? = nil
  var transparency: [UInt8]? = nil
  var extraChunks: [(String, [UInt8])] = []
  /// Filter type of row y is filters[y % count].
  var filters: [UInt8] = [0, 1, 2, 3, 4]
  /// Sizes of the IDAT chunks the stream is cut into, repeated; empty: one chunk.
  var idatSizes: [Int] = []

  var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colour] ?? 1 }
  var rowBytes: Int { (width * channels * depth + 7) / 8 }
  var bytesPerPixel: Int { max(1, channels * depth / 8) }

  /// Unfiltered rows of samples, mixing runs and noise so that every filter has work.
  func samples(seed: UInt32) -> [[UInt8]] {
    var state = seed &* 2_654_435_761 &+ 1
    return (0..<height).map { y in
      (0..<rowBytes).map { i in
        state = state &* 1_664_525 &+ 1_013_904_223
        return state >> 29 < 3 ? UInt8(truncatingIfNeeded: state >> 16) : UInt8(truncatingIfNeeded: i * 7 + y * 3)
      }
    }
  }

  func filtered(_ rows: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = []
    var prev = [UInt8](repeating: 0, count: rowBytes)
    for (y, row) in rows.enumerated() {
      let f = filters[y % filters.count]
      out.append(f)
      for i in 0..<row.count {
        let a = i >= bytesPerPixel ? Int(row[i - bytesPerPixel]) : 0
        let b = Int(prev[i])
        let c = i >= bytesPerPixel ? Int(prev[i - bytesPerPixel]) : 0
        let p = a + b - c
        let paeth = abs(p - a) <= abs(p - b) && abs(p - a) <= abs(p - c) ? a : (abs(p - b) <= abs(p - c) ? b : c)
        let predictor = [0, a, b, (a + b) / 2, paeth][Int(f) % 5]
        out.append(UInt8(truncatingIfNeeded: Int(row[i]) - predictor))
      }
      prev = row
    }
    return out
  }

  func file(rows: [[UInt8]]) -> [UInt8] {
    var header = be32(width) + be32(height)
    header += [UInt8(depth), UInt8(colour), 0, 0, 0]
    var chunks: [(String, [UInt8])] = [("IHDR", header)]
    chunks += extraChunks
    if let palette { chunks.append(("PLTE", palette)) }
    if let transparency { chunks.append(("tRNS", transparency)) }
    let stream = zlibStored(filtered(rows))
    if idatSizes.isEmpty {
      chunks.append(("IDAT", stream))
    } else {
      var at = 0
      var k = 0
      while at < stream.count {
        let n = min(idatSizes[k % idatSizes.count], stream.count - at)
        chunks.append(("IDAT", Array(stream[at..<at + n])))
        at += n
        k += 1
      }
    }
    chunks.append(("IEND", []))
    return assemblePNG(chunks)
  }
}

func be32(_ v: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> $0) } }

func crc32(_ bytes: [UInt8]) -> UInt32 {
  var c: UInt32 = 0xFFFF_FFFF
  for b in bytes {
    c ^= UInt32(b)
    for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
  }
  return ~c
}

/// A zlib stream of stored (uncompressed) deflate blocks.
func zlibStored(_ data: [UInt8]) -> [UInt8] { PDFWriter.zlibStored(data) }

func assemblePNG(_ chunks: [(String, [UInt8])]) -> [UInt8] {
  var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  for (type, data) in chunks {
    let body = Array(type.utf8) + data
    out += be32(data.count) + body + be32(Int(crc32(body)))
  }
  return out
}

/// The chunks of a PNG file, in order.
func chunksOf(_ file: [UInt8]) -> [(String, [UInt8])] {
  var out: [(String, [UInt8])] = []
  var at = 8
  while at + 12 <= file.count {
    let n = file[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    let type = String(decoding: file[at + 4..<at + 8], as: UTF8.self)
    guard at + 12 + n <= file.count else { break }
    out.append((type, Array(file[at + 8..<at + 8 + n])))
    at += 12 + n
  }
  return out
}

/// libvips keeps one error buffer for the whole process and the suites run in parallel, so
/// another test's `VipsError.current` can take a failure's message between the failure and
/// its read (CI saw "decode failed" once). A failure with an empty message is run again, at
/// most 4 times, so the message a test checks is its own.
func ownMessage<T>(_ attempt: () -> Result<T, VipsError>?) -> Result<T, VipsError>? {
  var result = attempt()
  for _ in 0..<3 {
    guard case .failure(let e)? = result, e.message.isEmpty else { break }
    result = attempt()
  }
  return result
}

/// What libvips' own pngload (then sRGB RGBA8) makes of a file, or its error.
func libvipsDecode(_ path: String) -> Result<RGBAImage, VipsError> {
  ownMessage { libvipsDecodeOnce(path) }!
}

func libvipsDecodeOnce(_ path: String) -> Result<RGBAImage, VipsError> {
  do {
    let image = try VipsImageHandle.make("load") { tc_load_named("pngload", path, -1, 0, 1, &$0) }
    return .success(try RGBAImage.decode(image))
  } catch let error as VipsError {
    return .failure(error)
  } catch {
    return .failure(VipsError(operation: "load", message: "\(error)"))
  }
}

/// What the ISA-L reader makes of a file: nil when it leaves the file to libvips.
func readerDecode(_ path: String) -> Result<RGBAImage, VipsError>? {
  ownMessage { readerDecodeOnce(path) }
}

func readerDecodeOnce(_ path: String) -> Result<RGBAImage, VipsError>? {
  var out: UnsafeMutablePointer<VipsImage>?
  guard tc_png_open(path, &out) == 1, let out else { return nil }
  do {
    return .success(try RGBAImage.decode(VipsImageHandle(out)))
  } catch let error as VipsError {
    return .failure(error)
  } catch {
    return .failure(VipsError(operation: "decode", message: "\(error)"))
  }
}

/// Writes `bytes` to `dir/name` and returns the path.
func writeFile(_ bytes: [UInt8], _ dir: String, _ name: String) throws -> String {
  let path = dir + "/" + name
  try Data(bytes).write(to: URL(fileURLWithPath: path))
  return path
}

@Suite("the ISA-L PNG reader decodes what libvips' pngload decodes")
struct PNGReaderTests {
  /// Decodes `path` both ways and expects the reader to take it and match libvips pixel for pixel.
  func expectSame(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let want = libvipsDecode(path)
    guard let got = readerDecode(path) else {
      Issue.record("the reader left \(path) to libvips", sourceLocation: sourceLocation)
      return
    }
    switch (want, got) {
    case (.success(let a), .success(let b)):
      #expect(a.width == b.width && a.height == b.height, "\(path)", sourceLocation: sourceLocation)
      if a.pixels != b.pixels {
        let i = a.pixels.indices.first { a.pixels[$0] != b.pixels[$0] } ?? 0
        Issue.record("\(path): pixel \(i / 4) differs: libvips \(a.pixels[i]) reader \(b.pixels[i])", sourceLocation: sourceLocation)
      }
    case (.failure(let e), .success):
      Issue.record("\(path): libvips fails (\(e)) but the reader decodes it", sourceLocation: sourceLocation)
    case (.success, .failure(let e))
    where e.message.contains("Adler-32") || e.message.contains("corrupt") || e.message.contains("past the palette"):
      // damage libvips ignores (it skips the stream's Adler-32 and a corrupt tail, and
      // draws an index past the palette black): the reader refuses it, since a damaged
      // file is never tiled
      break
    case (.success, .failure(let e)):
      Issue.record("\(path): the reader fails (\(e)) but libvips decodes it", sourceLocation: sourceLocation)
    case (.failure, .failure(let e)):
      #expect(!e.message.isEmpty && !e.message.contains("\n"), "\(e)", sourceLocation: sourceLocation)
    }
  }

  @Test("the example floor plan")
  func examplePlan() throws {
    try Vips.start()
    let root = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
    expectSame(root.appendingPathComponent("examples/floorplan/office.png").path)
  }

  @Test(
    "every colour type and bit depth, sizes from 1×1, every filter type",
    arguments: [(0, 1), (0, 2), (0, 4), (0, 8), (2, 8), (3, 1), (3, 2), (3, 4), (3, 8), (4, 8), (6, 8)])
  func colourTypes(colour: Int, depth: Int) throws {
    try Vips.start()
    let dir = try temporaryDirectory("png-\(colour)-\(depth)")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let sizes = [(1, 1), (3, 2), (7, 5), (8, 3), (9, 4), (17, 9), (33, 13), (130, 6)]
    let filterSets: [[UInt8]] = [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4], [4, 3, 2, 1]]
    for (width, height) in sizes {
      for filters in filterSets {
        var png = PNGBuilder(width: width, height: height, colour: colour, depth: depth, filters: filters)
        let entries = 1 << depth
        if colour == 3 {
          png.palette = (0..<(3 * min(entries, 256))).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        }
        let rows = png.samples(seed: UInt32(width * 131 + height * 7 + Int(filters[0])))
        let name = "c\(colour)d\(depth)-\(width)x\(height)-f\(filters.map(String.init).joined())"
        expectSame(try writeFile(png.file(rows: rows), dir, name + ".png"))
        if colour == 3 {
          // tRNS for some entries, then a palette shorter than the indices (libpng: opaque black)
          png.transparency = (0..<max(1, entries / 2)).map { UInt8(truncatingIfNeeded: $0 * 53) }
          expectSame(try writeFile(png.file(rows: rows), dir, name + "-trns.png"))
          png.palette = Array(png.palette!.prefix(3 * max(1, entries / 3)))
          png.transparency = [16]
          expectSame(try writeFile(png.file(rows: rows), dir, name + "-short.png"))
          png.transparency = nil
          let short = try writeFile(png.file(rows: rows), dir, name + "-short-opaque.png")
          expectSame(short)
          if depth == 8 {
            // an index past the palette is damage: refused, and only then
            let past = rows.joined().contains { Int($0) >= png.palette!.count / 3 }
            switch readerDecode(short) {
            case .failure(let e)?: #expect(past && e.message.contains("past the palette"), "\(name): \(e)")
            case .success?: #expect(!past, "\(name): an index past the palette was drawn")
            case nil: Issue.record("\(name): left to libvips")
            }
          }
        }
        if colour == 0 {
          // grey tRNS: the brightest value, which the samples do use, turns transparent
          png.transparency = [0, UInt8(depth == 8 ? 7 : entries - 1)]
          expectSame(try writeFile(png.file(rows: rows), dir, name + "-trns.png"))
        }
        if colour == 2 {
          var keyed = rows
          for y in 0..<height where y % 2 == 0 { keyed[y].replaceSubrange(0..<3, with: [7, 14, 21]) }
          png.transparency = [0, 7, 0, 14, 0, 21]
          expectSame(try writeFile(png.file(rows: keyed), dir, name + "-trns.png"))
        }
      }
    }
  }

  @Test("chunk layouts: many small IDATs, ancillary chunks before the pixels, rows in several batches")
  func chunkLayouts() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var png = PNGBuilder(width: 300, height: 40, colour: 2, depth: 8)
    let rows = png.samples(seed: 3)
    png.idatSizes = [2, 1, 0, 7, 150, 3]
    expectSame(try writeFile(png.file(rows: rows), dir, "split.png"))
    png.idatSizes = []
    png.extraChunks = [
      ("gAMA", be32(45455)), ("sRGB", [0]), ("cHRM", [UInt8](repeating: 1, count: 32)), ("pHYs", be32(3780) + be32(3780) + [1]),
      ("tEXt", Array("Comment\u{0}a floor".utf8)), ("zzZz", [1, 2, 3]),
    ]
    expectSame(try writeFile(png.file(rows: rows), dir, "ancillary.png"))
    // 2100 rows of 1201 bytes (2.5 MB): more than the reader inflates at a time (2 MB)
    var tall = PNGBuilder(width: 300, height: 2100, colour: 6, depth: 8, filters: [4, 0, 3, 1, 2])
    tall.idatSizes = [65536]
    expectSame(try writeFile(tall.file(rows: tall.samples(seed: 9)), dir, "tall.png"))
  }

  @Test("compressed PNGs written by libvips (each filter, grey + alpha) and by tilecut's encoder (palettes)")
  func compressedFiles() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let picture = testImage(width: 700, height: 300)
    for filter in ["none", "sub", "up", "avg", "paeth", "all"] {
      try picture.writePNG(to: dir + "/libvips-\(filter).png[filter=\(filter)]")
      expectSame(dir + "/libvips-\(filter).png")
    }
    try picture.write(to: dir + "/grey-alpha.png", as: .greyAlpha)
    expectSame(dir + "/grey-alpha.png")
    // few colours: tilecut writes 1, 2, 4 and 8-bit palettes with tRNS, or RGB when opaque
    for colours in [2, 4, 16, 200] {
      for opaque in [false, true] {
        var image = RGBAImage(width: 61, height: 23)
        for i in 0..<(61 * 23) {
          let k = (i * 7 + i / 61) % colours
          image.pixels.replaceSubrange(
            i * 4..<i * 4 + 4, with: [UInt8(k * 255 / colours), UInt8(k * 3 % 256), 90, opaque ? 255 : UInt8(k * 41 % 256)])
        }
        var length = 0
        let encoded = image.pixels.withUnsafeBufferPointer {
          tc_png_encode($0.baseAddress, 61, 23, 6, Int32(TC_PNG_INDEXED_WHEN_EXACT), &length)
        }
        let bytes = try #require(encoded)
        defer { tc_png_free(bytes) }
        expectSame(try writeFile(Array(UnsafeBufferPointer(start: bytes, count: length)), dir, "tilecut-\(colours)-\(opaque).png"))
      }
    }
  }

  @Test("interlaced, 16-bit, ICC-profiled and non-PNG files are left to libvips, which still reads them")
  func leftToLibvips() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let picture = testImage(width: 40, height: 30)
    try picture.writePNG(to: dir + "/interlaced.png[interlace=true]")
    try picture.write(to: dir + "/deep.png", as: .rgba16)
    try picture.writePNG(to: dir + "/photo.jpg")
    var png = PNGBuilder(width: 40, height: 30, colour: 2, depth: 8)
    png.extraChunks = [("iCCP", Array("icc".utf8) + [0, 0] + zlibStored([UInt8](repeating: 0, count: 128)))]
    let profiled = try writeFile(png.file(rows: png.samples(seed: 1)), dir, "profiled.png")
    for path in [dir + "/interlaced.png", dir + "/deep.png", profiled, dir + "/photo.jpg"] {
      #expect(readerDecode(path) == nil, "\(path)")
      let opened = try RGBAImage.decode(file: path)
      if case .success(let direct) = libvipsDecode(path) { #expect(opened == direct, "\(path)") }
    }
  }

  @Test("truncated and damaged streams fail where libvips fails, with a one-line reason")
  func damagedStreams() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // a picture with noise in it, so that the compressed stream is long
    var picture = testImage(width: 500, height: 200)
    var state: UInt32 = 1
    for i in stride(from: 0, to: picture.pixels.count, by: 3) {
      state = state &* 1_664_525 &+ 1_013_904_223
      picture.pixels[i] ^= UInt8(truncatingIfNeeded: state >> 28)
    }
    try picture.writePNG(to: dir + "/whole.png[filter=paeth]")
    // libvips writes one IDAT: cut its stream into several, as other writers do
    let written = chunksOf([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/whole.png"))))
    let stream = written.filter { $0.0 == "IDAT" }.flatMap(\.1)
    var chunks = written.filter { $0.0 != "IDAT" && $0.0 != "IEND" }
    let firstIDAT = chunks.count
    for at in stride(from: 0, to: stream.count, by: 3000) { chunks.append(("IDAT", Array(stream[at..<min(at + 3000, stream.count)]))) }
    chunks.append(("IEND", []))
    #expect(chunks.count - firstIDAT > 4)
    let whole = assemblePNG(chunks)
    // cut anywhere in the pixel data, in the last chunk's CRC, or just the IEND
    let idatStart = 8 + chunks[..<firstIDAT].reduce(0) { $0 + 12 + $1.1.count } + 10
    var cuts = stride(from: idatStart, to: whole.count - 12, by: max(1, (whole.count - idatStart) / 9)).map { $0 }
    cuts += [whole.count - 14, whole.count - 12]
    for cut in cuts {
      expectSame(try writeFile(Array(whole.prefix(cut)), dir, "cut-\(cut).png"))
    }
    // flipped bits with the chunk's CRC made right again (the inflater sees them), and left wrong
    for (k, at) in [3, 40, 400, 4000, 9000].enumerated() {
      for fixCRC in [true, false] {
        var damaged = chunks
        let i = firstIDAT + k % (chunks.count - firstIDAT - 1)
        var data = damaged[i].1
        data[at % data.count] ^= 0x10
        damaged[i].1 = data
        var bytes = assemblePNG(damaged)
        if !fixCRC {
          // the CRC of the damaged chunk is the one from before
          let offset = 8 + damaged[..<i].reduce(0) { $0 + 12 + $1.1.count } + 8 + data.count
          bytes.replaceSubrange(offset..<offset + 4, with: be32(Int(crc32(Array(chunks[i].0.utf8) + chunks[i].1))))
        }
        expectSame(try writeFile(bytes, dir, "flip-\(at)-\(fixCRC).png"))
      }
    }
    // a row filter type that does not exist
    var png = PNGBuilder(width: 20, height: 10, colour: 6, depth: 8, filters: [0, 0, 0, 9])
    expectSame(try writeFile(png.file(rows: png.samples(seed: 5)), dir, "filter9.png"))
    png.filters = [0]
    // the stream ends after half the rows
    let filtered = png.filtered(png.samples(seed: 5))
    var short = chunksOf(png.file(rows: png.samples(seed: 5)))
    short[1].1 = zlibStored(Array(filtered.prefix(filtered.count / 2)))
    expectSame(try writeFile(assemblePNG(short), dir, "short.png"))
  }
}
