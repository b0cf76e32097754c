import CTilecutPlatform
import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutGeo
import TilecutVips

/// One floor as the renderer takes it, in one value: the source as read once (its
/// header, with the format its bytes name, page and band), what the planner decided
/// for it, and the PROJ mapping of a projected placement (nil otherwise).
package struct PlannedFloor {
  var source: FloorSource
  /// Every level's recipe, strips and tile ranges.
  var plan: FloorPlan
  var mapping: (any SourceMapping)?
  /// A source across ±180° is planned in two pieces of one floor: 0 for the first (the
  /// placement as given), 1 for the other; always 0 for a project's layers.
  var piece = 0

  /// The only loader that opens the source: the one its bytes name.
  var format: SourceFormat { source.header.format }

  /// The files read besides the source: its placement's sidecars and those its header
  /// found it refers to (an SVG's images and stylesheets; none for a venue's floor).
  var filesRead: [String] {
    plan.placement.sidecars + source.header.filesReferenced
  }

  /// The renderer of this floor's pyramid, either job's: its levels read from its source
  /// (`sheet`: a band of a sheet read once; `tap`: fed the decoded pixels), cut and written.
  func builder(
    settings: RenderSettings, encoder: any TileEncoder, writer: any TileWriter, pool: WorkPool, ledger: RenderLedger,
    sheet: SharedSheet? = nil, tap: PixelBlockHasher? = nil
  ) -> PyramidBuilder {
    PyramidBuilder(
      plan: plan, settings: settings, encoder: encoder, writer: writer, pool: pool, ledger: ledger,
      openSource: { level in
        try LevelPipeline.open(plan: plan, level: level, format: format, jobs: pool.jobs, mapping: mapping, sheet: sheet, tap: tap)
      })
  }
}

/// The resolved form of a tiling command: floors, placements and plans.
package struct TileJobPlan {
  var floors: [PlannedFloor]
  /// The tile sizes made, smallest first.
  var sizes: [TileSize]
  var template: TileNameTemplate
  var settings: RenderSettings
  var notes: [String]

  /// What the planner decided, as `--dry-run --json` prints it.
  var job: JobPlan { JobPlan(tileSizes: sizes, floors: plans) }
  var plans: [FloorPlan] { floors.map(\.plan) }
  var totalTiles: Int { job.cellCount }

  /// Planned cells per floor, size and zoom; a floor several buildings have (a
  /// campus) gets the union of their ranges.
  var cells: [LevelKey: TileRange] {
    var out: [LevelKey: TileRange] = [:]
    for plan in plans {
      for level in plan.levels {
        for cut in level.cuts {
          let key = LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)
          out[key] = out[key].map { $0.union(cut.range) } ?? cut.range
        }
      }
    }
    return out
  }

  /// The floor numbers in order, each with its floors' (a project's layers') indices in order.
  var floorGroups: [(floor: Floor, layers: [Int])] {
    var groups: [Floor: [Int]] = [:]
    for (i, p) in plans.enumerated() { groups[p.floor, default: []].append(i) }
    return groups.keys.sorted().map { ($0, groups[$0] ?? []) }
  }

  /// Each floor number's footprint: the union of its floors' (a project's layers'),
  /// located where that union lies; a floor tiled in two pieces across ±180° is
  /// located where its first piece (the placement as given) lies.
  var floorFootprints: [Manifest.Footprint] {
    floorGroups.compactMap { group -> Manifest.Footprint? in
      let (whole, pieces) = (group.layers.filter { floors[$0].piece == 0 }, group.layers.filter { floors[$0].piece > 0 })
      guard let first = whole.first else { return nil }
      var footprint = Manifest.Footprint(
        floor: group.floor, rect: whole.dropFirst().reduce(plans[first].footprint) { $0.union(plans[$1].footprint) })
      for i in pieces {
        let location = footprint.location
        let seen = WorldRect(
          minU: WebMercator.u(longitudeDegrees: footprint.west), minV: WebMercator.v(latitudeDegrees: footprint.north),
          maxU: WebMercator.u(longitudeDegrees: footprint.east), maxV: WebMercator.v(latitudeDegrees: footprint.south))
        footprint = Manifest.Footprint(floor: group.floor, rect: seen.union(plans[i].footprint))
        footprint.location = location
      }
      return footprint
    }
  }

  /// The manifest of the rendered plan, a single run's or a project's (each adds its
  /// own: a single run its placements, a project its buildings): every floor, size and
  /// zoom's cells and tiles, each floor number's footprint, what made it, and the levels
  /// a smaller tile size serves, each once (a floor's second piece across ±180° repeats
  /// its first's).
  func manifest(
    ledger: RenderLedger, sources: [Manifest.Source], options: [String: String], fingerprint: String, jobFingerprint: String
  ) -> Manifest {
    let outcomes = ledger.outcomes
    let cells = self.cells
    let levels = cells.keys.sorted().compactMap { key -> Manifest.Level? in
      guard let range = cells[key] else { return nil }
      return Manifest.Level(
        floor: key.floor, tileSize: key.tileSize, range: range, tiles: outcomes[key]?.tiles ?? [], bytes: outcomes[key]?.bytes ?? 0)
    }
    var manifest = Manifest(
      tileSizes: sizes.map(\.pixels), floors: floorGroups.map(\.floor), name: template.pattern, levels: levels,
      footprints: floorFootprints, generator: Manifest.Generator(version: tilecutVersion, renderer: rendererRevision, libvips: Vips.version),
      sources: sources, options: options.filter { $0.key != "tileSizes" }, fingerprint: fingerprint,
      shard: settings.shard.map { Manifest.Shard(index: $0.index, count: $0.count, jobFingerprint: jobFingerprint) })
    var substitutes: [Manifest.Substitute] = []
    for f in floors {
      for s in f.plan.substitutes {
        let item = Manifest.Substitute(floor: f.plan.floor, tileSize: s.tileSize, zoom: s.zoom, servedBy: s.servedBy)
        if !substitutes.contains(item) { substitutes.append(item) }
      }
    }
    manifest.substitutes = substitutes.isEmpty ? nil : substitutes
    manifest.venueLevels = VenueSource.manifestLevels(floors.map(\.source))
    return manifest
  }
}

