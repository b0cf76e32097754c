import CTilecutPlatform
import Foundation
import TilecutCore
import TilecutGeo
import TilecutProject
import TilecutVips

/// One building's floor as the build plans it: a layer of its floor's pyramid.
struct BuildLayer {
  var building: Building
  var spec: FloorSpec
  var source: FloorSource
  /// The floor's own knockout and background over the run's.
  var settings: RenderSettings
}

/// A project as planned: every layer's floor plan, and the layers, in the file's order.
struct ProjectPlan {
  var plan: TileJobPlan
  var layers: [BuildLayer]
}

/// The command line's say over a project's run.
public struct BuildOverrides: Sendable {
  var dryRun = false
  var json = false
  var quiet = false
  var force = false
  var jobs: Int?
  var depfile: String?
  var changes: String?
  var shard: String?
  var output: String?
  var name: String?
  var store: StoreKind?

  /// Overrides of the project file's options, as `tilecut build`'s flags give them.
  /// `output` is relative to the current directory (the file's own is relative to the file).
  public init(
    dryRun: Bool = false, json: Bool = false, quiet: Bool = false, force: Bool = false, jobs: Int? = nil, depfile: String? = nil,
    changes: String? = nil, shard: String? = nil, output: String? = nil, name: String? = nil, store: StoreKind? = nil
  ) {
    (self.dryRun, self.json, self.quiet, self.force, self.jobs) = (dryRun, json, quiet, force, jobs)
    (self.depfile, self.changes, self.shard, self.output, self.name, self.store) = (depfile, changes, shard, output, name, store)
  }
}

/// Runs `tilecut build`: each building's floors placed on their own, one pyramid per
/// floor number whose layers (one per building with that floor) are composited in
/// the file's order, then published as a single run is.
public struct BuildJob {
  var project: Project
  /// The run-wide options, as a single run takes them, for the pipeline's steps
  /// (store, digests, fingerprint, report).
  var base: JobOptions
  var printer: Printer
  /// The keys of `ProjectWrites.keys` the project file gives and the command line does
  /// not: the files the project file has tilecut write.
  var fileWrites: [String] = []

