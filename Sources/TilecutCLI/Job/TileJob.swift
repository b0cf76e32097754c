import Dispatch
import Foundation
import TilecutCore
import TilecutVips

#if canImport(Glibc)
  import Glibc
#endif

/// The version written into manifests and printed by --version.
public let tilecutVersion = "0.2.0"

/// The resolved form of a tiling command: floors, placements and plans.
struct TileJobPlan {
  var floors: [FloorSource]
  var plans: [FloorPlan]
  var sizes: [Int]
  var template: TileNameTemplate
  var settings: RenderSettings
  var notes: [String]

  var totalTiles: Int { plans.reduce(0) { $0 + $1.tileCount } }

  /// Planned cells per floor, size and zoom.
  var cells: [LevelKey: LevelCut] {
    var out: [LevelKey: LevelCut] = [:]
    for plan in plans {
      for level in plan.levels {
        for cut in level.cuts { out[LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)] = cut }
      }
    }
    return out
  }
}

/// Runs `tilecut INPUT…`: plan, check up-to-date, render into staging, swap in.
struct TileJob {
  var inputs: [String]
  var output: OutputOptions
  var pyramid: PyramidOptions
  var floors: FloorOptions
  var placement: PlacementOptions
  var encoding: EncodingOptions
  var run: RunOptions
  var printer: Printer

