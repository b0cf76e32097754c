import CTilecutPlatform
import Foundation
import TilecutCore
import TilecutGeo
import TilecutVips

/// What every job is run with, whatever its plan source: where the output goes, the
/// pyramid, the encoding, how the run behaves, and who hears of it; and the pipeline's
/// steps that read only these (size guard, store, digests, fingerprint, report).
struct JobOptions {
  var output: OutputOptions
  var pyramid: PyramidOptions
  var encoding: EncodingOptions
  var run: RunOptions
  var printer: Printer
  /// The folder the output's records name sources from: a project file's (set by
  /// `BuildJob`); nil for a single run, whose records start at the output's parent.
  var recordsFrom: String?

  /// Where the manifest and fingerprint name sources from (never the working directory).
  var pathAnchor: PathAnchor { recordsFrom.map { PathAnchor(directory: $0) } ?? .parent(of: output.output) }

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
    for (key, range) in plan.cells { byZoom[key.zoom, default: 0] += range.count }
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
    if output.store != .default { o["store"] = output.store.rawValue }
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
    StoreCatalogue.driver(for: output.store).makeStore(
      path: output.output, format: encoding.format.rawValue, template: plan.template, option: "--output", digest: { Vips.sha256(of: $0) })
  }

  /// The store's line about the plan's deepest zoom, when it has one (a zoom some of
  /// its readers will not open).
  func storeWarning(_ plan: TileJobPlan) -> String? {
    guard let deepest = plan.cells.keys.map(\.zoom).max() else { return nil }
    return StoreCatalogue.driver(for: output.store).zoomWarning(path: output.output, deepestZoom: deepest)
  }

  /// `--depfile` and `--changes`: writable files of their own, none of the files the
  /// run reads (`read`), nothing inside the output, which is not the working directory.
  func checkOptionPaths(reading read: [String]) throws {
    let named = [("--depfile", output.depfile), ("--changes", output.changes)].compactMap { o, p in p.map { (option: o, path: $0) } }
    try OptionPaths.check(outputs: named, inputs: read, outputDirectory: output.output)
  }

  /// `path` as the output's records name files: a project's relative to its file's
  /// folder (`recordsFrom`), a single run's as given.
  func recorded(_ path: String) -> String {
    recordsFrom.map { PathAnchor(directory: $0).relative(path) } ?? path
  }

  /// `--depfile`'s make rule, nil without it: `target` (the output's manifest unless
  /// a job names another file), as the records name it, made by `dependencies` (the
  /// files the run read, named as the records name them), escaped for make. A name
  /// make cannot express is refused here, before any work.
  func dependencyRule(target: String? = nil, dependencies: () throws -> [String]) throws -> String? {
    guard output.depfile != nil else { return nil }
    let target = recorded(target ?? DependencyFile.target(output: output.output))
    return try DependencyFile.text(target: target, dependencies: try dependencies())
  }

  func writeDependencies(_ rule: String?) throws {
    guard let path = output.depfile, let rule else { return }
    try OptionFile.write(Array(rule.utf8), to: path, what: "the --depfile rule")
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
    // worked out once: `cells` walks every floor's levels (once per level: minutes for a
    // venue of a thousand floors)
    let cells = plan.cells
    let levels = outcomes.keys.sorted().map { key -> LevelReport in
      let o = outcomes[key] ?? LevelOutcome()
      var level = LevelReport(key: key, range: cells[key])
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

  /// What else shapes a floor's pixels: the source CRS and its map, the pixel conversion.
  static func geoShaping(_ p: FloorPlan) -> String {
    var text = ""
    if let crs = p.placement.crs, let t = p.placement.crsTransform {
      text += " crs=\(crs) toCRS=[\(t.a), \(t.b), \(t.c), \(t.d), \(t.e), \(t.f)]"
    }
    if let c = p.source.conversion {
      text += " bands=\(c.bands.map { $0.map(String.init).joined(separator: ",") } ?? "-")"
      text += " scale=\(c.scale.map { "\($0.lowerBound),\($0.upperBound)" } ?? "-") nodata=\(c.nodata.map { "\($0)" } ?? "-")"
    }
    return text
  }
}
