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

  /// The only loader that opens the source: the one its bytes name.
  var format: SourceFormat { source.header.format }
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
  var cells: [LevelKey: LevelCut] {
    var out: [LevelKey: LevelCut] = [:]
    for plan in plans {
      for level in plan.levels {
        for cut in level.cuts {
          let key = LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)
          if var seen = out[key] {
            seen.range = seen.range.union(cut.range)
            out[key] = seen
          } else {
            out[key] = cut
          }
        }
      }
    }
    return out
  }
}

/// Runs `tilecut INPUT…`: plan, check up-to-date, render into staging, swap in.
public struct TileJob {
  var inputs: [String]
  var output: OutputOptions
  var pyramid: PyramidOptions
  var floors: FloorOptions
  var placement: PlacementOptions
  var encoding: EncodingOptions
  var run: RunOptions
  var printer: Printer
  /// The folder the output's records name sources from: a project file's (set by
  /// `BuildJob`); nil for a single run, whose records start at the output's parent.
  var recordsFrom: String?

  /// Where the manifest and fingerprint name sources from (never the working directory).
  var pathAnchor: PathAnchor { recordsFrom.map { PathAnchor(directory: $0) } ?? .parent(of: output.output) }

  package init(
    inputs: [String], output: OutputOptions, pyramid: PyramidOptions, floors: FloorOptions, placement: PlacementOptions,
    encoding: EncodingOptions, run: RunOptions, printer: Printer
  ) {
    (self.inputs, self.output, self.pyramid, self.floors) = (inputs, output, pyramid, floors)
    (self.placement, self.encoding, self.run, self.printer) = (placement, encoding, run, printer)
  }

  package func plan() throws -> TileJobPlan {
    var floorSources = try FloorResolver.resolve(
      inputs: inputs, options: floors, maxPixels: run.maxPixels, maxMemory: run.maxMemory, maxZoom: pyramid.maxZoom,
      drawingUnits: placement.drawingUnits)
    if let split = FloorResolver.splitDescription(floorSources) { printer.info(split) }
    try encoding.checkTransparency(floorSources.map(\.input))
    let sizes = pyramid.tileSizes
    let encoder = encoding.encoder()
    var template = try TileNameTemplate(output.name)
    template = try template.withExtension(encoder.fileExtension)
    try template.checkDistinct(sizes: sizes.map(\.pixels), floors: floorSources.map(\.floor))
    let placements = try placement.resolve(floors: &floorSources, pyramid: pyramid, printer: printer)
    let request = PlanRequest(
      minZoom: pyramid.minZoom, maxZoom: pyramid.maxZoom, tileSizes: sizes, retinaDepth: pyramid.retinaDepth,
      resampling: pyramid.resampling)
    var planned: [PlannedFloor] = []
    var notes: [String] = []
    for (floor, place) in zip(floorSources, placements) {
      let source = try placement.pixels.describe(floor, printer: printer)
      let mapping = try ProjectedMapping.forPlacement(place)
      // a source across ±180° is tiled as two pieces of the same floor, one on each side
      let pieces = try Antimeridian.plan(floor: floor.floor, source: source, placement: place, request: request, mapping: mapping)
      if pieces.count > 1 {
        notes.append("note: \(source.path) crosses the antimeridian (180°): it is tiled on both sides of it")
      }
      planned += pieces.map { PlannedFloor(source: floor, plan: $0, mapping: mapping) }
    }
    let plans = planned.map(\.plan)
    let upsampled = Set(plans.flatMap { p in p.levels.filter(\.upsampled).flatMap { $0.cuts.map { "\($0.tileSize) px tiles at zoom \($0.zoom)" } } })
    if !upsampled.isEmpty {
      notes.append(
        "note: \(upsampled.sorted().joined(separator: ", ")) are drawn from the source's full detail, upsampled (it has no finer); --retina-depth native serves them by the 256 px tiles instead"
      )
    }
    let settings = RenderSettings(
      background: encoding.background, knockout: encoding.knockout,
      shard: try run.shardSelector())
    let jobPlan = TileJobPlan(floors: planned, sizes: request.tileSizes.sorted(), template: template, settings: settings, notes: notes)
    try guardSize(jobPlan)
    return jobPlan
  }

