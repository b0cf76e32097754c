import CVips
import CVipsShim
import Foundation
import Synchronization
import TilecutCore

/// A photo's EXIF orientation (a phone's picture of a printed plan): 1 as stored, 2–8
/// turned or mirrored to be displayed. tilecut tiles the image as every viewer shows it,
/// so its width, height and pixels (and the pixels a world file or control points
/// name) are the displayed ones.
public enum ExifOrientation {
  /// The formats whose orientation libvips reads and tilecut applies (a TIFF's
  /// Orientation tag is left alone, as GDAL leaves it: a GeoTIFF's geotransform names
  /// the stored pixels).
  static let formats: Set<SourceFormat> = [.jpeg, .png, .webp]

  /// What turning by `orientation` does, for the placement line.
  public static func describe(_ orientation: Int) -> String {
    switch orientation {
    case 2: "mirrored left to right"
    case 3: "turned 180°"
    case 4: "mirrored top to bottom"
    case 5: "mirrored across its main diagonal"
    case 6: "turned 90° clockwise"
    case 7: "mirrored across its other diagonal"
    case 8: "turned 90° counter-clockwise"
    default: "as stored"
    }
  }

  /// Orientations found, by file (name, size, modification time).
  private static let known = Mutex<[String: (orientation: Int, pixelBytes: Int)]>([:])

  /// The orientation of a JPEG, PNG or WebP as libvips reads it with the header, and
  /// the bytes of one of its pixels; (1, 0) for other formats.
  static func read(path: String, format: SourceFormat) throws -> (orientation: Int, pixelBytes: Int) {
    guard formats.contains(format) else { return (1, 0) }
    let key = InputCheck.fileKey(path)
    if let key, let found = known.withLock({ $0[key] }) { return found }
    let image = try VipsImageHandle.make("load \(path)") { out in tc_load_named(format.loader, path, -1, 0, 0, &out) }
    var pixel = 0
    let orientation = Int(tc_orientation(image.pointer, &pixel))
    if let key { known.withLock { $0[key] = (orientation, pixel) } }
    return (orientation, pixel)
  }
}

extension SourceImage {
  /// The image as displayed, when its orientation is not 1 (else nil): read with random
  /// access (turning by 90° reads across rows), which the header's budget check allowed.
  static func openOriented(path: String, format: SourceFormat) throws -> VipsImageHandle? {
    guard ExifOrientation.formats.contains(format), try ExifOrientation.read(path: path, format: format).orientation != 1 else { return nil }
    // libvips' pngload skips the stream's Adler-32, which tilecut checks
    try InputCheck.verifyStream(path: path)
    let stored = try VipsImageHandle.make("load \(path)") { out in tc_load_named(format.loader, path, -1, 0, 0, &out) }
    return try stored.map("turn \(path) as displayed") { tc_autorot($0, &$1) }
  }

  /// Width and height as displayed, and the orientation; refused when turning the
  /// image would hold more than `maxMemory` bytes of it.
  static func displayed(path: String, format: SourceFormat, width: Int, height: Int, maxMemory: Int) throws -> (
    width: Int, height: Int, orientation: Int
  ) {
    let (orientation, pixel) = try ExifOrientation.read(path: path, format: format)
    guard orientation != 1 else { return (width, height, 1) }
    let (bytes, overflow) = (width * height).multipliedReportingOverflow(by: max(pixel, 1))
    if overflow || bytes > maxMemory {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "has EXIF orientation \(orientation) (\(ExifOrientation.describe(orientation))); turning it as displayed holds the whole image, \(overflow ? "more than 9 EB" : DecodeBudget.megabytes(UInt64(bytes))), more than --max-memory \(maxMemory / 1_000_000) MB; raise --max-memory, or save it turned"
      )
    }
    return orientation >= 5 ? (height, width, orientation) : (width, height, orientation)
  }
}
