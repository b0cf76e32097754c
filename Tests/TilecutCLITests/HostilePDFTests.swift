import CTilecutInputCheck
import CTilecutPDFScan
import CVipsShim
import Foundation
import Testing
import TilecutFixtures

@testable import TilecutVips

/// "q " `depth` times, a line, then "Q " as many times.
private func nested(_ depth: Int) -> [UInt8] {
  Array((String(repeating: "q ", count: depth) + "0 0 m 200 100 l S\n" + String(repeating: "Q ", count: depth)).utf8)
}

@Suite("hostile PDFs are read through qpdf before poppler sees them", .serialized)
struct HostilePDFTests {
  @Test(
    "200,000 nested 'q' are refused in one line whatever carries them: LZW, RunLength, hex over LZW, a filter in an object stream, a form, a tiling pattern, an annotation's appearance, RC4 and AES encryption"
  )
  func nestingInEveryLayer() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let deep = nested(200_000)
    var form = PDFWriter()
    form.objects = [PDFWriter.stream(PDFWriter.lzw(deep), "/Type /XObject /Subtype /Form /BBox [0 0 200 100] /Filter /LZWDecode")]
    var pattern = PDFWriter()
    pattern.objects = [
      PDFWriter.stream(
        PDFWriter.lzw(deep), "/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 10 10] /XStep 10 /YStep 10 /Filter /LZWDecode")
    ]
    var annotation = PDFWriter()
    annotation.objects = [
      PDFWriter.stream(PDFWriter.lzw(deep), "/Subtype /Form /BBox [0 0 200 100] /Filter /LZWDecode"),
      Array("<< /Type /Annot /Subtype /Square /Rect [0 0 200 100] /AP << /N 5 0 R >> >>".utf8),
    ]
    var indirect = PDFWriter()
    indirect.objects = [Array("/ASCIIHexDecode".utf8)]
    let plain = PDFWriter()
    let cases: [(name: String, bytes: [UInt8])] = [
      ("lzw", plain.document(content: PDFWriter.lzw(deep), filter: "/Filter /LZWDecode")),
      ("runlength", plain.document(content: PDFWriter.runLength(deep), filter: "/Filter /RunLengthDecode")),
      ("chain", plain.document(content: PDFWriter.hex(PDFWriter.lzw(deep)), filter: "/Filter [/ASCIIHexDecode /LZWDecode]")),
      ("form", form.document(content: Array("/F1 Do".utf8), resources: "/XObject << /F1 5 0 R >>")),
      ("pattern", pattern.document(content: Array("/Pattern cs /P1 scn 0 0 200 100 re f".utf8), resources: "/Pattern << /P1 5 0 R >>")),
      ("annotation", annotation.document(content: Array("0 0 m 1 1 l S".utf8), page: "/Annots [6 0 R]")),
    ]
    for (name, bytes) in cases { try Data(bytes).write(to: URL(fileURLWithPath: c.path("\(name).pdf"))) }
    // the filter's name in an object stream, and the whole file encrypted (poppler opens both)
    try Data(indirect.document(content: PDFWriter.hex(deep), filter: "/Filter 5 0 R")).write(to: URL(fileURLWithPath: c.path("in.pdf")))
    try PDFWriter.rewrite(c.path("in.pdf"), to: c.path("objstm.pdf"), .objectStreams)
    try Data(plain.document(content: deep)).write(to: URL(fileURLWithPath: c.path("clear.pdf")))
    try PDFWriter.rewrite(c.path("clear.pdf"), to: c.path("rc4.pdf"), .rc4)
    try PDFWriter.rewrite(c.path("clear.pdf"), to: c.path("aes.pdf"), .aes256)
    for name in cases.map(\.name) + ["objstm", "rc4", "aes"] {
      // the byte scan alone misses each: what poppler would have decoded
      #expect(tc_pdf_q_depth(c.path("\(name).pdf"), 1 << 30) < 100_000, "\(name)")
      c.expectClean(
        try runTool([c.path("\(name).pdf"), "-o", c.path("out"), "--max-zoom", "3"]), status: 1,
        mentions: "\(name).pdf: nests 'q' (save graphics state) 200000 deep on page 1")
    }
    // the same layers around a drawing that nests 40 deep are tiled
    let shallow = nested(40)
    try Data(plain.document(content: PDFWriter.hex(PDFWriter.lzw(shallow)), filter: "/Filter [/AHx /LZW]"))
      .write(to: URL(fileURLWithPath: c.path("shallow.pdf")))
    try PDFWriter.rewrite(c.path("shallow.pdf"), to: c.path("shallow-aes.pdf"), .aes256)
    for name in ["shallow", "shallow-aes"] {
      let run = try runTool([c.path("\(name).pdf"), "-o", c.path("\(name)-out"), "--max-zoom", "3", "-q"])
      #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(name): \(run.stderr)")
    }
  }

  @Test("a page whose content decodes past the bound, or is in a filter qpdf cannot decode, is refused; the bound counts the page's forms")
  func decodedBound() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // 2 MB of harmless drawing in RunLength, half of it in a form
    let drawing = Array(String(repeating: "0 0 m 200 100 l S\n", count: 60_000).utf8)
    var pdf = PDFWriter()
    pdf.objects = [PDFWriter.stream(PDFWriter.runLength(drawing), "/Subtype /Form /BBox [0 0 200 100] /Filter /RunLengthDecode")]
    try Data(pdf.document(content: PDFWriter.runLength(drawing + Array("/F1 Do".utf8)), filter: "/Filter /RL", resources: "/XObject << /F1 5 0 R >>"))
      .write(to: URL(fileURLWithPath: dir + "/long.pdf"))
    var scan = TcPDFScan()
    #expect(tc_pdf_scan(dir + "/long.pdf", 4 << 20, 1 << 30, 100_000, 1 << 30, 1, &scan) == 0)
    #expect(scan.over_decoded == 0 && scan.q_depth == 0)
    #expect(tc_pdf_scan(dir + "/long.pdf", 1_500_000, 1 << 30, 100_000, 1 << 30, 1, &scan) == 0)
    #expect(scan.over_decoded == 1 && scan.decoded_page == 0)
    // content in a filter qpdf cannot decode (poppler can) is refused, not waved through
    try Data(PDFWriter().document(content: Array("0123456789".utf8), filter: "/Filter /CCITTFaxDecode"))
      .write(to: URL(fileURLWithPath: dir + "/ccitt.pdf"))
    #expect(tc_pdf_scan(dir + "/ccitt.pdf", 1 << 30, 1 << 30, 100_000, 1 << 30, 1, &scan) == 0)
    #expect(refusal(dir + "/ccitt.pdf")?.contains("page 1's content is in /CCITTFaxDecode") == true)
    // a file qpdf cannot read at all is left to the byte scan (and to poppler's repair)
    try Data("%PDF-1.4\nnothing here".utf8).write(to: URL(fileURLWithPath: dir + "/broken.pdf"))
    #expect(tc_pdf_scan(dir + "/broken.pdf", 1 << 30, 1 << 30, 100_000, 1 << 30, 1, &scan) == 1)
  }

  @Test(
    "an image declaring 20000 × 20000 pixels (1.6 GB in poppler) in a 700-byte PDF is refused against --max-memory: an XObject, inline, in a form")
  func declaredImages() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let image = PDFWriter.stream(
      Array("0123456789".utf8), "/Type /XObject /Subtype /Image /Width 20000 /Height 20000 /ColorSpace /DeviceRGB /BitsPerComponent 8")
    var xobject = PDFWriter()
    xobject.objects = [image]
    var form = PDFWriter()
    form.objects = [
      image,
      PDFWriter.stream(
        Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8), "/Subtype /Form /BBox [0 0 200 100] /Resources << /XObject << /Im1 5 0 R >> >>"),
    ]
    let draw = Array("q 200 0 0 100 0 0 cm /Im1 Do Q 1 0 0 RG 0 0 m 200 100 l S".utf8)
    let files: [(String, [UInt8])] = [
      ("scan", xobject.document(content: Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8), resources: "/XObject << /Im1 5 0 R >>")),
      ("mixed", xobject.document(content: draw, resources: "/XObject << /Im1 5 0 R >>")),
      ("inline", PDFWriter().document(content: Array("q 200 0 0 100 0 0 cm BI /W 20000 /H 20000 /CS /G /BPC 8 ID 0123456789 EI Q".utf8))),
      ("form", form.document(content: Array("/F1 Do".utf8), resources: "/XObject << /F1 6 0 R >>")),
    ]
    for (name, bytes) in files {
      try Data(bytes).write(to: URL(fileURLWithPath: c.path("\(name).pdf")))
      c.expectClean(
        try runTool([c.path("\(name).pdf"), "-o", c.path("out"), "--max-zoom", "3"]), status: 1,
        mentions: "\(name).pdf: page 1 draws an image of 20000 × 20000 pixels, which poppler holds decoded as 1600 MB, more than --max-memory 512 MB")
    }
    // the budget is --max-memory's: under a larger one the same image passes it, and its 10 bytes are damage
    do {
      try InputCheck.checkPDF(path: c.path("scan.pdf"), maxBytes: 2_000_000_000)
      Issue.record("a 10-byte image of 20000 × 20000 pixels is read")
    } catch {
      #expect(
        "\(error)".hasSuffix(
          "page 1's image (object 5) is damaged: its data is 10 bytes, fewer than the 1200000000 its /Width, /Height, /ColorSpace and /BitsPerComponent say; re-export or re-scan it"
        ), "\(error)")
    }
    // an image of what it holds is tiled
    var small = PDFWriter()
    small.objects = [
      PDFWriter.stream(
        [UInt8](repeating: 200, count: 64 * 32 * 3), "/Type /XObject /Subtype /Image /Width 64 /Height 32 /ColorSpace /DeviceRGB /BitsPerComponent 8")
    ]
    try Data(small.document(content: draw, resources: "/XObject << /Im1 5 0 R >>")).write(to: URL(fileURLWithPath: c.path("small.pdf")))
    let run = try runTool([c.path("small.pdf"), "-o", c.path("small-out"), "--max-zoom", "3", "-q"])
    #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(run.stderr)")
  }

  @Test("a PDF's progressive JPEG whose frame claims 20000 × 20000 is refused by what its decoder would hold, not as damaged")
  func progressiveJPEG() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 64, height: 48).writePNG(to: c.path("small.jpg[interlace=true]"))
    var jpeg = try Damaged(c.path("small.jpg"))
    var pdf = PDFWriter()
    let dictionary = "/Type /XObject /Subtype /Image /Width 64 /Height 48 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode"
    pdf.objects = [PDFWriter.stream(jpeg.bytes, dictionary)]
    let content = Array("q 200 0 0 100 0 0 cm /Im1 Do Q 0 0 m 200 100 l S".utf8)
    try Data(pdf.document(content: content, resources: "/XObject << /Im1 5 0 R >>")).write(to: URL(fileURLWithPath: c.path("fine.pdf")))
    #expect(refusal(c.path("fine.pdf")) == nil)
    let frame = try #require(jpeg.find([0xFF, 0xC2]))
    jpeg.bytes.replaceSubrange(frame + 5..<frame + 9, with: [0x4E, 0x20, 0x4E, 0x20])
    pdf.objects = [PDFWriter.stream(jpeg.bytes, dictionary)]
    try Data(pdf.document(content: content, resources: "/XObject << /Im1 5 0 R >>")).write(to: URL(fileURLWithPath: c.path("claims.pdf")))
    c.expectClean(
      try runTool([c.path("claims.pdf"), "-o", c.path("out"), "--max-zoom", "3"]), status: 1,
      mentions: "claims.pdf: page 1 draws a progressive JPEG image of 20000 × 20000 pixels, whose decoder holds 2400 MB")
  }

  @Test("a PDF whose xref qpdf and poppler both repair is tiled with nothing on stderr: qpdf's warnings stay inside the check")
  func repairedSilently() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data(PDFWriter().document(content: Array("1 0 0 RG 4 w 0 0 m 200 100 l S".utf8)))
      .write(to: URL(fileURLWithPath: dir + "/repaired.pdf"))
    // the first object's offset made wrong: both readers rebuild the table and warn
    var damaged = try Damaged(dir + "/repaired.pdf")
    let at = try #require(damaged.find(Array("0000000009 00000 n".utf8)))
    damaged.bytes.replaceSubrange(at..<at + 10, with: Array("0000000999".utf8))
    try damaged.write(dir + "/repaired.pdf")
    var scan = TcPDFScan()
    #expect(tc_pdf_scan(dir + "/repaired.pdf", 1 << 30, 1 << 30, 100_000, 1 << 30, 1, &scan) == 0)
    let run = try runTool([], shell: "G_MESSAGES_DEBUG=all TILECUT \(dir)/repaired.pdf -o \(dir)/out --max-zoom 2 -q")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderrBesideUnplacedNote.isEmpty, "stderr: \(run.stderr)")
  }
}

