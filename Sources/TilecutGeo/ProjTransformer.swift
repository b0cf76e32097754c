import CGeoShim
import Foundation
import Synchronization
import TilecutCore

/// A CRS as PROJ understands it, with what we tell people about it.
public struct CRSDefinition: Hashable, Sendable, Codable {
  /// Text PROJ reads: `EPSG:32633`, a PROJ string (`+proj=utm …`) or WKT.
  public var definition: String
  /// `EPSG:32633 WGS 84 / UTM zone 33N`, or the CRS's name alone when it has no code.
  public var name: String
  /// `EPSG:3857` and `EPSG:4326` (in either axis order) are handled without PROJ.
  public var isWebMercator: Bool
  public var isWGS84LonLat: Bool
  /// Files the definition was read from (a .prj, a WKT file).
  public var files: [String]
  /// How GDAL orders this CRS's data axes (its traditional GIS order): true when the
  /// data's (X, Y) are the CRS's second and first axes. Nil: PROJ's visualisation order
  /// (`proj_normalize_for_visualization`), for CRSs GDAL did not read.
  public var gdalAxisSwap: Bool? = nil
}

/// Source CRS → Web Mercator (EPSG:3857) through PROJ, in (easting, northing) order
/// whatever the CRS's own axis order (`proj_normalize_for_visualization`).
///
/// A PJ may not be used from two threads at once: calls take a lock, and callers
/// pass whole arrays so that it is taken once per batch.
public final class ProjTransformer: @unchecked Sendable {
  let context: OpaquePointer
  let transform: OpaquePointer
  let source: OpaquePointer
  let target: OpaquePointer
  let lock = Mutex<Void>(())
  /// Coordinates go to PROJ swapped (GDAL's axis mapping), the transformation unnormalised.
  let swapSource: Bool

  /// Parses a CRS and describes it; throws with PROJ's reason when it is not one.
  /// `files`: the files the definition was read from. A refusal quotes the definition
  /// (at most ``Quote/limit`` characters, escaped) only when `quoting`, by default when
  /// it was typed, not read from a file: a file's bytes (a `.prj` that is a link to an
  /// environment, a project's `sourceCrs:`) are described, never repeated.
  public static func describe(_ definition: String, option: String, files: [String] = [], quoting: Bool? = nil) throws -> CRSDefinition {
    guard let ctx = tc_proj_context_create() else { throw TilecutError.invalidOption(option: option, reason: projUnavailable) }
    defer { tc_proj_context_destroy(ctx) }
    let crs = try create(ctx, definition, option: option, quoting: quoting ?? files.isEmpty)
    defer { tc_proj_destroy(crs) }
    var name = tc_proj_get_name(crs).map { String(cString: $0) } ?? "unknown"
    if name == "unknown" || name.isEmpty { name = "user-defined (\(shortened(definition)))" }
    var epsg: String?
    if let auth = tc_proj_get_id_auth_name(crs, 0), let code = tc_proj_get_id_code(crs, 0) {
      name = "\(String(cString: auth)):\(String(cString: code)) \(name)"
      if String(cString: auth) == "EPSG" { epsg = "EPSG:" + String(cString: code) }
    }
    func equivalent(_ code: String) -> Bool {
      // an EPSG code settles it without building the other CRS from the database
      if let epsg { return epsg == code }
      guard let other = tc_proj_create(ctx, code) else { return false }
      defer { tc_proj_destroy(other) }
      return tc_proj_is_equivalent_to_with_ctx(ctx, crs, other, PJ_COMP_EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS) == 1
    }
    return CRSDefinition(
      definition: definition, name: name, isWebMercator: equivalent("EPSG:3857"), isWGS84LonLat: equivalent("EPSG:4326"),
      files: files)
  }

