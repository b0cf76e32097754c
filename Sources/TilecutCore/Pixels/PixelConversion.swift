/// How a source's samples become RGBA8 when they are not 8-bit colour: which bands,
/// and for one band of 16-bit or floating-point data, the range stretched to 0…255
/// and the value that means "no data" (transparent).
public struct PixelConversion: Hashable, Sendable, Codable {
  /// 0-based bands to keep, in order (R, G, B[, A]); nil keeps them all.
  public var bands: [Int]?
  /// Band 0 is scaled from min…max to 0…255 (nil: left to libvips' colour conversion).
  public var scale: ClosedRange<Double>?
  /// Samples equal to this are transparent (with `scale`).
  public var nodata: Double?
  /// GDAL's per-dataset mask of the source (an internal TIFF mask, a `.msk` beside it)
  /// makes its masked pixels transparent, as gdalwarp leaves them (nil: no mask).
  public var gdalMask: Bool?

  public init(bands: [Int]? = nil, scale: ClosedRange<Double>? = nil, nodata: Double? = nil) {
    self.bands = bands
    self.scale = scale
    self.nodata = nodata
  }
}
