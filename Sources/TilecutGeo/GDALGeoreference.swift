import CTilecutGDAL
import Foundation
import Synchronization
import TilecutCore

/// A raster's georeferencing as GDAL reads it (libgdal, metadata only): GDAL's own
/// reading of GeoTIFF keys (unit overrides, user-defined projections on EPSG datums,
/// ESRI citations, PixelIsPoint, ModelTransformation), of `.aux.xml` and world files,
/// in GDAL's order of precedence.
public struct GDALGeoreference: Sendable {
  /// GDAL's name of the driver that read it (`GTiff`, `PNG`, …).
  public var driver: String
  public var width: Int
  public var height: Int
  /// Source pixel (corner convention) → CRS coordinates, when GDAL has a geotransform.
  public var geoTransform: TilecutCore.AffineTransform?
  /// The CRS as WKT2:2019, when GDAL gives one.
  public var crsWKT: String?
  /// GDAL's axis mapping for that CRS: true when data (X, Y) are its second and first axes.
  public var crsAxisSwap: Bool
  /// Control points: source pixel → coordinates in `controlPointCRSWKT`.
  public var controlPoints: [(pixel: PixelPoint, model: PixelPoint)]
  public var controlPointCRSWKT: String?
  public var controlPointCRSAxisSwap: Bool
  /// Files beside the raster that GDAL read (world file, `.aux.xml`, …).
  public var sidecars: [String]
  /// GDAL's warnings while reading (contradictory tags, …).
  public var warnings: [String]

  /// Reads the georeferencing; nil when GDAL has no driver for the file (PDF, SVG, …)
  /// or could find none. Throws when libgdal cannot be loaded.
  public static func read(path: String) throws -> GDALGeoreference? {
    guard mayHaveGeoreference(path: path) else { return nil }
    var info = tc_gdal_info()
    defer { tc_gdal_free(&info) }
    // a path GDAL would read as a virtual file system (/vsicurl/, /vsizip/) is not a file
    guard !path.hasPrefix("/vsi") else { return nil }
    // GDAL opens it in a folder of vetted links (no link out of the input's folder)
    guard let folder = GDALFolder(for: path) else { return nil }
    defer { folder.remove() }
    let status = withCStrings(folder.names) { tc_gdal_read(folder.raster, $0, &info) }
    if status == -2 {
      throw TilecutError.invalidInput(path: path, reason: info.error.map { String(cString: $0) } ?? "libgdal could not be loaded")
    }
    guard status == 0 else { return nil }
    func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
    func lines(_ pointer: UnsafeMutablePointer<CChar>?) -> [String] {
      text(pointer).map { $0.split(whereSeparator: \.isNewline).map(String.init) } ?? []
    }
    var georeference = GDALGeoreference(
      driver: text(info.driver) ?? "unknown", width: Int(info.width), height: Int(info.height), geoTransform: nil,
      crsWKT: text(info.crs_wkt), crsAxisSwap: info.crs_axis_swap != 0, controlPoints: [],
      controlPointCRSWKT: text(info.gcp_crs_wkt), controlPointCRSAxisSwap: info.gcp_crs_axis_swap != 0,
      sidecars: lines(info.files).map(folder.originalPath), warnings: lines(info.warnings).map(folder.originalText))
    if info.has_geotransform != 0 {
      let t = withUnsafeBytes(of: info.geotransform) { Array($0.bindMemory(to: Double.self)) }
      georeference.geoTransform = TilecutCore.AffineTransform(a: t[1], b: t[2], c: t[0], d: t[4], e: t[5], f: t[3])
    }
    if let gcps = info.gcps, info.gcp_count > 0 {
      georeference.controlPoints = (0..<Int(info.gcp_count)).map { i in
        (PixelPoint(x: gcps[4 * i], y: gcps[4 * i + 1]), PixelPoint(x: gcps[4 * i + 2], y: gcps[4 * i + 3]))
      }
    }
    return georeference
  }
}

/// `strings` as a NULL-terminated array of C strings, for the length of `body` (which
/// passes it to C as a pointer).
func withCStrings<R>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
  let copies = strings.map { strdup($0) }
  defer { for copy in copies { free(copy) } }
  return body(copies.map { $0.map { UnsafePointer($0) } } + [nil])
}

