import Foundation
import TilecutCore
import TilecutGeo

/// Placement from the georeferencing GDAL reads in a raster (GeoTIFF keys, `.aux.xml`,
/// world files, in GDAL's precedence), its CRS, and GDAL's control-point fits.
extension PlacementOptions {
  /// The polynomial order for control points: --tps (-1), --gcp-order, else GDAL's
  /// choice (0: order 1 below 6 points, 2 from 6, as gdalwarp).
  var controlPointOrder: Int { tps ? -1 : (gcpOrder ?? 0) }

  /// The placement GDAL's reading of the file gives, nil when GDAL finds none (or has
  /// no driver for the format).
  func gdalPlacement(_ floor: FloorSource, pyramid: PyramidOptions, printer: Printer) throws -> Placement? {
    let path = floor.input.path
    guard let found = try GDALGeoreference.read(path: path) else { return nil }
    let size = (floor.description.width, floor.description.height)
    let sidecars = found.sidecars.filter { $0 != path }
    var placement: Placement
    if let transform = found.geoTransform {
      // the file the geotransform came from is the one a refusal names
      let (method, source) = try Self.geoTransformSource(found, transform: transform, sidecars: sidecars, path: path)
      guard [transform.a, transform.b, transform.c, transform.d, transform.e, transform.f].allSatisfy(\.isFinite) else {
        throw TilecutError.invalidInput(path: source, reason: "its geotransform holds a number that is not finite")
      }
      if try explicitCRS() == nil, let problem = Self.offTheEarth(found, transform: transform, width: size.0, height: size.1) {
        throw TilecutError.invalidInput(path: source, reason: problem)
      }
      let crs = try crsFor(path: path, wkt: found.crsWKT, axisSwap: found.crsAxisSwap, what: "georeferencing", sidecars: sidecars)
      placement = try Self.fromFile(source) {
        try GeoPlacement.make(
          method: method, toCRS: transform, crs: crs, width: size.0, height: size.1, deepestZoom: pyramid.maxZoom, option: source)
      }
      placement.sidecars = Self.unique(sidecars + crs.files)
      if method == .geotiff {
        try worldFileAgreement(path: path, keys: transform, width: size.0, height: size.1, printer: printer)
      }
    } else if !found.controlPoints.isEmpty {
      let crs = try crsFor(
        path: path, wkt: found.controlPointCRSWKT ?? found.crsWKT,
        axisSwap: found.controlPointCRSWKT != nil ? found.controlPointCRSAxisSwap : found.crsAxisSwap, what: "control points",
        sidecars: sidecars)
      let points = found.controlPoints
      // the .aux.xml that holds them, when one does, is the file a refusal names
      let source =
        sidecars.first { $0.lowercased().hasSuffix(".aux.xml") && ((try? Self.sidecarText($0))?.contains("<GCPList") ?? false) } ?? path
      // before any fit: a spline through thousands of points runs for minutes
      if let problem = GDALControlPointTransformer.tooMany(points.count, spline: controlPointOrder < 0) {
        throw TilecutError.invalidInput(path: source, reason: "has " + problem)
      }
      guard let affine = TilecutCore.AffineTransform.fit(from: points.map(\.pixel), to: points.map(\.model)), affine.inverse != nil
      else {
        throw TilecutError.invalidInput(
          path: source, reason: "has \(points.count) control points; at least 3, not on one line, are needed to place it")
      }
      let order = controlPointOrder
      try checkResidual(points, order: order, path: source, width: size.0, height: size.1, printer: printer)
      placement = try Self.fromFile(source) {
        try GeoPlacement.make(
          method: found.driver == "GTiff" ? .geotiffGCP : .gcpFile, toCRS: affine, crs: crs, width: size.0, height: size.1,
          deepestZoom: pyramid.maxZoom, controlPoints: points, controlPointOrder: order == 1 ? nil : order, option: source)
      }
      placement.sidecars = Self.unique(sidecars + crs.files)
    } else {
      return nil
    }
    for warning in found.warnings { printer.warning("\(path): GDAL: \(warning)") }
    if let warning = placement.crsOperationWarning { try warn("\(path): \(warning)", printer: printer) }
    return placement
  }

