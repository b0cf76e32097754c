import CTilecutDocument
import CVips
import CVipsShim
import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

/// A PDF file of `objects` (object 1 the catalog), each given as bytes (an image's
/// stream is binary), with its cross-reference table.
func writeBinaryPDF(objects: [[UInt8]], to path: String) throws {
  var pdf = Array("%PDF-1.4\n%\u{e2}\u{e3}\n".utf8)
  var offsets: [Int] = []
  for (i, body) in objects.enumerated() {
    offsets.append(pdf.count)
    pdf += Array("\(i + 1) 0 obj\n".utf8) + body + Array("\nendobj\n".utf8)
  }
  let xref = pdf.count
  var tail = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
  for o in offsets { tail += String(format: "%010d 00000 n \n", o) }
  tail += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
  try Data(pdf + Array(tail.utf8)).write(to: URL(fileURLWithPath: path))
}

/// A scanned-looking picture: smooth shading, a few hard-edged marks and text-like
/// strokes, different everywhere so that a misplaced pixel shows.
func scanPicture(width: Int, height: Int, seed: Int) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 4
      let fx = Double(x)
      let fy = Double(y)
      var r = 150 + 80 * sin(fx / 9 + Double(seed)) * cos(fy / 13)
      var g = 120 + 90 * sin((fx + fy) / 17)
      var b = 110 + 100 * cos(fx / 23 - fy / 7)
      if (x / 20 + y / 15 + seed) % 5 == 0 { (r, g, b) = (30, 30, 40) }
      image.pixels[i] = UInt8(max(0, min(255, r)))
      image.pixels[i + 1] = UInt8(max(0, min(255, g)))
      image.pixels[i + 2] = UInt8(max(0, min(255, b)))
      image.pixels[i + 3] = 255
    }
  }
  return image
}

/// `image` as a JPEG file's bytes, at quality 95.
func jpegBytes(_ image: RGBAImage) throws -> [UInt8] {
  try Vips.start()
  return try image.pixels.withUnsafeBytes { raw in
    guard let v = vips_image_new_from_memory(raw.baseAddress, raw.count, Int32(image.width), Int32(image.height), 4, VIPS_FORMAT_UCHAR)
    else { throw VipsError.current("new_from_memory") }
    defer { g_object_unref(v) }
    var buffer: UnsafeMutableRawPointer?
    var length = 0
    let white: [Double] = [255, 255, 255]
    guard tc_save_jpeg(v, 95, white, &buffer, &length) == 0, let buffer else { throw VipsError.current("jpegsave") }
    defer { g_free(buffer) }
    return Array(UnsafeRawBufferPointer(start: buffer, count: length))
  }
}

/// An image XObject on a page: its dictionary entries, its stream, and the `cm` that places it.
struct PlacedImage {
  var entries: String
  var stream: [UInt8]
  var matrix: String

  /// A DCT (JPEG) image.
  static func jpeg(_ image: RGBAImage, matrix: String, extra: String = "") throws -> PlacedImage {
    PlacedImage(
      entries: "/Width \(image.width) /Height \(image.height) /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode \(extra)",
      stream: try jpegBytes(image), matrix: matrix)
  }

  /// An unfiltered 8-bit grey image of the picture's green channel.
  static func grey(_ image: RGBAImage, matrix: String) -> PlacedImage {
    let samples = stride(from: 1, to: image.pixels.count, by: 4).map { image.pixels[$0] }
    return PlacedImage(
      entries: "/Width \(image.width) /Height \(image.height) /ColorSpace /DeviceGray /BitsPerComponent 8", stream: samples, matrix: matrix)
  }
}

/// A one-page PDF of `images`, each drawn as `q <matrix> cm /ImN Do Q`, with `page`
/// extra page entries (/MediaBox, /CropBox, /Rotate …), `before` put ahead of the
/// images and `content` appended to the content stream.
func writeScanPDF(images: [PlacedImage], page: String, before: String = "", content: String = "", to path: String) throws {
  var objects: [[UInt8]] = []
  objects.append(Array("<< /Type /Catalog /Pages 2 0 R >>".utf8))
  objects.append(Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8))
  let xobjects = images.indices.map { "/Im\($0) \(5 + $0) 0 R" }.joined(separator: " ")
  objects.append(Array("<< /Type /Page /Parent 2 0 R \(page) /Resources << /XObject << \(xobjects) >> >> /Contents 4 0 R >>".utf8))
  let ops = before + images.enumerated().map { "q \($0.element.matrix) cm /Im\($0.offset) Do Q" }.joined(separator: "\n") + "\n" + content
  objects.append(Array("<< /Length \(ops.utf8.count) >>\nstream\n\(ops)\nendstream".utf8))
  for image in images {
    objects.append(
      Array("<< /Type /XObject /Subtype /Image \(image.entries) /Length \(image.stream.count) >>\nstream\n".utf8) + image.stream
        + Array("\nendstream".utf8))
  }
  try writeBinaryPDF(objects: objects, to: path)
}