/// /RunLengthDecode's encoding of `count` copies of `byte` (a multiple of 128):
/// 2 bytes for every 128, a bomb of 64 to 1.
private func runs(of byte: UInt8, count: Int) -> [UInt8] {
  var out: [UInt8] = []
  out.reserveCapacity(count / 64 + 1)
  for _ in 0..<count / 128 { out += [129, byte] }
  return out + [128]
}

/// Writes `bytes` as `name`.pdf in `c`, and returns its path.
private func write(_ bytes: [UInt8], _ name: String, in c: Corpus) throws -> String {
  try Data(bytes).write(to: URL(fileURLWithPath: c.path("\(name).pdf")))
  return c.path("\(name).pdf")
}

@Suite("what poppler would hold or walk for a PDF follows what the file holds, not what it declares", .serialized)
struct HostilePDFBudgetTests {
  /// Runs tilecut on `path` under `maxMemory` MB and expects one line naming `mentions` and the budget.
  func expectRefused(_ c: Corpus, _ path: String, maxMemory: Int = 512, mentions: String, sourceLocation: SourceLocation = #_sourceLocation)
    throws
  {
    let run = try runTool([path, "-o", c.path("out"), "--max-zoom", "3", "--max-memory", "\(maxMemory)"])
    c.expectClean(run, status: 1, mentions: mentions, sourceLocation: sourceLocation)
  }

  @Test(
    "mesh shadings (their vertices and patches, from 16 KB of RunLength) and type 0 functions (their samples, in a shading, a Separation's tint transform, a transfer function) are refused against --max-memory"
  )
  func meshesAndFunctions() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    // 1 MB of zero bytes: 262,144 vertices of 4 bytes, 100 MB in poppler
    let zeros = runs(of: 0, count: 1 << 20)
    for type in [4, 5, 6, 7] {
      var pdf = PDFWriter()
      pdf.objects = [
        PDFWriter.stream(
          zeros,
          "/ShadingType \(type) /ColorSpace /DeviceGray /BitsPerCoordinate 8 /BitsPerComponent 8 /BitsPerFlag 8 /VerticesPerRow 2 /Decode [0 200 0 100 0 1] /Filter /RunLengthDecode"
        )
      ]
      let path = try write(pdf.document(content: Array("/Sh1 sh".utf8), resources: "/Shading << /Sh1 5 0 R >>"), "mesh\(type)", in: c)
      try expectRefused(c, path, maxMemory: 64, mentions: "mesh\(type).pdf: page 1 has a type \(type) mesh shading (object 5) of more than ")
      // what it holds is inside a larger budget
      #expect(refusal(path, maxMemory: 512_000_000) == nil, "mesh \(type)")
    }
    let function = PDFWriter.stream(
      [UInt8](repeating: 0, count: 16), "/FunctionType 0 /Domain [0 1] /Range [0 1 0 1 0 1] /Size [100000000] /BitsPerSample 8")
    var separation = PDFWriter()
    separation.objects = [function]
    var shading = PDFWriter()
    shading.objects = [Array("<< /ShadingType 2 /ColorSpace /DeviceRGB /Coords [0 0 200 0] /Function 6 0 R >>".utf8), function]
    var transfer = PDFWriter()
    transfer.objects = [Array("<< /Type /ExtGState /TR 6 0 R >>".utf8), function]
    let cases: [(String, [UInt8], Int)] = [
      (
        "separation",
        separation.document(
          content: Array("/CS1 cs 0.5 scn 0 0 200 100 re f".utf8), resources: "/ColorSpace << /CS1 [/Separation /Spot /DeviceRGB 5 0 R] >>"), 5
      ),
      ("shading", shading.document(content: Array("/Sh1 sh".utf8), resources: "/Shading << /Sh1 5 0 R >>"), 6),
      ("transfer", transfer.document(content: Array("/GS1 gs 0 0 200 100 re f".utf8), resources: "/ExtGState << /GS1 5 0 R >>"), 6),
    ]
    for (name, bytes, object) in cases {
      try expectRefused(
        c, try write(bytes, name, in: c),
        mentions:
          "\(name).pdf: page 1 has a sampled function (object \(object)) of 100000000 samples, 300000000 values, which poppler holds as 2400 MB, more than --max-memory 512 MB"
      )
    }
    // a Separation whose tint transform has two samples is tiled
    separation.objects = [
      PDFWriter.stream([255, 0, 0, 0, 0, 255], "/FunctionType 0 /Domain [0 1] /Range [0 1 0 1 0 1] /Size [2] /BitsPerSample 8")
    ]
    let fine = try write(
      separation.document(
        content: Array("/CS1 cs 0.5 scn 0 0 200 100 re f".utf8), resources: "/ColorSpace << /CS1 [/Separation /Spot /DeviceRGB 5 0 R] >>"),
      "fine", in: c)
    let run = try runTool([fine, "-o", c.path("fine-out"), "--max-zoom", "3", "-q"])
    #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(run.stderr)")
  }

