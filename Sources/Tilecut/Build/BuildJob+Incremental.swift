import Foundation
import TilecutCore
import TilecutVips

/// What an incremental rebuild makes again: the floors that changed, the cells their
/// old and new footprints touch, and the layers that draw in those cells.
struct IncrementalPlan {
  /// `hq floor 2`, in the file's order (a floor gone from the file last).
  var changed: [String]
  /// Layers whose file changed but not its decoded pixels (a plan saved again): every
  /// tile of theirs is carried over.
  var samePixels: [String] = []
  /// What each changed layer's rebuild covers, for people: `hq floor 1: 6 of 4,096
  /// pixel blocks differ`, or why its whole floor is made again.
  var notes: [String] = []
  var dirty: CellSet
  /// Indices of the layers to render (every layer whose range meets a dirty cell).
  var render: [Int]
}

extension BuildJob {
  /// The name of a layer in options and messages.
  static func layerName(_ id: String, _ floor: Floor) -> String { "\(id) floor \(floor)" }

  /// The incremental plan against the previous output, or nil when the whole output
  /// must be made again: no previous campus output, `--force`, another store, or an
  /// option, tool version, renderer revision or tile size that is not any one floor's.
  func incrementalPlan(
    _ plan: TileJobPlan, layers: [BuildLayer], sources: [Manifest.Source], pixels: [PixelBlocks?], options: [String: String],
    previous: Manifest?
  ) -> IncrementalPlan? {
    guard canReuse(plan, options: options, previous: previous), let previous, let oldBuildings = previous.buildings else { return nil }
    var old: [String: (footprint: WorldRect, floor: Floor, sha256: String, pixels: PixelBlocks?)] = [:]
    var oldOrder: [String] = []
    for building in oldBuildings {
      for f in building.floors {
        let rect = WorldRect(
          minU: WebMercator.u(longitudeDegrees: f.west), minV: WebMercator.v(latitudeDegrees: f.north),
          maxU: WebMercator.u(longitudeDegrees: f.east), maxV: WebMercator.v(latitudeDegrees: f.south))
        let name = Self.layerName(building.id, f.floor)
        old[name] = (rect, f.floor, f.sha256, f.pixels)
        oldOrder.append(name)
      }
    }
    var dirty = CellSet()
    func addOld(_ before: (footprint: WorldRect, floor: Floor, sha256: String, pixels: PixelBlocks?)) {
      for level in previous.levels where level.floor == before.floor {
        let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
        if let range = WebMercator.tileRange(covering: before.footprint, zoom: level.zoom, tileSize: level.tileSize) {
          dirty.insert(key, range)
        }
      }
    }
    var changed: [String] = []
    var samePixels: [String] = []
    var notes: [String] = []
    var otherKind: [String] = []
    var names: Set<String> = []
    for (i, layer) in layers.enumerated() {
      let floor = plan.plans[i].floor
      let name = Self.layerName(layer.building.id, floor)
      names.insert(name)
      let before = old[name]
      if let before, before.sha256 == sources[i].sha256, previous.options[name] == options[name] { continue }
      changed.append(name)
      // the same options and size: the blocks of decoded pixels that changed say where
      if let before, previous.options[name] == options[name], let was = before.pixels, let now = pixels[i],
        let blocks = now.changedBlocks(since: was)
      {
        // another file, the same image: nothing of the floor changes
        if blocks.isEmpty {
          changed.removeLast()
          samePixels.append(name)
          continue
        }
        if let cells = DirtyCells.cells(of: plan.plans[i], sourceRects: blocks) {
          for (key, tiles) in cells {
            for tile in tiles { dirty.insert(key, tile) }
          }
          let count = blocks.reduce(0) { $0 + ($1.width + now.block - 1) / now.block }
          notes.append("\(name): \(Self.grouped(count)) of \(Self.grouped(now.columns * now.rows)) pixel blocks differ")
          continue
        }
      }
      if let was = before?.pixels, let now = pixels[i], was.hash != now.hash { otherKind.append(name) }
      if plan.plans[i].source.isVector {
        notes.append("\(name): a \(plan.floors[i].format.rawValue.uppercased()) is compared as a whole file; its floor is made again")
      }
      for level in plan.plans[i].levels {
        for cut in level.cuts { dirty.insert(LevelKey(floor: floor, tileSize: cut.tileSize, zoom: cut.zoom), cut.range) }
      }
      if let before { addOld(before) }
    }
    // said once for all the floors it concerns
    if !otherKind.isEmpty {
      notes.append(
        "\(otherKind.joined(separator: ", ")): the previous manifest's pixel digests are of an earlier kind (SHA-256, now XXH3-128); made again whole"
      )
    }
    for name in oldOrder where !names.contains(name) {
      changed.append(name)
      if let before = old[name] { addOld(before) }
    }
    // nothing of any floor changed, yet the fingerprint did: make it all again
    guard !changed.isEmpty || !samePixels.isEmpty else { return nil }
    let render = layers.indices.filter { i in
      plan.plans[i].levels.contains { level in
        level.cuts.contains { dirty.intersects(LevelKey(floor: plan.plans[i].floor, tileSize: $0.tileSize, zoom: $0.zoom), $0.range) }
      }
    }
    return IncrementalPlan(changed: changed, samePixels: samePixels, notes: notes, dirty: dirty, render: render)
  }

