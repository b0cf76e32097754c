import CSQLite
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutMBTiles

@testable import Tilecut
@testable import TilecutVips

/// A file's bytes, damaged in place.
struct Damaged {
  var bytes: [UInt8]

  init(_ path: String) throws { bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

  func write(_ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

  /// Where `marker` first occurs.
  func find(_ marker: [UInt8], from start: Int = 0) -> Int? {
    guard bytes.count >= marker.count else { return nil }
    return (start...(bytes.count - marker.count)).first { Array(bytes[$0..<$0 + marker.count]) == marker }
  }

  static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      c ^= UInt32(b)
      for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return ~c
  }

  /// A PNG's chunks, every IDAT joined into one.
  func pngChunks() -> [(type: String, data: [UInt8])] {
    var out: [(String, [UInt8])] = []
    var at = 8
    var stream: [UInt8] = []
    while at + 12 <= bytes.count {
      let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
      let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
      let data = Array(bytes[at + 8..<at + 8 + length])
      if type == "IDAT" {
        if stream.isEmpty { out.append(("IDAT", [])) }
        stream += data
      } else {
        out.append((type, data))
      }
      at += 12 + length
    }
    return out.map { $0.0 == "IDAT" ? ("IDAT", stream) : $0 }
  }

  static func png(_ chunks: [(type: String, data: [UInt8])]) -> Damaged {
    var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    for (type, data) in chunks {
      let body = Array(type.utf8) + data
      bytes += be32(UInt32(data.count)) + body + be32(crc32(body))
    }
    return Damaged(bytes: bytes)
  }

  init(bytes: [UInt8]) { self.bytes = bytes }
}

/// A busy picture, so that compressed streams are long and every byte of them matters.
func noisy(width: Int, height: Int) -> RGBAImage {
  var image = picture(width: width, height: height, seed: 3)
  var state: UInt32 = 7
  for i in stride(from: 0, to: image.pixels.count, by: 4) {
    state = state &* 1_664_525 &+ 1_013_904_223
    image.pixels[i + 1] = UInt8(truncatingIfNeeded: state >> 24)
  }
  return image
}

/// Why tilecut refuses `path`: its header check, or decoding every pixel; nil when it reads.
func refusal(_ path: String, maxMemory: Int = DecodeBudget.defaultBytes) -> String? {
  do {
    _ = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 32, maxMemory: maxMemory)
    _ = try RGBAImage.decode(file: path)
    return nil
  } catch {
    return "\(error)"
  }
}

/// Writes each case's `tiles` over `spec` into `dir/NAME.mbtiles` and reads every row
/// through MBTilesReader: each case's refusal, by name (the "spec" case must give
/// `specRows` rows and no refusal).
func mbtilesRefusals(_ dir: String, spec: String, cases: [String: String], specRows: Int) throws -> [String: String] {
  var reasons: [String: String] = [:]
  for (name, tiles) in cases {
    var db: OpaquePointer?
    let file = dir + "/\(name).mbtiles"
    #expect(sqlite3_open(file, &db) == SQLITE_OK)
    #expect(sqlite3_exec(db, spec + tiles, nil, nil, nil) == SQLITE_OK, "\(name)")
    sqlite3_close(db)
    do {
      var rows = 0
      try MBTilesReader(path: file).forEachRow { _ in rows += 1 }
      if name == "spec" { #expect(rows == specRows) }
    } catch {
      reasons[name] = "\(error)"
    }
  }
  return reasons
}

/// A GIF of `width` × `height` (a two-colour global table) whose one frame's LZW data
/// holds `pixels` pixels (all of them by default): literal codes, the table cleared
/// every two so that codes stay 3 bits wide; `trailer: false` ends it after the frame.
func gif(width: Int, height: Int, pixels: Int? = nil, trailer: Bool = true) -> [UInt8] {
  func le(_ v: Int) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8 & 255)] }
  var out = Array("GIF89a".utf8) + le(width) + le(height) + [0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
  out += [0x2C] + le(0) + le(0) + le(width) + le(height) + [0, 2]
  var codes: [Int] = []
  for k in 0..<(pixels ?? width * height) {
    if k % 2 == 0 { codes.append(4) }
    codes.append((k / 7) % 2)
  }
  codes.append(5)
  var packed: [UInt8] = []
  var bits = 0
  var have = 0
  for code in codes {
    bits |= code << have
    have += 3
    while have >= 8 {
      packed.append(UInt8(bits & 255))
      bits >>= 8
      have -= 8
    }
  }
  if have > 0 { packed.append(UInt8(bits & 255)) }
  var at = 0
  while at < packed.count {
    let n = min(255, packed.count - at)
    out += [UInt8(n)] + packed[at..<(at + n)]
    at += n
  }
  out.append(0)
  if trailer { out.append(0x3B) }
  return out
}

