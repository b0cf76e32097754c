import CTilecutDocument
import CVips
import CVipsShim
import TilecutCore

extension SourceImage {
  /// A PDF page that holds only raster images (a scan), read from the images
  /// themselves at `scale` (`tc_pdf_open_image_page`): the size and pixels of
  /// poppler's render, without poppler decoding the images for every band. nil for
  /// any other page, which is rendered as before.
  static func imagePage(_ source: SourceDescription, scale: Double, format: SourceFormat, sequential: Bool) throws -> VipsImageHandle? {
    guard format == .pdf else { return nil }
    var out: UnsafeMutablePointer<VipsImage>?
    let result = tc_pdf_open_image_page(source.path, Int32(source.page ?? 0), scale, sequential ? 1 : 0, &out)
    if result < 0 { throw VipsError.current("read the images of \(source.path)") }
    guard result == 1, let out else { return nil }
    return VipsImageHandle(out)
  }
}