  /// How GDAL found the geotransform (`world-file`, `aux-xml`, `geotiff` for the keys)
  /// and the file it came from. A world file GDAL read is read again by tilecut's own
  /// parser first, which refuses what GDAL's lenient one takes (`hello` as 0, `0.1abc`
  /// as 0.1), naming it; the one whose numbers are GDAL's placed the image.
  static func geoTransformSource(
    _ found: GDALGeoreference, transform: TilecutCore.AffineTransform, sidecars: [String], path: String
  ) throws -> (method: PlacementMethod, file: String) {
    let worldFiles = sidecars.filter(isWorldFileName)
    var matching: String?
    for worldFile in worldFiles {
      let parsed = try WorldFile.parse(try sidecarText(worldFile), path: worldFile, quoting: false)
      if matching == nil && Self.same(parsed, transform) { matching = worldFile }
    }
    if let matching { return (.worldFile, matching) }
    if let aux = sidecars.first(where: { $0.lowercased().hasSuffix(".aux.xml") && auxHasGeoTransform($0) }) { return (.auxXML, aux) }
    if let worldFile = worldFiles.first { return (.worldFile, worldFile) }
    return (found.driver == "GTiff" ? .geotiff : .driver(found.driver), path)
  }

  /// Why GDAL's geotransform in a geographic CRS is no place on the Earth (latitudes
  /// past ±90°), or nil. GDAL 3.6 reads a GeoPackage whose `gpkg_contents` bounds are
  /// in degrees and whose tile matrix set is in EPSG:3857 metres as a 1 × 1 raster
  /// spanning thousands of degrees; placing that would be off by the whole map.
  static func offTheEarth(_ found: GDALGeoreference, transform t: TilecutCore.AffineTransform, width: Int, height: Int) -> String? {
    guard let wkt = found.crsWKT, wkt.hasPrefix("GEOGCRS") else { return nil }
    let w = Double(width)
    let h = Double(height)
    // GDAL's geotransform of a geographic CRS: X longitude, Y latitude (its GIS order)
    let corners = [(0.0, 0.0), (w, 0), (0, h), (w, h)].map { (x: t.c + t.a * $0.0 + t.b * $0.1, y: t.f + t.d * $0.0 + t.e * $0.1) }
    let ys = corners.map(\.y)
    let xs = corners.map(\.x)
    // a global grid whose pixel centres lie on the poles reaches half a pixel past them
    let margin = min(10, 0.5 * max(abs(t.a), abs(t.b), abs(t.d), abs(t.e))) + 0.001
    guard let south = ys.min(), let north = ys.max(), let west = xs.min(), let east = xs.max(),
      south < -90 - margin || north > 90 + margin
    else { return nil }
    func f(_ v: Double) -> String { String(format: "%.6g", v) }
    var why =
      "GDAL reads its extent as longitude \(f(west))…\(f(east)), latitude \(f(south))…\(f(north)) (\(width) × \(height) px), "
      + "which is not on the Earth"
    if found.driver == "GPKG" {
      why += " (its gpkg_contents bounds and its tile matrix set are in different CRSs, which GDAL mixes)"
    }
    return why + "; fix its georeferencing, or place it with --bounds or control points"
  }

  /// The same six numbers, but for rounding.
  static func same(_ p: TilecutCore.AffineTransform, _ q: TilecutCore.AffineTransform) -> Bool {
    zip([p.a, p.b, p.c, p.d, p.e, p.f], [q.a, q.b, q.c, q.d, q.e, q.f]).allSatisfy { x, y in
      abs(x - y) <= 1e-9 * max(1, abs(x), abs(y))
    }
  }

  static func isWorldFileName(_ path: String) -> Bool {
    let ext = (path as NSString).pathExtension.lowercased()
    return ext == "wld" || (ext.count >= 3 && ext.hasSuffix("w") && !["raw", "xml"].contains(ext))
  }

  static func auxHasGeoTransform(_ path: String) -> Bool {
    guard let text = try? sidecarText(path) else { return false }
    return text.contains("<GeoTransform>")
  }

  /// Each path once: world files, then `.prj`, then `.aux.xml`, then the rest.
  static func unique(_ paths: [String]) -> [String] {
    var seen = Set<String>()
    func rank(_ path: String) -> Int {
      let lower = path.lowercased()
      if lower.hasSuffix(".aux.xml") { return 2 }
      if lower.hasSuffix(".prj") { return 1 }
      return isWorldFileName(path) ? 0 : 3
    }
    let kept = paths.filter { seen.insert($0).inserted }
    return kept.indices.sorted { (rank(kept[$0]), $0) < (rank(kept[$1]), $1) }.map { kept[$0] }
  }

