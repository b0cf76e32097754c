import CTilecutDocument
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// A minimal R12 DXF: layer `layer` (its colour negative when it is off), one LINE on it.
func writeMinimalDXF(to path: String, layerOff: Bool) throws {
  let pairs = [
    "0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "LAYER", "70", "1", "0", "LAYER", "2", "WALLS", "70", "0", "62",
    layerOff ? "-7" : "7", "6", "CONTINUOUS", "0", "ENDTAB", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "LINE", "8", "WALLS",
    "10", "0", "20", "0", "11", "10", "21", "5", "0", "ENDSEC", "0", "EOF",
  ]
  try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
}

/// A DXF of `levels` blocks, each but the last inserting the next `fan` times (the
/// last holds one LINE), inserted `fan` times in model space: `fan`^`levels` lines once inlined.
func writeNestedInsertsDXF(to path: String, levels: Int, fan: Int) throws {
  var pairs = [
    "0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "LAYER", "70", "1", "0", "LAYER", "2", "0", "70", "0", "62", "7", "6", "CONTINUOUS",
    "0", "ENDTAB", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS",
  ]
  for level in 0..<levels {
    pairs += ["0", "BLOCK", "8", "0", "2", "B\(level)", "70", "0", "10", "0", "20", "0", "3", "B\(level)"]
    if level == levels - 1 {
      pairs += ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "1", "21", "1"]
    } else {
      for k in 0..<fan { pairs += ["0", "INSERT", "8", "0", "2", "B\(level + 1)", "10", "\(k)", "20", "0"] }
    }
    pairs += ["0", "ENDBLK", "8", "0"]
  }
  pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
  for k in 0..<fan { pairs += ["0", "INSERT", "8", "0", "2", "B0", "10", "\(k * 20)", "20", "0"] }
  pairs += ["0", "ENDSEC", "0", "EOF"]
  try Data((pairs.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
}

@Suite("DXF and DWG refusals")
struct DrawingRefusalTests {
  let dir: String = {
    let d = NSTemporaryDirectory() + "tilecut-dxf-refuse-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
  }()

  @Test("a DWG other than AutoCAD 2000 is refused in one line that says to save it as DXF")
  func newerDWG() throws {
    let path = dir + "/plan.dwg"
    try Data("AC1032".utf8 + [UInt8](repeating: 0, count: 64)).write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30) }
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("AutoCAD 2018") && text.contains("save it as DXF") && !text.contains("\n"), "\(text)")
  }

  /// A damaged AutoCAD 2000 DWG was "libopencad 0.3.4 does not support this version of
  /// CAD file", and one with damaged version bytes "AutoCAD Driver (as GDAL identifies
  /// it), which tilecut does not read; convert it to PNG, …" (hostile42 #12).
  @Test("a DWG with a damaged header or damaged version bytes is said to be damaged, in one line")
  func damagedDWG() throws {
    for (name, magic) in [("version.dwg", Array("AC10".utf8) + [0xFD, 0x35]), ("header.dwg", Array("AC1015".utf8))] {
      let path = dir + "/" + name
      try Data(magic + [UInt8](repeating: 0, count: 200)).write(to: URL(fileURLWithPath: path))
      let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30) }
      let text = error.map { "\($0)" } ?? ""
      #expect(text.contains("damaged") && text.contains("save it again from its CAD program, or as DXF") && !text.contains("\n"), "\(text)")
      #expect(!text.contains("libopencad") && !text.contains("convert it to PNG"), "\(text)")
    }
    let error = #expect(throws: TilecutError.self) {
      try SourceImage.header(of: InputName(path: dir + "/header.dwg"), maxPixels: 1 << 30)
    }
    #expect("\(error.map { "\($0)" } ?? "")".contains("a damaged AutoCAD 2000 (AC1015) DWG"))
  }

  /// A data file whose ENVI header GDAL refuses (2^31 − 1 bands) was "a file of unknown
  /// format … convert it to … ENVI", the header unnamed (hostile42 #13).
  @Test("a data file whose ENVI header GDAL cannot read is refused naming the header and its sizes")
  func damagedENVIHeader() throws {
    let data = dir + "/e.dat"
    try Data(repeating: 7, count: 2000).write(to: URL(fileURLWithPath: data))
    let header =
      "ENVI\ndescription = {\u{1B}]0;x\u{7}}\nsamples = 20\nlines = 10\nbands = 2147483647\nheader offset = 0\nfile type = ENVI Standard\ndata type = 1\ninterleave = bsq\nbyte order = 0\n"
    try Data(header.utf8).write(to: URL(fileURLWithPath: dir + "/e.hdr"))
    let error = #expect(throws: TilecutError.self) { try SourceFormat.detect(path: data) }
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("has an ENVI header, e.hdr, that GDAL cannot read (samples 20, lines 10, bands 2147483647)"), "\(text)")
    #expect(!text.contains("unknown format") && !text.contains("\u{1B}") && !text.contains("\n"), "\(text)")
  }

  /// A drawing spanning 1e308 units was "inf × inf pixels" (hostile42 #14a).
  @Test("a drawing's size in pixels past what a number holds is said as more than 10^15")
  func infinitePixels() {
    #expect(DrawingSource.pixelSize(columns: .infinity, rows: 20) == "more than 10^15 pixels across")
    #expect(DrawingSource.pixelSize(columns: 3e20, rows: 20) == "3e+20 × 20 pixels")
    #expect(DrawingSource.spanSize(.infinity, 1) == "more than 1e+308" && DrawingSource.spanSize(1.5, 2e20) == "1.5 × 2e+20")
  }

  @Test("a binary DXF, which GDAL's DXF driver does not read, is refused in one line that says to save it as ASCII DXF")
  func binaryDXF() throws {
    let path = dir + "/plan.dxf"
    // the binary sentinel, then group 0 "SECTION" as binary DXF writes it
    try Data("AutoCAD Binary DXF\r\n".utf8 + [0x1A, 0x00, 0x00, 0x00] + Array("SECTION".utf8) + [0]).write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30) }
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("binary DXF") && text.contains("save it as an ASCII DXF") && !text.contains("\n"), "\(text)")
  }

  /// A text DXF saved as UTF-16 was "UTF-16 text (an SVG must be UTF-8 to be read), …;
  /// convert it to PNG, …".
  @Test(
    "a DXF saved as UTF-16 (named .dxf, or starting 0/SECTION) is refused in one line that says to save it as ASCII",
    arguments: [("plan.dxf", true), ("plan.txt", false), ("plan.dat", true)])
  func utf16DXF(name: String, littleEndian: Bool) throws {
    let path = dir + "/" + name
    let minimal = dir + "/minimal-\(name).dxf"
    try writeMinimalDXF(to: minimal, layerOff: false)
    let text = try String(contentsOfFile: minimal, encoding: .utf8)
    let units = Array(text.utf16)
    let bom: [UInt8] = littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF]
    let bytes = units.flatMap { u in littleEndian ? [UInt8(u & 0xFF), UInt8(u >> 8)] : [UInt8(u >> 8), UInt8(u & 0xFF)] }
    try Data(bom + bytes).write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30) }
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains("is a DXF saved as UTF-16 text") && message.contains("save it as an ASCII (or UTF-8) DXF"), "\(message)")
    #expect(!message.contains("SVG") && !message.contains("\n"), "\(message)")
  }

  @Test("UTF-16 text that is no DXF keeps its message")
  func utf16Other() throws {
    let path = dir + "/notes.svg"
    try Data([0xFF, 0xFE] + Array("<svg/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30) }
    let message = error.map { "\($0)" } ?? ""
    #expect(message.contains("UTF-16 text (an SVG must be UTF-8 to be read)") && !message.contains("DXF saved"), "\(message)")
  }

  @Test("nested inserts of inserts are counted from the DXF text and refused before GDAL inlines them")
  func nestedInserts() throws {
    // 3 levels of 3: 27 lines, read
    let small = dir + "/nested-small.dxf"
    try writeNestedInsertsDXF(to: small, levels: 3, fan: 3)
    let header = try SourceImage.header(of: InputName(path: small), maxPixels: 1 << 30)
    #expect(header.format == .dxf)
    // 8 levels of 10: 10^8 lines; the count in the message is the pre-scan's (GDAL's
    // inlining would stop at the bound, 4000000, after minutes)
    let hostile = dir + "/nested.dxf"
    try writeNestedInsertsDXF(to: hostile, levels: 8, fan: 10)
    let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: hostile), maxPixels: 1 << 30) }
    let text = error.map { "\($0)" } ?? ""
    #expect(text.contains("makes 100000000 entities once its block inserts are inlined") && !text.contains("\n"), "\(text)")
  }

  @Test("a drawing whose only layer is off draws nothing and is refused; on, it is read with its colour 7 dark")
  func layerOff() throws {
    let off = dir + "/off.dxf"
    try writeMinimalDXF(to: off, layerOff: true)
    let error = #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: off), maxPixels: 1 << 30) }
    #expect("\(error.map { "\($0)" } ?? "")".contains("off or frozen"))
    let on = dir + "/on.dxf"
    try writeMinimalDXF(to: on, layerOff: false)
    let header = try SourceImage.header(of: InputName(path: on), maxPixels: 1 << 30)
    #expect(header.format == .dxf)
    var source = SourceDescription(path: on, width: header.width, height: header.height, isVector: true)
    source.drawing = header.drawing
    let image = try RGBAImage.decode(SourceImage.pixels(of: source, format: .dxf, sequential: true, scale: 4))
    // white (ACI 7) drawn black: every inked pixel dark
    let inked = stride(from: 0, to: image.pixels.count, by: 4).filter { image.pixels[$0 + 3] > 0 }
    #expect(inked.count > 20)
    #expect(inked.allSatisfy { image.pixels[$0] < 16 && image.pixels[$0 + 1] < 16 && image.pixels[$0 + 2] < 16 })
    // --layers leaving WALLS out: nothing drawn
    source.drawing?.layers = ["-wall*"]
    let none = try RGBAImage.decode(SourceImage.pixels(of: source, format: .dxf, sequential: true, scale: 4))
    #expect(stride(from: 3, to: none.pixels.count, by: 4).allSatisfy { none.pixels[$0] == 0 })
  }
}

