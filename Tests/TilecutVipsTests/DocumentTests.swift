import CTilecutDocument
import CVipsShim
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// A PDF file of `objects` (object 1 the catalog), with its cross-reference table.
func writePDF(objects: [String], to path: String) throws {
  var pdf = "%PDF-1.4\n"
  var offsets: [Int] = []
  for (i, body) in objects.enumerated() {
    offsets.append(pdf.utf8.count)
    pdf += "\(i + 1) 0 obj\n\(body)\nendobj\n"
  }
  let xref = pdf.utf8.count
  pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
  for o in offsets { pdf += String(format: "%010d 00000 n \n", o) }
  pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
  try Data(pdf.utf8).write(to: URL(fileURLWithPath: path))
}

/// A small vector PDF, written by hand: one page per entry of `pages`, each
/// `width` × `height` pt with a transparent background, filled rectangles in the
/// page's colour, a half-transparent disc-like polygon, a slanted stroke and thin lines.
func writeTestPDF(pages colours: [(Double, Double, Double)], width: Int, height: Int, to path: String) throws {
  var objects: [String] = []
  let pageCount = colours.count
  // 1: catalog, 2: pages, 3: graphics state, then page k at 4 + 2k and its content at 5 + 2k
  objects.append("<< /Type /Catalog /Pages 2 0 R >>")
  let kids = (0..<pageCount).map { "\(4 + 2 * $0) 0 R" }.joined(separator: " ")
  objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pageCount) >>")
  objects.append("<< /Type /ExtGState /ca 0.5 /CA 0.5 >>")
  for (k, c) in colours.enumerated() {
    objects.append(
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(width) \(height)] /Resources << /ExtGState << /G 3 0 R >> >> /Contents \(5 + 2 * k) 0 R >>"
    )
    var ops = "\(c.0) \(c.1) \(c.2) rg\n"
    for i in 0..<6 {
      let x = 4 + i * (width / 7) + k * 3
      let y = 5 + (i * 37 + k * 11) % max(1, height - 30)
      ops += "\(x) \(y) \(width / 9) 17.5 re f\n"
    }
    ops += "q /G gs 0.1 0.6 0.2 rg\n"
    let (cx, cy, r) = (Double(width) * 0.6, Double(height) * 0.45, Double(min(width, height)) * 0.3)
    for i in 0..<24 {
      let t = Double(i) / 24 * 2 * Double.pi
      ops += String(format: "%.3f %.3f %@\n", cx + r * cos(t), cy + r * sin(t), i == 0 ? "m" : "l")
    }
    ops += "h f Q\n"
    ops += "0 0 0.8 RG 2.3 w 3 3 m \(width - 5) \(Double(height) - 7.5) l S\n"
    ops += "0.2 w 0 0 0 RG 0 \(height / 3) m \(width) \(height / 3 + 1) l S\n"
    objects.append("<< /Length \(ops.utf8.count) >>\nstream\n\(ops)endstream")
  }
  try writePDF(objects: objects, to: path)
}

@Suite("documents rendered in bands")
struct DocumentTests {
  static let colours = [(0.9, 0.1, 0.1), (0.1, 0.2, 0.9), (0.8, 0.7, 0.0)]

  /// libvips' pdfload render of a page at `scale`, with a transparent background (the reference).
  func reference(_ path: String, page: Int, scale: Double) throws -> RGBAImage {
    let image = try VipsImageHandle.make("pdfload") { out in tc_load_named("pdfload", path, Int32(page), scale, 0, &out) }
    return try RGBAImage.decode(image)
  }

