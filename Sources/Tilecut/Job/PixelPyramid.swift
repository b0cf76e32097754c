import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// What `tilecut georef` shows of the source: its own pixels as tiles in memory.
package enum PixelPyramid {
  /// The source's own pixels as 256 px PNG tiles: zoom Z (the smallest with 256·2^Z ≥
  /// the longer side) holds them one to one, each zoom above halves them. Made by
  /// tilecut's own pipeline with a raster placement, so a PDF or SVG page is rendered as
  /// tilecut renders it and its pixel coordinates are the ones --gcp takes.
  package static func make(input: String, printer: Printer) throws -> (floor: FloorSource, maxZoom: Int, tiles: [String: String]) {
    let run = RunOptions()
    let floors = try FloorResolver.resolve(inputs: [input], options: FloorOptions(), maxPixels: run.maxPixels)
    guard let floor = floors.first else { throw TilecutError.invalidOption(option: "SOURCE", reason: "give the plan to place") }
    let z = PyramidPlanner.rasterMaxZoom(width: floor.description.width, height: floor.description.height)
    let placement = Placement.raster(nativeZoom: z)
    let pixels = PixelOptions()
    let source = try pixels.describe(floor, printer: printer)
    let request = PlanRequest(minZoom: 0, maxZoom: z, tileSizes: [.standard], retinaDepth: .full)
    let job = try PyramidPlanner.plan(floors: [FloorInput(floor: floor.floor, source: source, placement: placement, mapping: nil)], request: request)
    var template = try TileNameTemplate(TileNameTemplate.defaultPattern)
    template = try template.withExtension("png")
    let plan = TileJobPlan(
      floors: [PlannedFloor(source: floor, plan: job.floors[0], mapping: nil)], sizes: job.tileSizes, template: template,
      settings: RenderSettings(), notes: [])
    let tileJob = TileJob(
      inputs: [input], output: OutputOptions(), pyramid: PyramidOptions(), floors: FloorOptions(),
      placement: PlacementOptions(), encoding: EncodingOptions(), run: run, printer: printer)
    try tileJob.options.guardSize(plan)
    let sink = TileSink()
    let pool = WorkPool(jobs: ProcessInfo.processInfo.activeProcessorCount)
    try tileJob.render(plan, encoder: VipsTileEncoder(format: .png), writer: sink, pool: pool, ledger: RenderLedger())
    let tiles = sink.tiles.withLock { $0 }
    return (floor, z, tiles.mapValues { GeorefPage.dataURL(png: $0) })
  }
}

/// Keeps the tiles of a render in memory, by "z/x/y".
final class TileSink: TileWriter {
  let tiles = Mutex<[String: [UInt8]]>([:])

  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    tiles.withLock { $0["\(tile.zoom)/\(tile.x)/\(tile.y)"] = bytes }
  }
}