extension GDALGeoreference {
  /// Whether GDAL could find anything to read, decided without loading libgdal (which
  /// is loaded on first use): a TIFF carries its keys; a PNG, JPEG, GIF or WebP is
  /// georeferenced only by a file beside it named after it (`plan.png.aux.xml`,
  /// `plan.pgw`, `plan.wld`, `plan.tab`: `WorldFile.namedSiblings`), as GDAL looks for
  /// them; JPEG 2000, ERDAS Imagine, GeoPackage and ENVI (a `.hdr` beside it) are read
  /// by GDAL whole; other formats have no driver among the ones tilecut registers.
  static func mayHaveGeoreference(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return true }
    let head = [UInt8]((try? handle.read(upToCount: 16)) ?? Data())
    try? handle.close()
    func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
      head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
    }
    if starts([0x49, 0x49]) || starts([0x4D, 0x4D]) { return true }  // TIFF and BigTIFF, either byte order
    // the rasters whose pixels GDAL reads (GDALRaster): JPEG 2000 (jp2 box or bare
    // codestream), ERDAS Imagine, GeoPackage (SQLite), and ENVI, whose .hdr beside it says
    if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts([0xFF, 0x4F, 0xFF, 0x51])
      || starts(Array("EHFA_HEADER_TAG".utf8)) || starts(Array("SQLite format 3".utf8))
    {
      return true
    }
    let raster =
      starts([0x89, 0x50, 0x4E, 0x47]) || starts([0xFF, 0xD8, 0xFF]) || starts([0x47, 0x49, 0x46, 0x38])
      || (starts([0x52, 0x49, 0x46, 0x46]) && starts([0x57, 0x45, 0x42, 0x50], at: 8))
    guard raster else {
      return WorldFile.namedSiblings(of: path)?.contains { $0.lowercased().hasSuffix(".hdr") } ?? false
    }
    // unlisted folder: let GDAL look
    return WorldFile.namedSiblings(of: path).map { !$0.isEmpty } ?? true
  }
}

/// GDAL's transformer through control points, as `gdalwarp -order N` or `-tps` builds it.
public final class GDALControlPointTransformer: @unchecked Sendable {
  private let handle: UnsafeMutableRawPointer
  private let lock = Mutex<Void>(())
  /// 1, 2 or 3 for a polynomial, nil for a thin-plate spline.
  public let order: Int?

  /// The most control points a thin-plate spline is fitted through: GDAL solves a
  /// dense system of one equation per point, whose cost grows as the cube of their
  /// number (3000 points of an `.aux.xml` ran for minutes; 500 take a fraction of a second).
  public static let maxSplinePoints = 500

  /// The most control points any fit takes (a polynomial's cost grows with their number).
  public static let maxControlPoints = 10_000

  /// nil when GDAL cannot fit the points with this order (too few, or on one line);
  /// throws when libgdal cannot be loaded, or when there are more points than the fit takes.
  public init?(_ points: [(pixel: PixelPoint, model: PixelPoint)], order: Int?) throws {
    if let problem = Self.tooMany(points.count, spline: order == nil) {
      throw TilecutError.invalidOption(option: order == nil ? "--tps" : "--gcp-order", reason: problem)
    }
    if let unloadable = tc_gdal_load() {
      throw TilecutError.invalidOption(option: order == nil ? "--tps" : "--gcp-order", reason: String(cString: unloadable))
    }
    let values = points.flatMap { [$0.pixel.x, $0.pixel.y, $0.model.x, $0.model.y] }
    guard let handle = tc_gdal_gcp_create(values, Int32(points.count), Int32(order ?? -1)) else { return nil }
    self.handle = handle
    self.order = order
  }

  deinit { tc_gdal_gcp_destroy(handle) }

  /// Why `count` control points are more than the fit takes, or nil.
  public static func tooMany(_ count: Int, spline: Bool) -> String? {
    if spline, count > maxSplinePoints {
      return "\(count) control points, more than a thin-plate spline is fitted through (at most \(maxSplinePoints): "
        + "its cost grows as the cube of their number); drop --tps for a polynomial fit, or keep fewer points"
    }
    if count > maxControlPoints {
      return "\(count) control points, more than tilecut fits (at most \(maxControlPoints)); keep fewer points"
    }
    return nil
  }

  /// Maps points in place, pixel → model (or back with `inverse`); points GDAL cannot map become NaN.
  public func transform(x: inout [Double], y: inout [Double], inverse: Bool = false) {
    let n = min(x.count, y.count)
    guard n > 0 else { return }
    var ok = [Int32](repeating: 0, count: n)
    lock.withLock { _ in tc_gdal_gcp_apply(handle, inverse ? 1 : 0, Int32(n), &x, &y, &ok) }
    for i in 0..<n where ok[i] == 0 || !x[i].isFinite || !y[i].isFinite {
      x[i] = .nan
      y[i] = .nan
    }
  }
}
