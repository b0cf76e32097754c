import CTilecutFixtures
import CVips
import Foundation
import TilecutCore
import TilecutVips

/// Fixture files from pixels: the tests' sources, in formats tilecut reads.
extension RGBAImage {
  /// Writes the image in the format its extension names (libvips' savers).
  public func writePNG(to path: String) throws {
    try Vips.start()
    try pixels.withUnsafeBytes { raw in
      guard let image = vips_image_new_from_memory(raw.baseAddress, raw.count, Int32(width), Int32(height), 4, VIPS_FORMAT_UCHAR)
      else { throw VipsError.current("new_from_memory") }
      defer { g_object_unref(image) }
      guard tc_save_file(image, path) == 0 else { throw VipsError.current("save \(path)") }
    }
  }

  /// Writes the image's RGB as a JPEG whose EXIF orientation is `orientation` (a phone's photo).
  public func writeJPEG(to path: String, orientation: Int) throws {
    try Vips.start()
    try pixels.withUnsafeBytes { raw in
      guard let image = vips_image_new_from_memory(raw.baseAddress, raw.count, Int32(width), Int32(height), 4, VIPS_FORMAT_UCHAR)
      else { throw VipsError.current("new_from_memory") }
      defer { g_object_unref(image) }
      guard tc_save_oriented(image, Int32(orientation), path) == 0 else { throw VipsError.current("save \(path)") }
    }
  }

  /// Other encodings of the same pixels, for tests of input conversion.
  public enum Variant: Int32, Sendable {
    case rgba16 = 0
    case greyAlpha = 1
    case cmykJPEG = 2
  }

  /// Writes the image as a 16-bit PNG, a grey + alpha PNG (from the green channel)
  /// or a CMYK JPEG.
  public func write(to path: String, as variant: Variant) throws {
    try Vips.start()
    try pixels.withUnsafeBytes { raw in
      guard let image = vips_image_new_from_memory(raw.baseAddress, raw.count, Int32(width), Int32(height), 4, VIPS_FORMAT_UCHAR)
      else { throw VipsError.current("new_from_memory") }
      defer { g_object_unref(image) }
      guard tc_save_variant(image, variant.rawValue, path) == 0 else { throw VipsError.current("save \(path)") }
    }
  }

  /// Writes equal-sized images as the pages of one file (multi-page TIFF, GIF, WebP).
  public static func writePages(_ pages: [RGBAImage], to path: String) throws {
    guard let first = pages.first, pages.allSatisfy({ $0.width == first.width && $0.height == first.height }) else {
      throw TilecutError.invalidOption(option: "pages", reason: "pages must share one size")
    }
    var tall = RGBAImage(width: first.width, height: first.height * pages.count)
    for (i, page) in pages.enumerated() { tall.paste(page, x: 0, y: i * first.height) }
    try Vips.start()
    try tall.pixels.withUnsafeBytes { raw in
      guard
        let image = vips_image_new_from_memory(
          raw.baseAddress, raw.count, Int32(tall.width), Int32(tall.height), 4, VIPS_FORMAT_UCHAR)
      else { throw VipsError.current("new_from_memory") }
      defer { g_object_unref(image) }
      guard tc_save_pages(image, Int32(first.height), path) == 0 else { throw VipsError.current("save \(path)") }
    }
  }
}

public func picture(width: Int, height: Int, seed: Int = 0, transparentLeft: Int = 0) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 4
      guard x >= transparentLeft else { continue }
      image.pixels[i] = UInt8((x + seed * 40) & 255)
      image.pixels[i + 1] = UInt8((y * 3) & 255)
      image.pixels[i + 2] = UInt8((seed * 70) & 255)
      image.pixels[i + 3] = 255
    }
  }
  return image
}
