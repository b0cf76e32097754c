import Foundation

/// The whole job as planned: every floor's pyramid, each level's recipe, strips and
/// tile ranges. The renderer executes it; `--dry-run --json` prints it.
public struct JobPlan: Hashable, Sendable, Codable {
  /// The tile sizes made, smallest first.
  public var tileSizes: [TileSize]
  /// One pyramid per floor, in the order the floors were given.
  public var floors: [FloorPlan]

  public init(tileSizes: [TileSize], floors: [FloorPlan]) {
    self.tileSizes = tileSizes
    self.floors = floors
  }

  /// Cells of every cut: an upper bound of the tiles (blank cells are known after rendering).
  public var cellCount: Int { floors.reduce(0) { $0 + $1.tileCount } }
}

/// One floor as the planner takes it.
public struct FloorInput: Sendable {
  public var floor: Floor
  public var source: SourceDescription
  public var placement: Placement
  /// The PROJ mapping of a `.projected` placement (TilecutGeo's), nil otherwise.
  public var mapping: (any SourceMapping)?

  public init(floor: Floor, source: SourceDescription, placement: Placement, mapping: (any SourceMapping)? = nil) {
    self.floor = floor
    self.source = source
    self.placement = placement
    self.mapping = mapping
  }
}

extension PyramidPlanner {
  /// Plans every floor of a job.
  public static func plan(floors: [FloorInput], request: PlanRequest) throws -> JobPlan {
    let plans = try floors.map {
      try plan(floor: $0.floor, source: $0.source, placement: $0.placement, request: request, mapping: $0.mapping)
    }
    return JobPlan(tileSizes: request.tileSizes.sorted(), floors: plans)
  }
}
