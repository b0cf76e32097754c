import Foundation

/// Streams one floor's levels in 512-row strips: the densest direct level is read
/// once, cut into every tile size it serves, and halved into the next level, so
/// memory holds about one strip per level whatever the source's size.
public final class PyramidBuilder {
  let plan: FloorPlan
  let settings: RenderSettings
  let encoder: any TileEncoder
  let writer: any TileWriter
  let pool: WorkPool
  let ledger: RenderLedger
  let openSource: (DensityLevel) throws -> any LevelPixelSource
  /// What a direct level's read ahead may hold beyond its strip (`StripReader`).
  let readAheadBudget: Int

  public init(
    plan: FloorPlan, settings: RenderSettings, encoder: any TileEncoder, writer: any TileWriter,
    pool: WorkPool, ledger: RenderLedger, inPlaceBudget: Int = PyramidBuilder.inPlaceBudget,
    readAheadBudget: Int = PyramidBuilder.readAheadBudget, openSource: @escaping (DensityLevel) throws -> any LevelPixelSource
  ) {
    inPlaceLeft = inPlaceBudget
    self.readAheadBudget = readAheadBudget
    self.plan = plan
    self.settings = settings
    self.encoder = encoder
    self.writer = writer
    self.pool = pool
    self.ledger = ledger
    self.openSource = openSource
  }

  /// Renders every level of the floor; tile jobs may still be running on the pool when it returns.
  public func build() throws {
    for level in plan.levels {
      for cut in level.cuts { ledger.touch(LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)) }
    }
    let chain = plan.chain
    // the level the plan makes by doubling the chain's head (512 px tiles at the deepest zoom)
    let derived = plan.standalone.first { level in
      if case .double = level.recipe { return true }
      return false
    }
    for level in plan.standalone where level != derived {
      let stage = Stage(level: level, builder: self, next: nil, inPlace: claimInPlace(level))
      try stream(level, into: stage)
    }
    try streamChain(chain, derived: derived)
    // The @3x levels (768 px tiles) are a chain of their own: 768 is not 256·2^k.
    try streamChain(plan.chain(base: PyramidPlanner.tripleTileSize), derived: nil)
  }

  /// The memory the stages may spend on one more strip each so that their tiles are
  /// encoded in place instead of copied out (about 8 % of the CPU on the 16384² plan):
  /// narrow levels take it, and the widest keep copying, where a strip is more than
  /// the copies' backlog.
  public static let inPlaceBudget = 16 << 20
  /// The most a direct level's read ahead holds beyond its strip: a wider strip is
  /// read ahead in chunks of rows (see `StripReader`), so memory stops following the
  /// width there (a 32768 px wide level: 8 MB of read ahead instead of 32 MB).
  public static let readAheadBudget = 8 << 20
  private var inPlaceLeft: Int

  /// True when the level's stage may keep one more strip, taken from the budget.
  private func claimInPlace(_ level: DensityLevel) -> Bool {
    let bytes = Stage.bufferBytes(level)
    guard bytes <= inPlaceLeft else { return false }
    inPlaceLeft -= bytes
    return true
  }

  /// Streams a chain's direct head into stages that reduce it level by level.
  private func streamChain(_ chain: [DensityLevel], derived: DensityLevel?) throws {
    guard let top = chain.first else { return }
    // the budget goes to the densest levels first: they have most of the tiles
    let inPlace = chain.map(claimInPlace)
    var next: Stage?
    for (level, inPlace) in zip(chain, inPlace).dropFirst().reversed() {
      next = Stage(level: level, builder: self, next: next, inPlace: inPlace)
    }
    let head = Stage(level: top, builder: self, next: next, inPlace: inPlace[0])
    head.derived = derived
    try stream(top, into: head)
  }

  private func stream(_ level: DensityLevel, into stage: Stage) throws {
    let region = level.region
    let strips = level.strips
    let open = openSource
    let reader = try StripReader(
      open: { try open(level) }, strips: strips, stride: stage.stride, rows: level.stripHeight, readAheadBudget: readAheadBudget)
    defer { reader.finish() }
    for (index, strip) in strips.enumerated() {
      try pool.checkpoint()
      let stripTop = region.y + strip.top - strip.offset
      // an incremental rebuild's strips made of previous tiles, above this one
      try stage.flushExtras(before: stripTop)
      stage.begin(stripTop, clear: false)
      try reader.take(index, into: &stage.buffer)
      if let rule = settings.knockout {
        stage.buffer.withUnsafeMutableBufferPointer { buf in
          guard let base = buf.baseAddress else { return }
          PixelOps.knockOut(base + strip.offset * stage.stride, count: strip.count * region.width, rule: rule)
        }
      }
      try stage.flush()
    }
    try stage.finish()
  }
}
