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

  @Test("a PDF whose scan (a DCT image under vector lines, drawn by poppler) has one flipped bit is refused in one line")
  func damagedJPEGInPDF() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try noisy(width: 640, height: 480).writePNG(to: c.path("scan.jpg[Q=90]"))
    let jpeg = try Damaged(c.path("scan.jpg")).bytes
    func pdf(_ image: [UInt8]) -> Data {
      let content = "q 320 0 0 240 0 0 cm /Im0 Do Q 1 0 0 RG 2 w 0 0 m 320 240 l S"
      let objects: [[UInt8]] = [
        Array("<< /Type /Catalog /Pages 2 0 R >>".utf8), Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
        Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 320 240] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".utf8),
        Array("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream".utf8),
        Array(
          "<< /Type /XObject /Subtype /Image /Width 640 /Height 480 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length \(image.count) >>\nstream\n"
            .utf8) + image + Array("\nendstream".utf8),
      ]
      return pdfDocument(objects)
    }
    try pdf(jpeg).write(to: URL(fileURLWithPath: c.path("mixed.pdf")))
    #expect(refusal(c.path("mixed.pdf")) == nil)
    var damaged = jpeg
    damaged[damaged.count - 2 - damaged.count / 100] ^= 0x01
    try pdf(damaged).write(to: URL(fileURLWithPath: c.path("damaged.pdf")))
    #expect(refusal(c.path("damaged.pdf"))?.contains("has a damaged JPEG image on page 1, object") == true)
    c.expectClean(
      try runTool([c.path("damaged.pdf"), "-o", c.path("out"), "--max-zoom", "2"]), status: 1,
      mentions: "damaged.pdf: cannot be decoded: it has a damaged JPEG image")
  }

  @Test(
    "a PDF inline image (BI … ID … EI) whose Flate data zlib finds corrupt is refused in one line; whole ones, and ones whose pixels hold ' EI ', are drawn"
  )
  func damagedInlineImage() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func pdf(_ zlib: [UInt8]) -> Data {
      let content =
        Array("q 1 0 0 RG 2 w 0 0 m 320 240 l S Q q 320 0 0 240 0 0 cm BI /W 16 /H 16 /CS /RGB /BPC 8 /F [/Fl] ID ".utf8) + zlib
        + Array("\nEI Q".utf8)
      let objects: [[UInt8]] = [
        Array("<< /Type /Catalog /Pages 2 0 R >>".utf8), Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
        Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 320 240] /Contents 4 0 R >>".utf8),
        Array("<< /Length \(content.count) >>\nstream\n".utf8) + content + Array("\nendstream".utf8),
      ]
      return pdfDocument(objects)
    }
    var pixels = (0..<(16 * 16 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 40) }
    let whole = PDFWriter.zlibStored(pixels)
    try pdf(whole).write(to: URL(fileURLWithPath: c.path("whole.pdf")))
    #expect(refusal(c.path("whole.pdf")) == nil)
    // " EI " inside the pixels: where the scan's guess cuts the data, poppler reads on
    pixels.replaceSubrange(100..<104, with: Array(" EI ".utf8))
    try pdf(PDFWriter.zlibStored(pixels)).write(to: URL(fileURLWithPath: c.path("ei.pdf")))
    #expect(refusal(c.path("ei.pdf")) == nil)
    // and what looks like another inline image after it: never judged, since the cut was a guess
    let fake = Array(" EI BI /W 2 /H 2 /CS /RGB /BPC 8 /F /Fl ID xxxxxxxxxxxx EI ".utf8)
    pixels.replaceSubrange(200..<(200 + fake.count), with: fake)
    try pdf(PDFWriter.zlibStored(pixels)).write(to: URL(fileURLWithPath: c.path("fake.pdf")))
    #expect(refusal(c.path("fake.pdf")) == nil)
    // the checksum wrong, and a stored block's length that disagrees with its complement
    var adler = whole
    adler[adler.count - 1] ^= 0x01
    var lengths = whole
    lengths[4] ^= 0x01
    for (name, bytes, says) in [("adler", adler, "incorrect data check"), ("lengths", lengths, "invalid stored block lengths")] {
      try pdf(bytes).write(to: URL(fileURLWithPath: c.path(name + ".pdf")))
      let why = refusal(c.path(name + ".pdf"))
      #expect(why?.contains("an inline image's Flate data is corrupt (zlib: \(says))") == true, "\(name): \(why ?? "drawn")")
    }
    c.expectClean(
      try runTool([c.path("adler.pdf"), "-o", c.path("out"), "--max-zoom", "2"]), status: 1,
      mentions: "adler.pdf: cannot be decoded")
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
  @Test("a PDF of 12,000 pages has 12,000 pages, not libvips' 1 above 10,000")
  func manyPages() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pages = 12_000
    var objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    objects.append("<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " "))] /Count \(pages) >>")
    for _ in 0..<pages { objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >>") }
    try pdfDocument(objects).write(to: URL(fileURLWithPath: dir + "/pages.pdf"))
    let header = try SourceImage.header(of: InputName(path: dir + "/pages.pdf"), maxPixels: 1 << 30)
    #expect(header.pages == pages)
    let last = try SourceImage.header(of: InputName(path: dir + "/pages.pdf", page: pages - 1), maxPixels: 1 << 30)
    #expect(last.width == 200 && last.height == 100)
  }

  @Test("SVG: a FIFO named by <image>, CSS @import or xi:include is never opened; embedded images held to --max-memory")
  func svgReferences() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(mkfifo(dir + "/pipe.png", 0o600) == 0)
    #expect(mkfifo(dir + "/style.css", 0o600) == 0)
    let open =
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" width="100" height="100">"#
    let bodies = [
      "image": #"<image width="50" height="50" xlink:href="pipe.png"/>"#,
      "import": #"<style>@import "style.css";</style>"#,
      "url": #"<style>rect { fill: url( 'style.css#x' ) }</style>"#,
      "include": #"<text><xi:include href="./pipe.png" parse="text"/></text>"#,
    ]
    for (name, body) in bodies {
      try Data((open + body + "<rect width=\"5\" height=\"5\"/></svg>").utf8).write(to: URL(fileURLWithPath: dir + "/\(name).svg"))
      #expect(refusal(dir + "/\(name).svg")?.contains("FIFO") == true, "\(name)")
    }
    // a 17000² PNG as a data: URI: 1.2 GB once librsvg decodes it
    let png = Data(pngHeader(width: 17000, height: 17000)).base64EncodedString()
    let embedded = open + #"<image width="50" height="50" href="data:image/png;base64,"# + png + #""/></svg>"#
    try Data(embedded.utf8).write(to: URL(fileURLWithPath: dir + "/embedded.svg"))
    #expect(refusal(dir + "/embedded.svg")?.contains("17000 × 17000") == true)
    // links, fragments and directories are not image sources: the drawing reads
    let fine = open + #"<a href="/"><rect fill="url(#g)" width="5" height="5"/></a><a href="https://example.com/"/></svg>"#
    try Data(fine.utf8).write(to: URL(fileURLWithPath: dir + "/fine.svg"))
    #expect(refusal(dir + "/fine.svg") == nil)
  }

  @Test(
    "SVG: a FIFO or directory named through character references, entities, white space, CSS escapes or comments, or by a stylesheet or SVG it refers to, is refused before librsvg opens it"
  )
  func svgReferenceSpellings() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    for name in ["fifo.png", "fifo.css", "fifo.svg"] { #expect(mkfifo(c.path(name), 0o600) == 0) }
    try FileManager.default.createDirectory(atPath: c.path("folder"), withIntermediateDirectories: true)
    func write(_ text: String, _ name: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: c.path(name))) }
    let open =
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><rect width="50" height="50" fill="blue"/>"#
    try write(#"rect { stroke: red } @import "fifo.css";"#, "imports.css")
    try write(#"<svg xmlns="http://www.w3.org/2000/svg"><use href="fifo.svg#a"/></svg>"#, "inner.svg")
    let inner = #"<svg xmlns='http://www.w3.org/2000/svg'><image href='fifo.png'/></svg>"#
    let cases: [(name: String, prolog: String, body: String)] = [
      ("charref", "", #"<image href="fi&#102;o.png" width="5" height="5"/>"#),
      ("space", "", #"<image href=" fifo.png " width="5" height="5"/>"#),
      ("linebreak", "", #"<image href="fi&#10;fo.png" width="5" height="5"/>"#),
      ("cssescape", "", #"<style>@import url(fi\66o.css);</style>"#),
      ("csscomment", "", #"<style>@import/**/"fifo.css";</style>"#),
      ("escapedimport", "", #"<style><![CDATA[@\69mport "fifo.css";]]></style>"#),
      ("nested", "", #"<style>@import "imports.css";</style>"#),
      ("fill", "", #"<rect width="5" height="5" fill="u&#x72;l(fifo.svg#p)"/>"#),
      ("style", "", #"<rect width="5" height="5" style="filter: url(&quot;fifo.svg#f&quot;)"/>"#),
      ("feimage", "", #"<filter id="f"><feImage xlink:href="fifo.png"/></filter>"#),
      ("pattern", "", #"<pattern id="p" href="fifo.svg#q"/>"#),
      ("use", "", #"<use href="inner.svg#a"/>"#),
      (
        "datasvg", "",
        #"<image width="5" height="5" href="data:image/svg+xml,"# + (inner.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
          + #""/>"#
      ),
      ("entity", #"<!DOCTYPE svg [<!ENTITY f "fifo.png">]>"#, #"<image href="&f;" width="5" height="5"/>"#),
      ("entitymarkup", #"<!DOCTYPE svg [<!ENTITY f "<image href=&#34;fifo.png&#34; width=&#34;5&#34; height=&#34;5&#34;/>">]>"#, "&f;"),
      ("attlist", #"<!DOCTYPE svg [<!ATTLIST image href CDATA "fifo.png">]>"#, #"<image width="5" height="5"/>"#),
      ("stylesheet", #"<?xml-stylesheet type="text/css" href="fifo.css"?>"#, ""),
      ("directory", "", #"<image width="5" height="5" href="folder/"/>"#),
    ]
    for (name, prolog, body) in cases {
      try write(prolog + open + body + "</svg>", "\(name).svg")
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(name).svg: refers to")
      #expect(r.stderr.contains(name == "directory" ? "a directory" : "a FIFO"), "\(name): \(r.stderr)")
    }
    // encodings libxml2 decodes: Latin-1 and UTF-16 are read as it reads them, UTF-7 is refused
    #expect(mkfifo(c.path("fi\u{E9}o.png"), 0o600) == 0)
    let latin1 = #"<?xml version="1.0" encoding="ISO-8859-1"?>"# + open + #"<image width="5" height="5" href="fi\#u{E9}o.png"/></svg>"#
    try #require(latin1.data(using: .isoLatin1)).write(to: URL(fileURLWithPath: c.path("latin1.svg")))
    let utf16 = #"<?xml version="1.0" encoding="UTF-16"?><svg xmlns="http://www.w3.org/2000/svg"><use href="fifo.svg#a"/></svg>"#
    try (Data([0xFF, 0xFE]) + (try #require(utf16.data(using: .utf16LittleEndian)))).write(to: URL(fileURLWithPath: c.path("inner16.svg")))
    try write(open + #"<use href="inner16.svg#a"/></svg>"#, "utf16.svg")
    for name in ["latin1", "utf16"] {
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(name).svg: refers to")
      #expect(r.stderr.contains("a FIFO"), "\(name): \(r.stderr)")
    }
    try write(#"<?xml version="1.0" encoding="UTF-7"?>"# + open + #"<image width="5" height="5" href="fi+AGY-o.png"/></svg>"#, "utf7.svg")
    c.expectClean(
      try runTool([c.path("utf7.svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 30), status: 1,
      mentions: "utf7.svg: is in the UTF-7 encoding")
    // a drawing with a stylesheet importing another, an image beside it and links still tiles
    try picture(width: 40, height: 30).writePNG(to: c.path("photo.png"))
    try write("rect { stroke: green }", "plain.css")
    try write(#"@import url("plain.css"); rect { fill: url(#g) }"#, "fine.css")
    let fine =
      open
      + #"<style>@import "fine.css";</style><image href="photo.png" width="40" height="30"/><a href="folder/"><rect width="5" height="5"/></a></svg>"#
    try write(fine, "fine.svg")
    let made = try runTool([c.path("fine.svg"), "-o", c.path("fine-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
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

  @Test("SVG: a damaged PNG, JPEG, GIF or WebP in a data: URI (or in a data: SVG) is refused naming the image; sound ones tile")
  func svgEmbeddedDamage() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let image = picture(width: 64, height: 64)
    try image.writePNG(to: c.path("p.png"))
    let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: c.path("p.png"))))
    let jpeg = try VipsTileEncoder(format: .jpeg).encode(rgba: image.pixels, size: 64, upsampled: false)
    let webp = try VipsTileEncoder(format: .webp).encode(rgba: image.pixels, size: 64, upsampled: false)
    let good = gif(width: 64, height: 64)
    func uri(_ type: String, _ bytes: [UInt8]) -> String { "data:image/\(type);base64," + Data(bytes).base64EncodedString() }
    func svg(_ uris: [String]) -> String {
      #"<svg xmlns="http://www.w3.org/2000/svg" width="256" height="64">"#
        + uris.enumerated().map { #"<image x="\#($0.offset * 64)" width="64" height="64" href="\#($0.element)"/>"# }.joined() + "</svg>"
    }
    var crc = png
    let idat = try #require(Damaged(c.path("p.png")).find(Array("IDAT".utf8)))
    crc[idat + 10] ^= 0x10
    let cases: [(name: String, uri: String, says: String)] = [
      ("pngcut", uri("png", Array(png.prefix(png.count / 2))), "#2 (data: PNG) is truncated"),
      ("pngcrc", uri("png", crc), "#2 (data: PNG) is damaged"),
      ("jpegcut", uri("jpeg", Array(jpeg.prefix(jpeg.count * 9 / 10))), "#2 (data: JPEG) is damaged (libjpeg"),
      ("gifcut", uri("gif", Array(good.prefix(good.count * 2 / 3))), "#2 (data: GIF) is truncated"),
      ("gifshort", uri("gif", gif(width: 64, height: 64, pixels: 100)), "#2 (data: GIF) is damaged"),
      ("webpcut", uri("webp", Array(webp.prefix(webp.count / 2))), "#2 (data: WebP) is truncated"),
      ("nested", uri("svg+xml", Array(svg([uri("png", Array(png.prefix(png.count / 2)))]).utf8)), "#2 (data: PNG, in 'data:image/svg+xml"),
    ]
    for (name, bad, says) in cases {
      try Data(svg([uri("png", png), bad]).utf8).write(to: URL(fileURLWithPath: c.path("\(name).svg")))
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 60)
      c.expectClean(r, status: 1, mentions: "\(name).svg: its embedded image")
      #expect(r.stderr.contains(says), "\(name): \(r.stderr)")
    }
    try Data(svg([uri("png", png), uri("jpeg", jpeg), uri("gif", good), uri("webp", webp)]).utf8).write(
      to: URL(fileURLWithPath: c.path("fine.svg")))
    let made = try runTool([c.path("fine.svg"), "-o", c.path("fine-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
  }

  @Test("SVG: <use> elements that expand into millions of copies (2 KB doubling 23 levels deep) are refused before librsvg draws")
  func svgUseFanOut() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func doubling(_ levels: Int) -> String {
      let names = (0...levels).map { "g\($0)" }
      var groups = ""
      for k in 0..<levels { groups += "<g id=\"\(names[k])\"><use xlink:href=\"#\(names[k + 1])\"/><use href=\"#\(names[k + 1])\"/></g>" }
      groups += "<g id=\"\(names[levels])\"><circle r=\"40\" cx=\"50\" cy=\"50\" fill=\"red\"/></g>"
      return "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"100\" height=\"100\">"
        + "<defs>\(groups)</defs><use xlink:href=\"#g0\"/></svg>"
    }
    try doubling(23).write(toFile: dir + "/deep.svg", atomically: true, encoding: .utf8)
    let why = refusal(dir + "/deep.svg")
    #expect(why?.contains("expand into more than 500000 copies") == true, "\(why ?? "drawn")")
    // a few levels of copies draw as before
    try doubling(5).write(toFile: dir + "/few.svg", atomically: true, encoding: .utf8)
    #expect(refusal(dir + "/few.svg") == nil)
    // a cycle of <use> counts nothing more (librsvg refuses cycles itself)
    let cycle =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><g id=\"a\"><use href=\"#b\"/></g>"
      + "<g id=\"b\"><use href=\"#a\"/></g><rect width=\"5\" height=\"5\"/></svg>"
    try cycle.write(toFile: dir + "/cycle.svg", atomically: true, encoding: .utf8)
    #expect(refusal(dir + "/cycle.svg")?.contains("copies") != true)
  }

  @Test("SVG: a font size librsvg aborts on (2·10⁶ px: attribute, style, <style>, font shorthand, units) is refused in one line")
  func svgFontSize() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func svg(_ body: String) -> String {
      #"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="50" height="50" fill="blue"/>"# + body + "</svg>"
    }
    let cases: [(name: String, body: String)] = [
      ("attribute", #"<text y="20" font-size="1e8">W</text>"#),
      ("charref", #"<text y="20" font-size="&#50;e6">W</text>"#),
      ("points", #"<text y="20" font-size="1.6e6pt">W</text>"#),
      ("em", #"<text y="20" font-size="2e5em">W</text>"#),
      ("style", #"<text y="20" style="fill:red; font-size : 1e7px">W</text>"#),
      ("sheet", #"<style>text { font-size: 3e6px }</style><text y="20">W</text>"#),
      ("shorthand", #"<style><![CDATA[text { font: italic bold 1e7px/2 sans-serif }]]></style><text y="20">W</text>"#),
      ("huge", #"<text y="20" font-size="1e39">W</text>"#),
    ]
    for (name, body) in cases {
      try Data(svg(body).utf8).write(to: URL(fileURLWithPath: c.path("\(name).svg")))
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 60)
      c.expectClean(r, status: 1, mentions: "\(name).svg: sets a font size")
    }
    // large but drawable text, weights and families with digits still tile
    let fine = svg(#"<text y="150" font-size="1e5" style="font: 900 40px a1e9, sans-serif">W</text><text y="40" font-size="30pt">A</text>"#)
    try Data(fine.utf8).write(to: URL(fileURLWithPath: c.path("fine.svg")))
    let made = try runTool([c.path("fine.svg"), "-o", c.path("fine-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
  }

  @Test("SVG: percent-encoded, entity-spelled, nested and referenced images are held to --max-memory at librsvg's 8 bytes a pixel, and together")
  func svgImageBudget() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func write(_ text: String, _ name: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: c.path(name))) }
    let open = #"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">"#
    let png = pngHeader(width: 11000, height: 11000)
    try png.write(to: URL(fileURLWithPath: c.path("big.png")))
    let percent = png.map { String(format: "%%%02X", $0) }.joined()
    let base64 = png.base64EncodedString()
    let inner = #"<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,"# + base64 + #""/></svg>"#
    let cases = [
      "percent": #"<image width="50" height="50" href="data:image/png,"# + percent + #""/>"#,
      "entity": #"<image width="50" height="50" href="data&#58;image/png;base64,"# + base64 + #""/>"#,
      "referenced": #"<image width="50" height="50" href="big.png"/>"#,
      "nested": #"<image width="50" height="50" href="data:image/svg+xml;base64,"# + Data(inner.utf8).base64EncodedString() + #""/>"#,
    ]
    for (name, body) in cases {
      try write(open + body + "</svg>", "\(name).svg")
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-memory", "200"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(name).svg:")
      #expect(r.stderr.contains("11000 × 11000") && r.stderr.contains("--max-memory 200 MB"), "\(name): \(r.stderr)")
    }
    // a sparse 300 MB text file librsvg would read whole for xi:include
    #expect(FileManager.default.createFile(atPath: c.path("huge.txt"), contents: nil))
    #expect(truncate(c.path("huge.txt"), 300_000_000) == 0)
    try write(
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude"><text><xi:include href="huge.txt" parse="text"/></text></svg>"#,
      "include.svg")
    c.expectClean(
      try runTool([c.path("include.svg"), "-o", c.path("out"), "--max-memory", "200"], timeout: 30), status: 1,
      mentions: "include.svg: refers to 'huge.txt', a file of 300 MB")
    // gdk-pixbuf's pixels and cairo's copy: 6000² is 288 MB, more than 256 (at 4 bytes a pixel it was 144)
    // sound PNGs of zeros (tilecut inflates an embedded image's stream to check it)
    func image(_ width: Int, _ height: Int) -> String {
      let png = Data(excessPNG(width: width, height: height, interlaced: false, extra: 0).bytes)
      return #"<image width="50" height="50" href="data:image/png;base64,"# + png.base64EncodedString() + #""/>"#
    }
    try write(open + image(6000, 6000) + "</svg>", "six.svg")
    #expect(throws: TilecutError.self) { try SVGReferences.check(path: c.path("six.svg"), maxBytes: 256_000_000) }
    #expect(throws: Never.self) { try SVGReferences.check(path: c.path("six.svg"), maxBytes: 300_000_000) }
    // librsvg keeps every image it loaded: two of 128 MB are over 200 MB, one is not
    try write(open + image(4000, 4000) + "</svg>", "one.svg")
    try write(open + image(4000, 4000) + image(4000, 4001) + "</svg>", "two.svg")
    #expect(throws: Never.self) { try SVGReferences.check(path: c.path("one.svg"), maxBytes: 200_000_000) }
    #expect(refusal(c.path("two.svg"), maxMemory: 200_000_000)?.contains("with the images before it") == true)
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

  @Test("MBTiles: an endless recursive view, a view over one, and a 100 MB blob end with one reason")
  func hostileMBTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let spec = """
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
      CREATE TABLE images (tile_data BLOB, tile_id TEXT);
      INSERT INTO map VALUES (0, 0, 0, 'a');
      INSERT INTO images VALUES (x'89504E47', 'a');
      """
    let cases = [
      "spec":
        "CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;",
      "recursive":
        "CREATE VIEW tiles AS WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r) SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r WHERE n < 0;",
      "hidden":
        "CREATE VIEW forever AS WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r; CREATE VIEW tiles AS SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM forever WHERE n < 0;",
      "blob":
        "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB); INSERT INTO tiles VALUES (0, 0, 0, zeroblob(100000000));",
    ]
    let reasons = try mbtilesRefusals(dir, spec: spec, cases: cases, specRows: 1)
    #expect(reasons["spec"] == nil)
    #expect(reasons["recursive"]?.contains("recursive") == true)
    #expect(reasons["hidden"]?.contains("SQLite steps") == true)
    #expect(reasons["blob"]?.contains("larger than 64 MiB") == true)
  }

  @Test("MBTiles: a cross join padded to 40 MB is stopped by steps that follow the tables' rows, not the file's size; verify says it in a line")
  func crossJoinMBTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let values = (0..<8).map { "(3, \($0), 0, 'i\($0)')" }.joined(separator: ", ")
    let images = (0..<8).map { "(x'89504E47', 'i\($0)')" }.joined(separator: ", ")
    let spec = """
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
      CREATE TABLE images (tile_data BLOB, tile_id TEXT);
      INSERT INTO map VALUES \(values);
      INSERT INTO images VALUES \(images);
      CREATE TABLE pad (b BLOB);
      WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r LIMIT 40) INSERT INTO pad SELECT zeroblob(1000000) FROM r;
      """
    let columns = "a.zoom_level AS zoom_level, a.tile_column AS tile_column, a.tile_row AS tile_row, i.tile_data AS tile_data"
    let cases = [
      "spec":
        "CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;",
      // 8⁸ rows looked at, none given: only the step budget ends it
      "filtered":
        "CREATE VIEW tiles AS SELECT \(columns) FROM map a, map b, map c, map d, map e, map f, map g, images i WHERE i.tile_id = a.tile_id AND a.tile_column + b.tile_column + c.tile_column + d.tile_column + e.tile_column + f.tile_column + g.tile_column < 0;",
      // every row given again and again
      "repeating": "CREATE VIEW tiles AS SELECT \(columns) FROM map a, map b, map c, map d, map e, images i WHERE i.tile_id = a.tile_id;",
    ]
    let reasons = try mbtilesRefusals(dir, spec: spec, cases: cases, specRows: 8)
    #expect(reasons["spec"] == nil, "\(reasons)")
    // 16 steps a byte gave this file 640 M steps; its 57 rows give a few million
    let filtered = try #require(reasons["filtered"])
    let limit = filtered.split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) }
    #expect(filtered.contains("SQLite steps") && (limit ?? .max) < 10_000_000, "\(filtered)")
    #expect(reasons["repeating"]?.contains("yields more rows than its tables hold") == true, "\(reasons)")

    // verify of an output whose tiles view became a cross join: the file is not the one
    // tilecut wrote, one line; without the digest, one line of why its rows cannot be read
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    #expect(try runTool([dir + "/plan.png", "-o", dir + "/out", "-q", "--store", "mbtiles", "--max-zoom", "3"]).status == 0)
    var db: OpaquePointer?
    #expect(sqlite3_open(dir + "/out/L1_256.mbtiles", &db) == SQLITE_OK)
    let join = "SELECT \(columns) FROM map a, map b, map c, map d, map e, map f, images i WHERE i.tile_id = a.tile_id"
    #expect(sqlite3_exec(db, "DROP VIEW tiles; CREATE VIEW tiles AS \(join);", nil, nil, nil) == SQLITE_OK)
    sqlite3_close(db)
    let changed = try runTool(["verify", dir + "/out"])
    #expect(changed.status == 1 && changed.stderrLines.count == 1, "\(changed.stderr)")
    #expect(changed.stdout == "changed: L1_256.mbtiles (its bytes differ from the digest in the manifest)\n", "\(changed.stdout)")
    let manifestPath = dir + "/out/manifest.json"
    var older = try Manifest.decode(try #require(FileManager.default.contents(atPath: manifestPath)))
    older.storeFileDigests = nil
    try older.encoded().write(to: URL(fileURLWithPath: manifestPath))
    let unread = try runTool(["verify", dir + "/out"])
    let lines = unread.stdout.split(separator: "\n")
    #expect(unread.status == 1 && lines.count <= Verifier.problemsPerArchive + 2, "\(lines.count) lines")
    let stopped = "stopped: L1_256.mbtiles after its first \(Verifier.problemsPerArchive) problems"
    #expect(unread.stdout.contains(stopped) || unread.stdout.contains("yields more rows than its tables hold"), "\(unread.stdout.prefix(2000))")
  }

  @Test("GeoKeys naming an EPSG code PROJ does not know say which code, and nothing else reaches stderr")
  func unknownEPSG() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoTIFFWriter.write(
      path: dir + "/unknown.tif", width: 4, height: 4, bands: 3, pixels: [UInt8](repeating: 9, count: 48),
      tiepoint: [0, 0, 0, 500_000, 6_000_000, 0],
      scale: [1, 1, 0], shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3)])
    let tags = try #require(GeoTIFFTags.read(path: dir + "/unknown.tif"))
    #expect(tags.crs == nil)
    #expect(tags.crsProblem?.contains("EPSG:3") == true, "\(tags.crsProblem ?? "no problem")")
  }

  @Test("a PDF nesting a million 'q' is refused before poppler copies its graphics state a million times")
  func nestedSaves() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func page(_ content: String, filter: String = "") -> Data {
      let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>",
        "<< /Length \(content.utf8.count) \(filter) >>\nstream\n\(content)\nendstream",
      ]
      return pdfDocument(objects)
    }
    try page(String(repeating: "q ", count: 1_000_000) + String(repeating: "Q ", count: 1_000_000))
      .write(to: URL(fileURLWithPath: dir + "/nested.pdf"))
    #expect(refusal(dir + "/nested.pdf")?.contains("1000000 deep") == true)
    // the same million in ASCII layers, alone or in a filter array, which poppler decodes (1.6 GB before)
    let saves = Array((String(repeating: "q ", count: 1_000_000) + String(repeating: "Q ", count: 1_000_000)).utf8)
    let digits = Array("0123456789abcdef".utf8)
    var hexBytes = [UInt8](repeating: 0, count: saves.count * 2)
    for (k, b) in saves.enumerated() {
      hexBytes[2 * k] = digits[Int(b >> 4)]
      hexBytes[2 * k + 1] = digits[Int(b & 15)]
    }
    let hex = String(decoding: hexBytes, as: UTF8.self) + ">"
    // "q " and "Q " in fours: each group of 4 bytes is the same 5 base-85 digits
    func base85(_ four: [UInt8]) -> [UInt8] {
      var group = four.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      var out = [UInt8](repeating: 33, count: 5)
      for k in (0..<5).reversed() {
        out[k] = UInt8(33 + group % 85)
        group /= 85
      }
      return out
    }
    let a85 =
      String(decoding: Array([[UInt8]](repeating: base85(Array("q q ".utf8)), count: 500_000).joined()), as: UTF8.self)
      + String(decoding: Array([[UInt8]](repeating: base85(Array("Q Q ".utf8)), count: 500_000).joined()), as: UTF8.self) + "~>"
    for (name, content, filter) in [
      ("hex", hex, "/Filter /ASCIIHexDecode"), ("a85", a85, "/Filter [/A85]"), ("both", hex, "/Filter [ /AHx ]"),
    ] {
      try page(content, filter: filter).write(to: URL(fileURLWithPath: dir + "/\(name).pdf"))
      #expect(refusal(dir + "/\(name).pdf")?.contains("1000000 deep") == true, "\(name)")
    }
    try page("71 20 51>", filter: "/Filter /ASCIIHexDecode").write(to: URL(fileURLWithPath: dir + "/few.pdf"))
    #expect(refusal(dir + "/few.pdf") == nil)
    try page("q 1 0 0 rg (q q q) Tj 0 0 10 10 re f Q % q q").write(to: URL(fileURLWithPath: dir + "/plain.pdf"))
    #expect(refusal(dir + "/plain.pdf") == nil)
  }

  @Test("poppler's syntax errors never reach stderr, even with G_MESSAGES_DEBUG=all: a clean run prints nothing, a refused one one line")
  func popplerChatter() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func pdf(_ content: String, filter: String = "") -> Data {
      let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        "<< /Length \(content.utf8.count) \(filter) >>\nstream\n\(content)\nendstream",
        "<< /Type /Font /Subtype /TrueType /BaseFont /Nope /FontFile2 6 0 R >>",
        "<< /Length 10 >>\nstream\n0123456789\nendstream",
      ]
      return pdfDocument(objects)
    }
    // an unknown XObject, unknown operators, a stray ')' and ']', a font that is not one: poppler says so for each
    let noisy = "BT /F1 12 Tf 10 10 Td (plan) Tj ET /Im9 Do 1 0 0 RG 4 w 0 0 m 200 100 l S ] ) foo 1 2 bar"
    try pdf(noisy).write(to: URL(fileURLWithPath: c.path("noisy.pdf")))
    let clean = try runTool([], shell: "G_MESSAGES_DEBUG=all TILECUT \(c.path("noisy.pdf")) -o \(c.path("noisy-out")) --max-zoom 3 -q")
    #expect(clean.status == 0, "\(clean.stderr)")
    #expect(clean.stderrBesideUnplacedNote.isEmpty, "stderr: \(clean.stderr)")
    let deep = String(repeating: "q ", count: 200_000) + noisy + String(repeating: " Q", count: 200_000)
    let hex = deep.utf8.map { String(format: "%02x", $0) }.joined() + ">"
    try pdf(hex, filter: "/Filter /AHx").write(to: URL(fileURLWithPath: c.path("deep.pdf")))
    c.expectClean(
      try runTool([], shell: "G_MESSAGES_DEBUG=all TILECUT \(c.path("deep.pdf")) -o \(c.path("out")) --max-zoom 3"), status: 1,
      mentions: "deep.pdf: nests 'q' (save graphics state) 200000 deep")
  }

  @Test("a library's own stderr lines (poppler's font engine) never reach stderr; TILECUT_LIBRARY_MESSAGES=1 shows them")
  func libraryStderr() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let content = "BT /F1 48 Tf 100 100 Td (Hello) Tj ET 0 0 1 rg 10 10 200 200 re f"
    let font = String(repeating: "garbage font bytes", count: 10)
    let objects = [
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
      "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
      "<< /Type /Font /Subtype /TrueType /BaseFont /Broken /FirstChar 32 /LastChar 126 /Widths [] /FontDescriptor 6 0 R >>",
      "<< /Type /FontDescriptor /FontName /Broken /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 "
        + "/Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>",
      "<< /Length \(font.utf8.count) >>\nstream\n\(font)\nendstream",
    ]
    try pdfDocument(objects).write(to: URL(fileURLWithPath: c.path("font.pdf")))
    let place = "--center 51.5,-0.14 --meters-per-pixel 0.5 --max-zoom 18 -q"
    let quiet = try runTool([], shell: "TILECUT \(c.path("font.pdf")) \(place) -o \(c.path("quiet"))")
    #expect(quiet.status == 0, "\(quiet.stderr)")
    #expect(quiet.stderr.isEmpty, "stderr: \(quiet.stderr)")
    #expect(FileManager.default.fileExists(atPath: c.path("quiet/manifest.json")))
    // the same run with the libraries' lines passed on: the font engine did print
    // (the variable's name quoted in two parts: runTool puts the binary's path for TILECUT)
    let library = "TILE''CUT_LIBRARY_MESSAGES"
    let told = try runTool([], shell: "env \(library)=1 TILECUT \(c.path("font.pdf")) \(place) -o \(c.path("told"))")
    #expect(told.status == 0, "\(told.stderr)")
    #expect(!told.stderrLines.isEmpty && told.stderrLines.allSatisfy { $0.hasPrefix("library: ") }, "stderr: \(told.stderr)")
    // tilecut's own writes to /dev/stderr go to the real stderr, not into the pipe
    let changes = try runTool([], shell: "TILECUT \(c.path("font.pdf")) \(place) -o \(c.path("changes")) --changes /dev/stderr")
    #expect(changes.status == 0, "\(changes.stderr)")
    #expect(changes.stderrLines.contains { $0.hasPrefix("A\t256/") }, "stderr: \(changes.stderr)")
    #expect(!changes.stderr.contains("font"), "stderr: \(changes.stderr)")
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
