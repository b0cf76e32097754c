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