  package static func make(_ project: Project, overrides: BuildOverrides, printer: Printer) throws -> BuildJob {
    let file = project.file
    var outputExtra: [ProjectArguments.Setting] = []
    var overridden: Set<String> = []
    if overrides.force { outputExtra.append(.init("--force", .bool(true))) }
    // the command line's (and the build-tool plugin's: its work directory, its store)
    let given = [("depfile", overrides.depfile), ("changes", overrides.changes), ("output", overrides.output), ("name", overrides.name)]
    for case (let key, let value?) in given {
      outputExtra.append(.init("--\(key)", .string(value)))
      overridden.insert(key)
    }
    // no output in the file or on the command line: `tiles` beside the file, as the
    // file's own `output` would be, wherever tilecut runs
    if overrides.output == nil, project.option("output") == nil {
      let folder = project.directory == "." ? "" : project.directory.hasSuffix("/") ? project.directory : project.directory + "/"
      outputExtra.append(.init("--output", .string(folder + "tiles")))
    }
    if let s = overrides.store {
      outputExtra.append(.init("--store", .string(s.rawValue)))
      overridden.insert("store")
      // a preview page is a directory output's; an archive store's output has none
      if !StoreCatalogue.driver(for: s).tilesAreFiles { overridden.insert("preview") }
    }
    // every mistake of the file's options is said at once: the run-wide groups', then each floor's
    var mistakes: [ProjectError] = []
    func gather<T>(_ body: () throws -> T) throws -> T? {
      do { return try body() } catch {
        guard let found = ProjectErrors.listing(error) else { throw error }
        mistakes += found
        return nil
      }
    }
    let output = try gather {
      try ProjectArguments.fill(
        OutputOptions(), options: project.options, keys: ProjectArguments.outputKeys, extra: outputExtra, overridden: overridden,
        file: file, fallback: nil, set: ProjectArguments.set, problems: { $0.problems() })
    }
    let pyramid = try gather {
      try ProjectArguments.fill(
        PyramidOptions(), options: project.options, keys: ProjectArguments.pyramidKeys, file: file, fallback: nil, set: ProjectArguments.set,
        problems: { $0.problems() })
    }
    let encoding = try gather {
      try ProjectArguments.fill(
        EncodingOptions(), options: project.options, keys: ProjectArguments.encodingKeys, file: file, fallback: nil,
        checkedLast: ProjectArguments.colorOptions, set: ProjectArguments.set, problems: { $0.problems() })
    }
    var runExtra: [ProjectArguments.Setting] = []
    if overrides.dryRun { runExtra.append(.init("--dry-run", .bool(true))) }
    if overrides.json { runExtra.append(.init("--json", .bool(true))) }
    if overrides.quiet { runExtra.append(.init("--quiet", .bool(true))) }
    if let j = overrides.jobs { runExtra.append(.init("--jobs", .int(j))) }
    if let k = overrides.shard { runExtra.append(.init("--shard", .string(k))) }
    let run = try gather {
      try ProjectArguments.fill(
        RunOptions(), options: project.options, keys: ProjectArguments.runKeys, extra: runExtra,
        overridden: overrides.jobs == nil ? [] : ["jobs"], file: file, fallback: nil, set: ProjectArguments.set, problems: { $0.problems() })
    }
    for building in project.buildings {
      for spec in building.floors {
        _ = try gather { try placementOptions(spec, in: project) }
        _ = try gather { try venueKeys(spec, in: project) }
        _ = try gather { try layerColors(spec, of: building, in: project) }
      }
    }
    guard let output, let pyramid, let encoding, let run, mistakes.isEmpty else { throw ProjectErrors.of(mistakes) }
    var base = JobOptions(output: output, pyramid: pyramid, encoding: encoding, run: run, printer: printer)
    let fileWrites = ProjectWrites.keys.filter { !overridden.contains($0) }
    // the manifest, fingerprint and depfile name sources as the file does: relative to it
    base.recordsFrom = project.directory
    return BuildJob(project: project, base: base, printer: printer, fileWrites: fileWrites)
  }

  /// The placement options of one floor: its keys, the run's `strict`, and the run's
  /// `lonlat` unless the floor says `lonlat` itself.
  func placementOptions(_ spec: FloorSpec) throws -> PlacementOptions { try Self.placementOptions(spec, in: project) }

  static func placementOptions(_ spec: FloorSpec, in project: Project) throws -> PlacementOptions {
    var extra: [ProjectArguments.Setting] = []
    if case .bool(true) = project.option("strict")?.value { extra.append(.init("--strict", .bool(true))) }
    if !spec.options.contains(where: { $0.key == "lonlat" }), case .bool(true) = project.option("lonlat")?.value {
      extra.append(.init("--lonlat", .bool(true)))
    }
    let keys = ProjectKeys.floorOptions.map(\.name).filter {
      !ProjectArguments.layerPixelKeys.contains($0) && !ProjectArguments.venueKeys.contains($0)
    }
    // the coordinates are read in the floor's order, whichever key the file writes first
    var defaults = PlacementOptions()
    if case .bool(let lonLat) = spec.option("lonlat")?.value ?? project.option("lonlat")?.value { defaults.lonLatOrder = lonLat }
    // the pixel keys are checked first, as the command line checks its nested group
    return try ProjectArguments.fill(
      defaults, options: spec.options, keys: keys, extra: extra, file: project.file, fallback: spec.mark, set: ProjectArguments.set,
      problems: { $0.pixels.problems() + $0.problems() })
  }

  /// An IMDF venue's drawing options of one floor (`language`, `venueStyle`), as
  /// `--language` and `--venue-style`; a floor whose source is no venue is refused at the key.
  func venueOptions(_ spec: FloorSpec, name: InputName) throws -> FloorOptions {
    let options = try Self.venueKeys(spec, in: project)
    if let given = spec.options.first(where: { ProjectArguments.venueKeys.contains($0.key) }), !IMDFVenue.isVenue(name.path) {
      throw ProjectError(
        file: project.file, mark: given.mark,
        message: "'\(given.key)' is for an IMDF venue's floor, and \(name.path) is none; leave it out")
    }
    return options
  }

