import CTilecutGDAL
import Foundation
import TilecutCore

/// A PDF page's georeferencing as GDAL's PDF driver reads it (the file itself for its
/// first page, with its `.aux.xml`; GDAL's subdataset `PDF:N:path` for another), at
/// GDAL's own DPI: the geotransform, the CRS and the map frame (GDAL's `NEATLINE`).
public struct GeoPDFPage: Sendable {
  /// How the page states its georeferencing.
  public enum Encoding: String, Sendable {
    /// OGC's best practice (TerraGo's LGIDict).
    case lgidict
    /// ISO 32000 (a viewport `/VP` whose `/Measure` is `/GEO`).
    case iso32000

    /// For the placement line.
    public var label: String {
      switch self {
      case .lgidict: return "OGC best practice (LGIDict)"
      case .iso32000: return "ISO 32000 (/VP /Measure /GEO)"
      }
    }
  }

  /// GDAL's size of the page in its pixels (150 dpi unless GDAL_PDF_DPI says otherwise).
  public var width: Int
  public var height: Int
  public var encoding: Encoding?
  /// GDAL's pixel (corner convention, y down from the top) → CRS coordinates.
  public var geoTransform: TilecutCore.AffineTransform?
  public var crsWKT: String?
  public var crsAxisSwap: Bool
  /// Control points GDAL gives instead of a geotransform (how many).
  public var controlPointCount: Int
  /// The map frame's outer ring in the CRS (empty when GDAL gives none).
  public var neatline: [PixelPoint]
  /// The page has a viewport whose measure is a drawing scale (`/Measure /Subtype /RL`,
  /// as AutoCAD plots write it): no place on the Earth.
  public var hasDrawingScale: Bool
  /// Files beside the PDF that GDAL read (its `.aux.xml`).
  public var sidecars: [String]
  public var warnings: [String]

  /// Whether the page says anything of a place on the Earth (and so must be placed by
  /// it, or refused).
  public var isGeoreferenced: Bool { encoding != nil || geoTransform != nil || crsWKT != nil || controlPointCount > 0 }

  /// Page `page` (from 0) of the PDF at `path`, opened in a private folder of vetted
  /// links (`GDALFolder`). Nil when GDAL cannot open the page; throws when libgdal
  /// cannot be loaded.
  public static func read(path: String, page: Int) throws -> GeoPDFPage? {
    guard !path.hasPrefix("/vsi"), mayBeGeoreferenced(path: path), let folder = GDALFolder(for: path) else { return nil }
    defer { folder.remove() }
    var info = tc_gdal_pdf_info()
    defer { tc_gdal_pdf_free(&info) }
    let status = withCStrings(folder.names) { tc_gdal_read_pdf(folder.raster, Int32(clamping: page), $0, &info) }
    if status == -2 {
      throw TilecutError.invalidInput(path: path, reason: info.error.map { String(cString: $0) } ?? "libgdal could not be loaded")
    }
    guard status == 0 else { return nil }
    func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
    var found = GeoPDFPage(
      width: Int(info.width), height: Int(info.height), encoding: info.encoding == 1 ? .lgidict : info.encoding == 2 ? .iso32000 : nil,
      geoTransform: nil, crsWKT: text(info.crs_wkt), crsAxisSwap: info.crs_axis_swap != 0, controlPointCount: Int(info.gcp_count),
      neatline: [], hasDrawingScale: info.drawing_scale != 0,
      sidecars: (text(info.files) ?? "").split(whereSeparator: \.isNewline).map { folder.originalPath(String($0)) },
      warnings: (text(info.warnings) ?? "").split(whereSeparator: \.isNewline).map { folder.originalText(String($0)) })
    if info.has_geotransform != 0 {
      let t = withUnsafeBytes(of: info.geotransform) { Array($0.bindMemory(to: Double.self)) }
      found.geoTransform = TilecutCore.AffineTransform(a: t[1], b: t[2], c: t[0], d: t[4], e: t[5], f: t[3])
    }
    if let points = info.neatline, info.neatline_count > 0 {
      found.neatline = (0..<Int(info.neatline_count)).map { PixelPoint(x: points[2 * $0], y: points[2 * $0 + 1]) }
    }
    return found
  }

  /// Whether GDAL could find georeferencing in the PDF, decided from its bytes without
  /// loading libgdal (most PDFs are plain drawings): an LGIDict or a viewport's
  /// `/Measure` spelled out, or object streams, which may hide either; or a file beside
  /// it that GDAL reads (`plan.pdf.aux.xml`).
  static func mayBeGeoreferenced(path: String) -> Bool {
    if let siblings = WorldFile.namedSiblings(of: path), siblings.contains(where: { $0.lowercased().hasSuffix(".aux.xml") }) { return true }
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return true }
    let markers = ["LGIDict", "/Measure", "/ObjStm"].map { Data($0.utf8) }
    return markers.contains { data.range(of: $0) != nil }
  }
}