  /// Refuses jobs far larger than intended (a world-sized raster at zoom 18, say).
  func guardSize(_ plan: TileJobPlan) throws {
    // Strips hold 512 rows of every level's width, and direct levels one more for
    // the strip read ahead: a source wide enough to need more than 2 GiB of them is
    // refused before anything is allocated.
    for p in plan.plans {
      let bytes = p.levels.reduce(0) {
        $0 + $1.region.width * 4 * $1.stripHeight * ($1.source == .direct ? 2 : 1)
      }
      if bytes > 2 << 30 {
        // the zoom asked for, not a level's density (the 512 px tiles of zoom 30 are density 31)
        let zoom = p.levels.flatMap { $0.cuts.map(\.zoom) }.max() ?? 0
        throw TilecutError.invalidInput(
          path: p.source.path,
          reason:
            "is \(p.source.width) px wide; tiled to zoom \(zoom), its strips would need \(bytes >> 20) MB; lower --max-zoom or split the image"
        )
      }
    }
    try guardDocumentRaster(plan)
    let total = plan.totalTiles
    guard total > pyramid.maxTiles else { return }
    var byZoom: [Int: Int] = [:]
    for (key, cut) in plan.cells { byZoom[key.zoom, default: 0] += cut.range.count }
    let worst = byZoom.max { $0.value < $1.value }?.key ?? 0
    throw TilecutError.tooManyTiles(count: total, limit: pyramid.maxTiles, zoom: worst)
  }

  /// --max-pixels bounds what a PDF or SVG is rendered to, not just its page size:
  /// each level that reads the document renders it whole at the scale its recipe
  /// names, so the deepest one decides, before anything is rendered.
  func guardDocumentRaster(_ plan: TileJobPlan) throws {
    for p in plan.plans where p.source.isVector {
      for level in p.levels {
        let planned: Double?
        switch level.recipe {
        case .embed(let scale, _, _): planned = scale
        case .resample(let r): planned = r.documentScale
        case .draw(let scale): planned = scale
        case .reduce, .double: planned = nil
        }
        guard let scale = planned else { continue }
        let width = Double(p.source.width) * scale
        let height = Double(p.source.height) * scale
        let pixels = width * height
        guard !(pixels <= Double(run.maxDocumentPixels)) else { continue }
        let zooms = level.cuts.map { "zoom \($0.zoom) (\($0.tileSize) px tiles)" }.joined(separator: " and ")
        throw TilecutError.invalidInput(
          path: p.source.path,
          reason:
            "would be rendered to \(Self.count(width)) × \(Self.count(height)) = \(Self.count(pixels)) pixels for \(zooms), more than --max-pixels \(run.maxDocumentPixels)\(run.maxPixelsOption == nil ? " (the default for documents)" : ""); lower --max-zoom\(plan.sizes.count > 1 ? ", drop the larger --tile-size" : ""), or raise --max-pixels"
        )
      }
    }
  }

  static func count(_ v: Double) -> String {
    v.isFinite && v < 9e18 ? String(Int(v.rounded())) : String(format: "%.3g", v)
  }