/// A single run, `tilecut INPUT…`: its inputs and how they become floors and are
/// placed; everything else is the job's (`JobOptions`), run by `JobPipeline`.
public struct TileJob {
  var inputs: [String]
  var floors: FloorOptions
  var placement: PlacementOptions
  /// The output, pyramid, encoding and run options, and the printer.
  var options: JobOptions

  // the options a single run's steps read, from `options`
  var output: OutputOptions { options.output }
  var pyramid: PyramidOptions { options.pyramid }
  var encoding: EncodingOptions { options.encoding }
  var run: RunOptions { options.run }
  /// Set by the library's `run(progress:)` and `run(printer:)` for the run at hand.
  var printer: Printer {
    get { options.printer }
    set { options.printer = newValue }
  }

  package init(
    inputs: [String], output: OutputOptions, pyramid: PyramidOptions, floors: FloorOptions, placement: PlacementOptions,
    encoding: EncodingOptions, run: RunOptions, printer: Printer
  ) {
    (self.inputs, self.floors, self.placement) = (inputs, floors, placement)
    options = JobOptions(output: output, pyramid: pyramid, encoding: encoding, run: run, printer: printer)
  }

  package func plan() throws -> TileJobPlan {
    var floorSources = try FloorResolver.resolve(
      inputs: inputs, options: floors, maxPixels: run.maxPixels, maxMemory: run.maxMemory, maxZoom: pyramid.maxZoom,
      drawingUnits: placement.drawingUnits)
    if let split = FloorResolver.splitDescription(floorSources) { printer.info(split) }
    try encoding.checkTransparency(floorSources.map(\.input))
    let planner = try FloorPlanner(options)
    try planner.template.checkDistinct(sizes: planner.sizes.map(\.pixels), floors: floorSources.map(\.floor))
    let placements = try placement.resolve(floors: &floorSources, pyramid: pyramid, printer: printer)
    var planned: [PlannedFloor] = []
    var notes: [String] = []
    for (floor, place) in zip(floorSources, placements) {
      // a source across ±180° is tiled as two pieces of the same floor, one on each side
      let pieces = try planner.plan(floor, placement: place, pixels: placement.pixels, printer: printer)
      if pieces.count > 1 {
        notes.append("note: \(pieces[0].plan.source.path) crosses the antimeridian (180°): it is tiled on both sides of it")
      }
      planned += pieces
    }
    let upsampled = Set(
      planned.flatMap { p in p.plan.levels.filter(\.upsampled).flatMap { $0.cuts.map { "\($0.tileSize) px tiles at zoom \($0.zoom)" } } })
    if !upsampled.isEmpty {
      notes.append(
        "note: \(upsampled.sorted().joined(separator: ", ")) are drawn from the source's full detail, upsampled (it has no finer); --retina-depth native serves them by the 256 px tiles instead"
      )
    }
    return try planner.plan(planned, notes: notes)
  }