  /// A floor's `language` and `venueStyle` as ``FloorOptions``, checked as the command line checks them.
  static func venueKeys(_ spec: FloorSpec, in project: Project) throws -> FloorOptions {
    try ProjectArguments.fill(
      FloorOptions(), options: spec.options, keys: ProjectArguments.venueKeys, file: project.file, fallback: spec.mark,
      set: ProjectArguments.set, problems: { $0.problems() })
  }

  /// A floor's own `knockout` and `background`, each refused at its key with the floor named.
  static func layerColors(_ spec: FloorSpec, of building: Building, in project: Project) throws -> (knockout: ColorRule?, background: ColorRule?) {
    var rules: [String: ColorRule] = [:]
    var errors: [ProjectError] = []
    for key in ProjectArguments.layerPixelKeys {
      guard let option = spec.option(key), case .string(let text) = option.value else { continue }
      do { rules[key] = try ColorRule(parsing: text, option: key) } catch let error as TilecutError {
        errors.append(ProjectError(file: project.file, mark: option.mark, message: "\(building.id) floor \(spec.floor): \(error.description)"))
      }
    }
    if !errors.isEmpty { throw ProjectErrors.of(errors) }
    return (rules["knockout"], rules["background"])
  }

  /// A floor's error with the floor's place in the project file.
  func located<T>(_ mark: SourceMark, _ building: Building, _ spec: FloorSpec, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as TilecutError {
      switch error {
      case .invalidOption:
        throw ProjectError(file: project.file, mark: mark, message: "\(building.id) floor \(spec.floor): \(error.description)")
      default: throw error
      }
    }
  }

  /// The file a floor's `source` names, with its `page` and (`source: out[floor=2]`,
  /// one floor of a tilecut output or venue) its floor.
  static func inputName(_ spec: FloorSpec) -> InputName {
    var name = InputName(path: spec.source, page: spec.page)
    if let parsed = try? InputName(parsing: spec.source), let floor = parsed.floor, parsed.page == nil {
      name = InputName(path: parsed.path, page: spec.page)
      name.floor = floor
    }
    return name
  }

