import Foundation
import TilecutCore
import TilecutProject
import TilecutVips

extension BuildJob {
  /// Plan, check up-to-date, render every floor's layers into staging, swap in: the
  /// steps of a single run (`TileJob.execute`), with a layer per building. With
  /// `{building}` in the name, each building is a build of its own (`executeEach`).
  package func execute() throws -> Int32 {
    let started = Date()
    let cancel = SignalCancellation(printer: printer)
    cancel.start()
    defer { cancel.stop() }
    // the files the project file has tilecut write: inside its folder, and only over tilecut's own
    try ProjectWrites.check(project, keys: fileWrites)
    // the files options name, before anything is read: never an input, never inside the output
    try checkOptionPaths(sidecars: [])
    if let split = try BuildingSplit(self) { return try executeEach(split, cancel: cancel, started: started) }
    let (plan, layers) = try self.plan()
    noteInput(plan.floors.map(\.source.input.path))
    if base.run.dryRun { return try dryRun(plan, layers: layers) }
    try cancel.checkpoint()
    // the sidecars the placements read are known now; the rule is made (or refused) before any work
    try checkOptionPaths(sidecars: plan.plans.flatMap(\.placement.sidecars))
    let dependencyRule =
      try base.output.depfile == nil
      ? nil : DependencyFile.text(target: recordedTarget(DependencyFile.target(output: base.output.output)), dependencies: dependencies(plan))
    switch try stage(plan, layers: layers, cancel: cancel) {
    case .upToDate(let store):
      try base.writeDependencies(dependencyRule)
      if let path = base.output.changes { try ChangeList(entries: []).write(to: path) }
      printer.info("\(store.path): up to date")
      if base.run.json { try Printer.result(json: RunReport(output: store.path, upToDate: true)) }
    case .staged(let staged):
      var committed = false
      defer { if !committed { staged.store.abort() } }
      if let path = base.output.changes { try staged.changes().write(to: path) }
      // the rule too: a depfile that cannot be written leaves the previous output as it was
      try base.writeDependencies(dependencyRule)
      try cancel.committing { try staged.store.commit() }
      committed = true
      staged.progress.finish()
      base.report(plan, ledger: staged.ledger, seconds: Date().timeIntervalSince(started), output: staged.store.path)
    }
    return 0
  }

  /// A build rendered into staging: published by `store.commit()`, dropped by `store.abort()`.
  struct StagedBuild {
    var store: any TileStore
    var manifest: Manifest
    var ledger: RenderLedger
    var progress: ProgressTracker

    /// The tile files the commit adds, modifies or deletes.
    func changes() throws -> ChangeList {
      try ChangeList.compute(store: store, manifest: manifest, previous: store.existingManifest)
    }
  }

  enum StageOutcome {
    /// The output already holds this build (its manifest's time was renewed).
    case upToDate(any TileStore)
    case staged(StagedBuild)
  }

