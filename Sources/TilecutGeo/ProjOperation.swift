import CGeoShim
import Foundation
import TilecutCore

/// The datum transformation PROJ chose from a source CRS to Web Mercator, for people.
public struct ProjOperation: Hashable, Sendable {
  /// The transformation steps' names, e.g. "NAD27 to WGS 84 (4)"; empty when the source
  /// is already on WGS 84 (only conversions, no datum change).
  public var transformations: [String]
  /// PROJ's stated accuracy in metres, nil when it states none.
  public var accuracyMeters: Double?
  /// PROJ had no real transformation between the datums and only swapped them as if equal.
  public var isBallpark: Bool
  /// A better transformation exists but needs these grids, which are not installed.
  public var missingGrids: [String]
  /// That better transformation's name and accuracy, when grids are missing.
  public var betterOperation: String?

  /// "NAD27 to WGS 84 (4), 10 m", "none needed (same datum)", or a ballpark one.
  public var summary: String {
    if isBallpark { return "ballpark transformation (datums treated as equal)" }
    guard !transformations.isEmpty else { return "none needed (same datum)" }
    let accuracy = accuracyMeters.map { ", " + Self.metres($0) } ?? ", accuracy unknown"
    return transformations.joined(separator: " + ") + accuracy
  }

  /// A warning for the placement line, or nil when the chosen operation is as good as PROJ knows.
  public var warning: String? {
    if !missingGrids.isEmpty {
      let better = betterOperation.map { " (\($0))" } ?? ""
      return
        "the best datum transformation\(better) needs the PROJ grid \(missingGrids.joined(separator: ", ")), which is not installed; using \(summary) instead. Install Debian's proj-data (or run `projsync --file \(missingGrids[0])`) for the exact shift"
    }
    if isBallpark {
      return
        "PROJ knows no transformation between this CRS's datum and WGS 84 and treats them as equal; the placement may be off by as much as the datum shift (typically 1 m to several hundred metres). Give --source-crs with a datum PROJ knows (an EPSG code or WKT with TOWGS84) to fix it"
    }
    return nil
  }

  static func metres(_ value: Double) -> String {
    value >= 1 ? String(format: "%.0f m", value) : String(format: "%.2g m", value)
  }
}

extension ProjTransformer {
  /// The operation PROJ uses at a source point (CRS coordinates, easting/northing), and
  /// whether a better one needs a grid that is missing.
  public func operation(atX x: Double, y: Double) -> ProjOperation? {
    lock.withLock { _ -> ProjOperation? in
      var coordinate = swapSource ? tc_proj_coord(y, x, 0, 0) : tc_proj_coord(x, y, 0, 0)
      tc_proj_errno_reset(transform)
      coordinate = tc_proj_trans(transform, PJ_FWD, coordinate)
      guard coordinate.xy.x.isFinite, let used = tc_proj_trans_get_last_used_operation(transform) else { return nil }
      defer { tc_proj_destroy(used) }
      var result = ProjOperation(
        transformations: Self.transformationSteps(context, used), accuracyMeters: nil,
        isBallpark: tc_proj_coordoperation_has_ballpark_transformation(context, used) == 1, missingGrids: [], betterOperation: nil)
      let accuracy = tc_proj_coordoperation_get_accuracy(context, used)
      result.accuracyMeters = accuracy >= 0 ? accuracy : nil
      if result.transformations.isEmpty && !result.isBallpark { return result }
      // the operations PROJ would list, grids regardless, at this place
      let longitude = coordinate.xy.x / WebMercator.originShift * 180
      let latitude = atan(sinh(coordinate.xy.y / WebMercator.originShift * .pi)) * 180 / .pi
      guard let factory = tc_proj_create_operation_factory_context(context, nil) else { return result }
      defer { tc_proj_operation_factory_context_destroy(factory) }
      tc_proj_operation_factory_context_set_grid_availability_use(context, factory, PROJ_GRID_AVAILABILITY_IGNORED)
      tc_proj_operation_factory_context_set_spatial_criterion(context, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
      tc_proj_operation_factory_context_set_area_of_interest(context, factory, longitude, latitude, longitude, latitude)
      guard let list = tc_proj_create_operations(context, source, target, factory) else { return result }
      defer { tc_proj_list_destroy(list) }
      guard tc_proj_list_get_count(list) > 0, let best = tc_proj_list_get(context, list, 0) else { return result }
      defer { tc_proj_destroy(best) }
      if tc_proj_coordoperation_is_instantiable(context, best) == 0 {
        result.missingGrids = Self.missingGrids(context, best)
        let bestAccuracy = tc_proj_coordoperation_get_accuracy(context, best)
        let names = Self.transformationSteps(context, best).joined(separator: " + ")
        result.betterOperation = names + (bestAccuracy >= 0 ? ", " + ProjOperation.metres(bestAccuracy) : "")
      }
      return result
    }
  }

  /// The names of the datum transformations among an operation's steps.
  private static func transformationSteps(_ ctx: OpaquePointer, _ operation: OpaquePointer) -> [String] {
    func name(_ op: OpaquePointer) -> String? {
      let type = tc_proj_get_type(op)
      guard type == PJ_TYPE_TRANSFORMATION || type == PJ_TYPE_OTHER_COORDINATE_OPERATION else { return nil }
      var text = tc_proj_get_name(op).map { String(cString: $0) } ?? "unnamed transformation"
      if text.hasPrefix("Inverse of ") { text.removeFirst("Inverse of ".count) }
      return text
    }
    guard tc_proj_get_type(operation) == PJ_TYPE_CONCATENATED_OPERATION else { return name(operation).map { [$0] } ?? [] }
    let count = tc_proj_concatoperation_get_step_count(ctx, operation)
    return (0..<count).compactMap { i in
      guard let step = tc_proj_concatoperation_get_step(ctx, operation, i) else { return nil }
      defer { tc_proj_destroy(step) }
      return name(step)
    }
  }

  private static func missingGrids(_ ctx: OpaquePointer, _ operation: OpaquePointer) -> [String] {
    let count = tc_proj_coordoperation_get_grid_used_count(ctx, operation)
    return (0..<count).compactMap { i in
      var shortName: UnsafePointer<CChar>?
      var available: Int32 = 0
      guard
        tc_proj_coordoperation_get_grid_used(ctx, operation, i, &shortName, nil, nil, nil, nil, nil, &available) == 1,
        available == 0, let shortName
      else { return nil }
      return String(cString: shortName)
    }
  }
}
