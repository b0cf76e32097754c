import Foundation

/// What the placement's affine map produces from a source pixel.
public enum SourceProjection: String, Codable, Sendable, CaseIterable {
  /// The affine map gives normalised Web-Mercator (u, v) directly.
  case webMercator = "mercator"
  /// The affine map gives (longitude, latitude) in degrees; rows are remapped exactly.
  case lonLat = "lonlat"
  /// The source is in another CRS: `crsTransform` gives its coordinates and PROJ
  /// the rest (a `SourceMapping` from TilecutGeo); `transform` is only the local
  /// affine approximation at the image's centre.
  case projected = "projected"
}

/// How a placement was found: given by an option (bounds, gcp, center), read from a
/// sidecar (world-file, aux-xml) or the file's own keys (geotiff, geotiff-gcp), or none
/// (raster). GDAL's other drivers give their own names, so this is an open set of
/// names, compared by value, never by spelling at the use.
public struct PlacementMethod: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
  public var rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  /// No georeference: the image's pixels at the map's north-west corner.
  public static let raster = PlacementMethod(rawValue: "raster")
  public static let bounds = PlacementMethod(rawValue: "bounds")
  public static let gcp = PlacementMethod(rawValue: "gcp")
  public static let center = PlacementMethod(rawValue: "center")
  public static let worldFile = PlacementMethod(rawValue: "world-file")
  public static let auxXML = PlacementMethod(rawValue: "aux-xml")
  /// A GeoTIFF's keys (its geotransform).
  public static let geotiff = PlacementMethod(rawValue: "geotiff")
  /// A GeoTIFF's tie points, fitted.
  public static let geotiffGCP = PlacementMethod(rawValue: "geotiff-gcp")
  /// Control points another GDAL driver read from the file, fitted.
  public static let gcpFile = PlacementMethod(rawValue: "gcp-file")
  /// A GeoPDF page's georeferencing, read by GDAL's PDF driver: OGC's best practice
  /// (an LGIDict) or ISO 32000 (a viewport whose measure is `/GEO`).
  public static let geoPDFLGIDict = PlacementMethod(rawValue: "geopdf-lgidict")
  public static let geoPDFISO32000 = PlacementMethod(rawValue: "geopdf-iso32000")
  /// The georeference another GDAL driver read (its name, lower case).
  public static func driver(_ name: String) -> PlacementMethod { PlacementMethod(rawValue: name.lowercased()) }

  public var description: String { rawValue }

  public init(from decoder: Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}

/// Where a source image lies on the world: an affine map from source pixel
/// (col, row), in GDAL's continuous convention, to the world.
public struct Placement: Hashable, Sendable, Codable {
  /// How the placement was given (raster, bounds, gcp, center, world-file).
  public var method: PlacementMethod
  public var projection: SourceProjection
  /// Source pixel → (u, v) for `.webMercator`, → (lon, lat) degrees for `.lonLat`.
  public var transform: AffineTransform
  /// For raster placement: the zoom at which one 256 px tile pixel is one source pixel.
  public var nativeZoom: Int?
  /// The source CRS as PROJ reads it (`EPSG:32633`, a PROJ string or WKT), for `.projected`.
  public var crs: String?
  /// A name for the CRS, for people (`EPSG:32633 WGS 84 / UTM zone 33N`).
  public var crsName: String?
  /// Source pixel → CRS coordinates (easting, northing), for `.projected`.
  public var crsTransform: AffineTransform?
  /// For `.projected`: the box of the densified, mapped outline.
  public var mappedFootprint: WorldRect?
  /// For `.projected`: source pixels per world unit at the image's centre.
  public var mappedScale: Double?
  /// Files beside the input that the placement was read from (world file, .prj, a WKT
  /// file named by --source-crs): a change to any of them changes the output.
  public var sidecars: [String] = []
  /// The control points a `gcp` placement was fitted to (for the manifest's residuals).
  public var controlPoints: [ControlPoint]?
  /// For `.projected` placements from control points, fitted as gdalwarp fits them:
  /// (pixel x, pixel y, CRS x, CRS y) each; `crsTransform` is then their affine fit.
  public var crsControlPoints: [[Double]]?
  /// Their polynomial order (0: GDAL's choice from the count of points; 1, 2, 3), or -1
  /// for a thin-plate spline.
  public var crsControlPointOrder: Int?
  /// The transformation PROJ chose to Web Mercator, for people ("NAD27 to WGS 84 (4), 10 m").
  public var crsOperation: String?
  /// Why that transformation may be off (a ballpark one, a missing grid), with the fix.
  public var crsOperationWarning: String?
  /// For `.projected`: the source's extent in degrees (west, south, east, north) on its
  /// own datum, the area of interest PROJ chooses operations for (as GDAL's warper).
  public var crsAreaOfInterest: [Double]?
  /// For `.projected` CRSs read by GDAL: GDAL's axis mapping (true: data X, Y are the
  /// CRS's second and first axes); nil: PROJ's visualisation order.
  public var crsAxisSwap: Bool?
  /// What else the placement line says of how the source was placed ("KML
  /// GroundOverlay 'Plan' of doc.kml (image img/plan.jpg), LatLonBox, rotation 45°").
  public var note: String?
  /// The part of the source that is placed (a GeoPDF's map frame): a polygon, x, y
  /// pairs in source pixels; the footprint is its outline, and pixels outside it are
  /// transparent.
  public var sourceClip: [Double]?

