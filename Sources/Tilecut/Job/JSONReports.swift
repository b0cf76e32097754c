import Foundation
import TilecutCore

/// `--json` of a dry run: the plan as the planner made it, with per-level counts.
/// Documented in the README ("JSON output") and in examples/json-schema/dry-run.schema.json.
struct DryRunReport: Codable {
  var dryRun = true
  /// True with --exact: every pixel was rendered and `tiles` counts the cells that get one.
  var exact: Bool
  var output: String
  /// Cells the footprints touch: without --exact, the most tiles the run can write.
  var cells: Int
  /// With --exact: the tiles a run writes.
  var tiles: Int?
  /// With --exact: the bytes a run writes, from an encoded sample.
  var estimatedBytes: Int?
  var footprints: [Manifest.Footprint]
  var placements: [PlacementReport]
  var levels: [LevelReport]
  var plan: JobPlan
  /// `build --dry-run --json`: the buildings, in the file's order.
  var buildings: [BuildingReport]?

  /// A building of the project: its id, name and floor numbers.
  struct BuildingReport: Codable {
    var id: String
    var name: String?
    var floors: [Floor]
  }
}

/// `build --dry-run --json` with `{building}` in the name: each building's dry run by id.
struct SplitDryRunReport: Codable {
  var dryRun = true
  var output: String
  var buildings: [String: DryRunReport]
}

/// `--json` of a run: what was written (or that the output was up to date).
/// Documented in the README ("JSON output") and in examples/json-schema/run.schema.json.
struct RunReport: Codable {
  var output: String
  var upToDate: Bool
  var tilesWritten: Int?
  var tilesSkipped: Int?
  var bytes: Int?
  var seconds: Double?
  var manifest: String?
  var placements: [PlacementReport]?
  var levels: [LevelReport]?
}

/// One floor's placement: how, in which CRS, where (degrees), how fine, from which sidecars.
struct PlacementReport: Codable {
  var floor: Floor
  var method: String
  var crs: String
  var south, west, north, east: Double
  var metersPerPixel: Double
  var sidecars: [String]
  /// The datum transformation PROJ chose ("NAD27 to WGS 84 (4), 10 m"), for a CRS other than Web Mercator.
  var operation: String?
  /// `tilecut build`: the building the floor belongs to.
  var building: String?

  init(_ p: FloorPlan) {
    let f = Manifest.Footprint(floor: p.floor, rect: p.footprint)
    let metres = p.placement.groundMetersPerPixel(width: p.source.width, height: p.source.height)
    floor = p.floor
    method = p.placement.method.rawValue
    crs = PlacementOptions.crsName(p.placement)
    (south, west, north, east) = (f.south, f.west, f.north, f.east)
    metersPerPixel = metres.isFinite ? metres : 0
    sidecars = p.placement.sidecars
    operation = p.placement.crsOperation
  }
}

/// One floor, tile size and zoom: its cells and, once known, its tiles.
struct LevelReport: Codable {
  var floor: Floor
  var tileSize: Int
  var zoom: Int
  /// Inclusive [first, last] tile columns and rows.
  var xRange: [Int]
  var yRange: [Int]
  var cells: Int
  /// Dry run with --exact: the cells that get a tile.
  var tiles: Int?
  /// Run: tiles written, cells left without one, bytes written.
  var written: Int?
  var skipped: Int?
  var bytes: Int?

  init(key: LevelKey, range: TileRange?) {
    floor = key.floor
    tileSize = key.tileSize
    zoom = key.zoom
    xRange = range.map { [$0.xRange.lowerBound, $0.xRange.upperBound] } ?? []
    yRange = range.map { [$0.yRange.lowerBound, $0.yRange.upperBound] } ?? []
    cells = range?.count ?? 0
  }
}

extension Printer {
  /// Prints a Codable result as one JSON document on stdout, keys sorted.
  static func result(json value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    resultDocument(String(decoding: try encoder.encode(value), as: UTF8.self))
  }
}