  @Test("/DecodeParms /Columns that make poppler allocate gigabytes for a row are refused: CCITT in an image and inline, a predictor on content")
  func decodeParameters() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    var ccitt = PDFWriter()
    ccitt.objects = [
      PDFWriter.stream(
        [UInt8](repeating: 0, count: 64),
        "/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 500000000 /Rows 10 >>"
      )
    ]
    try expectRefused(
      c, try write(ccitt.document(content: Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8), resources: "/XObject << /Im1 5 0 R >>"), "ccitt", in: c),
      mentions:
        "ccitt.pdf: page 1 has an image (object 5) whose /CCITTFaxDecode /DecodeParms say /Columns 500000000, which poppler holds as 4001 MB, more than --max-memory 512 MB"
    )
    let inline =
      Array("q 200 0 0 100 0 0 cm BI /W 10 /H 10 /CS /G /BPC 1 /F /CCF /DP << /K -1 /Columns 100000000 >> ID ".utf8) + [UInt8](repeating: 0, count: 8)
      + Array(" EI Q".utf8)
    try expectRefused(
      c, try write(PDFWriter().document(content: inline), "inline", in: c),
      mentions: "inline.pdf: page 1 draws an inline image whose /DecodeParms say /Columns 100000000, which poppler holds as 801 MB")
    let predictor = "/Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 130000000 /Colors 1 /BitsPerComponent 16 >>"
    try expectRefused(
      c, try write(PDFWriter().document(content: [0x78, 0x9C, 3, 0, 0, 0, 0, 1], filter: predictor), "predictor", in: c),
      mentions:
        "predictor.pdf: page 1 has a content stream (object 4) whose /FlateDecode /DecodeParms say /Columns 130000000, which poppler holds as 780 MB")
    // a fax page's 1728 columns pass
    ccitt.objects = [
      PDFWriter.stream(
        [UInt8](repeating: 0, count: 64),
        "/Type /XObject /Subtype /Image /Width 1728 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 1728 /Rows 10 >>"
      )
    ]
    let fax = try write(ccitt.document(content: Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8), resources: "/XObject << /Im1 5 0 R >>"), "fax", in: c)
    #expect(refusal(fax) == nil)
  }

  /// A JBIG2 segment header (number, type, page 1, no referred segments) and its data.
  func segment(_ number: UInt32, type: UInt8, _ data: [UInt8]) -> [UInt8] {
    be(number) + [type, 0, 1] + be(UInt32(data.count)) + data
  }

  func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }

  @Test(
    "a JBIG2 image is held by the bitmaps its segments declare (its page, its regions, in its globals too), not by the image dictionary's 10 × 10")
  func jbig2Segments() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let dictionary = "/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode"
    let page = segment(0, type: 48, be(65000) + be(65000) + [UInt8](repeating: 0, count: 11))
    var pdf = PDFWriter()
    pdf.objects = [PDFWriter.stream(page, dictionary)]
    let draw = Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8)
    try expectRefused(
      c, try write(pdf.document(content: draw, resources: "/XObject << /Im1 5 0 R >>"), "page", in: c),
      mentions:
        "page.pdf: page 1 draws a JBIG2 image (object 5) whose segments declare a 65000 × 65000 bitmap, which poppler holds as 529 MB, more than --max-memory 512 MB"
    )
    // a small page, and a generic region of 40000 × 40000 (200 MB) in the globals
    let small = segment(0, type: 48, be(100) + be(100) + [UInt8](repeating: 0, count: 11))
    let region = segment(1, type: 38, be(40000) + be(40000) + [UInt8](repeating: 0, count: 10))
    pdf.objects = [PDFWriter.stream(small, dictionary + " /DecodeParms << /JBIG2Globals 6 0 R >>"), PDFWriter.stream(region)]
    let globals = try write(pdf.document(content: draw, resources: "/XObject << /Im1 5 0 R >>"), "globals", in: c)
    try expectRefused(
      c, globals, maxMemory: 128,
      mentions: "globals.pdf: page 1 draws a JBIG2 image (object 5) whose segments declare a 40000 × 40000 bitmap, which poppler holds as 201 MB")
    #expect(refusal(globals, maxMemory: 512_000_000) == nil)
  }

  @Test("a font that decodes past --max-memory (64 to 1 in RunLength) and an image's soft mask declaring 30000 × 30000 are refused")
  func resourceStreams() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    var font = PDFWriter()
    font.objects = [
      Array("<< /Type /Font /Subtype /TrueType /BaseFont /X /FirstChar 32 /LastChar 126 /FontDescriptor 6 0 R >>".utf8),
      Array(
        "<< /Type /FontDescriptor /FontName /X /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>"
          .utf8),
      PDFWriter.stream(runs(of: 0, count: 17_000_064), "/Filter /RunLengthDecode"),
    ]
    let text = Array("BT /F1 12 Tf 10 10 Td (Hello) Tj ET".utf8)
    let path = try write(font.document(content: text, resources: "/Font << /F1 5 0 R >>"), "font", in: c)
    try expectRefused(
      c, path, maxMemory: 16,
      mentions: "font.pdf: page 1 has a stream (object 7) that decodes to more than 16 MB, which poppler holds whole, more than --max-memory 16 MB")
    #expect(refusal(path, maxMemory: 512_000_000) == nil)
    var masked = PDFWriter()
    masked.objects = [
      PDFWriter.stream(
        [UInt8](repeating: 0, count: 300),
        "/Type /XObject /Subtype /Image /Width 10 /Height 10 /ColorSpace /DeviceRGB /BitsPerComponent 8 /SMask 6 0 R"),
      PDFWriter.stream(
        [UInt8](repeating: 0, count: 16), "/Type /XObject /Subtype /Image /Width 30000 /Height 30000 /ColorSpace /DeviceGray /BitsPerComponent 8"),
    ]
    try expectRefused(
      c,
      try write(masked.document(content: Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8), resources: "/XObject << /Im1 5 0 R >>"), "masked", in: c),
      mentions: "masked.pdf: page 1 draws an image of 30000 × 30000 pixels, which poppler holds decoded as 3600 MB")
  }

  @Test(
    "forms that draw forms four times over, 14 deep (4¹⁴ drawings from 3 KB), and an image, a tiling pattern and a mesh drawn 2000 times are refused by how long poppler would take; a symbol drawn 2000 times is tiled"
  )
  func formFanOut() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    var fan = PDFWriter()
    fan.objects = (0..<14).map { level in
      level < 13
        ? PDFWriter.stream(
          Array("/X Do /X Do /X Do /X Do".utf8),
          "/Type /XObject /Subtype /Form /BBox [0 0 200 100] /Resources << /XObject << /X \(level + 6) 0 R >> >>")
        : PDFWriter.stream(Array("0 0 m 200 100 l S".utf8), "/Type /XObject /Subtype /Form /BBox [0 0 200 100]")
    }
    let path = try write(fan.document(content: Array("/X Do".utf8), resources: "/XObject << /X 5 0 R >>"), "fan", in: c)
    try expectRefused(
      c, path, mentions: "fan.pdf: page 1 would take poppler as long to draw as 7472 MB of content")
    // an image of 10⁶ pixels drawn 2000 times, a tiling pattern's cell of 10,000 lines filled 2000 times, a mesh of 50,000 vertices painted 2000 times
    let twice = { (draw: String) in Array(String(repeating: draw + "\n", count: 2000).utf8) }
    var image = PDFWriter()
    image.objects = [
      PDFWriter.stream(
        runs(of: 0, count: 3_000_064),
        "/Type /XObject /Subtype /Image /Width 1000 /Height 1000 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /RunLengthDecode")
    ]
    var pattern = PDFWriter()
    pattern.objects = [
      PDFWriter.stream(
        Array(String(repeating: "0 0 m 10 10 l S\n", count: 10_000).utf8),
        "/PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 10 10] /XStep 10 /YStep 10")
    ]
    var mesh = PDFWriter()
    mesh.objects = [
      PDFWriter.stream(
        (0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 4 == 0 ? 0 : $0 &* 37) },
        "/ShadingType 4 /ColorSpace /DeviceGray /BitsPerCoordinate 8 /BitsPerComponent 8 /BitsPerFlag 8 /Decode [0 200 0 100 0 1]")
    ]
    let repeated: [(String, [UInt8])] = [
      ("image", image.document(content: twice("q 200 0 0 100 0 0 cm /Im1 Do Q"), resources: "/XObject << /Im1 5 0 R >>")),
      ("pattern", pattern.document(content: twice("/Pattern cs /P1 scn 0 0 200 100 re f"), resources: "/Pattern << /P1 5 0 R >>")),
      ("mesh", mesh.document(content: twice("/Sh1 sh"), resources: "/Shading << /Sh1 5 0 R >>")),
    ]
    for (name, bytes) in repeated {
      try expectRefused(c, try write(bytes, name, in: c), mentions: "\(name).pdf: page 1 would take poppler as long to draw as ")
    }
    // drawn once each, they pass
    for (name, bytes) in [
      ("image-once", image.document(content: Array(twice("q 200 0 0 100 0 0 cm /Im1 Do Q").prefix(31)), resources: "/XObject << /Im1 5 0 R >>")),
      ("pattern-once", pattern.document(content: Array("/Pattern cs /P1 scn 0 0 200 100 re f".utf8), resources: "/Pattern << /P1 5 0 R >>")),
      ("mesh-once", mesh.document(content: Array("/Sh1 sh".utf8), resources: "/Shading << /Sh1 5 0 R >>")),
    ] {
      #expect(refusal(try write(Array(bytes), name, in: c)) == nil, "\(name)")
    }
    // a symbol drawn 2000 times (a floor plan's chairs) is tiled
    var symbol = PDFWriter()
    symbol.objects = [PDFWriter.stream(Array("0 0 m 2 1 l S".utf8), "/Type /XObject /Subtype /Form /BBox [0 0 2 1]")]
    let placed = (0..<2000).map { "q 1 0 0 1 \($0 % 100 * 2) \($0 / 100 * 5) cm /S Do Q\n" }.joined()
    let symbols = try write(symbol.document(content: Array(placed.utf8), resources: "/XObject << /S 5 0 R >>"), "symbols", in: c)
    let run = try runTool([symbols, "-o", c.path("symbols-out"), "--max-zoom", "3", "-q"])
    #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(run.stderr)")
  }

  @Test(
    "text in a Type 3 font without resources of its own (ghostscript's bitmap glyphs) is walked once per glyph, not once per glyph per glyph: tiled (82463 GB of content before)"
  )
  func typeThreeGlyphs() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    // 40 glyphs, each an 8 × 8 stencil inline image; the font has no /Resources, so its
    // glyphs draw with the page's, which hold the font again
    var font = PDFWriter()
    let glyphs = 40
    font.objects = (0..<glyphs).map { _ in
      PDFWriter.stream(
        Array("10 0 0 0 8 8 d1 8 0 0 8 0 0 cm BI /IM true /W 8 /H 8 /BPC 1 ID ".utf8) + [0x55, 0xAA, 0x55, 0xAA, 0x55, 0xAA, 0x55, 0xAA]
          + Array(" EI".utf8))
    }
    let names = (0..<glyphs).map { "/g\($0)" }
    let procs = (0..<glyphs).map { "/g\($0) \(5 + $0) 0 R" }.joined(separator: " ")
    font.objects.append(
      Array(
        ("<< /Type /Font /Subtype /Type3 /FontBBox [0 0 8 8] /FontMatrix [0.1 0 0 0.1 0 0] /CharProcs << \(procs) >> "
          + "/Encoding << /Type /Encoding /Differences [65 \(names.joined(separator: " "))] >> /FirstChar 65 /LastChar \(64 + glyphs) "
          + "/Widths [\(Array(repeating: "10", count: glyphs).joined(separator: " "))] >>").utf8))
    let text = String((0..<glyphs).map { Character(UnicodeScalar(65 + $0)!) })
    let line = "BT /F1 12 Tf 5 50 Td (\(text)) Tj ET\n"
    let path = try write(font.document(content: Array(line.utf8), resources: "/Font << /F1 \(5 + glyphs) 0 R >>"), "type3", in: c)
    let run = try runTool([path, "-o", c.path("type3-out"), "--max-zoom", "3", "-q"])
    #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(run.stderr)")
  }

  /// What is left in `scan.damaged` (empty: nothing is).
  func damaged(_ scan: inout TcPDFScan) -> String {
    withUnsafeBytes(of: &scan.damaged) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }

  @Test(
    "an image's Flate data cut short or failing its Adler-32, raw image data shorter than /Width × /Height says, a content stream cut short and a JPEG 2000 codestream cut short or of another size are refused; the same files whole are tiled"
  )
  func damagedStreams() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    // 64 × 32 RGB: 6144 bytes
    let rows = (0..<6144).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 192) }
    let rgb = "/Type /XObject /Subtype /Image /Width 64 /Height 32 /ColorSpace /DeviceRGB /BitsPerComponent 8"
    let draw = Array("q 200 0 0 100 0 0 cm /Im1 Do Q".utf8)
    func image(_ data: [UInt8], _ dictionary: String) -> [UInt8] {
      var pdf = PDFWriter()
      pdf.objects = [PDFWriter.stream(data, dictionary)]
      return pdf.document(content: draw, resources: "/XObject << /Im1 5 0 R >>")
    }
    let flate = PDFWriter.zlibStored(rows)
    var flipped = flate
    flipped[flipped.count - 1] ^= 1
    let lines = Array((0..<300).map { "\($0) 0 m \(200 - $0 % 200) 100 l S\n" }.joined().utf8)
    let content = PDFWriter.zlibStored(lines)
    let cases: [(String, [UInt8], [UInt8], String)] = [
      (
        "flate-cut", image(Array(flate.prefix(flate.count / 2)), rgb + " /Filter /FlateDecode"), image(flate, rgb + " /Filter /FlateDecode"),
        "its Flate data ends early"
      ),
      (
        "flate-checksum", image(flipped, rgb + " /Filter /FlateDecode"), image(flate, rgb + " /Filter /FlateDecode"),
        "its Flate data is corrupt (zlib: incorrect data check)"
      ),
      (
        "raw-short", image(Array(rows.prefix(3072)), rgb), image(rows, rgb),
        "its data is 3072 bytes, fewer than the 6144 its /Width, /Height, /ColorSpace and /BitsPerComponent say"
      ),
      (
        "mask-short",
        image(Array(rows.prefix(255)), "/Type /XObject /Subtype /Image /Width 64 /Height 32 /ImageMask true"),
        image(Array(rows.prefix(256)), "/Type /XObject /Subtype /Image /Width 64 /Height 32 /ImageMask true"),
        "its data is 255 bytes, fewer than the 256"
      ),
    ]
    for (name, bad, good, why) in cases {
      try expectRefused(
        c, try write(bad, name, in: c), mentions: "\(name).pdf: cannot be decoded: page 1's image (object 5) is damaged: \(why)")
      let whole = try write(good, name + "-whole", in: c)
      let run = try runTool([whole, "-o", c.path(name + "-out"), "--max-zoom", "3", "-q"])
      #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(name): \(run.stderr)")
    }
    // an image whose data are named in another file: poppler reads its empty stream
    try expectRefused(
      c, try write(image([], rgb + " /F (/etc/hostname)"), "external", in: c),
      mentions:
        "external.pdf: cannot be decoded: page 1's image (object 5) is damaged: its data are in another file (/F), which poppler does not read"
    )
    let cut = try write(
      PDFWriter().document(content: Array(content.prefix(content.count / 2)), filter: "/Filter /FlateDecode"), "content-cut", in: c)
    try expectRefused(
      c, cut, mentions: "content-cut.pdf: cannot be decoded: page 1's content stream (object 4) is damaged: its Flate data ends early")
    let whole = try write(PDFWriter().document(content: content, filter: "/Filter /FlateDecode"), "content-whole", in: c)
    let run = try runTool([whole, "-o", c.path("content-out"), "--max-zoom", "3", "-q"])
    #expect(run.status == 0 && run.stderrBesideUnplacedNote.isEmpty, "\(run.stderr)")

    // JPEG 2000, read by the scan: a codestream's SOC, SIZ (64 × 32 at an offset of 8 × 4) and EOC, bare and in a jp2 file
    func codestream(width: UInt32, height: UInt32, whole: Bool) -> [UInt8] {
      var siz: [UInt8] = [0xFF, 0x51, 0, 47, 0, 0]
      for value in [width + 8, height + 4, 8, 4, 64, 32, 0, 0] { siz += be(value) }
      siz += [0, 3, 7, 1, 1, 7, 1, 1, 7, 1, 1]
      let end: [UInt8] = whole ? [0xFF, 0xD9] : []
      return [0xFF, 0x4F] + siz + [UInt8](repeating: 0x80, count: 100) + end
    }
    func jp2(_ stream: [UInt8], length: UInt32? = nil) -> [UInt8] {
      var header: [UInt8] = be(12) + Array("jP  ".utf8) + [0x0D, 0x0A, 0x87, 0x0A]
      header += be(20) + Array("ftypjp2 ".utf8) + be(0) + Array("jp2 ".utf8)
      return header + be(length ?? UInt32(stream.count + 8)) + Array("jp2c".utf8) + stream
    }
    let jpx = "/Type /XObject /Subtype /Image /Width 64 /Height 32 /Filter /JPXDecode"
    let good = codestream(width: 64, height: 32, whole: true)
    let jpxCases: [(String, [UInt8], String)] = [
      ("bare", good, ""),
      ("jp2", jp2(good), ""),
      (
        "bare-cut", codestream(width: 64, height: 32, whole: false),
        "image (object 5) is damaged: its JPEG 2000 codestream ends early (no EOC marker)"
      ),
      (
        "jp2-cut", jp2(good, length: UInt32(good.count + 1000)),
        "image (object 5) is damaged: its JPEG 2000 codestream ends early (\(good.count) of its \(good.count + 992) bytes)"
      ),
      (
        "size", jp2(codestream(width: 60000, height: 60000, whole: true)),
        "image (object 5) is damaged: its JPEG 2000 codestream is 60000 × 60000 pixels, not the 64 × 32 its dictionary says"
      ),
    ]
    for (name, data, why) in jpxCases {
      let path = try write(image(data, jpx), "jpx-" + name, in: c)
      var scan = TcPDFScan()
      #expect(tc_pdf_scan(path, 1 << 30, 1 << 30, 100_000, 1 << 30, 1, &scan) == 0)
      #expect(damaged(&scan) == why, "\(name)")
    }
  }
}
