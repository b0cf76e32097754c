import CTilecutPNG
import CVips
import CVipsShim
import TilecutCore

/// The file formats a tile can be written in.
public enum TileFormat: String, CaseIterable, Codable, Sendable {
  case png, webp, jpeg

  public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// Encodes RGBA8 tiles with libvips' savers (libspng/libpng, libwebp, libjpeg).
public struct VipsTileEncoder: TileEncoder {
  public var format: TileFormat
  public var pngCompression: Int
  public var palette: Bool
  public var quality: Int
  /// What JPEG tiles are flattened onto where they are transparent: white by default.
  public var fill: ColorRule?
  /// libwebp's effort (its method), 0 (fast) to 6 (small); 4 is libwebp's and dzsave's default.
  public var webpEffort: Int = VipsTileEncoder.defaultWebPEffort

  /// libwebp's own default: on an 8192² photo at q75 effort 2 took 0.58× the CPU of 4
  /// for 4.5 % more bytes and 0.1 dB less PSNR, effort 3 the same as 4.
  public static let defaultWebPEffort = 4

  public init(format: TileFormat = .png, pngCompression: Int = 6, palette: Bool = false, quality: Int = 85, fill: ColorRule? = nil) {
    self.format = format
    self.pngCompression = pngCompression
    self.palette = palette
    self.quality = quality
    self.fill = fill
  }

  public var fileExtension: String { format.fileExtension }

  /// The most deflate effort spent on upsampled tiles: they hold no detail of
  /// their own, and on a photo level 6 took 1.7× the time of level 4 for 3 % fewer
  /// bytes (drawings are palette tiles, where it hardly matters).
  public static let upsampledLevelCap = 4

  public func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] {
    if format == .png,
      let bytes = try rgba.withUnsafeBufferPointer({ buf in
        try buf.baseAddress.flatMap { try png($0, stride: size * 4, size: size, upsampled: upsampled) }
      })
    {
      return bytes
    }
    return try vipsEncode(rgba: rgba, size: size, upsampled: upsampled)
  }

  /// PNG tiles are deflated straight from the strip; the other formats go through
  /// libvips, which needs packed rows.
  public func encode(pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8] {
    if format == .png, let bytes = try png(pixels, stride: stride, size: size, upsampled: upsampled) { return bytes }
    let rgba = [UInt8](unsafeUninitializedCapacity: size * size * 4) { out, count in
      if let o = out.baseAddress {
        for row in 0..<size { (o + row * size * 4).initialize(from: pixels + row * stride, count: size * 4) }
      }
      count = size * size * 4
    }
    return try vipsEncode(rgba: rgba, size: size, upsampled: upsampled)
  }

  /// libdeflate, losslessly: a palette PNG when the tile has at most 256 colours
  /// (most tiles of a drawing), else RGB(A) with per-row filters. Nil with --palette
  /// when the tile has more colours: libimagequant (libvips) quantises those.
  private func png(_ pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8]? {
    let pngCompression = upsampled ? min(self.pngCompression, Self.upsampledLevelCap) : self.pngCompression
    var length = 0
    let mode = Int32(palette ? TC_PNG_INDEXED_ONLY : TC_PNG_INDEXED_WHEN_EXACT)
    if let buffer = tc_png_encode_rows(pixels, stride, Int32(size), Int32(size), Int32(pngCompression), mode, &length) {
      defer { tc_png_free(buffer) }
      return [UInt8](UnsafeBufferPointer(start: buffer, count: length))
    }
    if !palette || length != 0 { throw VipsError(operation: "pngsave", message: "out of memory encoding a tile") }
    return nil
  }

  private func vipsEncode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] {
    let pngCompression = upsampled ? min(self.pngCompression, Self.upsampledLevelCap) : self.pngCompression
    try Vips.start()
    return try rgba.withUnsafeBytes { raw -> [UInt8] in
      guard let image = vips_image_new_from_memory(raw.baseAddress, raw.count, Int32(size), Int32(size), 4, VIPS_FORMAT_UCHAR)
      else { throw VipsError.current("new_from_memory") }
      defer { g_object_unref(image) }
      var buffer: UnsafeMutableRawPointer?
      var length = 0
      let status: Int32
      switch format {
      case .png: status = tc_save_png(image, Int32(pngCompression), palette ? 1 : 0, &buffer, &length)
      // lossy WebP keeps the alpha plane (losslessly, libwebp's default alpha quality)
      case .webp: status = tc_save_webp_effort(image, Int32(quality), Int32(webpEffort), &buffer, &length)
      case .jpeg:
        let colour: [Double] = fill.map { [Double($0.red), Double($0.green), Double($0.blue)] } ?? [255, 255, 255]
        status = colour.withUnsafeBufferPointer { tc_save_jpeg(image, Int32(quality), $0.baseAddress, &buffer, &length) }
      }
      guard status == 0, let buffer else { throw VipsError.current("\(format.rawValue)save") }
      defer { g_free(buffer) }
      return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }
  }
}

extension SourceImage {
  /// Whether the input has an alpha channel as libvips loads it (RGBA, grey + alpha,
  /// a PNG with tRNS, a document page): what JPEG tiles cannot keep.
  public static func hasAlpha(_ input: InputName) throws -> Bool {
    try Vips.start()
    var alpha: Int32 = 0
    let format = try SourceFormat.detect(path: input.path)
    guard tc_has_alpha(format.loader, input.path, Int32(input.page ?? -1), &alpha) == 0 else {
      let error = VipsError.current("load")
      throw TilecutError.invalidInput(
        path: input.path, reason: "cannot be read as an image (\(error.message.isEmpty ? error.operation : error.message))")
    }
    return alpha != 0
  }
}