@Suite("a damaged file is never tiled, and memory follows what is read", .serialized)
struct DamagedInputTests {
  @Test("the binary: one line naming the file, exit 1, the previous output kept (corrupt JPEG scan, wrong Adler-32, a budget)")
  func binary() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try noisy(width: 640, height: 480).writePNG(to: c.path("photo.jpg[Q=90]"))
    var corrupt = try Damaged(c.path("photo.jpg"))
    let scan = try #require(corrupt.find([0xFF, 0xDA]))
    for k in 0..<400 { corrupt.bytes[scan + 3000 + k] = 0xFF }
    try corrupt.write(c.path("corrupt.jpg"))
    c.expectClean(
      try runTool([c.path("corrupt.jpg"), "-o", c.path("out"), "--max-zoom", "1"]), status: 1, mentions: "corrupt.jpg: cannot be decoded")
    // read by libpng, which would skip the Adler-32
    try noisy(width: 300, height: 200).writePNG(to: c.path("interlaced.png[interlace=true]"))
    var chunks = try Damaged(c.path("interlaced.png")).pngChunks()
    let idat = try #require(chunks.firstIndex { $0.type == "IDAT" })
    chunks[idat].data[chunks[idat].data.count - 1] ^= 0xFF
    try Damaged.png(chunks).write(c.path("adler.png"))
    c.expectClean(try runTool([c.path("adler.png"), "-o", c.path("out")]), status: 1, mentions: "adler.png: is damaged")
    // a small progressive JPEG whose frame claims 20000 × 20000: 1.2 GB of coefficients
    try picture(width: 64, height: 48).writePNG(to: c.path("small.jpg[interlace=true]"))
    var claims = try Damaged(c.path("small.jpg"))
    let frame = try #require(claims.find([0xFF, 0xC2]))
    claims.bytes.replaceSubrange(frame + 5..<frame + 9, with: [0x4E, 0x20, 0x4E, 0x20])
    try claims.write(c.path("claims.jpg"))
    c.expectClean(try runTool([c.path("claims.jpg"), "-o", c.path("out")]), status: 1, mentions: "--max-memory 512 MB")
    // a 1 cm box for a 600 × 400 px plan at zoom 10: named by the option, not libvips' "shrunk to nothing"
    c.expectClean(
      try runTool([c.path("good.png"), "-o", c.path("out"), "--force", "--bounds", "51.5,-0.1,51.5000001,-0.0999999", "--max-zoom", "10"]),
      status: 1, mentions: "--bounds places its 600 × 400 px in less than one pixel")
  }

  @Test("JPEG: corrupt scan data, a frame claiming more rows than the scan holds, a cut header")
  func damagedJPEG() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try noisy(width: 640, height: 480).writePNG(to: dir + "/photo.jpg[Q=90]")
    let jpeg = try Damaged(dir + "/photo.jpg")
    #expect(refusal(dir + "/photo.jpg") == nil)
    let scan = try #require(jpeg.find([0xFF, 0xDA]))
    var corrupt = jpeg
    for k in 0..<400 { corrupt.bytes[scan + 3000 + k] = 0xFF }
    try corrupt.write(dir + "/corrupt.jpg")
    #expect(refusal(dir + "/corrupt.jpg")?.contains("Corrupt JPEG data") == true)
    // the frame says 4000 × 4000; the scan holds 640 × 480: never padded with grey
    var tall = jpeg
    let frame = try #require(jpeg.find([0xFF, 0xC0]))
    tall.bytes.replaceSubrange(frame + 5..<frame + 9, with: [0x0F, 0xA0, 0x0F, 0xA0])
    try tall.write(dir + "/tall.jpg")
    #expect(refusal(dir + "/tall.jpg") != nil)
    try Damaged(bytes: Array(jpeg.bytes.prefix(scan - 40))).write(dir + "/short.jpg")
    #expect(refusal(dir + "/short.jpg")?.contains("short.jpg: is truncated") == true)
  }

  @Test("JPEG damage libvips' fail_on lets through: a bit flipped near the end, 20 KB zeroed, bytes flipped, rows claimed")
  func damagedJPEGScan() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try noisy(width: 1200, height: 900).writePNG(to: c.path("photo.jpg[Q=92]"))
    let jpeg = try Damaged(c.path("photo.jpg"))
    #expect(refusal(c.path("photo.jpg")) == nil)
    let scan = try #require(jpeg.find([0xFF, 0xDA]))
    let end = jpeg.bytes.count - 2
    #expect(end - scan > 60_000, "scan of \(end - scan) bytes")
    var cases: [String: Damaged] = [:]
    // one bit, 1% before the end: the warning comes in the last rows, after libvips stopped looking
    var bit = jpeg
    bit.bytes[end - (end - scan) / 100] ^= 0x01
    cases["bit"] = bit
    var zeroed = jpeg
    let middle = scan + (end - scan) / 2
    zeroed.bytes.replaceSubrange(middle..<middle + 20_000, with: [UInt8](repeating: 0, count: 20_000))
    cases["zeroed"] = zeroed
    var flipped = jpeg
    for k in stride(from: middle, to: middle + 2000, by: 7) where flipped.bytes[k] != 0xFF && flipped.bytes[k] != 0x00 {
      flipped.bytes[k] ^= 0x5A
    }
    cases["flipped"] = flipped
    // the frame claims 1800 rows; the scan holds 900
    var rows = jpeg
    let frame = try #require(jpeg.find([0xFF, 0xC0]))
    rows.bytes.replaceSubrange(frame + 5..<frame + 7, with: [0x07, 0x08])
    cases["rows"] = rows
    for (name, damaged) in cases.sorted(by: { $0.key < $1.key }) {
      try damaged.write(c.path("\(name).jpg"))
      let why = refusal(c.path("\(name).jpg"))
      #expect(why?.contains("\(name).jpg: cannot be decoded: it is damaged (libjpeg: Corrupt JPEG data") == true, "\(name): \(why ?? "read")")
    }
    // the binary: exactly one line on stderr, exit 1, nothing written, with and without a shrink-on-load level
    for zoom in ["1", "4"] {
      c.expectClean(try runTool([c.path("bit.jpg"), "-o", c.path("out"), "--max-zoom", zoom]), status: 1, mentions: "bit.jpg: cannot be decoded")
    }
    c.expectClean(try runTool([c.path("rows.jpg"), "-o", c.path("out"), "--max-zoom", "2"]), status: 1, mentions: "rows.jpg: cannot be decoded")
  }

  @Test("PNG: a wrong Adler-32 (tilecut's reader and libpng), a bad ancillary CRC, no IEND, a chunk longer than the file")
  func damagedPNG() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let image = noisy(width: 300, height: 200)
    try image.writePNG(to: dir + "/plain.png")
    try image.writePNG(to: dir + "/interlaced.png[interlace=true]")
    for name in ["plain.png", "interlaced.png"] {
      #expect(refusal(dir + "/" + name) == nil)
      var chunks = try Damaged(dir + "/" + name).pngChunks()
      let idat = try #require(chunks.firstIndex { $0.type == "IDAT" })
      chunks[idat].data[chunks[idat].data.count - 1] ^= 0xFF
      try Damaged.png(chunks).write(dir + "/adler-" + name)
      #expect(refusal(dir + "/adler-" + name)?.contains("Adler-32 mismatch") == true, "\(name)")
    }
    var chunks = try Damaged(dir + "/plain.png").pngChunks()
    chunks.insert(("tEXt", Array("Comment\u{0}a floor".utf8)), at: 1)
    var text = Damaged.png(chunks)
    text.bytes[8 + 25 + 10] ^= 0x01  // inside the tEXt data, its CRC left as it was
    try text.write(dir + "/text.png")
    #expect(refusal(dir + "/text.png")?.contains("tEXt chunk is corrupt") == true)
    let whole = try Damaged(dir + "/plain.png")
    try Damaged(bytes: Array(whole.bytes.dropLast(12))).write(dir + "/noend.png")
    #expect(refusal(dir + "/noend.png")?.contains("noend.png: is truncated") == true)
    // 53 bytes whose text chunk claims 1 GB: refused before anything reads the chunk
    var bytes = Damaged.png([("IHDR", Damaged.be32(100) + Damaged.be32(100) + [8, 2, 0, 0, 0])]).bytes
    bytes += Damaged.be32(1 << 30) + Array("tEXtComment\u{0}hello".utf8)
    try Damaged(bytes: bytes).write(dir + "/claims.png")
    #expect(refusal(dir + "/claims.png")?.contains("claims 1073741824 bytes") == true)
  }

  @Test("--max-memory bounds whole-image decoders before they allocate: an interlaced PNG")
  func wholeImageBudget() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // 800 × 600 RGBA interlaced: libpng holds 1.92 MB at once
    try picture(width: 800, height: 600).writePNG(to: dir + "/wide.png[interlace=true]")
    #expect(refusal(dir + "/wide.png", maxMemory: 1_000_000)?.contains("interlaced PNG of 800 × 600") == true)
    #expect(refusal(dir + "/wide.png", maxMemory: 2_000_000) == nil)
    try picture(width: 800, height: 600).writePNG(to: dir + "/wide.jpg[interlace=true]")
    #expect(refusal(dir + "/wide.jpg", maxMemory: 1_000_000)?.contains("progressive JPEG") == true)
    #expect(refusal(dir + "/wide.jpg") == nil)
  }
  @Test("GIF: a frame whose LZW data ends before its last pixel, a file without its trailer, a code outside the table are refused; a sound GIF tiles")
  func damagedGIF() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let good = gif(width: 40, height: 30)
    var badCode = good
    badCode[31] = 0x3C  // the first literal after the clear becomes 7, beyond the table
    let cases: [(name: String, bytes: [UInt8], says: String)] = [
      ("short", gif(width: 40, height: 30, pixels: 1000), "holds 1000 of its 40 × 30 pixels"),
      ("untrailed", gif(width: 40, height: 30, trailer: false), "ends before its trailer"),
      ("cut", Array(good.prefix(good.count / 2)), "truncated inside frame 1"),
      ("code", badCode, "outside its LZW table"),
    ]
    for (name, bytes, says) in cases {
      try Data(bytes).write(to: URL(fileURLWithPath: c.path("\(name).gif")))
      let r = try runTool([c.path("\(name).gif"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 60)
      c.expectClean(r, status: 1, mentions: "\(name).gif: is")
      #expect(r.stderr.contains(says), "\(name): \(r.stderr)")
    }
    try Data(good).write(to: URL(fileURLWithPath: c.path("good.gif")))
    let made = try runTool([c.path("good.gif"), "-o", c.path("good-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
  }

  @Test("--max-memory bounds GIF and WebP, which libvips decodes whole: a 20000² GIF frame, a 16384² WebP canvas")
  func gifWebPBudget() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    // a sound 4² frame on a 20000² logical screen, which libvips' loader allocates
    var big = gif(width: 4, height: 4)
    big.replaceSubrange(6..<10, with: [0x20, 0x4E, 0x20, 0x4E])
    try Data(big).write(to: URL(fileURLWithPath: c.path("big.gif")))
    #expect(refusal(c.path("big.gif"))?.contains("GIF of 20000 × 20000 pixels, whose decoder holds 1600 MB") == true)
    #expect(refusal(c.path("big.gif"), maxMemory: 1_600_000_000) == nil)
    // a VP8X header declaring a 16384² canvas
    var webp = Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
    webp += [0xFF, 0x3F, 0, 0xFF, 0x3F, 0]
    try Data(webp).write(to: URL(fileURLWithPath: c.path("big.webp")))
    c.expectClean(
      try runTool([c.path("big.webp"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 60), status: 1,
      mentions: "big.webp: is a WebP of 16384 × 16384 pixels, whose decoder holds 1074 MB at once, more than --max-memory 512")
    #expect(refusal(c.path("big.webp"), maxMemory: 2_000_000_000)?.contains("16384") != true)
    // a small WebP still tiles, and a GIF's budget is its 4 bytes a pixel
    let tile = try VipsTileEncoder(format: .webp).encode(rgba: picture(width: 64, height: 64).pixels, size: 64, upsampled: false)
    try Data(tile).write(to: URL(fileURLWithPath: c.path("small.webp")))
    let made = try runTool([c.path("small.webp"), "-o", c.path("webp-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
    try Data(gif(width: 200, height: 100)).write(to: URL(fileURLWithPath: c.path("mid.gif")))
    #expect(refusal(c.path("mid.gif"), maxMemory: 79_999)?.contains("200 × 100 pixels") == true)
    #expect(refusal(c.path("mid.gif"), maxMemory: 80_000) == nil)
  }

  /// A `width` × `height` RGB PNG whose rows are zeros and whose IDAT stream inflates to `extra` more zero bytes
  /// (fixed-Huffman copies of 258 bytes: a few hundred KB for 64 MB).
  func excessPNG(width: Int, height: Int, interlaced: Bool, extra: Int) -> Damaged {
    var rows = height * (width * 3 + 1)
    if interlaced {
      rows = 0
      let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
      for (x0, y0, dx, dy) in passes {
        let w = width > x0 ? (width - x0 + dx - 1) / dx : 0
        let h = height > y0 ? (height - y0 + dy - 1) / dy : 0
        if w > 0 && h > 0 { rows += h * (w * 3 + 1) }
      }
    }
    let total = rows + extra
    var out: [UInt8] = [0x78, 0x01]
    var bits: UInt64 = 0
    var count = 0
    func put(_ value: UInt32, _ n: Int) {
      bits |= UInt64(value) << UInt64(count)
      count += n
      while count >= 8 {
        out.append(UInt8(bits & 255))
        bits >>= 8
        count -= 8
      }
    }
    func code(_ value: UInt32, _ n: Int) {  // Huffman codes go most significant bit first
      var reversed: UInt32 = 0
      for k in 0..<n where value >> UInt32(k) & 1 == 1 { reversed |= 1 << UInt32(n - 1 - k) }
      put(reversed, n)
    }
    put(1, 1)  // the last block
    put(1, 2)  // fixed Huffman codes
    code(0x30, 8)  // literal 0
    var left = total - 1
    while left > 0 {
      if left >= 258 + 3 || left == 258 {
        code(0xC5, 8)  // length 258
        code(0, 5)  // distance 1
        left -= 258
      } else {
        code(0x30, 8)
        left -= 1
      }
    }
    code(0, 7)  // end of block
    if count > 0 { put(0, 8 - count) }
    let adler = UInt32(total % 65521) << 16 | 1
    out += Damaged.be32(adler)
    let header = Damaged.be32(UInt32(width)) + Damaged.be32(UInt32(height)) + [8, 2, 0, 0, interlaced ? 1 : 0]
    return Damaged.png([("IHDR", header), ("IDAT", out), ("IEND", [])])
  }

  @Test("PNG: pixel data inflating far past its rows is damaged, refused by tilecut's reader and before libpng without inflating it all")
  func excessImageData() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    for interlaced in [false, true] {
      let name = interlaced ? "interlaced.png" : "plain.png"
      try excessPNG(width: 100, height: 100, interlaced: interlaced, extra: 64 << 20).write(c.path(name))
      let r = try runTool([c.path(name), "-o", c.path("out")], timeout: 60)
      c.expectClean(r, status: 1, mentions: "\(name): is damaged")
      #expect(r.stderr.contains("too much image data"), "\(r.stderr)")
    }
    // the same rows with a few bytes to spare, and none, read
    for extra in [0, 100] {
      try excessPNG(width: 100, height: 100, interlaced: false, extra: extra).write(c.path("slack.png"))
      #expect(refusal(c.path("slack.png")) == nil, "\(extra)")
      try excessPNG(width: 100, height: 100, interlaced: true, extra: extra).write(c.path("slack-interlaced.png"))
      #expect(refusal(c.path("slack-interlaced.png")) == nil, "\(extra)")
    }
  }

  @Test("a JPEG-compressed TIFF with 2 KB zeroed inside a strip is refused: libjpeg's 'Corrupt JPEG data' warning is an error")
  func damagedJPEGInTIFF() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try noisy(width: 1000, height: 800).writePNG(to: dir + "/plan.tif[compression=jpeg,Q=90]")
    #expect(refusal(dir + "/plan.tif") == nil)
    let whole = try Damaged(dir + "/plan.tif")
    for fraction in [0.2, 0.5, 0.8] {
      var zeroed = whole
      let at = Int(Double(whole.bytes.count) * fraction)
      zeroed.bytes.replaceSubrange(at..<at + 2000, with: [UInt8](repeating: 0, count: 2000))
      try zeroed.write(dir + "/zeroed.tif")
      let why = refusal(dir + "/zeroed.tif")
      #expect(why?.contains("Corrupt JPEG data") == true, "\(fraction): \(why ?? "tiled")")
    }
  }

  @Test("a Deflate TIFF with 20 KB zeroed inside a strip is refused (libtiff stops before the Adler-32); strips past the end too")
  func damagedTIFF() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // low-contrast noise: long Deflate strips in which zeros still decode
    var image = picture(width: 1000, height: 800)
    var state: UInt32 = 11
    for i in stride(from: 0, to: image.pixels.count, by: 4) {
      state = state &* 1_664_525 &+ 1_013_904_223
      let v = UInt8(200 + Int(state >> 29))
      image.pixels.replaceSubrange(i..<i + 4, with: [v, v, v, 255])
    }
    try image.writePNG(to: dir + "/plan.tif[compression=deflate]")
    #expect(refusal(dir + "/plan.tif") == nil)
    let whole = try Damaged(dir + "/plan.tif")
    var refused = 0
    var tried = 0
    for at in stride(from: 2000, to: whole.bytes.count - 30000, by: max(1, (whole.bytes.count - 32000) / 6)) {
      var zeroed = whole
      zeroed.bytes.replaceSubrange(at..<at + 20000, with: [UInt8](repeating: 0, count: 20000))
      try zeroed.write(dir + "/zeroed.tif")
      tried += 1
      if let why = refusal(dir + "/zeroed.tif") {
        refused += 1
        #expect(!why.contains("\n"))
      }
    }
    #expect(tried >= 6 && refused == tried, "\(refused) of \(tried) zeroed copies refused")
    // the strip offsets point past a cut file
    try Damaged(bytes: Array(whole.bytes.prefix(whole.bytes.count / 3))).write(dir + "/cut.tif")
    #expect(refusal(dir + "/cut.tif") != nil)
  }

  @Test("a page of a multi-page TIFF is found by index: its own pixels, the file's page count, a missing page refused")
  func tiffPages() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pages = (0..<40).map { k in
      var page = RGBAImage(width: 16, height: 8)
      for i in stride(from: 0, to: page.pixels.count, by: 4) { page.pixels.replaceSubrange(i..<i + 4, with: [UInt8(k * 5), 100, 200, 255]) }
      return page
    }
    try RGBAImage.writePages(pages, to: dir + "/floors.tif")
    for k in [0, 1, 17, 39] {
      let header = try SourceImage.header(of: InputName(path: dir + "/floors.tif", page: k), maxPixels: 1 << 30)
      #expect(header.pages == 40 && header.width == 16 && header.height == 8)
      for sequential in [true, false] {
        let image = try SourceImage.convert(
          SourceImage.open(path: dir + "/floors.tif", page: k, sequential: sequential),
          source: SourceDescription(path: dir + "/floors.tif", page: k, crop: nil, width: 16, height: 8, isVector: false))
        let decoded = try RGBAImage.decode(image)
        #expect(decoded[3, 3].r == UInt8(k * 5) && decoded[3, 3].g == 100, "page \(k)")
      }
    }
    #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: dir + "/floors.tif", page: 40), maxPixels: 1 << 30) }
  }
}

/// A PDF of `objects` (object 1 the catalog, numbered in order) with its cross-reference table.
func pdfDocument(_ objects: [String]) -> Data { pdfDocument(objects.map { Array($0.utf8) }) }

func pdfDocument(_ objects: [[UInt8]]) -> Data { Data(PDFWriter.file(objects)) }
