import CTilecutInputCheck
import CVips
import CVipsShim
import Foundation
import TilecutCore

/// The pixels of a KML or KMZ input: its GroundOverlay's image, checked as any input
/// is before libvips decodes it.
extension SourceImage {
  /// The header of an overlay's image, as the KML's: its size, its format, and as many
  /// pages as the document has GroundOverlays (each one a floor with `--floors`).
  static func overlayHeader(_ overlay: OverlaySource, maxPixels: Int, maxMemory: Int) throws -> SourceHeader {
    let path = overlay.document
    let width: Int
    let height: Int
    let format: SourceFormat
    switch overlay.image {
    case .file(let imagePath):
      // the image beside a KML is an input like any other: its own refusals name it
      let image = try header(of: InputName(path: imagePath), maxPixels: maxPixels, maxMemory: maxMemory)
      guard !image.isVector else {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "GroundOverlay \(overlay.overlay.label(index: overlay.index))'s image \(Quote.value(overlay.imageName)) is a \(image.format.rawValue.uppercased()) document; a GroundOverlay's image is a raster (PNG, JPEG, WebP, TIFF or GIF)"
        )
      }
      (width, height, format) = (image.width, image.height, image.format)
    case .bytes(let bytes, let bytesFormat):
      let entry = "entry \(Quote.value(overlay.imageName))"
      if let damage = damage(bytes, format: bytesFormat) {
        throw TilecutError.invalidInput(path: path, reason: "\(entry) \(damage)")
      }
      let image: VipsImageHandle
      do {
        image = try VipsImageHandle.make("load \(path)") { out in
          tc_load_named_buffer(bytesFormat.loader, bytes, bytes.count, 0, &out)
        }
      } catch let error as VipsError {
        throw TilecutError.invalidInput(
          path: path,
          reason: "\(entry) cannot be read as \(bytesFormat.rawValue.uppercased()) (\(error.message.isEmpty ? error.operation : error.message))")
      }
      (width, height, format) = (image.width, image.height, bytesFormat)
      // an image in memory is decoded from memory: its whole RGBA within the budget
      let decoded = UInt64(max(width, 0)).multipliedReportingOverflow(by: UInt64(max(height, 0)) * 4)
      if decoded.overflow || decoded.partialValue > UInt64(maxMemory) {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "\(entry) is \(width) × \(height) pixels, which decode to \(decoded.overflow ? "more than 18 EB" : DecodeBudget.megabytes(decoded.partialValue)) in memory, more than --max-memory \(maxMemory / 1_000_000) MB; raise --max-memory if this is intended"
        )
      }
      // and its inflated bytes, held while it decodes, with it
      if decoded.partialValue + UInt64(bytes.count) > UInt64(maxMemory) {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "\(entry) is \(width) × \(height) pixels, which decode to \(DecodeBudget.megabytes(decoded.partialValue)) in memory beside its \(DecodeBudget.megabytes(UInt64(bytes.count))) inflated from the archive, more than --max-memory \(maxMemory / 1_000_000) MB; raise --max-memory if this is intended"
        )
      }
    }
    guard width > 0, height > 0 else { throw TilecutError.invalidInput(path: path, reason: "its overlay's image has no pixels") }
    let (area, overflow) = width.multipliedReportingOverflow(by: height)
    if overflow || area > maxPixels {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "\(Quote.value(overlay.imageName)) is \(width) × \(height) pixels, more than --max-pixels \(maxPixels); raise --max-pixels if this is intended"
      )
    }
    return SourceHeader(path: path, width: width, height: height, pages: overlay.overlays.count, isVector: false, format: format)
  }

  /// The overlay's image as libvips reads it: the file beside the KML through the usual
  /// path, the KMZ's entry from memory by its format's own loader.
  static func openOverlay(_ overlay: OverlaySource, sequential: Bool) throws -> VipsImageHandle {
    switch overlay.image {
    case .file(let imagePath):
      return try open(path: imagePath, page: nil, sequential: sequential)
    case .bytes(let bytes, let format):
      return try VipsImageHandle.make("load \(overlay.document) entry \(overlay.imageName)") { out in
        tc_load_named_buffer(format.loader, bytes, bytes.count, sequential ? 1 : 0, &out)
      }
    }
  }

  /// Why an image held in memory is damaged, by tilecut's own checks where they read
  /// memory (a PNG's chunks and pixel stream, a JPEG's whole scan, a GIF's frames, a
  /// WebP's chunks); a TIFF's damage is the loader's error (libvips fails on any warning).
  static func damage(_ bytes: [UInt8], format: SourceFormat) -> String? {
    switch format {
    case .jpeg:
      var message = [CChar](repeating: 0, count: 256)
      guard tc_verify_jpeg_buffer(bytes, bytes.count, &message, message.count) != 0 else { return nil }
      return "is damaged (libjpeg: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))"
    case .png:
      // chunks, CRCs, and the pixel stream inflated to its Adler-32 (libvips' pngload skips it)
      var result = TcFileCheck()
      return tc_check_png_buffer(bytes, bytes.count, 1, &result) == 0 ? nil : InputCheck.reason(result)
    case .gif:
      var result = TcFileCheck()
      return tc_check_gif_buffer(bytes, bytes.count, &result) == 0 ? nil : InputCheck.reason(result)
    case .webp:
      return SVGReferences.webpDamage(bytes)
    default:
      return nil
    }
  }
}