  public init(method: PlacementMethod, projection: SourceProjection = .webMercator, transform: AffineTransform, nativeZoom: Int? = nil) {
    self.method = method
    self.projection = projection
    self.transform = transform
    self.nativeZoom = nativeZoom
  }

  /// The image's top-left pixel at the world's NW corner, native resolution at `zoom`.
  public static func raster(nativeZoom zoom: Int) -> Placement {
    let s = 1 / WebMercator.worldPixels(zoom: zoom)
    return Placement(method: .raster, transform: .scale(s, s), nativeZoom: zoom)
  }

  /// The world point of a source pixel coordinate.
  public func world(col: Double, row: Double) -> WorldPoint {
    let p = transform.apply(col, row)
    switch projection {
    case .webMercator, .projected: return WorldPoint(u: p.x, v: p.y)
    case .lonLat:
      return WorldPoint(u: WebMercator.u(longitudeDegrees: p.x), v: WebMercator.v(latitudeDegrees: p.y))
    }
  }

  /// The four corners of a width × height source, clockwise from the top-left.
  public func corners(width: Int, height: Int) -> [WorldPoint] {
    let w = Double(width)
    let h = Double(height)
    return [world(col: 0, row: 0), world(col: w, row: 0), world(col: w, row: h), world(col: 0, row: h)]
  }

  /// The world box the source covers (before clipping to the world).
  public func footprint(width: Int, height: Int) -> WorldRect {
    if projection == .projected, let mappedFootprint { return mappedFootprint }
    if let c = sourceClip, c.count >= 6 {
      // an affine map (to Mercator or lon/lat) keeps the polygon's edges inside its vertices' box
      return WorldRect(enclosing: stride(from: 0, to: c.count - 1, by: 2).map { world(col: c[$0], row: c[$0 + 1]) })
    }
    return WorldRect(enclosing: corners(width: width, height: height))
  }

  /// Source pixels per world unit along each source axis, as a geometric mean (for
  /// lon/lat sources, at the image's centre row).
  public func sourcePixelsPerWorldUnit(width: Int, height: Int) -> Double {
    if projection == .projected, let mappedScale { return mappedScale }
    let cx = Double(width) / 2
    let cy = Double(height) / 2
    let p0 = world(col: cx, row: cy)
    let px = world(col: cx + 1, row: cy)
    let py = world(col: cx, row: cy + 1)
    let lx = hypot(px.u - p0.u, px.v - p0.v)
    let ly = hypot(py.u - p0.u, py.v - p0.v)
    let mean = (lx * ly).squareRoot()
    return mean > 0 ? 1 / mean : 0
  }

  /// Ground metres per source pixel at the image's centre.
  public func groundMetersPerPixel(width: Int, height: Int) -> Double {
    let ppw = sourcePixelsPerWorldUnit(width: width, height: height)
    guard ppw > 0 else { return 0 }
    let f = footprint(width: width, height: height)
    let lat = WebMercator.latitudeDegrees(v: (f.minV + f.maxV) / 2)
    return WebMercator.groundMetersPerWorldUnit(latitudeDegrees: lat) / ppw
  }

  /// The deepest zoom whose 256 px tiles are not finer than the source pixels.
  public func nativeZoom(width: Int, height: Int) -> Int {
    if let nativeZoom { return nativeZoom }
    let ppw = sourcePixelsPerWorldUnit(width: width, height: height)
    guard ppw > 0 else { return 0 }
    // a small tolerance so that a source made exactly for zoom z is not pushed to z - 1
    let z = Int(floor(log2(ppw / Double(WebMercator.baseTileSize)) + 1e-6))
    return min(max(z, 0), 30)
  }

  /// The deepest zoom at which the whole footprint lies in one 256 px tile.
  public func singleTileZoom(width: Int, height: Int) -> Int {
    let rect = footprint(width: width, height: height).clampedToWorld
    var zoom = 0
    while zoom < 30 {
      let next = zoom + 1
      guard let r = WebMercator.tileRange(covering: rect, zoom: next, tileSize: 256), r.count == 1 else { break }
      zoom = next
    }
    return zoom
  }
}