/// One MTEXT that names no character or stretches its glyphs past what FreeType sizes
/// does not refuse the drawing.
@Suite("DXF MTEXT: a code point that names no character, a width factor of 1e300")
struct DrawingMTextExtremesTests {
  /// A DXF of a LINE 20 × 10 units and an MTEXT of height 1 for each of `texts`, 3 units apart.
  static func write(_ texts: [String], to path: String) throws {
    var pairs = [
      "0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "20", "100", "AcDbEntity", "8", "0", "100", "AcDbLine", "10", "0", "20", "0",
      "11", "20", "21", "10",
    ]
    for (i, text) in texts.enumerated() {
      pairs += [
        "0", "MTEXT", "5", String(0x30 + i, radix: 16), "100", "AcDbEntity", "8", "0", "100", "AcDbMText", "10", "1", "20", "\(1 + 3 * i)",
        "40", "1", "71", "1", "1", text,
      ]
    }
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data((pairs.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
  }

  /// The drawing's pixels at `scale`.
  static func render(_ path: String, scale: Double) throws -> RGBAImage {
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30)
    var source = SourceDescription(path: path, width: header.width, height: header.height, isVector: true)
    source.drawing = header.drawing
    return try RGBAImage.decode(SourceImage.pixels(of: source, format: .dxf, sequential: true, scale: scale))
  }

  @Test("\\U+D800, \\U+FFFF and \\U+DFFF in a rich text are drawn as U+FFFD (plain and rich MTEXT), as \\U+FFFD is")
  func invalidCodePoints() throws {
    let dir = try TestEnvironment.scratchDirectory("vips", for: #function)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Self.write(["a\\U+D800b", "c\\U+FFFFFFFFd", "\\pxqc;e\\U+DFFF\\W2;f"], to: dir + "/bad.dxf")
    try Self.write(["a\\U+FFFDb", "c\\U+FFFDFFFFd", "\\pxqc;e\\U+FFFD\\W2;f"], to: dir + "/fffd.dxf")
    let bad = try Self.render(dir + "/bad.dxf", scale: 2)
    let replaced = try Self.render(dir + "/fffd.dxf", scale: 2)
    #expect(bad.pixels == replaced.pixels)
    #expect(stride(from: 3, to: bad.pixels.count, by: 4).contains { bad.pixels[$0] > 0 })
  }

  @Test("\\W1e300; and \\W30; are drawn (glyphs stretched past \\W10 are filled as paths)", arguments: [1.0, 2.0])
  func hugeWidthFactor(scale: Double) throws {
    let dir = try TestEnvironment.scratchDirectory("vips", for: #function)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Self.write(["\\W1e300;wide", "\\W30;wide"], to: dir + "/wide.dxf")
    let image = try Self.render(dir + "/wide.dxf", scale: scale)
    #expect(stride(from: 3, to: image.pixels.count, by: 4).contains { image.pixels[$0] > 0 })
  }
}
