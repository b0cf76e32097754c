import Foundation
import TilecutCore
import TilecutGeo
import TilecutVips

/// Placement of a GeoPDF page by its own map frame, from the georeferencing GDAL's PDF
/// driver reads (an LGIDict or an ISO 32000 viewport): the page's points go through
/// GDAL's geotransform and PROJ; tilecut still renders the pixels. What lies outside
/// the frame (GDAL's `NEATLINE`: legend, title block, margins) is cut away and
/// transparent, unless `--whole-page` keeps it.
extension PlacementOptions {
  /// The placement of a PDF page by its georeferencing, with the floor cut to its map
  /// frame; nil when the page has none (a plain page, or one whose viewport holds only a
  /// drawing scale, `/Measure /RL`). Refuses, naming the file, a page whose
  /// georeferencing cannot be used.
  func geoPDFPlacement(_ floor: inout FloorSource, pyramid: PyramidOptions, printer: Printer) throws -> Placement? {
    guard floor.header.format.kind.pagesStatePlacement else { return nil }
    let path = floor.input.path
    let page = floor.input.page ?? 0
    guard let found = try GeoPDFPage.read(path: path, page: page), found.isGeoreferenced else { return nil }
    let what = "page \(page + 1) is a GeoPDF, \(found.encoding?.label ?? "georeferenced"),"
    // GDAL's own reason, when it gave one
    let gdalSays = found.warnings.isEmpty ? "" : " (GDAL: \(found.warnings.joined(separator: "; ")))"
    // an .aux.xml beside the PDF that GDAL read (GDAL's PAM) is the file a refusal names
    let aux = found.sidecars.first {
      $0.lowercased().hasSuffix(".aux.xml") && (Self.auxHasGeoTransform($0) || ((try? Self.sidecarText($0))?.contains("<SRS") ?? false))
    }
    func refuse(_ why: String) -> TilecutError {
      if let aux {
        return TilecutError.invalidInput(path: aux, reason: "its georeferencing of page \(page + 1) of \(path) cannot be used: \(why)\(gdalSays)")
      }
      return TilecutError.invalidInput(path: path, reason: "\(what) whose georeferencing cannot be used: \(why)\(gdalSays)")
    }
    guard let gdalTransform = found.geoTransform else {
      throw refuse(
        found.controlPointCount > 0
          ? "GDAL reads \(found.controlPointCount) control points but no geotransform" : "GDAL reads no geotransform from it")
    }
    // tilecut's page (poppler's, in points) and GDAL's (in its pixels) must be the same sheet
    let (pageWidth, pageHeight) = (floor.header.width, floor.header.height)
    let (kx, ky) = (Double(found.width) / Double(pageWidth), Double(found.height) / Double(pageHeight))
    guard kx > 0, ky > 0, abs(kx / ky - 1) <= 2 / Double(min(pageWidth, pageHeight)) else {
      throw refuse("GDAL reads the page as \(found.width) × \(found.height) pixels, poppler as \(pageWidth) × \(pageHeight) points")
    }
    // page point → GDAL's pixel → CRS
    let transform = gdalTransform.concatenating(after: .scale(kx, ky))
    let numbers = [transform.a, transform.b, transform.c, transform.d, transform.e, transform.f]
    guard numbers.allSatisfy(\.isFinite), let inverse = transform.inverse, abs(transform.determinant) > 0 else {
      throw refuse("its transform from the page to the map is degenerate")
    }
    guard found.crsWKT != nil || sourceCrs != nil else { throw refuse("it names no CRS; give --source-crs") }
    // the frame in page points: GDAL's neatline through the inverse geotransform
    let frame = found.neatline.map { inverse.apply($0.x, $0.y) }
    guard frame.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { throw refuse("its neatline does not map onto the page") }
    let band = floor.description.crop ?? PixelRect(x: 0, y: 0, width: pageWidth, height: pageHeight)
    let (bx0, by0, bx1, by1) = (Double(band.x), Double(band.y), Double(band.x + band.width), Double(band.y + band.height))
    // the frame's outline in page points (the band's, or the page's, with --whole-page),
    // its vertices kept on the band
    var outline = [PixelPoint(x: bx0, y: by0), PixelPoint(x: bx1, y: by0), PixelPoint(x: bx1, y: by1), PixelPoint(x: bx0, y: by1)]
    if !wholePage, frame.count >= 3 {
      outline = frame.map { PixelPoint(x: min(max($0.x, bx0), bx1), y: min(max($0.y, by0), by1)) }
    }
    let xs = outline.map(\.x)
    let ys = outline.map(\.y)
    let clip: [Double] = [xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0]
    guard clip[2] - clip[0] >= 1, clip[3] - clip[1] >= 1 else { throw refuse("its neatline holds less than a point of the page") }
    // the whole points that hold the frame: what is rendered
    let x0 = Int((clip[0] + 1e-6).rounded(.down))
    let y0 = Int((clip[1] + 1e-6).rounded(.down))
    let crop = PixelRect(x: x0, y: y0, width: Int((clip[2] - 1e-6).rounded(.up)) - x0, height: Int((clip[3] - 1e-6).rounded(.up)) - y0)
    let toCRS = TilecutCore.AffineTransform(
      a: transform.a, b: transform.b, c: transform.c + transform.a * Double(crop.x) + transform.b * Double(crop.y),
      d: transform.d, e: transform.e, f: transform.f + transform.d * Double(crop.x) + transform.e * Double(crop.y))
    let crs = try crsFor(path: path, wkt: found.crsWKT, axisSwap: found.crsAxisSwap, what: "GeoPDF georeferencing", sidecars: found.sidecars)
    // a frame in degrees past a pole is no place on the Earth (GDAL's data order: latitude second)
    if crs.isWGS84LonLat, let pole = found.neatline.map(\.y).first(where: { abs($0) > 90 }) {
      throw refuse(String(format: "its neatline reaches latitude %.6g, past the pole", pole))
    }
    // an .aux.xml's georeferencing of a plain page is GDAL's PAM, not the PDF's
    let method: PlacementMethod = found.encoding.map { $0 == .iso32000 ? .geoPDFISO32000 : .geoPDFLGIDict } ?? .auxXML
    var placement: Placement
    do {
      placement = try Self.fromFile(path) {
        try GeoPlacement.make(
          method: method, toCRS: toCRS, crs: crs, width: crop.width, height: crop.height, deepestZoom: pyramid.maxZoom, option: path)
      }
    } catch TilecutError.invalidInput(_, let reason) {
      throw refuse(reason + (wholePage ? " (--whole-page places the whole page: drop it to place the map frame)" : ""))
    }
    // the outline in source pixels (the crop's): the footprint, and what is drawn
    let local = outline.map { PixelPoint(x: $0.x - Double(crop.x), y: $0.y - Double(crop.y)) }
    let whole = [(0.0, 0.0), (Double(crop.width), 0.0), (Double(crop.width), Double(crop.height)), (0.0, Double(crop.height))]
    if local.count != 4 || zip(local, whole).contains(where: { abs($0.x - $1.0) > 1e-9 || abs($0.y - $1.1) > 1e-9 }) {
      placement.sourceClip = local.flatMap { [$0.x, $0.y] }
      if placement.projection == .projected, let mapping = try ProjectedMapping.forPlacement(placement) {
        placement.mappedFootprint = Self.outlineBox(mapping, outline: local) ?? placement.mappedFootprint
      }
    }
    placement.sidecars = crs.files.filter { $0 != path }
    floor.description.crop = crop
    floor.description.width = crop.width
    floor.description.height = crop.height
    // the frame (or the whole page) on white paper, the rest transparent
    floor.description.clip = outline.flatMap { [$0.x, $0.y] }
    for warning in found.warnings { printer.warning("\(path): GDAL: \(warning)") }
    if let warning = placement.crsOperationWarning { try warn("\(path): \(warning)", printer: printer) }
    return placement
  }

