import CProj
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

  /// Parses a CRS and describes it; throws with PROJ's reason when it is not one.
  public static func describe(_ definition: String, option: String, files: [String] = []) throws -> CRSDefinition {
    guard let ctx = proj_context_create() else { throw TilecutError.invalidOption(option: option, reason: "PROJ is not available") }
    defer { proj_context_destroy(ctx) }
    let crs = try create(ctx, definition, option: option)
    defer { proj_destroy(crs) }
    var name = proj_get_name(crs).map { String(cString: $0) } ?? "unknown"
    if name == "unknown" || name.isEmpty { name = "user-defined (\(shortened(definition)))" }
    var epsg: String?
    if let auth = proj_get_id_auth_name(crs, 0), let code = proj_get_id_code(crs, 0) {
      name = "\(String(cString: auth)):\(String(cString: code)) \(name)"
      if String(cString: auth) == "EPSG" { epsg = "EPSG:" + String(cString: code) }
    }
    func equivalent(_ code: String) -> Bool {
      // an EPSG code settles it without building the other CRS from the database
      if let epsg { return epsg == code }
      guard let other = proj_create(ctx, code) else { return false }
      defer { proj_destroy(other) }
      return proj_is_equivalent_to_with_ctx(ctx, crs, other, PJ_COMP_EQUIVALENT_EXCEPT_AXIS_ORDER_GEOGCRS) == 1
    }
    return CRSDefinition(
      definition: definition, name: name, isWebMercator: equivalent("EPSG:3857"), isWGS84LonLat: equivalent("EPSG:4326"),
      files: files)
  }

  private static func create(_ ctx: OpaquePointer, _ definition: String, option: String) throws -> OpaquePointer {
    var text = definition.trimmingCharacters(in: .whitespacesAndNewlines)
    // a PROJ string names an operation unless it says it is a CRS
    if text.hasPrefix("+") && !text.contains("type=crs") { text += " +type=crs" }
    proj_log_level(ctx, PJ_LOG_NONE)
    guard let crs = proj_create(ctx, text) else {
      let errno = proj_context_errno(ctx)
      let reason = proj_context_errno_string(ctx, errno).map { String(cString: $0) } ?? "unknown"
      throw TilecutError.invalidOption(option: option, reason: "'\(shortened(definition))' is not a CRS PROJ knows (\(reason))")
    }
    guard proj_is_crs(crs) == 1 else {
      proj_destroy(crs)
      throw TilecutError.invalidOption(option: option, reason: "'\(shortened(definition))' is not a coordinate reference system")
    }
    return crs
  }

  static func shortened(_ text: String) -> String {
    let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    return flat.count > 60 ? String(flat.prefix(57)) + "..." : flat
  }

  /// The transformation from `crs` to EPSG:3857 (datum shifts included, chosen by PROJ).
  public init(crs: CRSDefinition, option: String = "--source-crs") throws {
    guard let ctx = proj_context_create() else { throw TilecutError.invalidOption(option: option, reason: "PROJ is not available") }
    proj_log_level(ctx, PJ_LOG_NONE)
    let source: OpaquePointer
    do { source = try Self.create(ctx, crs.definition, option: option) } catch {
      proj_context_destroy(ctx)
      throw error
    }
    guard let target = proj_create(ctx, "EPSG:3857") else {
      proj_destroy(source)
      proj_context_destroy(ctx)
      throw TilecutError.invalidOption(option: option, reason: "PROJ's database has no EPSG:3857 (is proj-data installed?)")
    }
    guard let raw = proj_create_crs_to_crs_from_pj(ctx, source, target, nil, nil) else {
      proj_destroy(source)
      proj_destroy(target)
      proj_context_destroy(ctx)
      throw TilecutError.invalidOption(option: option, reason: "PROJ finds no way from \(crs.name) to Web Mercator")
    }
    defer { proj_destroy(raw) }
    guard let normalised = proj_normalize_for_visualization(ctx, raw) else {
      proj_destroy(source)
      proj_destroy(target)
      proj_context_destroy(ctx)
      throw TilecutError.invalidOption(option: option, reason: "PROJ cannot order the axes of \(crs.name)")
    }
    context = ctx
    transform = normalised
    self.source = source
    self.target = target
  }

  deinit {
    proj_destroy(transform)
    proj_destroy(source)
    proj_destroy(target)
    proj_context_destroy(context)
  }

  /// Transforms points in place, forward (CRS → EPSG:3857 metres) or back; points
  /// PROJ cannot transform become NaN.
  public func transform(x: inout [Double], y: inout [Double], inverse: Bool = false) {
    let n = min(x.count, y.count)
    guard n > 0 else { return }
    lock.withLock { _ in
      x.withUnsafeMutableBufferPointer { xs in
        y.withUnsafeMutableBufferPointer { ys in
          let stride = MemoryLayout<Double>.stride
          proj_errno_reset(transform)
          _ = proj_trans_generic(
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
