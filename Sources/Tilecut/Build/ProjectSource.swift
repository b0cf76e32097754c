import Foundation
import TilecutCore
import TilecutProject

/// A project, `tilecut build`, as the job pipeline's plan source: each building's
/// floors a layer of its floor number's pyramid, composited in the file's order, and
/// rendered incrementally where the previous output allows. With `{building}` in the
/// name each building is a job of its own, the jobs published together (`executeEach`).
extension BuildJob: PlanSource {
  var options: JobOptions { base }
  /// The previous output may lend tiles: a whole rebuild's reason is said once known.
  var rendersIncrementally: Bool { true }
  var upToDateSaysOneLine: Bool { false }

  func floors(_ planned: ProjectPlan) -> TileJobPlan { planned.plan }

  /// The files the project file has tilecut write: inside its folder, and only over
  /// tilecut's own; the files options name: never an input, never inside the output.
  func checkBeforePlanning() throws {
    try ProjectWrites.check(project, keys: fileWrites)
    try checkOptionPaths(sidecars: [])
  }

  func runPlanned(by pipeline: JobPipeline<BuildJob>, cancel: SignalCancellation, started: Date) throws {
    if let split = try BuildingSplit(self) { return try executeEach(split, cancel: cancel, started: started) }
    try pipeline.runPlanned(cancel: cancel, started: started)
  }

  func dryRun(_ planned: ProjectPlan, started: Date) throws { try dryRun(planned.plan, layers: planned.layers) }

  func dependencyRule(_ planned: ProjectPlan) throws -> String? {
    try base.dependencyRule { dependencies(planned.plan) }
  }

  func shapingOptions(_ planned: ProjectPlan) -> [String: String] { shapingOptions(planned.plan, layers: planned.layers) }

  /// The render, incremental where the previous output allows: only the layers that
  /// draw in the dirty cells, the rest of the tiles carried over.
  func render(_ planned: ProjectPlan, in step: RenderStep) throws -> RenderedJob {
    let (plan, layers) = (planned.plan, planned.layers)
    let (store, pool, sources, options) = (step.store, step.pool, step.sources, step.options)
    // the decoded pixels' digests: a file saved again with the same image changes nothing.
    // Wanted before the render only when the previous output may lend tiles; a full
    // build hashes them as its render reads the sources (one decode, not two).
    var pixels = try pixelBlocks(
      plan, layers: layers, sources: sources, options: options, previous: store.existingManifest,
      decode: canReuse(plan, options: options, previous: store.existingManifest))
    try step.cancel.checkpoint()
    var incremental = incrementalPlan(
      plan, layers: layers, sources: sources, pixels: pixels, options: options, previous: store.existingManifest)
    // tiles carried out of the previous output: only from a store that still holds what
    // its manifest lists, as far as the store checks before carrying (an archive store's files)
    if incremental != nil, let previous = store.existingManifest,
      let difference = StoreCatalogue.driver(for: base.output.store).carryOverDifference(store, previous: previous)
    {
      printer.info("\(store.path): \(difference); making every tile again")
      incremental = nil
    }
    // a whole rebuild an option caused says which, rather than naming every floor
    if incremental == nil, !base.output.force, let previous = store.existingManifest, previous.fingerprint != step.fingerprint,
      let reason = JobOptions.rebuildReason(previous: previous, options: options, tileSizes: plan.sizes.map(\.pixels))
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
    try step.rendering {
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
    }
    // every cell of the union ranges this run makes (with --shard, its own), once however many layers draw there
    ledger.settleBlanks(
      cells: plan.cells.reduce(into: [:]) { $0[$1.key] = ProgressTracker.count($1.value, $1.key, shard: plan.settings.shard) })
    return RenderedJob(ledger: ledger, progress: progress, pixels: pixels)
  }

  func makeManifest(_ planned: ProjectPlan, rendered: RenderedJob, in step: RenderStep, jobFingerprint: String) -> Manifest {
    makeManifest(
      planned.plan, layers: planned.layers, ledger: rendered.ledger, sources: step.sources, pixels: rendered.pixels, options: step.options,
      fingerprint: step.fingerprint, jobFingerprint: jobFingerprint)
  }
}