  /// For the first page of a PDF that nothing placed: which later page (of the first
  /// 16) is a GeoPDF, and how to name it ("; its page 2 is a GeoPDF: …"), or nil.
  static func georeferencedPageHint(_ floor: FloorSource) -> String? {
    guard floor.header.format.kind.pagesStatePlacement, floor.input.page == nil, floor.header.pages > 1 else { return nil }
    let path = floor.input.path
    for page in 1..<min(floor.header.pages, 16) {
      guard let found = try? GeoPDFPage.read(path: path, page: page), found.isGeoreferenced else { continue }
      return "; its page \(page + 1) is a GeoPDF: name it, '\(path)[page=\(page)]', or give --floors \(page + 1) to tile each page as a floor"
    }
    return nil
  }

  /// The box of a polygon's edges (64 points each) mapped to the world.
  static func outlineBox(_ mapping: any SourceMapping, outline: [PixelPoint]) -> WorldRect? {
    var points: [PixelPoint] = []
    let n = 64
    for (a, b) in zip(outline, outline.dropFirst() + outline.prefix(1)) {
      for i in 0..<n {
        let t = Double(i) / Double(n)
        points.append(PixelPoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y)))
      }
    }
    let world = mapping.world(of: points).filter { $0.u.isFinite && $0.v.isFinite }
    return world.isEmpty ? nil : WorldRect(enclosing: world)
  }
}