  /// Everything up to the swap: the store inspected, the up-to-date check, the
  /// render (incremental where the previous output allows) and the manifest, staged.
  func stage(_ plan: TileJobPlan, layers: [BuildLayer], cancel: SignalCancellation) throws -> StageOutcome {
    let store = base.makeStore(plan)
    try store.inspect()
    cancel.attach(store)
    let sources = try base.digestSources(plan, previous: store.existingManifest)
    let options = shapingOptions(plan, layers: layers)
    let fingerprint = TileJob.fingerprint(sources: sources, options: options)
    // what the whole campus would be: the fingerprint `merge` gives the joined shards
    let jobFingerprint = TileJob.fingerprint(sources: sources, options: options.filter { $0.key != "shard" })
    try cancel.checkpoint()
    if !base.output.force, let existing = store.existingManifest, existing.fingerprint == fingerprint {
      if let difference = store.difference(from: existing) {
        printer.info("\(store.path): \(difference); rebuilding")
      } else {
        try store.markUpToDate()
        return .upToDate(store)
      }
    }
    if let warning = base.storeWarning(plan) { printer.warning(warning) }
    try store.begin()
    var staged = false
    defer { if !staged { store.abort() } }
    let pool = WorkPool(jobs: base.run.jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    cancel.attach(pool)
    // the decoded pixels' digests: a file saved again with the same image changes nothing.
    // Wanted before the render only when the previous output may lend tiles; a full
    // build hashes them as its render reads the sources (one decode, not two).
    var pixels = try pixelBlocks(
      plan, layers: layers, sources: sources, options: options, previous: store.existingManifest,
      decode: canReuse(plan, options: options, previous: store.existingManifest))
    try cancel.checkpoint()
    var incremental = incrementalPlan(
      plan, layers: layers, sources: sources, pixels: pixels, options: options, previous: store.existingManifest)
    // tiles carried out of the previous archive store's files: only from files that
    // still hold what their manifest lists
    if incremental != nil, !StoreCatalogue.driver(for: base.output.store).tilesAreFiles, let previous = store.existingManifest,
      let difference = store.difference(from: previous)
    {
      printer.info("\(store.path): \(difference); making every tile again")
      incremental = nil
    }
    // a whole rebuild an option caused says which, rather than naming every floor
    if incremental == nil, !base.output.force, let previous = store.existingManifest, previous.fingerprint != fingerprint,
      let reason = TileJob.rebuildReason(previous: previous, options: options, tileSizes: plan.sizes.map(\.pixels))
    {
      printer.info("\(store.path): \(reason): every floor is rebuilt")
    }
    // only a source's file changed, not its pixels, and the tiles are all the previous
    // output's: they stay where they are, and the commit replaces only the manifest
    var inPlace = false
    if let incremental, incremental.changed.isEmpty, incremental.dirty.count == 0, !base.output.preview,
      let previous = store.existingManifest, Self.keepsEveryTile(plan, previous: previous)
    {
      inPlace = store.keepTiles()
    }
    let progress = ProgressTracker(plan: plan, printer: printer, planned: incremental.map { Self.incrementalCells(plan, $0) })
    let ledger = RenderLedger(onTile: { key, _ in progress.tileDone(key) })
    progress.start(jobs: pool.jobs)
    do {
      if let incremental, let previous = store.existingManifest {
        let carried = try carryOver(plan, previous: previous, dirty: incremental.dirty, store: store, ledger: ledger, inPlace: inPlace)
        var only = plan
        only.settings.only = incremental.dirty
        // each layer read only in the strips its dirty cells need, the clean part of its
        // reduced levels taken from the previous tiles where they hold it exactly
        var notes: [String] = []
        let reuse = try reusePlans(
          plan, layers: layers, incremental: incremental, tiles: try PreviousStoreTiles(path: store.path), notes: &notes)
        for (i, floorPlan) in reuse.plans { only.floors[i].plan = floorPlan }
        try Self.render(
          only, layers: layers, encoder: base.encoding.encoder(), writer: store, pool: pool, ledger: ledger, subset: incremental.render,
          previous: reuse.previous)
        notes += Self.reuseNotes(plan, layers: layers, plans: reuse.plans, previous: reuse.previous)
        for note in notes { printer.info(note) }
        let total = ledger.outcomes.values.reduce(0) { $0 + $1.tiles.count }
        for name in incremental.samePixels { printer.info("\(name): a new file with the same pixels; its tiles are kept") }
        for note in incremental.notes { printer.info(note) }
        let what = incremental.changed.isEmpty ? "no pixels" : incremental.changed.joined(separator: ", ")
        printer.info("\(what) changed: \(Self.grouped(total - carried)) of \(Self.grouped(total)) tiles re-rendered")
      } else {
        let taps = try pixelTaps(plan, pixels: pixels)
        try Self.render(plan, layers: layers, encoder: base.encoding.encoder(), writer: store, pool: pool, ledger: ledger, taps: taps)
        pixels = try digestsAfterRender(plan, pixels: pixels, taps: taps)
      }
    } catch {
      printer.endProgress()
      if let signal = cancel.received { throw JobInterrupted(signal: signal) }
      throw error
    }
    if let signal = cancel.received { throw JobInterrupted(signal: signal) }
    ledger.settleBlanks(cells: Self.cellCounts(plan))
    try base.checkNotEmpty(plan, ledger: ledger)
    try TileJob.confirmSources(sources)
    var manifest = makeManifest(
      plan, layers: layers, ledger: ledger, sources: sources, pixels: pixels, options: options, fingerprint: fingerprint)
    manifest.shard = plan.settings.shard.map { Manifest.Shard(index: $0.index, count: $0.count, jobFingerprint: jobFingerprint) }
    try ContentVersion.stamp(&manifest, store: store)
    var files: [String: [UInt8]] = [:]
    if base.output.preview { files["preview.html"] = Array(PreviewPage.html(manifest: manifest).utf8) }
    manifest = try store.finish(manifest: manifest, files: files)
    staged = true
    return .staged(StagedBuild(store: store, manifest: manifest, ledger: ledger, progress: progress))
  }

  /// What shapes the pixels: the run's options, and each layer's source and placement
  /// under `<building> floor <n>`, in the file's order.
  func shapingOptions(_ plan: TileJobPlan, layers: [BuildLayer]) -> [String: String] {
    var options = base.shapingOptions(plan).filter { !$0.key.hasPrefix("floor ") }
    for (i, layer) in layers.enumerated() {
      var one = plan
      one.floors = [plan.floors[i]]
      let key = "floor \(plan.plans[i].floor)"
      var text = base.shapingOptions(one)[key] ?? ""
      if let k = layer.settings.knockout { text += " knockout=\(k)" }
      if let b = layer.settings.background { text += " background=\(b)" }
      options["\(layer.building.id) \(key)"] = text
    }
    options["buildings"] = project.buildings.map(\.id).joined(separator: ",")
    return options
  }

  func makeManifest(
    _ plan: TileJobPlan, layers: [BuildLayer], ledger: RenderLedger, sources: [Manifest.Source], pixels: [PixelBlocks?],
    options: [String: String], fingerprint: String
  ) -> Manifest {
    let outcomes = ledger.outcomes
    let cells = Self.cells(plan.plans)
    let levels = cells.keys.sorted().compactMap { key -> Manifest.Level? in
      guard let range = cells[key] else { return nil }
      return Manifest.Level(
        floor: key.floor, tileSize: key.tileSize, range: range, tiles: outcomes[key]?.tiles ?? [], bytes: outcomes[key]?.bytes ?? 0)
    }
    let groups = Self.floorGroups(plan.plans)
    let footprints = groups.compactMap { group -> Manifest.Footprint? in
      let rects = group.layers.map { plan.plans[$0].footprint }
      guard let first = rects.first else { return nil }
      return Manifest.Footprint(floor: group.floor, rect: rects.dropFirst().reduce(first) { $0.union($1) })
    }
    var manifest = Manifest(
      tileSizes: plan.sizes.map(\.pixels), floors: groups.map(\.floor), name: plan.template.pattern, levels: levels,
      footprints: footprints, generator: Manifest.Generator(version: tilecutVersion, renderer: rendererRevision, libvips: Vips.version),
      sources: base.recorded(sources),
      options: options.filter { $0.key != "tileSizes" }, fingerprint: fingerprint)
    var substitutes: [Manifest.Substitute] = []
    for p in plan.plans {
      for s in p.substitutes {
        let item = Manifest.Substitute(floor: p.floor, tileSize: s.tileSize, zoom: s.zoom, servedBy: s.servedBy)
        if !substitutes.contains(item) { substitutes.append(item) }
      }
    }
    manifest.substitutes = substitutes.isEmpty ? nil : substitutes
    manifest.venueLevels = VenueSource.manifestLevels(layers.map(\.source))
    manifest.buildings = project.buildings.map { building in
      let floors = layers.indices.filter { layers[$0].building.id == building.id }.map { i in
        Manifest.BuildingFloor(
          footprint: Manifest.Footprint(floor: plan.plans[i].floor, rect: plan.plans[i].footprint),
          source: base.pathAnchor.relative(layers[i].source.input.path),
          page: layers[i].source.input.page, sha256: sources[i].sha256, pixels: pixels[i])
      }
      return Manifest.Building(id: building.id, name: building.name, floors: floors)
    }
    return manifest
  }

  /// `--depfile` and `--changes`: as for a single run, with the project file, every
  /// layer's source and the files its placement names (and the sidecars the placements
  /// read) as the inputs they must not be.
  func checkOptionPaths(sidecars: [String]) throws {
    var read = [project.file]
    for layer in project.buildings.flatMap(\.floors) {
      read.append(layer.source)
      guard let placement = try? placementOptions(layer) else { continue }
      if let world = placement.worldFile { read.append(world) }
      if let crs = placement.sourceCrs, FileManager.default.fileExists(atPath: crs) { read.append(crs) }
    }
    read += sidecars
    let named = [("--depfile", base.output.depfile), ("--changes", base.output.changes)].compactMap { o, p in
      p.map { (option: o, path: $0) }
    }
    try OptionPaths.check(outputs: named, inputs: read, outputDirectory: base.output.output)
  }

  /// The depfile's target, relative to the project file's folder as its dependencies are.
  func recordedTarget(_ target: String) -> String { base.pathAnchor.relative(target) }

  /// `--depfile`'s dependencies: the project file, every source and every sidecar the
  /// placements read (`DependencyFile.text` refuses a name make cannot express), named
  /// relative to the project file's folder, as the file names them: the rule is the
  /// same from wherever tilecut runs, for a make that runs in that folder.
  func dependencies(_ plan: TileJobPlan) -> [String] {
    let anchor = base.pathAnchor
    return readFiles(plan).map { anchor.relative($0) }
  }

  /// The files a build reads, as the working directory names them.
  func readFiles(_ plan: TileJobPlan) -> [String] {
    var dependencies = [project.file]
    for (i, layer) in project.buildings.flatMap(\.floors).enumerated() {
      let placement = (try? placementOptions(layer)) ?? base.placement
      let sidecars = i < plan.plans.count ? plan.plans[i].placement.sidecars : []
      for d in DependencyFile.dependencies(inputs: [layer.source], placement: placement, sidecars: sidecars) where !dependencies.contains(d) {
        dependencies.append(d)
      }
    }
    return dependencies
  }

  /// `--dry-run`: the buildings and floors (printed while placing), then each floor
  /// number's cells by size and zoom; nothing decoded, nothing written.
  func dryRun(_ plan: TileJobPlan, layers: [BuildLayer]) throws -> Int32 {
    let cells = Self.cells(plan.plans)
    var total = 0
    for group in Self.floorGroups(plan.plans) {
      let names = group.layers.map { layers[$0].building.id }
      printer.info("floor \(group.floor): \(names.joined(separator: " + "))\(names.count > 1 ? " (composited in this order)" : "")")
    }
    for key in cells.keys.sorted() {
      guard let r = cells[key] else { continue }
      total += r.count
      printer.info(
        "  floor \(key.floor) \(key.tileSize) px zoom \(key.zoom): x \(r.xRange.lowerBound)...\(r.xRange.upperBound), y \(r.yRange.lowerBound)...\(r.yRange.upperBound), up to \(r.count) tiles"
      )
    }
    printer.info("dry run: up to \(total) tiles → \(base.output.output) (nothing written)")
    if base.run.json { try Printer.result(json: dryRunReport(plan, layers: layers)) }
    return 0
  }

  /// `build --dry-run --json`: a single run's dry-run document (each floor number's
  /// union footprint and cells), each placement with its building, and the buildings.
  func dryRunReport(_ plan: TileJobPlan, layers: [BuildLayer]) -> DryRunReport {
    let cells = Self.cells(plan.plans)
    let levels = cells.keys.sorted().map { LevelReport(key: $0, range: cells[$0]) }
    let footprints = Self.floorGroups(plan.plans).compactMap { group -> Manifest.Footprint? in
      let rects = group.layers.map { plan.plans[$0].footprint }
      guard let first = rects.first else { return nil }
      return Manifest.Footprint(floor: group.floor, rect: rects.dropFirst().reduce(first) { $0.union($1) })
    }
    let placements = plan.plans.indices.map { i in
      var report = PlacementReport(plan.plans[i])
      report.building = layers[i].building.id
      return report
    }
    let buildings = project.buildings.map { building in
      DryRunReport.BuildingReport(
        id: building.id, name: building.name,
        floors: layers.indices.filter { layers[$0].building.id == building.id }.map { plan.plans[$0].floor })
    }
    return DryRunReport(
      exact: false, output: base.output.output, cells: cells.values.reduce(0) { $0 + $1.count }, footprints: footprints, placements: placements,
      levels: levels, plan: plan.job, buildings: buildings)
  }
}
