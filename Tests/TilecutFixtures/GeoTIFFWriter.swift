import CTilecutFixtures
import Foundation
import TilecutCore

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
