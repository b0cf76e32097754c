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
      #expect(run.status == 0 && run.stderr.isEmpty, "\(name): \(run.stderr)")
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
    // the budget is --max-memory's: the same image passes the check under a larger one
    #expect(throws: Never.self) { try InputCheck.checkPDF(path: c.path("scan.pdf"), maxBytes: 2_000_000_000) }
    // an image of what it holds is tiled
    var small = PDFWriter()
    small.objects = [
      PDFWriter.stream(
        [UInt8](repeating: 200, count: 64 * 32 * 3), "/Type /XObject /Subtype /Image /Width 64 /Height 32 /ColorSpace /DeviceRGB /BitsPerComponent 8")
    ]
    try Data(small.document(content: draw, resources: "/XObject << /Im1 5 0 R >>")).write(to: URL(fileURLWithPath: c.path("small.pdf")))
    let run = try runTool([c.path("small.pdf"), "-o", c.path("small-out"), "--max-zoom", "3", "-q"])
    #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
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
    #expect(run.stderr.isEmpty, "stderr: \(run.stderr)")
  }
}
