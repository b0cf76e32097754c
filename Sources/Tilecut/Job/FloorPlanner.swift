import TilecutCore
import TilecutGeo

/// The one planner of both jobs: the run-wide set-up (sizes, name template, request,
/// settings) made once, then each placed floor planned from its source, its pixel
/// options and that request. A single run's floors are one building's floors; a
/// project's are each building's in turn.
struct FloorPlanner {
  var options: JobOptions
  var sizes: [TileSize]
  var template: TileNameTemplate
  var request: PlanRequest
  var settings: RenderSettings

  init(_ options: JobOptions) throws {
    self.options = options
    sizes = options.pyramid.tileSizes
    template = try TileNameTemplate(options.output.name).withExtension(options.encoding.encoder().fileExtension)
    let pyramid = options.pyramid
    request = PlanRequest(
      minZoom: pyramid.minZoom, maxZoom: pyramid.maxZoom, tileSizes: sizes, retinaDepth: pyramid.retinaDepth,
      resampling: pyramid.resampling)
    settings = RenderSettings(
      background: options.encoding.background, knockout: options.encoding.knockout, shard: try options.run.shardSelector())
  }

  /// One placed floor, described with its pixel options, mapped and planned: in two
  /// pieces of the same floor when it crosses ±180°, unless `refuseCrossing` gives the
  /// error that refuses it (a project's layer).
  func plan(
    _ floor: FloorSource, placement: Placement, pixels: PixelOptions, printer: Printer,
    refuseCrossing: ((SourceDescription) -> Error)? = nil
  ) throws -> [PlannedFloor] {
    let source = try pixels.describe(floor, printer: printer)
    if let refuseCrossing, Antimeridian.crosses(placement, width: source.width, height: source.height) {
      throw refuseCrossing(source)
    }
    let mapping = try ProjectedMapping.forPlacement(placement)
    let pieces = try Antimeridian.plan(floor: floor.floor, source: source, placement: placement, request: request, mapping: mapping)
    return pieces.enumerated().map { PlannedFloor(source: floor, plan: $1, mapping: mapping, piece: $0) }
  }

  /// The job's plan of its planned floors, refused when it is too large to make.
  func plan(_ floors: [PlannedFloor], notes: [String] = []) throws -> TileJobPlan {
    let plan = TileJobPlan(floors: floors, sizes: sizes.sorted(), template: template, settings: settings, notes: notes)
    try options.guardSize(plan)
    return plan
  }
}
