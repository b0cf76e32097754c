import CTilecutDocument
import CTilecutLossy
import CTilecutPNG
import CVips
import CVipsShim
import TilecutCore

/// The file formats a tile can be written in.
public enum TileFormat: String, CaseIterable, Codable, Sendable {
  case png, webp, jpeg

  public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }
}

/// Encodes RGBA8 tiles: PNG with libdeflate (libvips' libimagequant for --palette),
/// WebP with libwebp and JPEG with libjpeg, all straight from the strip's rows.
public struct VipsTileEncoder: TileEncoder {
  public var format: TileFormat
  public var pngCompression: Int
  public var palette: Bool
  public var quality: Int
  /// What JPEG tiles are flattened onto where they are transparent: white by default.
  public var fill: ColorRule?
  /// libwebp's effort (its method), 0 (fast) to 6 (small); dzsave uses libwebp's 4.
  public var webpEffort: Int = VipsTileEncoder.defaultWebPEffort
  /// Optimised Huffman tables for JPEG tiles (`--jpeg-optimize`): off by default, as
  /// libjpeg-turbo's statistics pass has no SIMD and about doubles its encode time for
  /// 7-13 % fewer bytes (bench/README.md "Photo tiles").
  public var jpegOptimize = false

  /// Effort 4, libwebp's own and dzsave's: its pixels exactly, in 0.70× dzsave's time
  /// on two cores (the bench's 8192² photo at q75, quiet machine). Effort 2, with the
  /// options below, takes 0.4–0.5× the encode time of 4 for 1.04–1.05× the bytes and
  /// PSNR within 0.05 dB, but a lower luma SSIM (−0.007 on the bench's grainy photo,
  /// −0.0001 on a mosaic of real ones): no libwebp setting gives effort 4's SSIM in
  /// under 0.95× its time, which takes the rate-distortion choice of 4×4 intra modes,
  /// efforts 3–6 (bench/README.md "Photo tiles against dzsave").
  public static let defaultWebPEffort = 4
  /// libwebp's own default effort (and dzsave's); tilecut's default was 2 for a while.
  public static let libwebpDefaultEffort = 4

  /// libwebp's spatial noise shaping and loop-filter strength at efforts 0–2, which
  /// have no rate-distortion optimisation: less noise shaping (20, libwebp's default is
  /// 50) puts the bits where the error is, a stronger filter (90, default 60) hides the
  /// blocks; together they give back the PSNR that effort 2 loses to 4 at libwebp's
  /// own settings (29.16 → 29.29 dB, 4: 29.27) and most of it on a mosaic of real
  /// photographs (41.43 → 41.62 dB, 4: 41.67), at the cost of luma SSIM on grain
  /// (0.9095 → 0.9055, 4: 0.9125). No other setting of them, of sharpness, segments
  /// or autofilter did better on both kinds of photo. Efforts 3–6 keep libwebp's defaults.
  public static let fastWebPNoiseShaping: Int32 = 20
  public static let fastWebPFilterStrength: Int32 = 90

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
    precondition(rgba.count >= size * size * 4, "a tile of \(size)² RGBA pixels")
    let bytes = try rgba.withUnsafeBufferPointer { buf -> [UInt8]? in
      guard let base = buf.baseAddress else { return nil }
      return try direct(base, stride: size * 4, size: size, upsampled: upsampled)
    }
    return try bytes ?? vipsEncode(rgba: rgba, size: size, upsampled: upsampled)
  }

  /// Every format is encoded straight from the strip's rows; only --palette PNG tiles
  /// of more than 256 colours are quantised by libvips (libimagequant) from packed rows.
  public func encode(pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8] {
    if let bytes = try direct(pixels, stride: stride, size: size, upsampled: upsampled) { return bytes }
    let rgba = [UInt8](unsafeUninitializedCapacity: size * size * 4) { out, count in
      if let o = out.baseAddress {
        for row in 0..<size { (o + row * size * 4).initialize(from: pixels + row * stride, count: size * 4) }
      }
      count = size * size * 4
    }
    return try vipsEncode(rgba: rgba, size: size, upsampled: upsampled)
  }

  /// The tile in its format from rows `stride` bytes apart, or nil when libvips must
  /// quantise it (--palette PNG).
  private func direct(_ pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8]? {
    switch format {
    case .png: return try png(pixels, stride: stride, size: size, upsampled: upsampled)
    case .webp: return try webp(pixels, stride: stride, size: size)
    case .jpeg: return try jpeg(pixels, stride: stride, size: size)
    }
  }

  /// libwebp's lossy encoder at --quality and --webp-effort, with libwebp's defaults
  /// otherwise (those of vips webpsave) but for the fast efforts' options above; the
  /// alpha plane, where a pixel is not opaque, losslessly.
  private func webp(_ pixels: UnsafePointer<UInt8>, stride: Int, size: Int) throws -> [UInt8] {
    var options = tc_webp_options_default(Int32(quality), Int32(webpEffort))
    if webpEffort <= 2 {
      options.sns_strength = Self.fastWebPNoiseShaping
      options.filter_strength = Self.fastWebPFilterStrength
    }
    var length = 0
    guard let buffer = tc_webp_encode_rows(pixels, stride, Int32(size), Int32(size), &options, &length) else {
      throw VipsError(operation: "webpsave", message: "libwebp could not encode a tile")
    }
    defer { tc_lossy_free(buffer) }
    return [UInt8](UnsafeBufferPointer(start: buffer, count: length))
  }

  /// libjpeg at --quality as vips jpegsave writes it (4:2:0 below 90, the accurate
  /// DCT); optimised Huffman tables with `jpegOptimize` (the same pixels). Transparent
  /// pixels are flattened onto `fill`, white by default.
  private func jpeg(_ pixels: UnsafePointer<UInt8>, stride: Int, size: Int) throws -> [UInt8] {
    let colour: [UInt8] = fill.map { [$0.red, $0.green, $0.blue] } ?? [255, 255, 255]
    var length = 0
    let buffer = colour.withUnsafeBufferPointer {
      tc_jpeg_encode_rows(pixels, stride, Int32(size), Int32(size), Int32(quality), jpegOptimize ? 1 : 0, $0.baseAddress, &length)
    }
    guard let buffer else { throw VipsError(operation: "jpegsave", message: "libjpeg could not encode a tile") }
    defer { tc_lossy_free(buffer) }
    return [UInt8](UnsafeBufferPointer(start: buffer, count: length))
  }

  /// The same tile through libvips' savers (webpsave, jpegsave with vips_flatten), as
  /// tilecut wrote them before: what the tests compare the direct encoders with.
  func libvipsEncode(rgba: [UInt8], size: Int) throws -> [UInt8] {
    try vipsEncode(rgba: rgba, size: size, upsampled: false)
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
    if let overlay = try OverlaySource.resolve(path: input.path, page: input.page) {
      return vips_image_hasalpha(try openOverlay(overlay, sequential: false).pointer) != 0
    }
    let format = try SourceFormat.detect(path: input.path)
    return try format.kind.hasAlpha(input, format: format)
  }
}