  func plan() throws -> TileJobPlan {
    let floorSources = try FloorResolver.resolve(inputs: inputs, options: floors, maxPixels: run.maxPixels)
    try encoding.checkTransparency(floorSources.map(\.input))
    let sizes = try pyramid.tileSizes()
    let encoder = encoding.encoder()
    var template = try TileNameTemplate(output.name)
    template = try template.withExtension(encoder.fileExtension)
    if sizes.count > 1 && !template.uses("size") {
      throw TilecutError.invalidOption(option: "--name", reason: "'\(output.name)' has no {size} but both 256 and 512 tiles are made; they would overwrite each other")
    }
    if floorSources.count > 1 && !template.uses("floor") {
      throw TilecutError.invalidOption(option: "--name", reason: "'\(output.name)' has no {floor} but there are \(floorSources.count) floors")
    }
    let placements = try placement.resolve(floors: floorSources, pyramid: pyramid, printer: printer)
    let request = PlanRequest(minZoom: pyramid.minZoom, maxZoom: pyramid.maxZoom, tileSizes: sizes)
    var plans: [FloorPlan] = []
    var notes: [String] = []
    for (floor, place) in zip(floorSources, placements) {
      let plan = try PyramidPlanner.plan(floor: floor.floor, source: floor.description, placement: place, request: request)
      plans.append(plan)
    }
    let upsampled = Set(plans.flatMap { p in p.levels.filter(\.upsampled).flatMap { $0.cuts.map { "\($0.tileSize) px tiles at zoom \($0.zoom)" } } })
    if !upsampled.isEmpty {
      notes.append("\(upsampled.sorted().joined(separator: ", ")) need more detail than the source has; they are upsampled")
    }
    let settings = RenderSettings(
      template: template,
      background: try encoding.background.map { try ColorRule(parsing: $0, option: "--background") },
      knockout: try encoding.knockout.map { try ColorRule(parsing: $0, option: "--knockout") },
      shard: try run.shardSelector())
    let jobPlan = TileJobPlan(floors: floorSources, plans: plans, sizes: sizes, template: template, settings: settings, notes: notes)
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
        $0 + $1.region.width * 4 * PyramidBuilder.stripHeight * ($1.source == .direct ? 2 : 1)
      }
      if bytes > 2 << 30 {
        throw TilecutError.invalidInput(
          path: p.source.path,
          reason: "is \(p.source.width) px wide at zoom \(p.levels.first?.density ?? 0): its strips would need \(bytes >> 20) MB; lower --max-zoom or split the image")
      }
    }
    let total = plan.totalTiles
    guard total > pyramid.maxTiles else { return }
    var byZoom: [Int: Int] = [:]
    for (key, cut) in plan.cells { byZoom[key.zoom, default: 0] += cut.range.count }
    let worst = byZoom.max { $0.value < $1.value }?.key ?? 0
    throw TilecutError.tooManyTiles(count: total, limit: pyramid.maxTiles, zoom: worst)
  }

  /// The options that shape the pixels, as text, for the manifest and fingerprint.
  func shapingOptions(_ plan: TileJobPlan) -> [String: String] {
    var o: [String: String] = [
      "tileSizes": plan.sizes.map(String.init).joined(separator: ","),
      "name": plan.template.pattern,
      "format": encoding.format.rawValue,
      "pngCompression": String(encoding.pngCompression),
      "palette": String(encoding.palette),
      "quality": String(encoding.quality),
    ]
    if let b = plan.settings.background { o["background"] = b.description }
    if let k = plan.settings.knockout { o["knockout"] = k.description }
    if let s = plan.settings.shard { o["shard"] = "\(s.index)/\(s.count)" }
    if output.preview { o["preview"] = "true" }
    for p in plan.plans {
      let zooms = Set(p.levels.flatMap { $0.cuts.map(\.zoom) })
      let t = p.placement.transform
      o["floor \(p.floor)"] =
        "\(p.source.path) page=\(p.source.page.map(String.init) ?? "-") crop=\(p.source.crop.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-") "
        + "placement=\(p.placement.method)/\(p.placement.projection.rawValue) [\(t.a), \(t.b), \(t.c), \(t.d), \(t.e), \(t.f)] "
        + "zooms=\(zooms.min() ?? 0)-\(zooms.max() ?? 0)"
    }
    return o
  }

  func execute() throws -> Int32 {
    let started = Date()
    let plan = try self.plan()
    for note in plan.notes { printer.warning(note) }
    if run.dryRun { return try dryRun(plan, started: started) }

    let out = OutputDirectory(path: output.output)
    try out.checkReplaceable()
    let sources = try digestSources(plan, previous: out.existingManifest())
    let options = shapingOptions(plan)
    let fingerprint = Self.fingerprint(sources: sources, options: options)
    var wholeJobOptions = options
    wholeJobOptions["shard"] = nil
    let jobFingerprint = Self.fingerprint(sources: sources, options: wholeJobOptions)
    if !output.force, let existing = out.existingManifest(), existing.fingerprint == fingerprint {
      printer.info("\(out.path): up to date")
      if run.json { Printer.result(#"{"output": \#(jsonString(out.path)), "upToDate": true}"#) }
      return 0
    }
    out.removeAbandonedStaging()
    let staging = try out.makeStaging()
    let cancel = SignalCancellation()
    var committed = false
    defer {
      cancel.stop()
      if !committed { OutputDirectory.abandon(staging: staging) }
    }
    let pool = WorkPool(jobs: run.jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    cancel.start(pool)
    let progress = ProgressTracker(plan: plan, printer: printer)
    let ledger = RenderLedger(onTile: { key, _ in progress.tileDone(key) })
    progress.start(jobs: pool.jobs)
    do {
      try render(plan, encoder: encoding.encoder(), writer: DirectoryTileWriter(root: staging), pool: pool, ledger: ledger)
    } catch {
      printer.endProgress()
      if let signal = cancel.received { throw JobInterrupted(signal: signal) }
      throw error
    }
    if let signal = cancel.received { throw JobInterrupted(signal: signal) }
    let manifest = makeManifest(plan, ledger: ledger, sources: sources, options: options, fingerprint: fingerprint, jobFingerprint: jobFingerprint)
    do {
      try manifest.encoded().write(to: URL(fileURLWithPath: staging + "/" + Manifest.fileName))
      if output.preview {
        try Data(PreviewPage.html(manifest: manifest).utf8).write(to: URL(fileURLWithPath: staging + "/preview.html"))
      }
    } catch {
      throw TilecutError.output(path: staging, reason: "cannot write the manifest (\(error.localizedDescription))")
    }
    try out.commit(staging: staging) { from, to in exchangePaths(from, to) }
    committed = true
    let seconds = Date().timeIntervalSince(started)
    progress.finish()
    report(plan, ledger: ledger, seconds: seconds, output: out.path)
    return 0
  }

  /// Renders every floor, floors side by side, each streaming its levels.
  func render(_ plan: TileJobPlan, encoder: any TileEncoder, writer: any TileWriter, pool: WorkPool, ledger: RenderLedger) throws {
    let plans = plan.plans
    let settings = plan.settings
    let loaders = Dictionary(plan.floors.map { ($0.floor, $0.header.loader) }, uniquingKeysWith: { a, _ in a })
    DispatchQueue.concurrentPerform(iterations: plans.count) { i in
      let floorPlan = plans[i]
      let loader = loaders[floorPlan.floor]
      let builder = PyramidBuilder(
        plan: floorPlan, settings: settings, encoder: encoder, writer: writer, pool: pool, ledger: ledger,
        openSource: { level in try LevelPipeline.open(plan: floorPlan, level: level, loader: loader, jobs: pool.jobs) })
      do { try builder.build() } catch { pool.record(error) }
    }
    // the pool keeps the first failure, a floor's or a tile's, and throws it here
    try pool.drain()
  }

  /// SHA-256 of each input, reusing the previous manifest's digest for a file whose
  /// size and modification time have not changed.
  func digestSources(_ plan: TileJobPlan, previous: Manifest?) throws -> [Manifest.Source] {
    var cache: [String: String] = [:]
    for s in previous?.sources ?? [] {
      if let bytes = s.bytes, let modified = s.modified, let now = Self.stat(s.path), now.bytes == bytes, now.modified == modified {
        cache[s.path] = s.sha256
      }
    }
    return try plan.floors.map { f in
      let digest = try cache[f.input.path] ?? Vips.sha256(ofFile: f.input.path)
      cache[f.input.path] = digest
      let st = Self.stat(f.input.path)
      return Manifest.Source(
        floor: f.floor, path: f.input.path, sha256: digest, page: f.input.page, width: f.description.width,
        height: f.description.height, bytes: st?.bytes, modified: st?.modified)
    }
  }

  static func stat(_ path: String) -> (bytes: Int, modified: Double)? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = attributes[.size] as? Int, let date = attributes[.modificationDate] as? Date
    else { return nil }
    return (size, date.timeIntervalSince1970)
  }

  static func fingerprint(sources: [Manifest.Source], options: [String: String]) -> String {
    var text = "tilecut \(tilecutVersion) libvips \(Vips.version)\n"
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
      return Manifest.Level(floor: key.floor, tileSize: key.tileSize, range: cut.range, tiles: outcomes[key]?.tiles ?? [])
    }
    return Manifest(
      tileSizes: plan.sizes, floors: plan.plans.map(\.floor), name: plan.template.pattern, levels: levels,
      footprints: plan.plans.map { Manifest.Footprint(floor: $0.floor, rect: $0.footprint) },
      generator: Manifest.Generator(version: tilecutVersion, libvips: Vips.version), sources: sources,
      options: options, fingerprint: fingerprint,
      shard: plan.settings.shard.map { Manifest.Shard(index: $0.index, count: $0.count, jobFingerprint: jobFingerprint) })
  }

  func report(_ plan: TileJobPlan, ledger: RenderLedger, seconds: Double, output: String) {
    let outcomes = ledger.outcomes
    var lines: [String] = []
    var totalWritten = 0
    var totalBlank = 0
    var totalBytes = 0
    for size in plan.sizes {
      let mine = outcomes.filter { $0.key.tileSize == size }.values
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
    if run.json {
      let levels = outcomes.keys.sorted().map { key -> String in
        let o = outcomes[key] ?? LevelOutcome()
        let planned = plan.cells[key]?.range.count ?? 0
        return #"{"floor": \#(key.floor), "tileSize": \#(key.tileSize), "zoom": \#(key.zoom), "cells": \#(planned), "written": \#(o.tiles.count), "skipped": \#(o.blank), "bytes": \#(o.bytes)}"#
      }
      Printer.result(
        #"{"output": \#(jsonString(output)), "upToDate": false, "tilesWritten": \#(totalWritten), "tilesSkipped": \#(totalBlank), "bytes": \#(totalBytes), "seconds": \#(String(format: "%.3f", seconds)), "manifest": \#(jsonString(output + "/" + Manifest.fileName)), "levels": [\#(levels.joined(separator: ", "))]}"#
      )
    }
  }
}

/// Raised when SIGINT or SIGTERM stopped a run.
struct JobInterrupted: Error {
  var signal: Int32
}

import Synchronization

/// Turns SIGINT and SIGTERM into a cancelled pool, so the run cleans up and exits.
final class SignalCancellation: @unchecked Sendable {
  private var sources: [DispatchSourceSignal] = []
  private let signalled = Atomic<Int32>(0)

  var received: Int32? {
    let s = signalled.load(ordering: .relaxed)
    return s == 0 ? nil : s
  }

  func start(_ pool: WorkPool) {
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler { [self] in
        self.signalled.store(sig, ordering: .relaxed)
        pool.cancel()
      }
      source.resume()
      sources.append(source)
    }
  }

  func stop() {
    for s in sources { s.cancel() }
    sources.removeAll()
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}

func jsonString(_ s: String) -> String {
  let data = (try? JSONEncoder().encode(s)) ?? Data("\"\"".utf8)
  return String(decoding: data, as: UTF8.self)
}
