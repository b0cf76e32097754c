import CTilecutGDAL
import Foundation
import TilecutCore

extension IMDFVenue {
  /// The polygons that GDAL, through GEOS (`OGR_G_IsValid`), finds invalid as OGC Simple
  /// Features define it: a ring that crosses itself, rings that cross each other, a hole
  /// outside its shell. Each is a problem named by feature and file; the feature is still
  /// drawn as given (filled even-odd, as `gdal_rasterize` burns it), since a writer's bow-tie
  /// is usually a room's outline with one corner out of order. Nothing is said where
  /// libgdal is absent or has no GEOS.
  mutating func checkPolygons() {
    guard tc_gdal_has_geos() == 1 else { return }
    for feature in levels + features {
      guard case .polygons(let polygons)? = feature.geometry else { continue }
      var reason = ""
      let invalid = polygons.firstIndex { polygon in
        guard let r = Self.polygonInvalidity(polygon) else { return false }
        reason = r
        return true
      }
      guard let invalid else { continue }
      let which = polygons.count > 1 ? "its polygon \(invalid + 1) of \(polygons.count)" : "its polygon"
      problems.append(
        IMDFProblem(
          file: feature.file, id: feature.id,
          message:
            "\(which) is not valid (GDAL/GEOS: \(reason)); drawn as given, fix it in the venue's editor"
        ))
    }
  }

  /// Why GDAL finds one polygon (rings of positions, the first the shell) invalid, in
  /// GEOS's words where it gives some; nil when it is valid or GDAL cannot tell.
  static func polygonInvalidity(_ rings: [[LonLat]]) -> String? {
    var xy: [Double] = []
    xy.reserveCapacity(rings.reduce(0) { $0 + $1.count } * 2)
    for ring in rings {
      for p in ring { xy += [p.lon, p.lat] }
    }
    let counts = rings.map { Int32(clamping: $0.count) }
    var reason = [CChar](repeating: 0, count: 256)
    guard tc_gdal_polygon_valid(xy, counts, Int32(clamping: rings.count), &reason, reason.count) == 0 else { return nil }
    let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.isEmpty ? "a ring crosses itself or another ring, or a hole lies outside its shell" : text
  }
}