  /// `--depfile`: the make rule naming every file this run read.
  func dependencyRule(_ plan: TileJobPlan) throws -> String? {
    try options.dependencyRule {
      DependencyFile.dependencies(
        inputs: plan.floors.map(\.source.input.path), placement: placement,
        sidecars: plan.floors.flatMap(\.filesRead) + floors.namedFiles)
    }
  }

  /// `--depfile` and `--changes`: not an input, a file the placement or `--venue-style`
  /// names or a sidecar.
  func checkOptionPaths(sidecars: [String]) throws {
    try options.checkOptionPaths(
      reading: inputs.map { (try? InputName(parsing: $0).path) ?? $0 } + placement.namedFiles + floors.namedFiles + sidecars)
  }

  /// Renders every floor, floors side by side, each streaming its levels; the bands
  /// of one sheet one after the other, from one reader (`SharedSheet`).
  func render(_ plan: TileJobPlan, encoder: any TileEncoder, writer: any TileWriter, pool: WorkPool, ledger: RenderLedger) throws {
    let floors = plan.floors
    let settings = plan.settings
    let groups = SharedSheet.groups(of: floors.map(\.plan.source))
    DispatchQueue.concurrentPerform(iterations: groups.count) { g in
      for i in groups[g].floors {
        let floor = floors[i]
        let sheet = groups[g].sheet
        let builder = floor.builder(settings: settings, encoder: encoder, writer: writer, pool: pool, ledger: ledger, sheet: sheet)
        // a drawing's display list, shared by its zooms, is given back with its floor
        defer { if floor.plan.source.drawing != nil { DrawingSource.forget(path: floor.plan.source.path) } }
        do { try builder.build() } catch {
          pool.record(error)
          return
        }
      }
    }
    // the pool keeps the first failure, a floor's or a tile's, and throws it here
    try pool.drain()
  }

  /// The manifest, with each floor's placement (its piece's, across ±180°).
  func makeManifest(
    _ plan: TileJobPlan, ledger: RenderLedger, sources: [Manifest.Source], options: [String: String], fingerprint: String,
    jobFingerprint: String
  ) -> Manifest {
    var manifest = plan.manifest(
      ledger: ledger, sources: self.options.recorded(sources), options: options, fingerprint: fingerprint, jobFingerprint: jobFingerprint)
    manifest.placements = plan.floors.map { f in
      Manifest.PlacedFloor(
        floor: f.plan.floor, placement: f.plan.placement, mapping: f.mapping, width: f.plan.source.width, height: f.plan.source.height)
    }
    return manifest
  }
}

/// Names the run's input in the line a library's abort ends the process with
/// (tc_library_stopped): the one file, or none when the floors read several.
func noteInput(_ paths: [String]) {
  let distinct = Set(paths)
  tc_note_input(distinct.count == 1 ? distinct.first : nil)
}

/// Device, inode, size, modification and change times (ns) of a file, as one string.
func fileIdentity(_ path: String) -> String? {
  var buffer = [CChar](repeating: 0, count: 160)
  guard tc_file_identity(path, &buffer, buffer.count) == 0 else { return nil }
  return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
