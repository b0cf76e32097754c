import Foundation
import TilecutCore

/// Where a job's floors come from, and what in each step is theirs: a single run's
/// inputs (``TileJob``, one building of one floor per input) or a project's buildings
/// (``BuildJob``, a layer per building's floor). The steps themselves, inspect → plan
/// → render → publish, are ``JobPipeline``'s, the same for both.
protocol PlanSource {
  /// The floors as planned, with whatever else the source's later steps need (a
  /// project's layers).
  associatedtype Planned

  /// The run-wide options (output, pyramid, encoding, run) and the step helpers that
  /// read only them: store, digests, emptiness, report.
  var options: JobOptions { get }
  var printer: Printer { get }
  /// Whether the render step may reuse the previous output's tiles: it then says a
  /// whole rebuild's reason itself, once it knows there is one.
  var rendersIncrementally: Bool { get }
  /// Whether an up-to-date run drops its other lines (a single run says one line).
  var upToDateSaysOneLine: Bool { get }

  /// The renderer's view of a plan: every floor, its recipes, sizes and settings.
  func floors(_ planned: Planned) -> TileJobPlan
  /// Before anything is read: the files options name, and those the source writes.
  func checkBeforePlanning() throws
  /// Places and plans every floor.
  func plan() throws -> Planned
  /// `--dry-run`: the plan printed (and with `--json` its document); nothing written.
  func dryRun(_ planned: Planned, started: Date) throws
  /// `--depfile` and `--changes` checked against what the run reads.
  func checkOptionPaths(sidecars: [String]) throws
  /// `--depfile`'s make rule (nil without it), refused before any work if make cannot say it.
  func dependencyRule(_ planned: Planned) throws -> String?
  /// What shapes the pixels, as text, for the manifest and the fingerprint.
  func shapingOptions(_ planned: Planned) -> [String: String]
  /// Renders into the staged store: the tiles, their ledger and the progress shown.
  func render(_ planned: Planned, in step: RenderStep) throws -> RenderedJob
  /// The manifest of the rendered job (before its content version and the store's own fields).
  func makeManifest(_ planned: Planned, rendered: RenderedJob, in step: RenderStep, jobFingerprint: String) -> Manifest
  /// The whole job once signals are caught and the checks made; by default
  /// ``JobPipeline/runPlanned(cancel:started:)``.
  func runPlanned(by pipeline: JobPipeline<Self>, cancel: SignalCancellation, started: Date) throws
}

extension PlanSource {
  func runPlanned(by pipeline: JobPipeline<Self>, cancel: SignalCancellation, started: Date) throws {
    try pipeline.runPlanned(cancel: cancel, started: started)
  }
}

/// What the render step works in: the store staged for it, the pool, the signals,
/// and the digests, options and fingerprint the up-to-date check used.
struct RenderStep {
  var store: any TileStore
  var pool: WorkPool
  var cancel: SignalCancellation
  var sources: [Manifest.Source]
  var options: [String: String]
  var fingerprint: String
  var printer: Printer

  /// Runs the render: a failure ends the progress line, and a signal caught meanwhile
  /// is the job's end whatever the render said.
  func rendering(_ body: () throws -> Void) throws {
    do { try body() } catch {
      printer.endProgress()
      if let signal = cancel.received { throw JobInterrupted(signal: signal) }
      throw error
    }
    if let signal = cancel.received { throw JobInterrupted(signal: signal) }
  }
}

/// What the render step made: the tiles' ledger, the progress shown, and (a project's)
/// each layer's decoded pixels' digests.
struct RenderedJob {
  var ledger: RenderLedger
  var progress: ProgressTracker
  var pixels: [PixelBlocks?] = []
}

/// A job rendered into staging: published by `store.commit()`, dropped by `store.abort()`.
struct StagedJob {
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
  /// The output already holds this job (its manifest's time was renewed).
  case upToDate(any TileStore)
  case staged(StagedJob)
}

/// The one tiling job: inspect → plan → render → publish, for whatever ``PlanSource``
/// yields the floors (a single run is the one-building, one-floor-per-input project).
struct JobPipeline<Source: PlanSource> {
  var source: Source

  var options: JobOptions { source.options }
  var printer: Printer { source.printer }

  /// Catches signals, makes the source's checks, then plans, renders and publishes.
  func run() throws {
    let started = Date()
    // signals first: a document's header can take a while to read
    let cancel = SignalCancellation(printer: printer)
    cancel.start()
    defer { cancel.stop() }
    try source.checkBeforePlanning()
    try source.runPlanned(by: self, cancel: cancel, started: started)
  }