/// The mean difference of two renders in premultiplied values (0…255), and the
/// share of pixels that differ by more than 32 in one of them.
func meanDifference(_ a: RGBAImage, _ b: RGBAImage) -> (mean: Double, outliers: Double) {
  precondition(a.width == b.width && a.height == b.height)
  var sum = 0.0
  var outliers = 0
  for i in stride(from: 0, to: a.pixels.count, by: 4) {
    let (aa, ba) = (Double(a.pixels[i + 3]), Double(b.pixels[i + 3]))
    var worst = abs(aa - ba)
    for c in 0..<3 { worst = max(worst, abs(Double(a.pixels[i + c]) * aa - Double(b.pixels[i + c]) * ba) / 255) }
    sum += worst
    if worst > 32 { outliers += 1 }
  }
  let n = Double(a.width * a.height)
  return (sum / n, Double(outliers) / n)
}

@Suite("scanned PDF pages read from their images")
struct ScannedPageTests {
  /// poppler's render of the page, in bands (the path every other page takes).
  func poppler(_ path: String, scale: Double) throws -> RGBAImage {
    try RGBAImage.decode(VipsImageHandle.make("banded") { out in tc_pdf_open_banded(path, 0, scale, 256, &out) })
  }

  /// The page read from its images, or nil when the reader leaves it to poppler.
  func direct(_ path: String, scale: Double, sequential: Bool = true) throws -> RGBAImage? {
    var out: UnsafeMutablePointer<VipsImage>?
    let result = tc_pdf_open_image_page(path, 0, scale, sequential ? 1 : 0, &out)
    guard result == 1, let out else {
      #expect(result == 0)
      return nil
    }
    return try RGBAImage.decode(VipsImageHandle(out))
  }

  /// The direct read equals poppler's render: the same size, a small mean
  /// difference, few pixels (edges) far off; and a copy of poppler's render moved
  /// by one pixel is much further off, so a misplacement would show.
  func expectMatches(_ path: String, scale: Double, _ label: String) throws {
    let reference = try poppler(path, scale: scale)
    guard let got = try direct(path, scale: scale) else {
      Issue.record("\(label): not read as an image page")
      return
    }
    #expect(got.width == reference.width && got.height == reference.height, "\(label)")
    guard got.width == reference.width && got.height == reference.height else { return }
    let d = meanDifference(got, reference)
    let moved = meanDifference(reference.crop(x: 1, y: 1, width: reference.width, height: reference.height), reference)
    #expect(d.mean < 2.5 && d.outliers < 0.02, "\(label): mean \(d.mean), outliers \(d.outliers)")
    #expect(moved.mean > 3 * d.mean, "\(label): a one-pixel shift differs by only \(moved.mean), the direct read by \(d.mean)")
    // a random-access read (libvips' affine downstream) gives the same pixels
    if let random = try direct(path, scale: scale, sequential: false) { #expect(difference(random, got) == 0, "\(label)") }
  }

  static let cases: [(name: String, page: String, matrix: String)] = [
    ("upright, not filling the page", "/MediaBox [0 0 300 200]", "150 0 0 100 40 60"),
    ("/Rotate 90", "/MediaBox [0 0 300 200] /Rotate 90", "150 0 0 100 40 60"),
    ("/Rotate 270, cropped", "/MediaBox [0 0 300 200] /CropBox [20 30 260 190] /Rotate 270", "150 0 0 100 10 40"),
    ("/Rotate 180, media box off the origin", "/MediaBox [-50 20 250 220] /Rotate 180", "200 0 0 150 -30 50"),
    ("image turned 90° by its matrix", "/MediaBox [0 0 300 200]", "0 120 -180 0 220 30"),
    ("image mirrored by its matrix", "/MediaBox [0 0 300 200]", "-150 0 0 100 250 40"),
  ]

  @Test("a JPEG page read directly equals poppler's render", arguments: 0..<6, [0.45, 1.3, 2.6])
  func jpegPages(index: Int, scale: Double) throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let c = Self.cases[index]
    let path = dir + "/scan.pdf"
    try writeScanPDF(images: [.jpeg(scanPicture(width: 240, height: 160, seed: index), matrix: c.matrix)], page: c.page, to: path)
    try expectMatches(path, scale: scale, "\(c.name) at \(scale)")
  }

