import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// The previous output's tiles, read through its store and decoded to RGBA8: the
/// clean part of a reduced level in an incremental rebuild (`DirtyCells.reuse`).
final class PreviousStoreTiles: PreviousTileSource, @unchecked Sendable {
  private let reader: Mutex<StoreReader>
  /// Tiles decoded, by floor, for the rebuild's notes.
  let decoded = Mutex<[Floor: Int]>([:])

  init(path: String) throws { reader = Mutex(try StoreReader(path)) }

  /// Whether the previous output has a tile (not a blank cell) there.
  func has(floor: Floor, tileSize: Int, tile: TileCoordinate) -> Bool {
    guard let cell = try? reader.withLock({ try $0.cell(tile, floor: floor.number, tileSize: tileSize) }), case .tile = cell else {
      return false
    }
    return true
  }

  func rgba(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8]? {
    let cell = try reader.withLock { try $0.cell(tile, floor: floor.number, tileSize: tileSize) }
    guard case .tile(let bytes) = cell else { return nil }
    let image = try RGBAImage.decode(bytes: bytes, width: tileSize, height: tileSize)
    guard image.width == tileSize, image.height == tileSize else {
      throw TilecutError.output(
        path: "floor \(floor) \(tileSize) px tile \(tile)",
        reason: "of the previous output is not \(tileSize) × \(tileSize) pixels; run again with --force")
    }
    decoded.withLock { $0[floor, default: 0] += 1 }
    return image.pixels
  }
}

extension BuildJob {
  /// Why the previous tiles of layer `i` cannot stand in for the clean part of its
  /// reduced levels (its coarse zooms are then made from the whole source, as before),
  /// or nil when they can: only lossless tiles hold the pixels a full build reduces
  /// (PNG, not `--palette`), only blank cells whose pixels are known (no
  /// `--background`, whose blank tiles may hold any shade within its tolerance), only
  /// a layer whose cells are its own (not composited with other buildings), and only
  /// a mean reduction (`--resampling nearest` keeps the colour of transparent pixels).
  func reuseObstacle(_ plan: TileJobPlan, layers: [BuildLayer], index i: Int) -> String? {
    let floor = plan.plans[i]
    if base.encoding.format != .png { return "its tiles are \(base.encoding.format.rawValue.uppercased()), not lossless" }
    if base.encoding.palette { return "its tiles are quantised (--palette)" }
    if layers[i].settings.background != nil { return "blank tiles of --background may hold any shade within its tolerance" }
    if plan.plans.filter({ $0.floor == floor.floor }).count > 1 { return "its tiles are composited with other buildings'" }
    if floor.resampling == .nearest { return "--resampling nearest reduces by picking pixels" }
    return nil
  }

  /// For each rendered layer of an incremental rebuild: its plan read only in the
  /// strips its dirty cells need, and, where the previous tiles can stand in for the
  /// clean part of its reduced levels, what to take from them. `notes`: a line for
  /// each layer that falls back to reducing its coarse zooms from the whole source.
  func reusePlans(
    _ plan: TileJobPlan, layers: [BuildLayer], incremental: IncrementalPlan, tiles: @autoclosure () throws -> any PreviousTileSource,
    notes: inout [String]
  ) throws -> (plans: [Int: FloorPlan], previous: [Int: PreviousLevels]) {
    var plans: [Int: FloorPlan] = [:]
    var previous: [Int: PreviousLevels] = [:]
    var source: (any PreviousTileSource)?
    for i in incremental.render {
      let floor = plan.plans[i]
      let name = Self.layerName(layers[i].building.id, floor.floor)
      var obstacle = reuseObstacle(plan, layers: layers, index: i)
      if obstacle == nil, DirtyCells.reuse(of: floor, dirty: incremental.dirty) != nil {
        if source == nil { source = try tiles() }
        // which cells have a previous tile (the previous output's store's; another
        // source's blank cells are not known), for the rows put back instead of read
        let previousHas = (source as? PreviousStoreTiles).map { store in
          { (key: LevelKey, tile: TileCoordinate) in store.has(floor: key.floor, tileSize: key.tileSize, tile: tile) }
        }
        if let source, let reuse = DirtyCells.reuse(of: floor, dirty: incremental.dirty, previousHas: previousHas) {
          plans[i] = reuse.plan
          previous[i] = PreviousLevels(tiles: source, levels: reuse.levels)
          continue
        }
      }
      obstacle = obstacle ?? "a level of it is cut into no tiles"
      plans[i] = DirtyCells.strips(of: floor, dirty: incremental.dirty)
      if !floor.source.isVector, let obstacle {
        notes.append("\(name): its coarse zooms are reduced from the whole source (\(obstacle))")
      }
    }
    return (plans, previous)
  }

  /// What the previous tiles did for each layer that used them: `hq floor 1: its
  /// densest level read in 4 of 32 strips, 40 previous tiles put back`.
  static func reuseNotes(
    _ plan: TileJobPlan, layers: [BuildLayer], plans: [Int: FloorPlan], previous: [Int: PreviousLevels]
  ) -> [String] {
    previous.keys.sorted().compactMap { i in
      guard let reduced = plans[i], let head = plan.plans[i].chain.first,
        let kept = reduced.levels.first(where: { $0.base == head.base && $0.density == head.density })
      else { return nil }
      let decoded = (previous[i]?.tiles as? PreviousStoreTiles)?.decoded.withLock { $0[plan.plans[i].floor] } ?? 0
      return
        "\(layerName(layers[i].building.id, plan.plans[i].floor)): its densest level read in \(kept.strips.count) of \(head.strips.count) strips, \(grouped(decoded)) previous tiles put back"
    }
  }
}