  /// --source-crs, else GDAL's CRS, else a `.prj` beside the raster or its world file
  /// (GDAL ignores one beside a PNG or GIF; GIS users write them).
  /// `sidecars`: the files GDAL read beside the raster; a CRS PROJ cannot use is blamed
  /// on the `.aux.xml` that holds one, else on the raster, and never quoted.
  func crsFor(path: String, wkt: String?, axisSwap: Bool, what: String, sidecars: [String] = []) throws -> CRSDefinition {
    if let explicit = try explicitCRS() { return explicit }
    // an engineering CRS (ERDAS's "Geocoding information not available") is no place on the Earth
    if let wkt, !wkt.hasPrefix("ENGCRS") {
      let holder =
        sidecars.first { $0.lowercased().hasSuffix(".aux.xml") && ((try? Self.sidecarText($0))?.contains("<SRS") ?? false) } ?? path
      do {
        var crs = try ProjTransformer.describe(wkt, option: holder, files: [holder])
        crs.gdalAxisSwap = axisSwap
        return crs
      } catch TilecutError.invalidOption(_, let reason) {
        throw TilecutError.invalidInput(path: holder, reason: "GDAL reads a CRS PROJ cannot use (\(reason)); give --source-crs")
      }
    }
    let worldFile = WorldFile.findSidecar(for: path)
    if let found = try sidecarCRS(imagePath: path, worldFile: worldFile) { return found }
    // GeoKeys that name a code PROJ does not know: GDAL falls back to a local CRS; say which code
    if let problem = GeoTIFFTags.read(path: path)?.crsProblem {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "has \(what), but the CRS its GeoKeys name is not one PROJ knows (\(problem)); give --source-crs (EPSG:NNNN, a PROJ string or a WKT file)")
    }
    throw TilecutError.invalidInput(
      path: path, reason: "has \(what) but no CRS; give --source-crs (EPSG:NNNN, a PROJ string or a WKT file) or put a .prj beside it")
  }

  /// GDAL reads a GeoTIFF's own keys before a world file beside it; say so when the two
  /// disagree by more than a pixel.
  func worldFileAgreement(path: String, keys: TilecutCore.AffineTransform, width: Int, height: Int, printer: Printer) throws {
    guard let sidecar = WorldFile.findSidecar(for: path), let text = try? Self.sidecarText(sidecar),
      let other = try? WorldFile.parse(text, path: sidecar, quoting: false), let inverse = keys.inverse
    else { return }
    var worst = 0.0
    let (w, h) = (Double(width), Double(height))
    for (x, y) in [(0.0, 0.0), (w, 0.0), (0.0, h), (w, h)] {
      let model = other.apply(x, y)
      let back = inverse.apply(model.x, model.y)
      worst = max(worst, hypot(back.x - x, back.y - y))
    }
    guard worst > 1 else { return }
    try warn(
      String(
        format: "%@ disagrees with the GeoTIFF keys of %@ by %.0f source pixels; the keys win, as in GDAL; delete or fix the world file",
        sidecar, path, worst), printer: printer)
  }

  /// Refuses control points whose fit (the order used) leaves an RMS residual above the limit.
  func checkResidual(
    _ points: [(pixel: PixelPoint, model: PixelPoint)], order: Int, path: String, width: Int, height: Int, printer: Printer
  ) throws {
    guard let fitted = try GDALControlPointTransformer(points, order: order < 0 ? nil : order) else {
      throw TilecutError.invalidInput(
        path: path,
        reason: "GDAL cannot fit its \(points.count) control points with " + (order < 0 ? "a thin-plate spline" : "this order")
          + "; try --gcp-order 1")
    }
    var x = points.map(\.model.x)
    var y = points.map(\.model.y)
    fitted.transform(x: &x, y: &y, inverse: true)
    let squares = points.indices.map { i in pow(x[i] - points[i].pixel.x, 2) + pow(y[i] - points[i].pixel.y, 2) }
    let rms = (squares.reduce(0, +) / Double(max(squares.count, 1))).squareRoot()
    let limit = allowResidual ?? max(2, 0.01 * hypot(Double(width), Double(height)))
    let kind =
      order < 0 ? "thin-plate spline" : order == 0 ? "polynomial order \(points.count >= 6 ? 2 : 1) (gdalwarp's choice)" : "polynomial order \(order)"
    guard rms.isFinite, rms <= limit else {
      throw TilecutError.invalidInput(
        path: path,
        reason: String(
          format:
            "its %d control points fit with an RMS residual of %.2f px (%@), above %.2f px; check them, or accept the fit with --allow-residual PX",
          points.count, rms, kind, limit))
    }
    printer.info(String(format: "%@: %d control points, %@, RMS residual %.2f px", path, points.count, kind, rms))
  }
}
