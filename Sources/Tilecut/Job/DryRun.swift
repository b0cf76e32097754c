import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// Encodes one tile in `every` to estimate output bytes; returns nothing for the rest.
/// Which tiles are sampled is a function of each tile (its floor, size, zoom and
/// coordinates), not of the order the workers reach them, so the same input and
/// options give the same estimate on every run and with any number of jobs.
final class SamplingEncoder: TileEncoder, Sendable {
  let inner: any TileEncoder
  let every: Int
  private let sampled = Mutex<Sample>(Sample())

  /// The sampled tiles' bytes, and while none is sampled, the first tile in the order
  /// of `Cell` with its bytes: a run of fewer tiles than `every` still has a mean.
  private struct Sample {
    var count = 0
    var bytes = 0
    var first: (cell: Cell, bytes: Int)?
  }

  /// A tile, ordered by floor, size, zoom, row and column.
  struct Cell: Comparable {
    var key: LevelKey
    var tile: TileCoordinate

    static func < (a: Cell, b: Cell) -> Bool {
      (a.key, a.tile.y, a.tile.x) < (b.key, b.tile.y, b.tile.x)
    }
  }

  init(_ inner: any TileEncoder, every: Int = 16) {
    self.inner = inner
    self.every = every
  }

  var fileExtension: String { inner.fileExtension }

  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] {
    try inner.encode(rgba: rgba, size: size, upsampled: upsampled)
  }

  func encode(pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8] {
    try inner.encode(pixels: pixels, stride: stride, size: size, upsampled: upsampled)
  }

  func encode(rgba: [UInt8], key: LevelKey, tile: TileCoordinate, upsampled: Bool) throws -> [UInt8] {
    try sample(Cell(key: key, tile: tile)) { try inner.encode(rgba: rgba, key: key, tile: tile, upsampled: upsampled) }
  }

  /// A tile read in place goes to the inner encoder in place: the fifteen tiles in
  /// sixteen that are not sampled are never copied out of their strip.
  func encode(
    pixels: UnsafePointer<UInt8>, stride: Int, key: LevelKey, tile: TileCoordinate, upsampled: Bool
  ) throws -> [UInt8] {
    try sample(Cell(key: key, tile: tile)) {
      try inner.encode(pixels: pixels, stride: stride, key: key, tile: tile, upsampled: upsampled)
    }
  }

  /// Whether `cell` is one of the tiles sampled: one in `every`, spread by a hash of
  /// the cell so that no grid of the drawing lines up with the sample.
  func isSampled(_ cell: Cell) -> Bool {
    guard every > 1 else { return true }
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15
    for part in [cell.key.floor.number, cell.key.tileSize, cell.key.zoom, cell.tile.x, cell.tile.y] {
      h = Self.mix(h ^ UInt64(bitPattern: Int64(part)))
    }
    return h % UInt64(every) == 0
  }

  /// SplitMix64's finaliser: every input bit moves every output bit.
  private static func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Runs `encode` for a sampled cell and counts its bytes; while no cell is sampled,
  /// also for a cell before the first one kept, which it then replaces. Returns no bytes.
  private func sample(_ cell: Cell, _ encode: () throws -> [UInt8]) throws -> [UInt8] {
    if isSampled(cell) {
      let bytes = try encode()
      sampled.withLock {
        $0.count += 1
        $0.bytes += bytes.count
      }
    } else if sampled.withLock({ $0.count == 0 && ($0.first.map { cell < $0.cell } ?? true) }) {
      let bytes = try encode()
      sampled.withLock { s in
        if s.first.map({ cell < $0.cell }) ?? true { s.first = (cell, bytes.count) }
      }
    }
    return []
  }

  /// Mean bytes per encoded tile of the sample (of the first tile when none was sampled).
  var meanBytes: Double {
    sampled.withLock { s in
      if s.count > 0 { return Double(s.bytes) / Double(s.count) }
      return Double(s.first?.bytes ?? 0)
    }
  }
}

/// Drops tiles: a dry run decides which cells have a tile without writing one.
struct NullWriter: TileWriter {
  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {}
}

