import CTilecutDocument
import CVips
import CVipsShim
import TilecutCore

/// What kind of samples a source has, from its header.
public struct PixelLayout: Hashable, Sendable {
  public var bands: Int
  /// libvips' band format (VipsBandFormat).
  public var format: Int
  public var interpretation: Int

  /// True for 8-bit unsigned samples, which need no scaling.
  public var isEightBit: Bool { format == Int(VIPS_FORMAT_UCHAR.rawValue) }

  /// "16-bit signed", "32-bit float" and so on.
  public var formatName: String {
    switch format {
    case Int(VIPS_FORMAT_UCHAR.rawValue): return "8-bit unsigned"
    case Int(VIPS_FORMAT_CHAR.rawValue): return "8-bit signed"
    case Int(VIPS_FORMAT_USHORT.rawValue): return "16-bit unsigned"
    case Int(VIPS_FORMAT_SHORT.rawValue): return "16-bit signed"
    case Int(VIPS_FORMAT_UINT.rawValue): return "32-bit unsigned"
    case Int(VIPS_FORMAT_INT.rawValue): return "32-bit signed"
    case Int(VIPS_FORMAT_FLOAT.rawValue): return "32-bit float"
    case Int(VIPS_FORMAT_DOUBLE.rawValue): return "64-bit float"
    default: return "complex"
    }
  }
}

/// Looks at a source's samples: their layout, and the range of its data.
public enum SourcePixels {
  /// The band count and sample format of an input, from its header.
  public static func layout(of input: InputName) throws -> PixelLayout {
    let image = try SourceImage.open(path: input.path, page: input.page, sequential: true)
    var bands: Int32 = 0
    var format: Int32 = 0
    var interpretation: Int32 = 0
    tc_pixel_layout(image.pointer, &bands, &format, &interpretation)
    return PixelLayout(bands: Int(bands), format: Int(format), interpretation: Int(interpretation))
  }

  /// The smallest and largest sample of band `band` (0-based) that is neither NaN
  /// nor `nodata`; nil when there is none. Decodes the whole input once.
  public static func dataRange(of input: InputName, band: Int = 0, nodata: Double?) throws -> ClosedRange<Double>? {
    var image = try SourceImage.open(path: input.path, page: input.page, sequential: true)
    if band > 0 {
      let index = [Int32(band)]
      image = try image.map("band \(band + 1) of \(input.path)") { tc_select_bands($0, &$1, index, 1) }
    }
    var lo = 0.0
    var hi = 0.0
    let found = tc_data_range(image.pointer, nodata == nil ? 0 : 1, nodata ?? 0, &lo, &hi)
    if found < 0 {
      throw InputCheck.readFailure(path: input.path, VipsError.current("read"))
    }
    return found == 1 ? lo...hi : nil
  }
}
