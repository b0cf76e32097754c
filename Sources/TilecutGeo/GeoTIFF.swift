import CGeoShim
import Foundation
import TilecutCore

/// What a GeoTIFF's own tags say: the pixel-to-model map, the CRS, and nodata.
public struct GeoTIFFTags: Sendable {
  /// Source pixel (GDAL continuous; PixelIsPoint already shifted) → model coordinates.
  public var toModel: TilecutCore.AffineTransform?
  public var pixelIsPoint: Bool
  /// The CRS from the GeoKeys, nil when the file has none.
  public var crs: CRSDefinition?
  /// Why the GeoKeys give no usable CRS, when they are present but PROJ refuses them.
  public var crsProblem: String?
  public var linearUnitMeters: Double
  public var nodata: Double?
  /// More than one tie point without a pixel scale: control points (fitted affine, as
  /// gdalwarp does by default).
  public var controlPointCount: Int
  /// Those control points: source pixel (GDAL continuous, PixelIsPoint applied) → model.
  public var controlPoints: [(pixel: PixelPoint, model: PixelPoint)] = []

  /// Reads the tags of a TIFF with libtiff and libgeotiff; nil when it is not a TIFF.
  public static func read(path: String) -> GeoTIFFTags? {
    var info = tc_geotiff_info()
    var error = [CChar](repeating: 0, count: 256)
    guard tc_geotiff_read(path, &info, &error, error.count) == 0 else { return nil }
    var tags = GeoTIFFTags(
      toModel: nil, pixelIsPoint: info.pixel_is_point != 0, crs: nil, crsProblem: nil,
      linearUnitMeters: info.linear_unit_meters, nodata: info.has_nodata != 0 ? info.nodata : nil,
      controlPointCount: info.has_transform == 0 && info.tiepoint_count > 1 ? Int(info.tiepoint_count) : 0)
    if tags.controlPointCount > 0 {
      let shift = tags.pixelIsPoint ? 0.5 : 0
      let values = withUnsafeBytes(of: info.tiepoints) { Array($0.bindMemory(to: Double.self)) }
      tags.controlPoints = (0..<min(tags.controlPointCount, 64)).map { k in
        let v = values[(6 * k)..<(6 * k + 6)].map { $0 }
        return (PixelPoint(x: v[0] + shift, y: v[1] + shift), PixelPoint(x: v[3], y: v[4]))
      }
    }
    if info.has_transform != 0 {
      let t = info.transform
      tags.toModel = TilecutCore.AffineTransform(a: t.1, b: t.2, c: t.0, d: t.4, e: t.5, f: t.3)
    }
    let definition: String?
    if info.epsg > 0 {
      definition = "EPSG:\(info.epsg)"
    } else {
      let text = withUnsafeBytes(of: info.proj_definition) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      definition = text.isEmpty ? nil : text
    }
    if let definition, info.has_keys != 0 {
      do { tags.crs = try ProjTransformer.describe(definition, option: path) } catch {
        tags.crsProblem = "\(error)"
      }
    }
    return tags
  }
}

/// Writes small GeoTIFFs through libtiff and libgeotiff (test fixtures, examples).
public enum GeoTIFFWriter {
  /// GeoKey numbers, from the GeoTIFF specification.
  public enum Key: Int32, Sendable {
    case modelType = 1024
    case rasterType = 1025
    case geographicType = 2048
    case geogAngularUnits = 2054
    case projectedCSType = 3072
    case projection = 3074
    case projCoordTrans = 3075
    case projLinearUnits = 3076
    case projStdParallel1 = 3078
    case projStdParallel2 = 3079
    case projNatOriginLong = 3080
    case projNatOriginLat = 3081
    case projFalseEasting = 3082
    case projFalseNorthing = 3083
    case projFalseOriginLong = 3084
    case projFalseOriginLat = 3085
    case projFalseOriginEasting = 3086
    case projFalseOriginNorthing = 3087
    case projCenterLong = 3088
    case projCenterLat = 3089
    case projScaleAtNatOrigin = 3092
  }

  /// Writes `pixels` (`bands` samples of `bits` each per pixel, row by row, native
  /// byte order; `sampleFormat` 1 unsigned, 2 signed, 3 float) with the given
  /// georeferencing: a tie point (I, J, K, X, Y, Z) and scale (3), or a 4 × 4 matrix.
  public static func write(
    path: String, width: Int, height: Int, bands: Int, bits: Int = 8, sampleFormat: Int = 1, pixels: [UInt8],
    tiepoint: [Double]? = nil, scale: [Double]? = nil, matrix: [Double]? = nil, shortKeys: [(Key, Int)] = [],
    doubleKeys: [(Key, Double)] = [], nodata: String? = nil
  ) throws {
    guard pixels.count >= width * height * bands * bits / 8 else {
      throw TilecutError.invalidInput(path: path, reason: "too few pixel bytes for \(width)×\(height)×\(bands)")
    }
    let sk = shortKeys.map { $0.0.rawValue }
    let sv = shortKeys.map { Int32($0.1) }
    let dk = doubleKeys.map { $0.0.rawValue }
    let dv = doubleKeys.map(\.1)
    let result = pixels.withUnsafeBytes { px in
      withOptional(tiepoint) { tp in
        withOptional(scale) { sc in
          withOptional(matrix) { mx in
            tc_geotiff_write(
              path, Int32(width), Int32(height), Int32(bands), Int32(bits), Int32(sampleFormat), px.baseAddress, tp,
              Int32(tiepoint?.count ?? 0), sc, mx, sk, sv, Int32(sk.count), dk, dv, Int32(dk.count), nodata)
          }
        }
      }
    }
    guard result == 0 else { throw TilecutError.output(path: path, reason: "cannot write the GeoTIFF") }
  }

  private static func withOptional<R>(_ values: [Double]?, _ body: (UnsafePointer<Double>?) -> R) -> R {
    guard let values else { return body(nil) }
    return values.withUnsafeBufferPointer { body($0.baseAddress) }
  }
}