/// A job's `--dry-run`: the plan's cells by floor, size and zoom and their total,
/// printed, and with `--json` one document. What differs between the jobs is data:
/// the lines before the cells, a cell line's and the total's words, a project's
/// buildings, and (a single run's `--exact`) the tiles counted by rendering.
struct DryRun {
  var plan: TileJobPlan
  var output: String
  /// Each floor, size and zoom with its cells (and with `--exact` its tiles), in order.
  var levels: [LevelReport] = []
  var cells = 0
  /// With `--exact`: the tiles counted, and the bytes they would take, from a sample.
  var tiles: Int?
  var estimatedBytes: Int?

  init(_ plan: TileJobPlan, output: String, outcomes: [LevelKey: LevelOutcome]? = nil, meanBytes: Double = 0) {
    (self.plan, self.output) = (plan, output)
    let cells = plan.cells
    var tiles = 0
    for key in cells.keys.sorted() {
      var level = LevelReport(key: key, range: cells[key])
      self.cells += level.cells
      if let outcomes {
        level.tiles = outcomes[key]?.tiles.count ?? 0
        tiles += level.tiles ?? 0
      }
      levels.append(level)
    }
    if outcomes != nil { (self.tiles, estimatedBytes) = (tiles, Int(meanBytes * Double(tiles))) }
  }

  /// Prints `head`, then each level as `row` words it, then `total`.
  func print(to printer: Printer, head: [String], total: String, row: (LevelReport) -> String) {
    for line in head + levels.map(row) + [total] { printer.info(line) }
  }

  /// The `--dry-run --json` document: `footprints` as the job reports them; a
  /// project's placements name their building (`building`, by floor) and it lists
  /// its buildings.
  func report(
    footprints: [Manifest.Footprint], building: [String]? = nil, buildings: [DryRunReport.BuildingReport]? = nil
  ) -> DryRunReport {
    let placements = plan.plans.indices.map { i in
      var report = PlacementReport(plan.plans[i])
      report.building = building?[i]
      return report
    }
    return DryRunReport(
      exact: tiles != nil, output: output, cells: cells, tiles: tiles, estimatedBytes: estimatedBytes, footprints: footprints,
      placements: placements, levels: levels, plan: plan.job, buildings: buildings)
  }
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
    let dry = DryRun(plan, output: output.output, outcomes: outcomes, meanBytes: mean)
    var head = ["plan for \(output.output) (dry run: nothing written)"]
    for p in plan.plans {
      let f = Manifest.Footprint(floor: p.floor, rect: p.footprint)
      head.append(
        String(
          format: "floor %d: %@, %d × %d px, placement %@, CRS %@, footprint S %.7f W %.7f N %.7f E %.7f, %.3g m per source pixel",
          p.floor.number, p.source.path, p.source.width, p.source.height, p.placement.method.rawValue, PlacementOptions.crsName(p.placement),
          f.south, f.west, f.north, f.east, p.placement.groundMetersPerPixel(width: p.source.width, height: p.source.height)))
      head += p.levels.map { "  " + Self.describe($0) }
    }
    let total =
      dry.tiles.map { "total: \($0) tiles in \(dry.cells) cells, about \(Format.bytes(dry.estimatedBytes ?? 0))" }
      ?? "total: up to \(dry.cells) tiles in \(dry.cells) cells: blank cells are known after rendering (--exact renders to count them)"
    dry.print(to: printer, head: head, total: total) { level in
      let (x, y) = (level.xRange, level.yRange)
      let counted = level.tiles.map { "\($0) tiles" } ?? "up to \(level.cells) tiles"
      return "  floor \(level.floor)  \(level.tileSize) px  z\(level.zoom)  x \(x[0])…\(x[1])  y \(y[0])…\(y[1])  \(level.cells) cells, \(counted)"
    }
    if run.json {
      try Printer.result(json: dry.report(footprints: plan.plans.map { Manifest.Footprint(floor: $0.floor, rect: $0.footprint) }))
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
