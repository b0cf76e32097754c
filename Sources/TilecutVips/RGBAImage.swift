import CTilecutPNG
import CVips
import CVipsShim
import Foundation
import TilecutCore

/// A decoded image as packed sRGB RGBA8, for checks, previews and tests.
public struct RGBAImage: Equatable, Sendable {
  public var width: Int
  public var height: Int
  public var pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]? = nil) {
    self.width = width
    self.height = height
    self.pixels = pixels ?? [UInt8](repeating: 0, count: width * height * 4)
  }

  /// Decodes any file libvips reads, converted to sRGB RGBA8.
  public static func decode(file path: String) throws -> RGBAImage {
    try Vips.start()
    let image = try SourceImage.open(path: path, page: nil, sequential: true)
    do { return try decode(image) } catch let error as VipsError { throw InputCheck.readFailure(path: path, error) }
  }

  /// Decodes bytes in memory (a PNG, JPEG, WebP … file's contents).
  public static func decode(bytes: [UInt8]) throws -> RGBAImage {
    try Vips.start()
    return try bytes.withUnsafeBytes { raw in
      let image = try VipsImageHandle.make("load buffer") { out in tc_load_buffer(raw.baseAddress, raw.count, &out) }
      // the buffer must outlive the lazy image: decode fully inside
      return try decode(image)
    }
  }

  /// Decodes a `width` × `height` image in memory: a PNG as tilecut writes its
  /// truecolour tiles straight (libdeflate, no libvips between: `tc_png_decode_plain`),
  /// anything else, or of another size, as `decode(bytes:)` does. The pixels are the same
  /// either way.
  public static func decode(bytes: [UInt8], width: Int, height: Int) throws -> RGBAImage {
    guard width > 0, height > 0, width <= 1 << 14, height <= 1 << 14 else { return try decode(bytes: bytes) }
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    let plain = bytes.withUnsafeBufferPointer { b in
      pixels.withUnsafeMutableBufferPointer { p in
        tc_png_decode_plain(b.baseAddress, b.count, Int32(width), Int32(height), p.baseAddress) == 0
      }
    }
    return plain ? RGBAImage(width: width, height: height, pixels: pixels) : try decode(bytes: bytes)
  }

  static func decode(_ image: VipsImageHandle) throws -> RGBAImage {
    let rgba = try image.map("convert to sRGB") { tc_to_srgba($0, &$1) }
    var out = RGBAImage(width: rgba.width, height: rgba.height)
    guard let region = vips_region_new(rgba.pointer) else { throw VipsError.current("region") }
    defer { g_object_unref(region) }
    let status = out.pixels.withUnsafeMutableBufferPointer { buf in
      tc_fetch(region, 0, 0, Int32(rgba.width), Int32(rgba.height), buf.baseAddress)
    }
    guard status == 0 else { throw VipsError.current("decode") }
    return out
  }

  public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
    let i = (y * width + x) * 4
    return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
  }

  /// The w × h block at (x, y); pixels outside the image are transparent.
  public func crop(x: Int, y: Int, width w: Int, height h: Int) -> RGBAImage {
    var out = RGBAImage(width: w, height: h)
    for row in 0..<h where y + row >= 0 && y + row < height {
      for col in 0..<w where x + col >= 0 && x + col < width {
        let s = ((y + row) * width + x + col) * 4
        let d = (row * w + col) * 4
        for c in 0..<4 { out.pixels[d + c] = pixels[s + c] }
      }
    }
    return out
  }

  /// Copies `other` in with its top-left corner at (x, y).
  public mutating func paste(_ other: RGBAImage, x: Int, y: Int) {
    for row in 0..<other.height where y + row >= 0 && y + row < height {
      for col in 0..<other.width where x + col >= 0 && x + col < width {
        let s = (row * other.width + col) * 4
        let d = ((y + row) * width + x + col) * 4
        for c in 0..<4 { pixels[d + c] = other.pixels[s + c] }
      }
    }
  }
}