  @Test("a grey image, and two JPEG strips tiling a page, read directly equal poppler's render", arguments: [0.3, 1.7])
  func greyAndStrips(scale: Double) throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for rotate in [0, 90] {
      let grey = dir + "/grey.pdf"
      try writeScanPDF(
        images: [.grey(scanPicture(width: 200, height: 150, seed: 3), matrix: "200 0 0 150 30 20")],
        page: "/MediaBox [0 0 260 190] /Rotate \(rotate)", to: grey)
      try expectMatches(grey, scale: scale, "grey, /Rotate \(rotate), at \(scale)")
    }
    let strips = dir + "/strips.pdf"
    try writeScanPDF(
      images: [
        .jpeg(scanPicture(width: 160, height: 64, seed: 1), matrix: "200 0 0 80 0 80"),
        .jpeg(scanPicture(width: 160, height: 64, seed: 2), matrix: "200 0 0 80 0 0"),
      ], page: "/MediaBox [0 0 200 160]", to: strips)
    try expectMatches(strips, scale: scale, "strips at \(scale)")
  }

  @Test("a JPEG whose sides a shrink on load does not divide is read, upright or turned", arguments: [0.3, 0.45])
  func oddSizedJPEG(scale: Double) throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // 1003 × 701 shrunk 8, 4 or 2 on load: libvips 8.14 rounds the size down (125 × 87
    // at 8), libjpeg up; img2pdf's --imgsize pages of ordinary scans did this
    let picture = scanPicture(width: 1003, height: 701, seed: 6)
    for rotate in [0, 90] {
      let path = dir + "/odd.pdf"
      try writeScanPDF(
        images: [.jpeg(picture, matrix: "1003 0 0 701 0 0")], page: "/MediaBox [0 0 1003 701] /Rotate \(rotate)", to: path)
      try expectMatches(path, scale: scale, "1003 × 701, /Rotate \(rotate), at \(scale)")
      // shrunk 8 on load: read (it was refused with an error), the page's size;
      // poppler's own reduction differs more than the tolerance at such scales
      let small = try direct(path, scale: 0.11)
      #expect(small?.width == (rotate == 0 ? 110 : 77) && small?.height == (rotate == 0 ? 77 : 110))
    }
  }

  @Test("an image enlarged 4 times or more is drawn as poppler draws it: its nearest pixels, smoothed when it asks to be")
  func enlargedImages() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // 30 × 20 pixels 240 × 160 points wide: 10.4 page pixels each at 1.3 (img2pdf
    // --fit enlarge of a small image); a half-pixel shift of the nearest pixels
    // moved the whole picture by half an image pixel
    let picture = scanPicture(width: 30, height: 20, seed: 8)
    let cases: [(String, String, String, String)] = [
      ("upright", "/MediaBox [0 0 300 200]", "240 0 0 160 30 20", ""),
      ("/Rotate 90", "/MediaBox [0 0 300 200] /Rotate 90", "240 0 0 160 30 20", ""),
      ("mirrored by its matrix", "/MediaBox [0 0 300 200]", "-240 0 0 160 270 20", ""),
      ("turned 90° by its matrix", "/MediaBox [0 0 300 200]", "0 160 -240 0 270 20", ""),
      ("/Interpolate true", "/MediaBox [0 0 300 200]", "240 0 0 160 30 20", "/Interpolate true"),
    ]
    for (name, page, matrix, extra) in cases {
      let path = dir + "/enlarged.pdf"
      try writeScanPDF(images: [.jpeg(picture, matrix: matrix, extra: extra)], page: page, to: path)
      for scale in [0.8, 1.3] { try expectMatches(path, scale: scale, "\(name) at \(scale)") }
    }
  }

  @Test("an image turned or mirrored on a page and made smaller is averaged as poppler averages it, as close as upright", arguments: [0.35, 0.6])
  func turnedAndSmaller(scale: Double) throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // raw RGB samples (no JPEG shrink on load): what differs is the reduction alone.
    // A turned page went through a bilinear affine, 2.5 to 4.3 off poppler's box
    // prescale on the pages of qpdf --rotate and img2pdf --rotation, the upright box 0.1.
    let rgb = scanPicture(width: 300, height: 200, seed: 9)
    let samples = rgb.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
    let cases: [(String, String, String)] = [
      ("upright", "/MediaBox [0 0 300 200]", "300 0 0 200 0 0"),
      ("/Rotate 90", "/MediaBox [0 0 300 200] /Rotate 90", "300 0 0 200 0 0"),
      ("/Rotate 180", "/MediaBox [0 0 300 200] /Rotate 180", "300 0 0 200 0 0"),
      ("/Rotate 270", "/MediaBox [0 0 300 200] /Rotate 270", "300 0 0 200 0 0"),
      ("mirrored", "/MediaBox [0 0 300 200]", "-300 0 0 200 300 0"),
      ("upside down", "/MediaBox [0 0 300 200]", "300 0 0 -200 0 200"),
      ("turned a quarter by its matrix", "/MediaBox [0 0 200 300]", "0 300 -200 0 200 0"),
      ("turned and mirrored by its matrix", "/MediaBox [0 0 200 300]", "0 300 200 0 0 0"),
    ]
    var upright = 0.0
    for (name, page, matrix) in cases {
      let path = dir + "/turned.pdf"
      let image = PlacedImage(entries: "/Width 300 /Height 200 /ColorSpace /DeviceRGB /BitsPerComponent 8", stream: samples, matrix: matrix)
      try writeScanPDF(images: [image], page: page, to: path)
      try expectMatches(path, scale: scale, "\(name) at \(scale)")
      guard let got = try direct(path, scale: scale) else { continue }
      let d = meanDifference(got, try poppler(path, scale: scale)).mean
      if name == "upright" { upright = d }
      #expect(d < upright + 0.25, "\(name) at \(scale): mean \(d), upright \(upright)")
    }
  }

  @Test("a scanned page whose JPEG has one flipped bit near its end is refused, not read with the damage")
  func damagedJPEGPage() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var image = try PlacedImage.jpeg(scanPicture(width: 640, height: 480, seed: 4), matrix: "640 0 0 480 0 0")
    let path = dir + "/scan.pdf"
    try writeScanPDF(images: [image], page: "/MediaBox [0 0 640 480]", to: path)
    #expect(try direct(path, scale: 0.5) != nil)
    // the bit 1% before the end of the scan: libvips' fail_on would not see libjpeg's warning
    image.stream[image.stream.count - 2 - image.stream.count / 100] ^= 0x01
    try writeScanPDF(images: [image], page: "/MediaBox [0 0 640 480]", to: path)
    for (scale, sequential) in [(0.5, true), (0.1, false), (1.0, true)] {
      let opened = ownMessage { () -> Result<Void, VipsError>? in
        var out: UnsafeMutablePointer<VipsImage>?
        let result = tc_pdf_open_image_page(path, 0, scale, sequential ? 1 : 0, &out)
        if let out { g_object_unref(out) }
        return result == -1 ? .failure(VipsError.current("open")) : .success(())
      }
      guard case .failure(let error)? = opened else {
        Issue.record("scale \(scale): the damaged scan opened")
        continue
      }
      #expect(error.message.contains("JPEG data is damaged (libjpeg: Corrupt JPEG data"), "\(error)")
    }
  }

  /// An unfiltered 64 × 48 image of `bytes` zero bytes with these dictionary entries.
  func raw(_ entries: String, bytes: Int) -> PlacedImage {
    PlacedImage(entries: "/Width 64 /Height 48 \(entries)", stream: [UInt8](repeating: 0, count: bytes), matrix: "100 0 0 75 0 0")
  }

  @Test("a page with anything this reader does not fully understand is left to poppler")
  func refusals() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let picture = scanPicture(width: 64, height: 48, seed: 0)
    let refused: [(String, [PlacedImage], String, String)] = [
      ("vector lines over the scan", [try .jpeg(picture, matrix: "100 0 0 75 0 0")], "", "0 0 m 100 75 l S"),
      ("a soft mask", [try .jpeg(picture, matrix: "100 0 0 75 0 0", extra: "/SMask 4 0 R")], "", ""),
      ("a /Decode array", [try .jpeg(picture, matrix: "100 0 0 75 0 0", extra: "/Decode [1 0 1 0 1 0]")], "", ""),
      ("an image skewed by its matrix", [try .jpeg(picture, matrix: "100 10 0 75 0 0")], "", ""),
      ("an annotation", [try .jpeg(picture, matrix: "100 0 0 75 0 0")], "/Annots [<< /Type /Annot /Subtype /Square /Rect [0 0 9 9] >>]", ""),
      ("text", [try .jpeg(picture, matrix: "100 0 0 75 0 0")], "", "BT /F1 12 Tf (x) Tj ET"),
      ("an unbalanced Q", [try .jpeg(picture, matrix: "100 0 0 75 0 0")], "", "Q"),
      // what img2pdf, ImageMagick and tiff2pdf write for other scans: poppler's to draw
      ("a stencil mask", [raw("/ImageMask true /BitsPerComponent 1", bytes: 8 * 48)], "", ""),
      ("an indexed image", [raw("/ColorSpace [/Indexed /DeviceRGB 1 <000000ffffff>] /BitsPerComponent 8", bytes: 64 * 48)], "", ""),
      ("a CMYK image", [raw("/ColorSpace /DeviceCMYK /BitsPerComponent 8", bytes: 64 * 48 * 4)], "", ""),
      ("a 16-bit image", [raw("/ColorSpace /DeviceRGB /BitsPerComponent 16", bytes: 64 * 48 * 6)], "", ""),
      (
        "a CalRGB image",
        [raw("/ColorSpace [/CalRGB << /WhitePoint [0.9505 1 1.089] /Gamma [2.2 2.2 2.2] >>] /BitsPerComponent 8", bytes: 64 * 48 * 3)], "", ""
      ),
      ("an ASCII85 stream", [raw("/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /ASCII85Decode", bytes: 16)], "", ""),
    ]
    for (name, images, page, content) in refused {
      let path = dir + "/refused.pdf"
      try writeScanPDF(images: images, page: "/MediaBox [0 0 100 75] " + page, content: content, to: path)
      #expect(try direct(path, scale: 1) == nil, "\(name)")
    }
    // and the same page without them is read directly
    let path = dir + "/plain.pdf"
    try writeScanPDF(images: [try .jpeg(picture, matrix: "100 0 0 75 0 0")], page: "/MediaBox [0 0 100 75]", to: path)
    #expect(try direct(path, scale: 1) != nil)
  }

  @Test("a level reads a scanned page from its images, a drawn page through poppler, and a band of either is cut alike")
  func levelReadsScans() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let scan = dir + "/scan.pdf"
    try writeScanPDF(
      images: [.jpeg(scanPicture(width: 240, height: 160, seed: 5), matrix: "150 0 0 100 40 60")], page: "/MediaBox [0 0 300 200]", to: scan)
    let drawn = dir + "/drawn.pdf"
    try writeTestPDF(pages: [(0.2, 0.4, 0.6)], width: 300, height: 200, to: drawn)
    for sequential in [true, false] {
      let source = SourceDescription(path: scan, page: 0, width: 300, height: 200, isVector: true)
      guard let page = try SourceImage.imagePage(source, scale: 1.3, sequential: sequential) else {
        Issue.record("the scanned page is not read from its image")
        return
      }
      let direct = try RGBAImage.decode(page)
      // what a level reads is exactly the direct read, not poppler's (which differs a little)
      let level = try RGBAImage.decode(SourceImage.pixels(of: source, format: .pdf, sequential: sequential, scale: 1.3))
      #expect(difference(level, direct) == 0)
      let band = SourceDescription(
        path: scan, page: 0, crop: PixelRect(x: 0, y: 50, width: 300, height: 100), width: 300, height: 200, isVector: true)
      let cut = try RGBAImage.decode(SourceImage.pixels(of: band, format: .pdf, sequential: sequential, scale: 1.3))
      #expect(cut.width == 390 && cut.height == 130 && difference(cut, direct.crop(x: 0, y: 65, width: 390, height: 130)) == 0)
    }
    let vector = SourceDescription(path: drawn, page: 0, width: 300, height: 200, isVector: true)
    #expect(try SourceImage.imagePage(vector, scale: 1.3, sequential: true) == nil)
  }

  /// A mixed page read as images under poppler's render of the rest, or nil when
  /// the reader leaves the whole page to poppler.
  func mixed(_ path: String, scale: Double, sequential: Bool = true) throws -> RGBAImage? {
    var out: UnsafeMutablePointer<VipsImage>?
    let result = tc_pdf_open_mixed_page(path, 0, scale, sequential ? 1 : 0, 64, 0, &out)
    guard result == 1, let out else {
      #expect(result == 0, "\(String(cString: vips_error_buffer()))")
      return nil
    }
    return try RGBAImage.decode(VipsImageHandle(out))
  }

  /// Lines, a filled rectangle and a stroked curve, in colours the scan does not have.
  static let markup = """
    q 1 0 0 RG 3 w 10 10 m 280 180 l S Q
    q 0 0.8 0.2 rg 60 120 50 30 re f Q
    0 0 1 RG 1.5 w 20 150 m 120 20 200 220 290 40 c S
    """

  @Test(
    "a scan with a drawing over it: its images read directly under poppler's render of the drawing alone, equal to poppler's whole page",
    arguments: [0.45, 1.3, 2.6])
  func mixedPages(scale: Double) throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let picture = scanPicture(width: 240, height: 160, seed: 7)
    let cases: [(String, String, String, String)] = [
      ("upright", "/MediaBox [0 0 300 200]", "", Self.markup),
      ("/Rotate 90, cropped", "/MediaBox [0 0 300 200] /CropBox [10 5 290 195] /Rotate 90", "", Self.markup),
      // a cm before the images stays in force for the drawing after them
      ("a cm ahead of the images", "/MediaBox [0 0 300 200]", "1 0 0 1 10 -5 cm\n", Self.markup),
      (
        "an annotation drawn over it",
        "/MediaBox [0 0 300 200] /Annots [<< /Type /Annot /Subtype /Square /Rect [100 50 180 120] /C [1 0 1] /Border [0 0 4] >>]", "", Self.markup
      ),
    ]
    for (name, page, before, content) in cases {
      let path = dir + "/mixed.pdf"
      try writeScanPDF(images: [try .jpeg(picture, matrix: "150 0 0 100 40 60")], page: page, before: before, content: content, to: path)
      #expect(try direct(path, scale: scale) == nil, "\(name): not an image page")
      let reference = try poppler(path, scale: scale)
      guard let got = try mixed(path, scale: scale) else {
        Issue.record("\(name) at \(scale): not read as a mixed page")
        continue
      }
      #expect(got.width == reference.width && got.height == reference.height, "\(name)")
      guard got.width == reference.width && got.height == reference.height else { continue }
      let d = meanDifference(got, reference)
      #expect(d.mean < 2.5 && d.outliers < 0.02, "\(name) at \(scale): mean \(d.mean), outliers \(d.outliers)")
      // the drawing is there: without it the page is much further from poppler's
      let imagesOnly = dir + "/images.pdf"
      try writeScanPDF(images: [try .jpeg(picture, matrix: "150 0 0 100 40 60")], page: page, before: before, to: imagesOnly)
      if let bare = try direct(imagesOnly, scale: scale) {
        #expect(meanDifference(bare, reference).mean > 2 * d.mean + 0.2, "\(name) at \(scale): the drawing is missing")
      }
      if let random = try mixed(path, scale: scale, sequential: false) { #expect(difference(random, got) == 0, "\(name)") }
    }
  }

  @Test("a mixed page is left to poppler when its images are small, when nothing follows them, or when the drawing starts inside their saved state")
  func mixedRefusals() throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let picture = scanPicture(width: 64, height: 48, seed: 2)
    let path = dir + "/m.pdf"
    try writeScanPDF(images: [try .jpeg(picture, matrix: "100 0 0 75 0 0")], page: "/MediaBox [0 0 100 75]", content: "0 0 m 100 75 l S", to: path)
    var out: UnsafeMutablePointer<VipsImage>?
    // 64 × 48 × 4 bytes of images: under a budget of more, poppler draws it all
    #expect(tc_pdf_open_mixed_page(path, 0, 1, 1, 64, 64 * 48 * 4 + 1, &out) == 0 && out == nil)
    #expect(try mixed(path, scale: 1) != nil)
    try writeScanPDF(images: [try .jpeg(picture, matrix: "100 0 0 75 0 0")], page: "/MediaBox [0 0 100 75]", to: path)
    #expect(try mixed(path, scale: 1) == nil, "an image page is the image reader's")
    // the drawing inside the image's q … Q: no statement between them to cut at
    // (the image's q … Q as writeScanPDF writes it, with a line drawn inside it)
    let inside = try PlacedImage.jpeg(picture, matrix: "100 0 0 75 0 0 cm /Im0 Do 0 0 m 1 1 l S 1 0 0 1 0 0")
    try writeScanPDF(images: [inside], page: "/MediaBox [0 0 100 75]", to: path)
    #expect(try mixed(path, scale: 1) == nil)
  }
}