  /// Whether the previous output can lend its tiles to this build at all: a campus
  /// output of this store, tool version, renderer revision, tile sizes and run-wide
  /// options, no `--force`, no shard. When not, the build is a full one, and the
  /// sources' block digests are made as the render reads them.
  func canReuse(_ plan: TileJobPlan, options: [String: String], previous: Manifest?) -> Bool {
    guard !base.output.force, plan.settings.shard == nil, let previous, previous.shard == nil,
      previous.buildings != nil, (previous.store ?? .default).rawValue == base.output.store.rawValue,
      StoreCatalogue.driver(for: base.output.store).lendsTiles(previous)
    else { return false }
    guard previous.generator.version == tilecutVersion, previous.generator.renderer == rendererRevision,
      previous.generator.libvips == Vips.version,
      previous.name == plan.template.pattern, previous.tileSizes == plan.sizes.map(\.pixels)
    else { return false }
    func runWide(_ o: [String: String]) -> [String: String] { o.filter { !$0.key.contains(" floor ") && $0.key != "tileSizes" } }
    return runWide(previous.options) == runWide(options)
  }

  /// Puts every tile of the previous output that lies outside the dirty cells into
  /// staging unchanged, as the store carries it (`StoreDriver.tileCarrier`: tile files
  /// linked or copied, an archive's tiles read from the previous file of their floor
  /// and size). A cell outside them that had no tile is counted blank again.
  /// Returns how many were carried. `inPlace` (the store keeps its tiles where they
  /// are, `TileStore.keepTiles()`): each is counted, not linked.
  func carryOver(
    _ plan: TileJobPlan, previous: Manifest, dirty: CellSet, store: any TileStore, ledger: RenderLedger, inPlace: Bool = false
  ) throws -> Int {
    guard let staging = store.stagingPath else { throw TilecutError.output(path: store.path, reason: "the store was not begun") }
    // the previous output's tiles as its store lends them (an archive store's files
    // opened once and checked against the manifest's level digests)
    let carrier = try StoreCatalogue.driver(for: base.output.store).tileCarrier(
      previous, into: store, staging: staging, template: plan.template, inPlace: inPlace)
    var had: [LevelKey: Set<TileCoordinate>] = [:]
    for level in previous.levels {
      let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
      for run in level.rows where run.count == 3 && run[1] <= run[2] {
        for x in run[1]...run[2] { had[key, default: []].insert(TileCoordinate(zoom: level.zoom, x: x, y: run[0])) }
      }
    }
    var carried = 0
    for (key, range) in plan.cells.sorted(by: { $0.key < $1.key }) {
      let previousTiles = had[key] ?? []
      for y in range.yRange {
        for x in range.xRange {
          let tile = TileCoordinate(zoom: key.zoom, x: x, y: y)
          guard !dirty.contains(key, tile) else { continue }
          guard previousTiles.contains(tile) else {
            ledger.blank(key)
            continue
          }
          let bytes = try carrier.carry(floor: key.floor, tileSize: key.tileSize, tile: tile)
          ledger.carried(key, tile, bytes: bytes)
          carried += 1
        }
      }
    }
    return carried
  }

  /// Whether carrying every clean cell of `plan` over (none dirty) gives exactly the
  /// previous output's tiles: the same levels, each over the same cells.
  static func keepsEveryTile(_ plan: TileJobPlan, previous: Manifest) -> Bool {
    let cells = plan.cells
    guard previous.levels.count == cells.count else { return false }
    return previous.levels.allSatisfy { level in
      guard let range = cells[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] else { return false }
      return level.xRange == [range.xRange.lowerBound, range.xRange.upperBound]
        && level.yRange == [range.yRange.lowerBound, range.yRange.upperBound]
    }
  }

  /// The cells an incremental rebuild tells progress of, per level: each kept cell once
  /// (carried over or blank), and each rendered layer's cells inside the dirty ones.
  static func incrementalCells(_ plan: TileJobPlan, _ incremental: IncrementalPlan) -> [LevelKey: Int] {
    var planned = ProgressTracker.planned(incremental.render.map { plan.plans[$0] }, shard: nil, only: incremental.dirty)
    for (key, range) in plan.cells {
      for y in range.yRange {
        for x in range.xRange where !incremental.dirty.contains(key, TileCoordinate(zoom: key.zoom, x: x, y: y)) {
          planned[key, default: 0] += 1
        }
      }
    }
    return planned
  }
}

extension BuildJob {
  /// 9860 → "9,860".
  static func grouped(_ n: Int) -> String {
    let digits = String(abs(n))
    var out = ""
    for (i, c) in digits.enumerated() {
      if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
      out.append(c)
    }
    return (n < 0 ? "-" : "") + out
  }
}