  private static func create(_ ctx: OpaquePointer, _ definition: String, option: String, quoting: Bool) throws -> OpaquePointer {
    // what the refusal calls the text: itself when typed, what it is when read from a file
    let said = quoting ? "'\(shortened(definition))'" : "its text"
    if let why = CRSText.unsafeReason(definition) {
      throw TilecutError.invalidOption(option: option, reason: "\(said) \(why)")
    }
    // PROJ fetches grids over the network only when asked to (PROJ_NETWORK=ON): never
    tc_proj_context_set_enable_network(ctx, 0)
    var text = definition.trimmingCharacters(in: .whitespacesAndNewlines)
    // a PROJ string names an operation unless it says it is a CRS
    if text.hasPrefix("+") && !text.contains("type=crs") { text += " +type=crs" }
    tc_proj_log_level(ctx, PJ_LOG_NONE)
    guard let crs = tc_proj_create(ctx, text) else {
      let errno = tc_proj_context_errno(ctx)
      let reason = tc_proj_context_errno_string(ctx, errno).map { String(cString: $0) } ?? "unknown"
      throw TilecutError.invalidOption(
        option: option,
        reason: quoting ? "\(said) is not a CRS PROJ knows (\(reason))" : "is not WKT or a PROJ string PROJ knows (\(reason))")
    }
    guard tc_proj_is_crs(crs) == 1 else {
      tc_proj_destroy(crs)
      throw TilecutError.invalidOption(
        option: option, reason: quoting ? "\(said) is not a coordinate reference system" : "holds no coordinate reference system")
    }
    return crs
  }

  /// At most 60 characters of a CRS's text, on one line, escaped.
  static func shortened(_ text: String) -> String {
    Quote.value(text.prefix(4096).split(whereSeparator: \.isNewline).joined(separator: " "), limit: 60)
  }

  /// The transformation from `crs` to EPSG:3857 (datum shifts included, chosen by PROJ).
  /// `area`: the source's extent in degrees (west, south, east, north) on its own
  /// datum, as GDAL's warper passes it, so that PROJ chooses the operations valid there.
  public init(crs: CRSDefinition, area: [Double]? = nil, option: String = "--source-crs") throws {
    guard let ctx = tc_proj_context_create() else { throw TilecutError.invalidOption(option: option, reason: projUnavailable) }
    tc_proj_log_level(ctx, PJ_LOG_NONE)
    let source: OpaquePointer
    do { source = try Self.create(ctx, crs.definition, option: option, quoting: crs.files.isEmpty) } catch {
      tc_proj_context_destroy(ctx)
      throw error
    }
    guard let target = tc_proj_create(ctx, "EPSG:3857") else {
      tc_proj_destroy(source)
      tc_proj_context_destroy(ctx)
      throw TilecutError.invalidOption(option: option, reason: "PROJ's database has no EPSG:3857 (is proj-data installed?)")
    }
    var areaOfInterest: OpaquePointer?
    if let area, area.count == 4, area.allSatisfy(\.isFinite) {
      areaOfInterest = tc_proj_area_create()
      tc_proj_area_set_bbox(areaOfInterest, area[0], area[1], area[2], area[3])
    }
    defer { if let areaOfInterest { tc_proj_area_destroy(areaOfInterest) } }
    guard let raw = tc_proj_create_crs_to_crs_from_pj(ctx, source, target, areaOfInterest, nil) else {
      tc_proj_destroy(source)
      tc_proj_destroy(target)
      tc_proj_context_destroy(ctx)
      throw TilecutError.invalidOption(option: option, reason: "PROJ finds no way from \(crs.name) to Web Mercator")
    }
    let ordered: OpaquePointer?
    if crs.gdalAxisSwap != nil {
      // GDAL's own axis mapping: the source side as GDAL orders it; EPSG:3857 is (E, N)
      ordered = raw
    } else {
      defer { tc_proj_destroy(raw) }
      ordered = tc_proj_normalize_for_visualization(ctx, raw)
    }
    guard let normalised = ordered else {
      tc_proj_destroy(source)
      tc_proj_destroy(target)
      tc_proj_context_destroy(ctx)
      throw TilecutError.invalidOption(option: option, reason: "PROJ cannot order the axes of \(crs.name)")
    }
    swapSource = crs.gdalAxisSwap ?? false
    context = ctx
    transform = normalised
    self.source = source
    self.target = target
  }

  deinit {
    tc_proj_destroy(transform)
    tc_proj_destroy(source)
    tc_proj_destroy(target)
    tc_proj_context_destroy(context)
  }

