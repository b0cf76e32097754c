import CTilecutDocument
import CTilecutPlatform
import CVips
import CVipsShim
import TilecutCore

/// PDF pages, rendered by poppler at the density each level needs: in bands when read
/// top to bottom (`tc_pdf_open_banded`), a scanned page read from its images
/// (`ScannedPage.swift`). A page may state its own georeferencing (GeoPDF) and scale.
struct PDFKind: SourceKind {
  var name: String { "document (PDF)" }
  var formats: [SourceFormat] { [.pdf] }
  var isDrawnPerZoom: Bool { true }
  var pagesStatePlacement: Bool { true }

  func loader(for format: SourceFormat) -> String { "pdfload" }

  func header(
    of input: InputName, format: SourceFormat, maxPixels: Int, maxMemory: Int, drawingUnits: (meters: Double, name: String)?
  ) throws -> SourceHeader {
    // what the file declares against the bytes that are there, before poppler allocates
    try InputCheck.checkPDF(path: input.path, maxBytes: maxMemory)
    return try SourceImage.documentHeader(of: input, format: format, maxPixels: maxPixels, refusedAs: "a PDF")
  }

  func pixels(
    of source: SourceDescription, format: SourceFormat, sequential: Bool, scale: Double, sheet: SheetClaim?, bands: Bool
  ) throws -> VipsImageHandle {
    // a scanned page: read from its images, not rendered
    if let page = try SourceImage.imagePage(source, scale: scale, sequential: sequential) {
      return try SourceImage.cropped(SourceImage.convert(page, source: source), source: source, scale: scale)
    }
    let image: VipsImageHandle
    if sequential && bands {
      // read top to bottom: rendered in bands, not in libvips' 4000 px tiles
      image = try Self.banded(source, scale: scale)
    } else {
      image = try VipsImageHandle.make("render \(source.path)") { out in
        tc_load_named(loader(for: format), source.path, Int32(source.page ?? 0), scale, sequential ? 1 : 0, &out)
      }
    }
    return try SourceImage.cropped(SourceImage.convert(image, source: source), source: source, scale: scale)
  }

  /// A PDF page rendered band by band as it is read (`tc_pdf_open_banded`): one band of
  /// `SourceImage.documentBandBytes` in memory, whatever the page's size, and, on a page
  /// of more than 4 bands, the recorded drawing of a slab of up to 4 bands. A scan with
  /// a drawing over it is read as a mixed page (`mixedPage`): its images directly,
  /// poppler's bands of the drawing alone over them.
  static func banded(_ source: SourceDescription, scale: Double) throws -> VipsImageHandle {
    let rows = SourceImage.bandRows(source, scale: scale)
    if let mixed = try SourceImage.mixedPage(source, scale: scale, sequential: true, rows: rows) { return mixed }
    return try VipsImageHandle.make("render \(source.path)") { out in
      tc_pdf_open_banded(source.path, Int32(source.page ?? 0), scale, Int32(rows), &out)
    }
  }
}
