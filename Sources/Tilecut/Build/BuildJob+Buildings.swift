import Foundation
import TilecutCore
import TilecutProject

/// `{building}` in the name (`{building}/L{floor}_{z}_{x}_{y}.png`): each building gets
/// a pyramid of its own instead of sharing one per floor. Each is a whole output (its
/// own manifest, tiles or store files, preview, up-to-date check and incremental
/// rebuild) in `<output>/<id>/`, built as a one-building campus; the root holds
/// `tilecut-buildings.json`, which names them for `verify` and `merge`.
struct BuildingSplit {
  /// The root the buildings' folders are in.
  var root: String
  /// One build per building, in the file's order, each into `<root>/<id>` with the
  /// name after `{building}/`, and no depfile or change list of its own.
  var jobs: [BuildJob]

  init?(_ job: BuildJob) throws {
    let pattern = job.base.output.name
    guard pattern.contains("{building}") else { return nil }
    // a mistake in the name is the file's (at its line) unless the command line gave it
    func refuse(_ reason: String) -> Error {
      if let option = job.project.option("name"), option.value == .string(pattern) {
        return ProjectError(file: job.project.file, mark: option.mark, message: "name '\(Quote.value(pattern))': \(reason)")
      }
      return TilecutError.invalidOption(option: "--name", reason: "'\(Quote.value(pattern))': \(reason)")
    }
    let prefix = "{building}/"
    let rest = String(pattern.dropFirst(prefix.count))
    guard pattern.hasPrefix(prefix), !rest.contains("{building}") else {
      throw refuse(
        "{building} must be the first folder, once, as in '{building}/L{floor}_{z}_{x}_{y}.png' (each building's pyramid and manifest go in a folder of its own)"
      )
    }
    // the rest must be a name a single run takes
    do { _ = try TileNameTemplate(rest, option: "name") } catch let error as TilecutError {
      if case .invalidOption(_, let reason) = error { throw refuse(reason) }
      throw error
    }
    var root = job.base.output.output
    while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
    self.root = root
    jobs = job.project.buildings.map { building in
      var one = job
      one.project.buildings = [building]
      one.base.output.output = root + "/" + building.id
      one.base.output.name = rest
      one.base.output.depfile = nil
      one.base.output.changes = nil
      one.base.run.json = false
      return one
    }
  }

  /// The root as it may be used: absent (made by the run), or a folder holding no
  /// single pyramid and no file named like the index that tilecut did not write.
  /// Returns the index found there (nil: none).
  func inspectRoot() throws -> BuildingIndex? {
    var st = stat()
    guard lstat(root, &st) == 0 else { return nil }
    guard (st.st_mode & S_IFMT) == S_IFDIR else {
      throw TilecutError.output(path: root, reason: "is not a directory; with {building} in the name the output is a folder of buildings")
    }
    if FileManager.default.fileExists(atPath: root + "/" + Manifest.fileName) {
      throw TilecutError.output(
        path: root,
        reason:
          "holds one pyramid for the whole campus (\(Manifest.fileName)); with {building} in the name each building gets a folder of its own: choose another output or remove this one"
      )
    }
    return try BuildingIndex.load(root)
  }
}

extension BuildJob {
  /// Every building planned first (so that the depfile rule and the option paths are
  /// checked before any work), then each staged, then all published together: a failure
  /// in any building leaves every building's previous output as it was.
  func executeEach(_ split: BuildingSplit, cancel: SignalCancellation, started: Date) throws {
    var planned: [(job: BuildJob, planned: ProjectPlan)] = []
    for job in split.jobs {
      planned.append((job, try job.plan()))
    }
    if base.run.dryRun {
      var reports: [String: DryRunReport] = [:]
      for (job, one) in planned {
        try job.dryRun(one.plan, layers: one.layers)
        reports[job.project.buildings[0].id] = job.dryRunReport(one.plan, layers: one.layers)
      }
      if base.run.json { try Printer.result(json: SplitDryRunReport(output: split.root, buildings: reports)) }
      return
    }
    try cancel.checkpoint()
    try checkOptionPaths(sidecars: planned.flatMap { $0.planned.plan.floors.flatMap(\.filesRead) })
    var dependencies: [String] = []
    for (job, one) in planned {
      for d in job.dependencies(one.plan) where !dependencies.contains(d) { dependencies.append(d) }
    }
    let rule = try base.dependencyRule(target: split.root + "/" + BuildingIndex.fileName) { dependencies }
    let previous = try split.inspectRoot()

    let fm = FileManager.default
    var madeRoot = false
    if !fm.fileExists(atPath: split.root) {
      do { try fm.createDirectory(atPath: split.root, withIntermediateDirectories: true) } catch {
        throw TilecutError.output(path: split.root, reason: "cannot be made (\(error.localizedDescription))")
      }
      madeRoot = true
    }
    var outcomes: [(job: BuildJob, plan: TileJobPlan, outcome: StageOutcome)] = []
    var committed = false
    defer {
      if !committed {
        for case (_, _, .staged(let staged)) in outcomes { staged.store.abort() }
        // a root this run made and nothing went into
        if madeRoot, (try? fm.contentsOfDirectory(atPath: split.root))?.isEmpty == true { rmdir(split.root) }
      }
    }
    for (job, one) in planned {
      outcomes.append((job, one.plan, try JobPipeline(source: job).stage(one, cancel: cancel)))
    }
    if let path = base.output.changes {
      var entries: [ChangeList.Entry] = []
      for case (let job, _, .staged(let staged)) in outcomes {
        let id = job.project.buildings[0].id
        entries += try staged.changes().entries.map { ChangeList.Entry(status: $0.status, path: id + "/" + $0.path) }
      }
      try ChangeList(entries: entries).write(to: path)
    }
    try base.writeDependencies(rule)
    let index = BuildingIndex(buildings: project.buildings.map { BuildingIndex.Entry(id: $0.id, name: $0.name) })
    try cancel.committing {
      for case (_, _, .staged(let staged)) in outcomes { try staged.store.commit() }
      committed = true
      do { try Data(index.encoded()).write(to: URL(fileURLWithPath: split.root + "/" + BuildingIndex.fileName), options: .atomic) } catch {
        throw TilecutError.output(path: split.root + "/" + BuildingIndex.fileName, reason: "cannot be written (\(error.localizedDescription))")
      }
    }
    for gone in previous?.buildings ?? [] where !project.buildings.contains(where: { $0.id == gone.id }) {
      printer.warning(
        "\(split.root)/\(gone.id): building '\(gone.id)' is no longer in \(project.file); left as it was (remove it when no client needs it)")
    }
    var reports: [String: RunReport] = [:]
    for (job, plan, outcome) in outcomes {
      let id = job.project.buildings[0].id
      switch outcome {
      case .upToDate(let store):
        printer.info("\(store.path): up to date")
        reports[id] = RunReport(output: store.path, upToDate: true)
      case .staged(let staged):
        staged.progress.finish()
        reports[id] = job.base.report(plan, ledger: staged.ledger, seconds: Date().timeIntervalSince(started), output: staged.store.path)
      }
    }
    if base.run.json {
      try Printer.result(json: SplitReport(output: split.root, index: split.root + "/" + BuildingIndex.fileName, buildings: reports))
    }
  }
}

/// `tilecut build --json` with `{building}` in the name: each building's result by id.
struct SplitReport: Codable {
  var output: String
  var index: String
  var buildings: [String: RunReport]
}