  /// Transforms points in place, forward (CRS → EPSG:3857 metres) or back; points
  /// PROJ cannot transform become NaN.
  public func transform(x: inout [Double], y: inout [Double], inverse: Bool = false) {
    let n = min(x.count, y.count)
    guard n > 0 else { return }
    if swapSource && !inverse { swap(&x, &y) }
    defer { if swapSource && inverse { swap(&x, &y) } }
    lock.withLock { _ in
      x.withUnsafeMutableBufferPointer { xs in
        y.withUnsafeMutableBufferPointer { ys in
          let stride = MemoryLayout<Double>.stride
          tc_proj_errno_reset(transform)
          _ = tc_proj_trans_generic(
            transform, inverse ? PJ_INV : PJ_FWD, xs.baseAddress, stride, n, ys.baseAddress, stride, n, nil, 0, 0, nil, 0, 0)
        }
      }
    }
    for i in 0..<n where !(x[i].isFinite && y[i].isFinite) || abs(x[i]) > 1e30 || abs(y[i]) > 1e30 {
      x[i] = .nan
      y[i] = .nan
    }
  }
}

extension ProjTransformer {
  /// The extent in degrees (west, south, east, north), on the CRS's own geographic CRS,
  /// of CRS points: what GDAL's warper gives PROJ as the area of interest. Nil when the
  /// CRS has no geographic base or the points straddle the antimeridian.
  public static func areaOfInterest(crs: CRSDefinition, x: [Double], y: [Double]) -> [Double]? {
    guard let ctx = tc_proj_context_create() else { return nil }
    defer { tc_proj_context_destroy(ctx) }
    tc_proj_log_level(ctx, PJ_LOG_NONE)
    guard let source = try? create(ctx, crs.definition, option: "", quoting: false) else { return nil }
    defer { tc_proj_destroy(source) }
    // degrees from Greenwich, as an area of interest is given (a datum shift here moves it metres, no matter)
    guard let geographic = tc_proj_create(ctx, "EPSG:4326") else { return nil }
    defer { tc_proj_destroy(geographic) }
    guard let raw = tc_proj_create_crs_to_crs_from_pj(ctx, source, geographic, nil, nil) else { return nil }
    defer { tc_proj_destroy(raw) }
    guard let conversion = tc_proj_normalize_for_visualization(ctx, raw) else { return nil }
    defer { tc_proj_destroy(conversion) }
    var lon = x
    var lat = y
    if let swapped = crs.gdalAxisSwap, swapped != visualisationSwaps(ctx, source) { swap(&lon, &lat) }
    let stride = MemoryLayout<Double>.stride
    let n = min(lon.count, lat.count)
    lon.withUnsafeMutableBufferPointer { xs in
      lat.withUnsafeMutableBufferPointer { ys in
        _ = tc_proj_trans_generic(conversion, PJ_FWD, xs.baseAddress, stride, n, ys.baseAddress, stride, n, nil, 0, 0, nil, 0, 0)
      }
    }
    let points = (0..<n).filter { lon[$0].isFinite && lat[$0].isFinite && abs(lon[$0]) <= 360 && abs(lat[$0]) <= 90 }
    guard !points.isEmpty else { return nil }
    let lons = points.map { lon[$0] }
    let lats = points.map { lat[$0] }
    guard let west = lons.min(), let east = lons.max(), let south = lats.min(), let north = lats.max(), east - west < 180
    else { return nil }
    return [west, south, east, north]
  }
}

extension ProjTransformer {
  /// Whether PROJ's visualisation order swaps this CRS's axes (its first axis points north or south).
  static func visualisationSwaps(_ ctx: OpaquePointer, _ crs: OpaquePointer) -> Bool {
    guard let system = tc_proj_crs_get_coordinate_system(ctx, crs) else { return false }
    defer { tc_proj_destroy(system) }
    var direction: UnsafePointer<CChar>?
    guard tc_proj_cs_get_axis_info(ctx, system, 0, nil, nil, &direction, nil, nil, nil, nil) == 1, let direction else { return false }
    let text = String(cString: direction).lowercased()
    return text == "north" || text == "south"
  }
}

/// Why PROJ cannot be used: it is loaded when a CRS is first read (`tc_proj_load`).
var projUnavailable: String { tc_proj_load().map { String(cString: $0) } ?? "PROJ is not available" }