  // bands of 64 rows, the fewest `SourceImage.bandRows` gives: 3 bands at scale 1, each
  // walking the page; 6 and 13 at 2.7 and 6, replayed from slabs of 2 and 4 bands
  @Test("each page rendered in bands of 64 rows equals libvips' pdfload render within 1", arguments: [1.0, 2.7, 6.0])
  func bandsMatchPdfload(scale: Double) throws {
    try Vips.start()
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeTestPDF(pages: Self.colours, width: 180, height: 130, to: dir + "/doc.pdf")
    for page in 0..<3 {
      let expected = try reference(dir + "/doc.pdf", page: page, scale: scale)
      let banded = try VipsImageHandle.make("banded") { out in tc_pdf_open_banded(dir + "/doc.pdf", Int32(page), scale, 64, &out) }
      let got = try RGBAImage.decode(banded)
      #expect(got.width == expected.width && got.height == expected.height)
      #expect(difference(got, expected) <= 1, "page \(page) at \(scale)")
      // the pages differ: a page mix-up would show
      if page > 0 { #expect(difference(got, try reference(dir + "/doc.pdf", page: page - 1, scale: scale)) > 100) }
      // partly transparent pixels survive (the half-transparent polygon), the background is clear
      #expect(got[0, 0].a == 0 && got.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element > 100 && $0.element < 160 })
    }
  }

  @Test("a three-page PDF tiles each page as its floor: the deepest tiles are crops of the page's render")
  func multiPageTiles() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeTestPDF(pages: Self.colours, width: 256, height: 200, to: dir + "/doc.pdf")
    let template = try TileNameTemplate(TileNameTemplate.defaultPattern)
    let pool = WorkPool(jobs: 2)
    let ledger = RenderLedger()
    for page in 0..<3 {
      let header = try SourceImage.header(of: InputName(path: dir + "/doc.pdf", page: page), maxPixels: 1 << 30)
      #expect(header.pages == 3 && header.isVector)
      let source = SourceDescription(path: dir + "/doc.pdf", page: page, width: header.width, height: header.height, isVector: true)
      // native at zoom 0 (256 pt a tile), tiled to zoom 2: the page rendered at 4×, never upsampled
      let plan = try PyramidPlanner.plan(
        floor: try #require(Floor(page)), source: source, placement: .raster(nativeZoom: 0), request: PlanRequest(maxZoom: 2, tileSizes: [256]))
      let builder = PyramidBuilder(
        plan: plan, settings: RenderSettings(), encoder: VipsTileEncoder(),
        writer: DirectoryTileWriter(root: dir + "/out", template: template), pool: pool, ledger: ledger,
        openSource: { try LevelPipeline.open(plan: plan, level: $0, format: header.format) })
      try builder.build()
    }
    try pool.drain()
    for page in 0..<3 {
      let render = try reference(dir + "/doc.pdf", page: page, scale: 4)
      #expect(render.width == 1024 && render.height == 800)
      let tiles = ledger.outcomes[LevelKey(floor: try #require(Floor(page)), tileSize: 256, zoom: 2)]?.tiles ?? []
      #expect(tiles.count >= 10, "page \(page)")
      for t in tiles {
        let tile = try RGBAImage.decode(file: dir + "/out/256/L\(page)_2_\(t.x)_\(t.y).png")
        var expected = RGBAImage(width: 256, height: 256)
        let w = min(256, render.width - t.x * 256)
        let h = min(256, render.height - t.y * 256)
        expected.paste(render.crop(x: t.x * 256, y: t.y * 256, width: w, height: h), x: 0, y: 0)
        #expect(difference(tile, expected) <= 1, "page \(page) tile \(t)")
      }
    }
  }
}

/// SVG drawings sized every way a drawing can be (every absolute unit, a viewBox
/// alone, one side and a viewBox, one side alone, no size at all).
let svgSizings: [(name: String, root: String)] = [
  ("pixels", #"width="180" height="130""#),
  ("centimetres", #"width="6.35cm" height="4.5cm""#),
  ("viewbox", #"viewBox="0 0 180 130""#),
  ("width-and-viewbox", #"width="250" viewBox="0 0 180 130""#),
  ("percent", #"width="100%" height="100%" viewBox="0 0 180 130""#),
  ("no-size", ""),
  ("width-only", #"width="200""#),
  ("height-and-viewbox", #"height="90" viewBox="0 0 180 130""#),
  ("inches-and-millimetres", #"width="2.5in" height="60mm""#),
  ("points-and-picas", #"width="190pt" height="11pc""#),
  ("ems-and-exes", #"width="15em" height="20ex""#),
]

/// A drawing in a 180 × 130 user space: a filled rectangle (or a gradient with a
/// fading stop), a half-transparent disc, strokes across many rows, a hairline, an
/// image from the drawing's own directory (`beside.png`) and text.
func writeTestSVG(root: String, gradient: Bool = false, hairline: Bool = true, to path: String) throws {
  let hairlinePath = hairline ? ##"<path d="M0,43 L180,44" stroke="#000" stroke-width="0.2"/>"## : ""
  let svg = """
    <?xml version="1.0" encoding="UTF-8"?>
    <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" \(root)>
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#e01010"/><stop offset="1" stop-color="#1030e0" stop-opacity="0.4"/></linearGradient></defs>
    <rect x="6" y="5" width="120" height="80" fill="\(gradient ? "url(#g)" : "#e01010")"/>
    <circle cx="110" cy="70" r="45" fill="#10a030" fill-opacity="0.5"/>
    <path d="M3,3 L175,122" stroke="#0000cc" stroke-width="2.3" fill="none"/>
    \(hairlinePath)
    <image x="140" y="90" width="30" height="30" xlink:href="beside.png"/>
    <text x="20" y="115" font-size="14" fill="#333">Floor 3</text>
    </svg>
    """
  try Data(svg.utf8).write(to: URL(fileURLWithPath: path))
}

/// The largest difference of two renders in premultiplied values (0…255): what
/// shows on a map, where a pixel of alpha 3 has no meaningful colour.
func premultipliedDifference(_ a: RGBAImage, _ b: RGBAImage) -> Double {
  precondition(a.width == b.width && a.height == b.height)
  var worst = 0.0
  for i in stride(from: 0, to: a.pixels.count, by: 4) {
    let (aa, ba) = (Double(a.pixels[i + 3]), Double(b.pixels[i + 3]))
    worst = max(worst, abs(aa - ba))
    for c in 0..<3 { worst = max(worst, abs(Double(a.pixels[i + c]) * aa - Double(b.pixels[i + c]) * ba) / 255) }
  }
  return worst
}

@Suite("SVG drawings rendered in bands")
struct SVGBandTests {
  /// libvips' svgload render at `scale` (the reference).
  func reference(_ path: String, scale: Double) throws -> RGBAImage {
    let image = try VipsImageHandle.make("svgload") { out in tc_load_named("svgload", path, -1, scale, 0, &out) }
    return try RGBAImage.decode(image)
  }

  func banded(_ path: String, scale: Double, rows: Int) throws -> RGBAImage {
    try RGBAImage.decode(try VipsImageHandle.make("banded") { out in tc_svg_open_banded(path, scale, Int32(rows), &out) })
  }

  /// A directory holding `beside.png`, an 8 × 8 blue square.
  func drawingDirectory(_ name: String) throws -> String {
    try Vips.start()
    let dir = try temporaryDirectory(name)
    var blue = RGBAImage(width: 8, height: 8)
    for i in stride(from: 0, to: blue.pixels.count, by: 4) { blue.pixels.replaceSubrange(i..<i + 4, with: [0, 90, 250, 255]) }
    try blue.writePNG(to: dir + "/beside.png")
    return dir
  }

  @Test("an SVG rendered in bands of 7 rows equals libvips' svgload render, however it is sized", arguments: [1.0, 2.7, 6.0])
  func bandsMatchSvgload(scale: Double) throws {
    let dir = try drawingDirectory("svg-bands-\(scale)")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var sizes: Set<String> = []
    for (name, root) in svgSizings {
      let path = "\(dir)/\(name).svg"
      try writeTestSVG(root: root, to: path)
      let expected = try reference(path, scale: scale)
      let got = try banded(path, scale: scale, rows: 7)
      #expect(got.width == expected.width && got.height == expected.height, "\(name) at \(scale)")
      #expect(difference(got, expected) <= 1, "\(name) at \(scale)")
      sizes.insert("\(got.width)x\(got.height)")
      // the background stays clear, the half-transparent disc survives, the image beside the drawing is drawn
      #expect(got.pixels[3] == 0, "\(name)")
      #expect(got.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element > 100 && $0.element < 200 }, "\(name)")
      #expect(got.pixels.enumerated().contains { $0.offset % 4 == 0 && $0.element == 0 && got.pixels[$0.offset + 1] == 90 }, "\(name)")
    }
    // the sizings really differ: the test covers more than one way of measuring a drawing
    #expect(sizes.count >= 8)
  }

  @Test("a gradient rendered in bands is within 2 premultiplied levels of svgload's (pixman steps a gradient from the band's edge)")
  func gradientBands() throws {
    let dir = try drawingDirectory("svg-gradient")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeTestSVG(root: #"viewBox="0 0 180 130""#, gradient: true, to: dir + "/g.svg")
    for scale in [1.0, 6.0] {
      let expected = try reference(dir + "/g.svg", scale: scale)
      let got = try banded(dir + "/g.svg", scale: scale, rows: 7)
      #expect(premultipliedDifference(got, expected) <= 2, "at \(scale)")
      // a band as tall as the drawing is svgload's own render
      #expect(difference(try banded(dir + "/g.svg", scale: scale, rows: 100_000), expected) == 0, "at \(scale)")
    }
  }

  @Test("a drawing wider than cairo's widest surface is rendered in column pieces that meet without a seam")
  func wideDrawing() throws {
    let dir = try drawingDirectory("svg-wide")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/wide.svg"
    try writeTestSVG(root: #"width="180" height="4" viewBox="0 0 180 130" preserveAspectRatio="none""#, hairline: false, to: path)
    // 180 × 110 = 19800 columns: pieces of 16384 and 3416
    let got = try banded(path, scale: 110, rows: 5)
    let expected = try reference(path, scale: 110)
    #expect(got.width == 19800 && got.height == 440)
    // cairo clips a path to each surface before rasterising it, so a shallow edge's
    // coverage moves a little with where a surface starts (svgload's own 2000 px
    // tiles do the same): the pieces may differ from svgload on such edges, never
    // across a column or a shape
    var differing = 0
    var worstColumn = [Int](repeating: 0, count: got.width)
    for i in stride(from: 0, to: got.pixels.count, by: 4) {
      let (a, b) = (Double(got.pixels[i + 3]), Double(expected.pixels[i + 3]))
      var d = abs(a - b)
      for c in 0..<3 { d = max(d, abs(Double(got.pixels[i + c]) * a - Double(expected.pixels[i + c]) * b) / 255) }
      if d > 1 {
        differing += 1
        worstColumn[(i / 4) % got.width] += 1
      }
    }
    #expect(premultipliedDifference(got, expected) <= 24)
    #expect(differing * 1000 < got.width * got.height, "\(differing) pixels differ")
    #expect(worstColumn[16383] + worstColumn[16384] <= 8, "the pieces meet at column 16384")
  }
}