  /// Plan; a dry run ends there. Otherwise stage (up-to-date, or rendered) and publish.
  func runPlanned(cancel: SignalCancellation, started: Date) throws {
    let planned = try source.plan()
    let plan = source.floors(planned)
    noteInput(plan.floors.map(\.source.input.path))
    if options.run.dryRun {
      for note in plan.notes { printer.info(note) }
      return try source.dryRun(planned, started: started)
    }
    try cancel.checkpoint()
    // the sidecars the placements read (and the files an SVG refers to) are known now;
    // the rule is made (or refused) before any work
    try source.checkOptionPaths(sidecars: plan.floors.flatMap(\.filesRead))
    let dependencyRule = try source.dependencyRule(planned)
    let outcome = try stage(planned, cancel: cancel)
    try publish(outcome, plan: plan, dependencyRule: dependencyRule, cancel: cancel, started: started)
  }

  /// Everything up to the swap: the store inspected (ownership before any work), the
  /// up-to-date check, the render and the manifest, staged.
  func stage(_ planned: Source.Planned, cancel: SignalCancellation) throws -> StageOutcome {
    let plan = source.floors(planned)
    let store = options.makeStore(plan)
    try store.inspect()
    cancel.attach(store)
    let sources = try options.digestSources(plan, previous: store.existingManifest)
    let shaping = source.shapingOptions(planned)
    let fingerprint = JobOptions.fingerprint(sources: sources, options: shaping)
    // what the whole job would be: the fingerprint `merge` gives the joined shards
    let jobFingerprint = JobOptions.fingerprint(sources: sources, options: shaping.filter { $0.key != "shard" })
    try cancel.checkpoint()
    if !options.output.force, let existing = store.existingManifest, existing.fingerprint == fingerprint {
      if let difference = store.difference(from: existing) {
        printer.info("\(store.path): \(difference); rebuilding")
      } else {
        try store.markUpToDate()
        return .upToDate(store)
      }
    }
    // a whole rebuild an option caused says which, rather than naming every floor
    if !source.rendersIncrementally, !options.output.force, let previous = store.existingManifest, previous.fingerprint != fingerprint,
      let reason = JobOptions.rebuildReason(previous: previous, options: shaping, tileSizes: plan.sizes.map(\.pixels))
    {
      printer.info("\(store.path): \(reason): every floor is rebuilt")
    }
    for note in plan.notes { printer.info(note) }
    if let warning = options.storeWarning(plan) { printer.warning(warning) }
    try store.begin()
    var staged = false
    defer { if !staged { store.abort() } }
    let pool = WorkPool(jobs: options.run.jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    cancel.attach(pool)
    let step = RenderStep(
      store: store, pool: pool, cancel: cancel, sources: sources, options: shaping, fingerprint: fingerprint, printer: printer)
    let rendered = try source.render(planned, in: step)
    try options.checkNotEmpty(plan, ledger: rendered.ledger)
    // the tiles are of the bytes that were hashed only if no source changed meanwhile
    try JobOptions.confirmSources(sources)
    var manifest = source.makeManifest(planned, rendered: rendered, in: step, jobFingerprint: jobFingerprint)
    try ContentVersion.stamp(&manifest, store: store)
    var files: [String: [UInt8]] = [:]
    if options.output.preview { files["preview.html"] = Array(PreviewPage.html(manifest: manifest).utf8) }
    manifest = try store.finish(manifest: manifest, files: files)
    staged = true
    return .staged(StagedJob(store: store, manifest: manifest, ledger: rendered.ledger, progress: rendered.progress))
  }

  /// The staged job swapped in (or the up-to-date output confirmed), with the change
  /// list and the depfile written first, then the summary.
  func publish(_ outcome: StageOutcome, plan: TileJobPlan, dependencyRule: String?, cancel: SignalCancellation, started: Date) throws {
    switch outcome {
    case .upToDate(let store):
      try options.writeDependencies(dependencyRule)
      if let path = options.output.changes { try ChangeList(entries: []).write(to: path) }
      // without a terminal an up-to-date run is one line (and any warning)
      if source.upToDateSaysOneLine { printer.keepOnlyWarnings() }
      printer.info("\(store.path): up to date")
      if options.run.json { try Printer.result(json: RunReport(output: store.path, upToDate: true)) }
    case .staged(let staged):
      var committed = false
      defer { if !committed { staged.store.abort() } }
      // Written before the commit: a list that cannot be written stops the run with the
      // previous output intact, so the next run lists the same changes again.
      if let path = options.output.changes { try staged.changes().write(to: path) }
      // the rule too: a depfile that cannot be written leaves the previous output as it was
      try options.writeDependencies(dependencyRule)
      // The store is about to publish: the manifest and every tile are final here.
      try cancel.committing { try staged.store.commit() }
      committed = true
      let seconds = Date().timeIntervalSince(started)
      staged.progress.finish()
      options.report(plan, ledger: staged.ledger, seconds: seconds, output: staged.store.path)
    }
  }
}