  /// The options that shape the pixels, as text, for the manifest and fingerprint.
  /// The tile sizes are part of the fingerprint (as in older manifests, which stay up
  /// to date) but the manifest stores them once, in its `tileSizes`.
  func shapingOptions(_ plan: TileJobPlan) -> [String: String] {
    let anchor = pathAnchor
    var o: [String: String] = [
      "tileSizes": plan.sizes.map(\.description).joined(separator: ","),
      "name": plan.template.pattern,
      "format": encoding.format.rawValue,
      "pngCompression": String(encoding.pngCompression),
      "palette": String(encoding.palette),
      "quality": String(encoding.quality),
      // as given (each floor's zooms follow from them): a rebuild they cause names them
      "minZoom": pyramid.minZoom.map(String.init) ?? "auto",
      "maxZoom": pyramid.maxZoom.map(String.init) ?? "auto",
    ]
    // absent for effort 4, the default before 2 was: outputs made then stay up to date
    if encoding.format == .webp && encoding.webpEffort != VipsTileEncoder.libwebpDefaultEffort { o["webpEffort"] = String(encoding.webpEffort) }
    if encoding.format == .jpeg && encoding.jpegOptimize { o["jpegOptimize"] = "true" }
    if let b = plan.settings.background { o["background"] = b.description }
    if let k = plan.settings.knockout { o["knockout"] = k.description }
    if let s = plan.settings.shard { o["shard"] = "\(s.index)/\(s.count)" }
    if pyramid.retinaDepth != .full { o["retinaDepth"] = pyramid.retinaDepth.rawValue }
    if pyramid.resampling != .default { o["resampling"] = pyramid.resampling.rawValue }
    if output.preview { o["preview"] = "true" }
    // the page shows them, so a change rewrites it
    if let basemap = output.previewBasemap {
      o["previewBasemap"] = basemap.urlTemplate
      if let text = basemap.attribution { o["previewAttribution"] = text }
    }
    if output.store != .directory { o["store"] = output.store.rawValue }
    for p in plan.plans {
      let zooms = Set(p.levels.flatMap { $0.cuts.map(\.zoom) })
      let t = p.placement.transform
      o["floor \(p.floor)"] =
        "\(anchor.relative(p.source.path)) page=\(p.source.page.map(String.init) ?? "-") crop=\(p.source.crop.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-") "
        + "placement=\(p.placement.method)/\(p.placement.projection.rawValue) [\(t.a), \(t.b), \(t.c), \(t.d), \(t.e), \(t.f)] "
        + "zooms=\(zooms.min() ?? 0)-\(zooms.max() ?? 0)" + Self.geoShaping(p)
        + (PlacementOptions.overlayImageDigest(p.placement).map { " image=\($0)" } ?? "")
        // a drawing's --layers / layers: choose what is drawn
        + (p.source.drawing?.layers.map { " layers=\($0.joined(separator: ","))" } ?? "")
    }
    return o
  }

  /// The store the options ask for, at the output path.
  func makeStore(_ plan: TileJobPlan) -> any TileStore {
    guard let driver = StoreCatalogue.driver(for: output.store) else {
      return DirectoryTileStore(path: output.output, template: plan.template, digests: TileDigests(digest: { Vips.sha256(of: $0) }))
    }
    return driver.makeStore(path: output.output, format: encoding.format.rawValue, option: "--output", digest: { Vips.sha256(of: $0) })
  }

  /// The store's line about the plan's deepest zoom, when it has one (a zoom some of
  /// its readers will not open).
  func storeWarning(_ plan: TileJobPlan) -> String? {
    guard let driver = StoreCatalogue.driver(for: output.store), let deepest = plan.cells.keys.map(\.zoom).max() else { return nil }
    return driver.zoomWarning(path: output.output, deepestZoom: deepest)
  }

  /// `--depfile`: the make rule naming every file this run read, escaped for make
  /// (a name make cannot express is refused here, before any work).
  func dependencyRule(_ plan: TileJobPlan) throws -> String? {
    guard output.depfile != nil else { return nil }
    let inputs = plan.floors.map(\.source.input.path)
    let sidecars = plan.plans.flatMap(\.placement.sidecars)
    return try DependencyFile.text(
      target: DependencyFile.target(output: output.output),
      dependencies: DependencyFile.dependencies(inputs: inputs, placement: placement, sidecars: sidecars))
  }

  func writeDependencies(_ rule: String?) throws {
    guard let path = output.depfile, let rule else { return }
    try OptionFile.write(Array(rule.utf8), to: path, what: "the --depfile rule")
  }

  /// `--depfile` and `--changes`: writable files of their own, not an input, a
  /// sidecar or anything inside the output, which is not the working directory.
  func checkOptionPaths(sidecars: [String]) throws {
    var read = inputs.map { (try? InputName(parsing: $0).path) ?? $0 }
    if let world = placement.worldFile { read.append(world) }
    if let crs = placement.sourceCrs, FileManager.default.fileExists(atPath: crs) { read.append(crs) }
    read += sidecars
    let named = [("--depfile", output.depfile), ("--changes", output.changes)].compactMap { o, p in p.map { (option: o, path: $0) } }
    try OptionPaths.check(outputs: named, inputs: read, outputDirectory: output.output)
  }

  /// A job whose every cell came out blank wrote nothing worth publishing: say why,
  /// unless `--allow-empty` (a shard may hold no tile: its job is judged at `merge`).
  func checkNotEmpty(_ plan: TileJobPlan, ledger: RenderLedger) throws {
    guard !output.allowEmpty, plan.settings.shard == nil else { return }
    let outcomes = ledger.outcomes.values
    guard outcomes.reduce(0, { $0 + $1.tiles.count }) == 0 else { return }
    let blank = outcomes.reduce(0) { $0 + $1.blank }
    var why = "every one of its \(blank) cells is transparent"
    if let k = encoding.knockout { why += " after --knockout \(k.spelled)" }
    if let b = encoding.background { why += " or --background \(b.spelled)" }
    throw TilecutError.invalidInput(
      path: plan.floors.first?.source.input.path ?? output.output,
      reason: "no tile to write: \(why); the previous output is unchanged. Check the colours, or add --allow-empty to publish an empty output")
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
        let builder = PyramidBuilder(
          plan: floor.plan, settings: settings, encoder: encoder, writer: writer, pool: pool, ledger: ledger,
          openSource: { level in
            try LevelPipeline.open(
              plan: floor.plan, level: level, format: floor.format, jobs: pool.jobs, mapping: floor.mapping, sheet: sheet)
          })
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

  /// SHA-256 of each input, reusing the previous manifest's digest for a file whose
  /// identity (device, inode, size, modification and change times) is unchanged.
  /// A file that changes while it is hashed is refused.
  /// Each source's digest (the previous manifest's where the file's identity is the
  /// same). The paths are the files' as given: `recorded` names them for the manifest.
  func digestSources(_ plan: TileJobPlan, previous: Manifest?) throws -> [Manifest.Source] {
    // by the path the manifest records (relative to the anchor); an older manifest's
    // (relative to where it ran) is found when it ran from the anchor's folder
    var cache: [String: (identity: String, sha256: String)] = [:]
    for s in previous?.sources ?? [] {
      if let identity = s.identity { cache[s.path] = (identity, s.sha256) }
    }
    let anchor = pathAnchor
    return try plan.floors.map { f in
      let path = f.source.input.path
      // an IMDF venue's floor: its files, style and language
      if let venue = VenueSource.digest(path) {
        return Manifest.Source(
          floor: f.source.floor, path: path, sha256: venue, page: nil, width: f.source.description.width,
          height: f.source.description.height, bytes: nil, modified: nil, identity: nil)
      }
      // a tilecut output read as a source: its manifest (every tile's digest) stands for it
      let file = TileStoreSource.digestPath(path)
      let before = Self.identity(path)
      let digest: String
      if let before, let cached = cache[anchor.relative(path)], cached.identity == before {
        digest = cached.sha256
      } else {
        digest = try Vips.sha256(ofFile: file)
        guard let before, Self.identity(path) == before else {
          throw TilecutError.invalidInput(path: path, reason: "changed while it was read; run again when it is complete")
        }
        cache[anchor.relative(path)] = (before, digest)
      }
      let st = Self.stat(file)
      return Manifest.Source(
        floor: f.source.floor, path: path, sha256: digest, page: f.source.input.page, width: f.source.description.width,
        height: f.source.description.height, bytes: st?.bytes, modified: st?.modified, identity: before)
    }
  }

  /// The sources as the manifest names them: relative to the anchor.
  func recorded(_ sources: [Manifest.Source]) -> [Manifest.Source] {
    let anchor = pathAnchor
    return sources.map { source in
      var s = source
      s.path = anchor.relative(source.path)
      return s
    }
  }

  static func stat(_ path: String) -> (bytes: Int, modified: Double)? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = attributes[.size] as? Int, let date = attributes[.modificationDate] as? Date
    else { return nil }
    return (size, date.timeIntervalSince1970)
  }

  /// Before a job publishes: no source changed while it was read (the tiles are of
  /// the bytes that were hashed), and every JPEG was decoded to its end without a warning.
  static func confirmSources(_ sources: [Manifest.Source]) throws {
    for source in sources where source.identity != nil && identity(source.path) != source.identity {
      throw TilecutError.invalidInput(path: source.path, reason: "changed during the run; the output was not replaced, run again")
    }
    try InputCheck.confirmJPEGs(paths: sources.map(\.path))
  }

  /// What names one version of a file: device, inode, size, modification and change times (ns).
  /// A tilecut output read as a source is named by its manifest's.
  static func identity(_ path: String) -> String? { fileIdentity(TileStoreSource.digestPath(path)) }

  /// What makes an output: the version and renderer revision that wrote it (either
  /// changed, it is rendered again), libvips, the sources by content and the options.
  static func fingerprint(
    sources: [Manifest.Source], options: [String: String], version: String = tilecutVersion, renderer: Int = rendererRevision
  ) -> String {
    var text = "tilecut \(version) renderer \(renderer) libvips \(Vips.version)\n"
    for s in sources { text += "source \(s.floor) \(s.sha256) \(s.page.map(String.init) ?? "-")\n" }
    for key in options.keys.sorted() { text += "option \(key)=\(options[key] ?? "")\n" }
    return Vips.sha256(of: Array(text.utf8))
  }

  func makeManifest(
    _ plan: TileJobPlan, ledger: RenderLedger, sources: [Manifest.Source], options: [String: String], fingerprint: String,
    jobFingerprint: String
  ) -> Manifest {
    let outcomes = ledger.outcomes
    let levels = plan.cells.keys.sorted().compactMap { key -> Manifest.Level? in
      guard let cut = plan.cells[key] else { return nil }
      return Manifest.Level(
        floor: key.floor, tileSize: key.tileSize, range: cut.range, tiles: outcomes[key]?.tiles ?? [], bytes: outcomes[key]?.bytes ?? 0)
    }
    // a floor tiled in two pieces (across ±180°) is one floor, its footprint their union
    // (−180..180°), located where its first piece (the placement as given) lies
    var floors: [Floor] = []
    var footprints: [Floor: Manifest.Footprint] = [:]
    for p in plan.plans {
      guard var seen = footprints[p.floor] else {
        floors.append(p.floor)
        footprints[p.floor] = Manifest.Footprint(floor: p.floor, rect: p.footprint)
        continue
      }
      let location = seen.location
      let first = WorldRect(
        minU: WebMercator.u(longitudeDegrees: seen.west), minV: WebMercator.v(latitudeDegrees: seen.north),
        maxU: WebMercator.u(longitudeDegrees: seen.east), maxV: WebMercator.v(latitudeDegrees: seen.south))
      seen = Manifest.Footprint(floor: p.floor, rect: first.union(p.footprint))
      seen.location = location
      footprints[p.floor] = seen
    }
    var manifest = Manifest(
      tileSizes: plan.sizes.map(\.pixels), floors: floors, name: plan.template.pattern, levels: levels,
      footprints: floors.compactMap { footprints[$0] },
      generator: Manifest.Generator(version: tilecutVersion, renderer: rendererRevision, libvips: Vips.version), sources: recorded(sources),
      options: options.filter { $0.key != "tileSizes" }, fingerprint: fingerprint,
      shard: plan.settings.shard.map { Manifest.Shard(index: $0.index, count: $0.count, jobFingerprint: jobFingerprint) })
    let substitutes = plan.plans.flatMap { p in
      p.substitutes.map { Manifest.Substitute(floor: p.floor, tileSize: $0.tileSize, zoom: $0.zoom, servedBy: $0.servedBy) }
    }
    manifest.substitutes = substitutes.isEmpty ? nil : substitutes
    manifest.venueLevels = VenueSource.manifestLevels(plan.floors.map(\.source))
    manifest.placements = plan.floors.map { f in
      Manifest.PlacedFloor(
        floor: f.plan.floor, placement: f.plan.placement, mapping: f.mapping, width: f.plan.source.width, height: f.plan.source.height)
    }
    return manifest
  }

  /// Prints the summary lines, and the JSON result with `--json`; returns that result.
  @discardableResult
  func report(_ plan: TileJobPlan, ledger: RenderLedger, seconds: Double, output: String) -> RunReport {
    let outcomes = ledger.outcomes
    var lines: [String] = []
    var totalWritten = 0
    var totalBlank = 0
    var totalBytes = 0
    for size in plan.sizes {
      let mine = outcomes.filter { $0.key.tileSize == size.pixels }.values
      let written = mine.reduce(0) { $0 + $1.tiles.count }
      let blank = mine.reduce(0) { $0 + $1.blank }
      let bytes = mine.reduce(0) { $0 + $1.bytes }
      totalWritten += written
      totalBlank += blank
      totalBytes += bytes
      lines.append("  \(size) px: \(written) tiles written, \(blank) skipped (no tile), \(Format.bytes(bytes))")
    }
    printer.info("done: \(totalWritten) tiles, \(totalBlank) skipped, \(Format.bytes(totalBytes)) in \(Format.seconds(seconds)) → \(output)")
    for line in lines { printer.info(line) }
    let levels = outcomes.keys.sorted().map { key -> LevelReport in
      let o = outcomes[key] ?? LevelOutcome()
      var level = LevelReport(key: key, range: plan.cells[key]?.range)
      (level.written, level.skipped, level.bytes) = (o.tiles.count, o.blank, o.bytes)
      return level
    }
    let result = RunReport(
      output: output, upToDate: false, tilesWritten: totalWritten, tilesSkipped: totalBlank, bytes: totalBytes,
      seconds: (seconds * 1000).rounded() / 1000, manifest: output + "/" + Manifest.fileName,
      placements: plan.plans.map(PlacementReport.init), levels: levels)
    if run.json { try? Printer.result(json: result) }
    return result
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
