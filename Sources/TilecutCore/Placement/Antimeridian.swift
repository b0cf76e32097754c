import Foundation

/// Sources whose footprint crosses ±180° of longitude (the antimeridian).
///
/// An affine placement (Web Mercator or lon/lat) may run past the world's east or west
/// edge: a raster with longitudes above 180° (172..188.7°, as GeoTools' Pacific radar
/// has), or below −180°. Such a source is tiled as two pieces on the same floor: the
/// placement as given, whose tiles lie west of 180° (x near 2^z − 1), and the same
/// placement one world to the west (or east), whose tiles lie east of −180° (x near 0).
/// Each piece is planned on its part of the world and rendered by the same inverse
/// map, so each side gets the pixels gdalwarp puts there when it warps that side.
///
/// A source a whole world wide or wider (a global grid 0.4° wider than 360°) is not
/// split: it is clipped to −180..180° as placed, which is what gdalwarp gives for the
/// world's extent (`-te` of the whole world): the longitudes past ±180° are dropped.
public enum Antimeridian {
  /// The longitude shifts (in world widths, added to u) of the pieces the source is
  /// tiled as: `[0, -1]` for one past 180°, `[0, 1]` for one past −180°, `[0]` for
  /// every other (within the world, a world wide, or wholly beyond it: see `isTileable`).
  public static func shifts(_ placement: Placement, width: Int, height: Int) -> [Double] {
    let f = placement.footprint(width: width, height: height)
    guard placement.projection != .projected, f.minU.isFinite, f.maxU.isFinite, f.maxU - f.minU < 1 - tolerance else { return [0] }
    let parts = [0, -1, 1].filter { s in f.minU + s < 1 - tolerance && f.maxU + s > tolerance }
    return parts.count > 1 ? parts : [0]
  }

  static let tolerance = 1e-9

  /// Whether tilecut tiles the source east-west: it lies within ±180°, crosses it
  /// once (tiled in two pieces), or is a whole world wide (clipped to ±180°).
  public static func isTileable(_ placement: Placement, width: Int, height: Int) -> Bool {
    let f = placement.footprint(width: width, height: height)
    if f.minU >= -tolerance && f.maxU <= 1 + tolerance { return true }
    if placement.projection != .projected && f.maxU - f.minU >= 1 - tolerance { return true }
    return crosses(placement, width: width, height: height)
  }

  /// Whether the source is tiled in two pieces, one on each side of ±180°.
  public static func crosses(_ placement: Placement, width: Int, height: Int) -> Bool {
    shifts(placement, width: width, height: height).count > 1
  }

  /// The placement moved `worlds` world widths east (negative: west).
  public static func shifted(_ placement: Placement, worlds: Double) -> Placement {
    guard worlds != 0 else { return placement }
    var moved = placement
    switch placement.projection {
    case .webMercator, .projected: moved.transform.c += worlds
    case .lonLat: moved.transform.c += 360 * worlds
    }
    return moved
  }

  /// The pieces a source is tiled as (see `shifts`), each to be planned on its own.
  public static func pieces(_ placement: Placement, width: Int, height: Int) -> [Placement] {
    shifts(placement, width: width, height: height).map { shifted(placement, worlds: $0) }
  }

  /// Plans a floor as `PyramidPlanner.plan` does, split in two across ±180° when it
  /// crosses: both pieces share one zoom range (the shallower of their own), which
  /// starts at zoom 1 at the least, as at zoom 0 the one tile would hold both sides.
  public static func plan(
    floor: Floor, source: SourceDescription, placement: Placement, request: PlanRequest, mapping: (any SourceMapping)? = nil
  ) throws -> [FloorPlan] {
    let pieces = pieces(placement, width: source.width, height: source.height)
    guard pieces.count > 1 else {
      return [try PyramidPlanner.plan(floor: floor, source: source, placement: placement, request: request, mapping: mapping)]
    }
    if let given = request.minZoom, given < 1 {
      throw TilecutError.invalidOption(
        option: "--min-zoom",
        reason:
          "\(source.path) crosses the antimeridian (180°) and is tiled on both sides of it from zoom 1 (at zoom 0 one tile would hold both); give --min-zoom 1 or more"
      )
    }
    var shared = request
    if shared.minZoom == nil {
      let ranges = try pieces.map { try PyramidPlanner.zoomRange(request: request, source: source, placement: $0) }
      shared.minZoom = max(1, ranges.map(\.min).min() ?? 1)
    }
    return try pieces.map { try PyramidPlanner.plan(floor: floor, source: source, placement: $0, request: shared, mapping: mapping) }
  }
}
