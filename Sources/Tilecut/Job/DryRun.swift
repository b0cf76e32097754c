import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// Encodes one tile in `every` to estimate output bytes; returns nothing for the rest.
final class SamplingEncoder: TileEncoder, Sendable {
  let inner: any TileEncoder
  let every: Int
  private let counter = Atomic<Int>(0)
  private let sampled = Mutex<(count: Int, bytes: Int)>((0, 0))

  init(_ inner: any TileEncoder, every: Int = 16) {
    self.inner = inner
    self.every = every
  }

  var fileExtension: String { inner.fileExtension }

  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] {
    try sample { try inner.encode(rgba: rgba, size: size, upsampled: upsampled) }
  }

  /// A tile read in place goes to the inner encoder in place: the fifteen tiles in
  /// sixteen that are not sampled are never copied out of their strip.
  func encode(pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8] {
    try sample { try inner.encode(pixels: pixels, stride: stride, size: size, upsampled: upsampled) }
  }

  /// Runs `encode` for one call in `every` and counts its bytes; returns no bytes.
  private func sample(_ encode: () throws -> [UInt8]) throws -> [UInt8] {
    let n = counter.add(1, ordering: .relaxed).newValue
    guard n % every == 1 || every == 1 else { return [] }
    let bytes = try encode()
    sampled.withLock {
      $0.count += 1
      $0.bytes += bytes.count
    }
    return []
  }

  /// Mean bytes per encoded tile of the sample.
  var meanBytes: Double {
    sampled.withLock { $0.count == 0 ? 0 : Double($0.bytes) / Double($0.count) }
  }
}

/// Drops tiles: a dry run decides which cells have a tile without writing one.
struct NullWriter: TileWriter {
  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {}
}

extension TileJob {
  /// Prints the plan. Without `--exact` no pixel is decoded: each level's cells are
  /// an upper bound of its tiles. With it, every level is rendered (nothing written)
  /// to count exactly the cells that get a tile.
  func dryRun(_ plan: TileJobPlan, started: Date) throws {
    var outcomes: [LevelKey: LevelOutcome]?
    var mean = 0.0
    if run.exact {
      let pool = WorkPool(jobs: run.jobs ?? ProcessInfo.processInfo.activeProcessorCount)
      let sampler = SamplingEncoder(encoding.encoder())
      let ledger = RenderLedger()
      try render(plan, encoder: sampler, writer: NullWriter(), pool: pool, ledger: ledger)
      outcomes = ledger.outcomes
      mean = sampler.meanBytes
    }
    var rows: [String] = []
    var levels: [LevelReport] = []
    var totalCells = 0
    var totalTiles = 0
    for key in plan.cells.keys.sorted() {
      guard let cut = plan.cells[key] else { continue }
      let r = cut.range
      var level = LevelReport(key: key, range: r)
      totalCells += r.count
      let counted: String
      if let outcomes {
        let tiles = outcomes[key]?.tiles.count ?? 0
        totalTiles += tiles
        level.tiles = tiles
        counted = "\(tiles) tiles"
      } else {
        counted = "up to \(r.count) tiles"
      }
      levels.append(level)
      rows.append(
        "  floor \(key.floor)  \(key.tileSize) px  z\(key.zoom)  x \(r.xRange.lowerBound)…\(r.xRange.upperBound)  y \(r.yRange.lowerBound)…\(r.yRange.upperBound)  \(r.count) cells, \(counted)"
      )
    }
    let estimate = Int(mean * Double(totalTiles))
    printer.info("plan for \(output.output) (dry run: nothing written)")
    for p in plan.plans {
      let f = Manifest.Footprint(floor: p.floor, rect: p.footprint)
      printer.info(
        String(
          format: "floor %d: %@, %d × %d px, placement %@, CRS %@, footprint S %.7f W %.7f N %.7f E %.7f, %.3g m per source pixel",
          p.floor.number, p.source.path, p.source.width, p.source.height, p.placement.method.rawValue, PlacementOptions.crsName(p.placement),
          f.south, f.west, f.north, f.east, p.placement.groundMetersPerPixel(width: p.source.width, height: p.source.height)))
      for level in p.levels { printer.info("  " + Self.describe(level)) }
    }
    for row in rows { printer.info(row) }
    if outcomes != nil {
      printer.info("total: \(totalTiles) tiles in \(totalCells) cells, about \(Format.bytes(estimate))")
    } else {
      printer.info("total: up to \(totalCells) tiles in \(totalCells) cells: blank cells are known after rendering (--exact renders to count them)")
    }
    if run.json {
      try Printer.result(
        json: DryRunReport(
          exact: outcomes != nil, output: output.output, cells: totalCells, tiles: outcomes != nil ? totalTiles : nil,
          estimatedBytes: outcomes != nil ? estimate : nil,
          footprints: plan.plans.map { Manifest.Footprint(floor: $0.floor, rect: $0.footprint) },
          placements: plan.plans.map(PlacementReport.init), levels: levels, plan: plan.job))
    }
  }

  /// One level of the plan as a line: its density, region, recipe, strips and cuts.
  static func describe(_ level: DensityLevel) -> String {
    let r = level.region
    func rendered(_ scale: Double?) -> String { scale.map { "document rendered at \(String(format: "%.4g", $0)), " } ?? "" }
    let recipe: String
    switch level.recipe {
    case .embed(let scale, let x, let y):
      recipe = "\(rendered(scale))embedded at \(x), \(y)"
    case .resample(let s):
      let access = s.access == .streaming ? "streaming through \(s.ringRows ?? 0) source rows" : "random access"
      recipe = "\(rendered(s.documentScale))resampled (shrink \(s.shrink), \(s.filter.rawValue), \(access))"
    case .draw(let scale):
      recipe = "drawn on the level's grid (texts sized as at \(String(format: "%.4g", scale))), not resampled"
    case .reduce(let from): recipe = "reduced from density \(from)"
    case .double(let from): recipe = "doubled from density \(from)"
    }
    let cuts = level.cuts.map { "\($0.tileSize) px z\($0.zoom)" }.joined(separator: ", ")
    let strips = level.strips.isEmpty ? "" : ", \(level.strips.count) strips of \(level.stripHeight) rows"
    return
      "level \(level.base)·2^\(level.density): \(r.width) × \(r.height) px at \(r.x), \(r.y), \(recipe)\(strips)\(level.upsampled ? ", upsampled" : ""); cuts \(cuts.isEmpty ? "none" : cuts)"
  }
}