  /// Places every building's floors one by one and plans each as a layer.
  func plan() throws -> ProjectPlan {
    let planner = try FloorPlanner(base)
    var layers: [BuildLayer] = []
    var planned: [PlannedFloor] = []
    for building in project.buildings {
      for spec in building.floors {
        let floor = try located(spec.mark, building, spec) { try Floor(spec.floor, option: "floor") }
        let name = Self.inputName(spec)
        let venueOptions = try venueOptions(spec, name: name)
        // a drawing's `drawingUnits` frame it (the floor's options are checked below)
        let drawingUnits = (try? placementOptions(spec))?.drawingUnits
        let header = try located(spec.mark, building, spec) {
          try FloorResolver.sourceHeader(
            of: name, maxPixels: base.run.maxPixels, maxMemory: base.run.maxMemory, venue: venueOptions, drawingUnits: drawingUnits)
        }
        var crop: PixelRect?
        if let band = spec.band {
          let length = band.horizontal ? header.width : header.height
          guard length % band.count == 0 else {
            throw ProjectError(
              file: project.file, mark: spec.mark,
              message: "\(spec.source) is \(length) px \(band.horizontal ? "wide" : "high"), which does not split into \(band.count) equal bands")
          }
          let step = length / band.count
          let offset = (band.index - 1) * step
          crop =
            band.horizontal
            ? PixelRect(x: offset, y: 0, width: step, height: header.height) : PixelRect(x: 0, y: offset, width: header.width, height: step)
        }
        var sources = [FloorResolver.floorSource(floor, name, header, crop: crop)]
        let placementOptions = try placementOptions(spec)
        // the placement's warnings (GDAL's, a swapped coordinate) said of this floor; its
        // other lines the build says itself, below (so they are not even made here)
        let layerName = Self.layerName(building.id, floor)
        let placementPrinter = Printer(
          verbosity: .quiet,
          sink: { [printer] line in
            if line.hasPrefix("warning: ") { printer.warning("\(layerName): " + line.dropFirst("warning: ".count)) }
          })
        let placement = try located(spec.mark, building, spec) {
          try placementOptions.resolve(floors: &sources, pyramid: base.pyramid, printer: placementPrinter)
        }[0]
        // a GeoPDF page is cut to its map frame
        let source = sources[0]
        if placement.method == .raster {
          printer.warning(
            "\(building.id) floor \(spec.floor): \(spec.source) has no placement and no georeference: it lies at the map's north-west corner; give gcp, center, bounds or a world file"
          )
        }
        // a single run tiles a source across ±180° in two pieces; a project's layers do not yet
        let floorPlan = try planner.plan(source, placement: placement, pixels: placementOptions.pixels, printer: printer) { _ in
          ProjectError(
            file: project.file, mark: spec.mark,
            message:
              "\(building.id) floor \(spec.floor): \(spec.source) crosses the antimeridian (180°), which a project build cannot tile yet; tile it with a single tilecut run, or split it at 180° (gdalwarp -te)"
          )
        }[0]
        // the line names the nearest place (the gazetteer, read on first use): not made when --quiet drops it
        if printer.verbosity == .normal {
          let size = floorPlan.plan.source
          printer.info(
            "\(building.id) "
              + PlacementOptions.describe(placement, floor: floor, width: size.width, height: size.height)
              + ", zooms \(floorPlan.plan.zooms.map { "\($0.min)-\($0.max)" } ?? "-")")
        }
        var settings = planner.settings
        let colors = try Self.layerColors(spec, of: building, in: project)
        settings.knockout = colors.knockout ?? settings.knockout
        settings.background = colors.background ?? settings.background
        layers.append(BuildLayer(building: building, spec: spec, source: source, settings: settings))
        planned.append(floorPlan)
      }
    }
    try base.encoding.checkTransparency(layers.map(\.source.input))
    let floors = Array(Set(planned.map(\.plan.floor))).sorted()
    try planner.template.checkDistinct(sizes: planner.sizes.map(\.pixels), floors: floors)
    return ProjectPlan(plan: try planner.plan(planned), layers: layers)
  }

  /// Renders each floor number: its layers one after the other, each streaming its
  /// levels as a single run does; a floor of one layer writes straight to the store.
  /// `taps`: by layer, the hashers of the sources' decoded pixels its reader feeds.
  static func render(
    _ plan: TileJobPlan, layers: [BuildLayer], encoder: any TileEncoder, writer: any TileWriter, pool: WorkPool, ledger: RenderLedger,
    subset: [Int]? = nil, taps: [Int: PixelBlockHasher] = [:], previous: [Int: PreviousLevels] = [:]
  ) throws {
    let plans = plan.plans
    for var group in plan.floorGroups {
      // an incremental rebuild renders only the layers that draw in its dirty cells
      if let subset { group.layers = group.layers.filter(subset.contains) }
      guard !group.layers.isEmpty else { continue }
      let compositor =
        group.layers.count > 1
        ? LayerCompositor(
          floor: group.floor, layers: group.layers.map { plans[$0] }, encoder: encoder, writer: writer, ledger: ledger,
          background: plan.settings.background) : nil
      for (k, i) in group.layers.enumerated() {
        let floor = plan.floors[i]
        var settings = layers[i].settings
        (settings.only, settings.previous) = (plan.settings.only, previous[i])
        let builder = floor.builder(
          settings: settings,
          encoder: compositor?.layerEncoder() ?? encoder, writer: compositor?.layerWriter(k) ?? writer, pool: pool,
          ledger: compositor?.layerLedger() ?? ledger, tap: taps[i])
        try builder.build()
        try pool.drain()
        try compositor?.layerDone(k, pool: pool)
        // a drawing's display list, shared by its zooms, is given back with its layer
        if floor.plan.source.drawing != nil { DrawingSource.forget(path: floor.plan.source.path) }
        // the next layer's strips are of other widths: give this one's back, so that
        // memory follows the largest layer rather than adding up
        tc_release_free_memory()
      }
      try compositor?.finish(pool: pool)
    }
  }
}
