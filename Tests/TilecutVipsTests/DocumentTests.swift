import CTilecutDocument
import CVipsShim
import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

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

@Suite("documents rendered in bands")
struct DocumentTests {
  static let colours = [(0.9, 0.1, 0.1), (0.1, 0.2, 0.9), (0.8, 0.7, 0.0)]

  /// libvips' pdfload render of a page at `scale`, with a transparent background (the reference).
  func reference(_ path: String, page: Int, scale: Double) throws -> RGBAImage {
    let image = try VipsImageHandle.make("pdfload") { out in tc_load_scaled(path, "pdfload", Int32(page), scale, 0, &out) }
    return try RGBAImage.decode(image)
  }

  // bands of 64 rows, the fewest `SourceImage.banded` asks for: 3 bands at scale 1, each
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
        floor: page, source: source, placement: .raster(nativeZoom: 0), request: PlanRequest(maxZoom: 2, tileSizes: [256]))
      let builder = PyramidBuilder(
        plan: plan, settings: RenderSettings(template: template), encoder: VipsTileEncoder(),
        writer: DirectoryTileWriter(root: dir + "/out", template: template), pool: pool, ledger: ledger,
        openSource: { try LevelPipeline.open(plan: plan, level: $0, loader: header.loader) })
      try builder.build()
    }
    try pool.drain()
    for page in 0..<3 {
      let render = try reference(dir + "/doc.pdf", page: page, scale: 4)
      #expect(render.width == 1024 && render.height == 800)
      let tiles = ledger.outcomes[LevelKey(floor: page, tileSize: 256, zoom: 2)]?.tiles ?? []
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
