import CTilecutDocument
import CVips
import CVipsShim
import TilecutCore

extension SourceImage {
  /// A PDF page (`PDFKind`) that holds only raster images (a scan), read from the images
  /// themselves at `scale` (`tc_pdf_open_image_page`): the size and pixels of
  /// poppler's render, without poppler decoding the images for every band. nil for
  /// any other page, which is rendered as before.
  static func imagePage(_ source: SourceDescription, scale: Double, sequential: Bool) throws -> VipsImageHandle? {
    var out: UnsafeMutablePointer<VipsImage>?
    let result = tc_pdf_open_image_page(source.path, Int32(source.page ?? 0), scale, sequential ? 1 : 0, &out)
    if result < 0 { throw VipsError.current("read the images of \(source.path)") }
    guard result == 1, let out else { return nil }
    return VipsImageHandle(out)
  }

  /// Images of at least this many RGBA bytes make a scan with a drawing over it a
  /// mixed page: below it, poppler's recording of the images costs less than a band.
  static let mixedPageImageBytes = documentBandBytes

  /// A scan with a drawing over it (`tc_pdf_open_mixed_page`): its images read as an
  /// image page's are, under poppler's render, in `rows`-row bands, of the drawing
  /// alone. Before, poppler decoded every image whole into each slab's recording: an
  /// 8192² JPEG under 200 lines took 648 MB. nil for any other page.
  static func mixedPage(_ source: SourceDescription, scale: Double, sequential: Bool, rows: Int) throws -> VipsImageHandle? {
    var out: UnsafeMutablePointer<VipsImage>?
    let result = tc_pdf_open_mixed_page(
      source.path, Int32(source.page ?? 0), scale, sequential ? 1 : 0, Int32(rows), UInt64(mixedPageImageBytes), &out)
    if result < 0 { throw VipsError.current("read the images of \(source.path)") }
    guard result == 1, let out else { return nil }
    return VipsImageHandle(out)
  }
}
