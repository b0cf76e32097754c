import Foundation
import TilecutCore

/// A single run, `tilecut INPUT…`, as the job pipeline's plan source: the inputs'
/// floors, each tiled on its own (the one-building project), always rendered whole.
extension TileJob: PlanSource {
  /// A single run has no previous layers to reuse: every floor is rendered.
  var rendersIncrementally: Bool { false }
  var upToDateSaysOneLine: Bool { true }

  func floors(_ planned: TileJobPlan) -> TileJobPlan { planned }

  /// The files options name, before anything is read: never an input, never inside the output.
  func checkBeforePlanning() throws {
    try checkOptionPaths(sidecars: [])
    noteInput(inputs)
  }

  func shapingOptions(_ plan: TileJobPlan) -> [String: String] { options.shapingOptions(plan) }

  /// The floors rendered side by side, nothing reused.
  func render(_ plan: TileJobPlan, in step: RenderStep) throws -> RenderedJob {
    let progress = ProgressTracker(plan: plan, printer: printer)
    let ledger = RenderLedger(onTile: { key, _ in progress.tileDone(key) })
    progress.start(jobs: step.pool.jobs)
    try step.rendering {
      try render(plan, encoder: encoding.encoder(), writer: step.store, pool: step.pool, ledger: ledger)
    }
    return RenderedJob(ledger: ledger, progress: progress)
  }

  func makeManifest(_ plan: TileJobPlan, rendered: RenderedJob, in step: RenderStep, jobFingerprint: String) -> Manifest {
    makeManifest(
      plan, ledger: rendered.ledger, sources: step.sources, options: step.options, fingerprint: step.fingerprint,
      jobFingerprint: jobFingerprint)
  }
}
