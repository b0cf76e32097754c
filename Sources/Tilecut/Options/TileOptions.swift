import ArgumentParser
import Foundation
import TilecutCore
import TilecutVips

/// How floors are laid out on a single-page sheet.
public enum StackDirection: String, ExpressibleByArgument, CaseIterable, Sendable {
  case vertical, horizontal
}

/// Where the tiles go and what they are called.
public struct OutputOptions: ParsableArguments {
  @Option(name: [.short, .long], help: ArgumentHelp("Output directory; replaced whole when the run succeeds.", valueName: "dir"))
  public var output: String = "tiles"

  @Option(
    help: ArgumentHelp(
      "Tile path template relative to the output, with {floor} {z} {x} {y} {size}. The extension follows --format.",
      valueName: "template"))
  public var name: String = TileNameTemplate.defaultPattern

  @Flag(help: "Rebuild even when the output is up to date.")
  public var force = false

  @Flag(help: "Also write preview.html, a self-contained page to pan and zoom over the tiles.")
  public var preview = false

  @Option(
    help: ArgumentHelp(
      "With --preview: a base map drawn under the tiles in preview.html, an XYZ tile URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png (without one, or offline, the page draws a graticule).",
      valueName: "url"))
  public var previewBasemap: String?

  @Option(help: ArgumentHelp("With --preview-basemap: the base map's attribution, shown on the page.", valueName: "text"))
  public var previewAttribution: String?

  @Option(
    help: ArgumentHelp(
      "Where tiles go: directory (one file per tile), mbtiles (one MBTiles 1.3 file per floor and tile size, for an app bundle) or pmtiles (one PMTiles v3 archive per floor and tile size, for a CDN).",
      valueName: "kind"))
  public var store: StoreKind = .directory

  @Option(
    help: ArgumentHelp(
      "Write a make dependency file: <output>/manifest.json: the inputs, world files and .prj files the run read.", valueName: "file"))
  public var depfile: String?

  @Option(
    help: ArgumentHelp(
      "Write the tile files this run added, modified or deleted, one 'A|M|D<TAB>path' line each (git --name-status), relative to the output.",
      valueName: "file"))
  public var changes: String?

  @Flag(help: "Publish an output even when no cell has a tile (by default such a run fails, saying why).")
  public var allowEmpty = false

  public init() {}

  public func validate() throws {
    if store != .directory && preview {
      throw Failure.usage("--preview: the preview page reads tile files; it goes with --store directory")
    }
    try PreviewBasemap.validate(url: previewBasemap, attribution: previewAttribution, preview: preview)
  }
}

/// The kinds of tile store.
public enum StoreKind: String, ExpressibleByArgument, CaseIterable, Sendable {
  case directory, mbtiles, pmtiles
}

/// Which zooms and tile sizes to make.
public struct PyramidOptions: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Lowest zoom to write (default: 0 for plain images; for georeferenced ones the deepest zoom whose one 256 px tile holds the whole footprint).",
      valueName: "z"))
  public var minZoom: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Highest zoom to write (default: plain images, the smallest z with 256·2^z ≥ the longer side; georeferenced, the deepest zoom whose 256 px tiles are not finer than the source pixels).",
      valueName: "z"))
  public var maxZoom: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Tile sizes in pixels, any of 256, 512 (@2x: the same z/x/y grid at twice the density) and 768 (@3x), comma-separated.", valueName: "sizes"))
  public var tileSize: String = "256,512"

  @Option(
    help: ArgumentHelp(
      "How deep 512 px tiles go: full (every zoom) or native (only where the source has the detail; deeper zooms' 512 px tiles are not written and the manifest says the 256 px tile serves them).",
      valueName: "full|native"))
  public var retinaDepth: RetinaDepth = .full

  @Option(
    help: ArgumentHelp(
      "The kernel every zoom is drawn with: nearest (no colour the source lacks; classified rasters), average (the area mean of what a tile pixel covers), bilinear (the default: a tent as wide as a tile pixel when it reduces, GDAL's bilinear; least moiré on a plan's hatching) or lanczos3 (sharpest for photos, may ring at hard edges). gdal2tiles' near and lanczos are understood.",
      valueName: "kernel"))
  public var resampling: Resampling = .default

  @Option(
    parsing: .unconditional, help: ArgumentHelp("Refuse jobs of more tiles than this (the estimate names the zoom that causes it).", valueName: "n"))
  public var maxTiles: Int = 500_000

  public init() {}

  /// The sizes asked for, parsed once.
  public func tileSizes() throws -> [TileSize] { try TileSize.parseList(tileSize) }

  public func validate() throws {
    if let z = minZoom, z < 0 { throw Failure.usage(OptionNumbers.atLeast("--min-zoom", 0, got: z)) }
    if let z = maxZoom, z < 0 { throw Failure.usage(OptionNumbers.atLeast("--max-zoom", 0, got: z)) }
    if let z = minZoom, !(0...PyramidPlanner.maxSupportedZoom).contains(z) {
      throw Failure.usage("--min-zoom: \(z) is outside 0...\(PyramidPlanner.maxSupportedZoom)")
    }
    if let z = maxZoom, !(0...PyramidPlanner.maxSupportedZoom).contains(z) {
      throw Failure.usage("--max-zoom: \(z) is outside 0...\(PyramidPlanner.maxSupportedZoom)")
    }
    if let a = minZoom, let b = maxZoom, a > b { throw Failure.usage("--min-zoom: \(a) is above --max-zoom \(b)") }
    if maxTiles < 1 { throw Failure.usage("--max-tiles: must be at least 1, got \(maxTiles)") }
    let sizes: [TileSize]
    do { sizes = try tileSizes() } catch let e as TilecutError { throw Failure.usage(e.description) }
    if retinaDepth == .native && !sizes.contains(.standard) {
      throw Failure.usage("--retina-depth: native serves the deepest 512 px tiles by the 256 px ones; add 256 to --tile-size, or use full")
    }
  }
}

extension RetinaDepth: ExpressibleByArgument {}

extension Resampling: ExpressibleByArgument {
  /// gdal2tiles' `near` and `lanczos` are tilecut's nearest and lanczos3.
  public init?(argument: String) {
    switch argument.lowercased() {
    case "near": self = .nearest
    case "lanczos": self = .lanczos3
    default: self.init(rawValue: argument.lowercased())
    }
  }
}

/// Floors: pages, stacked bands or one input per floor.
public struct FloorOptions: ParsableArguments {
  @Option(
    parsing: .unconditional, help: ArgumentHelp("Number of floors: the source's first N pages, or N equal bands of a one-page sheet.", valueName: "n")
  )
  public var floors: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Floor number of the first floor, used in names (0 and negatives allowed: basements).", valueName: "k"))
  public var firstFloor: Int = 1

  @Option(help: ArgumentHelp("How floors are stacked on a one-page sheet: vertical (top to bottom) or horizontal (left to right).", valueName: "dir"))
  public var stack: StackDirection = .vertical

  @Option(
    help: ArgumentHelp(
      "For an IMDF venue: the language of its labels (a tag such as en or ru; default: the venue's own), falling back as IMDF's names do.",
      valueName: "tag"))
  public var language: String?

  @Option(
    help: ArgumentHelp(
      "For an IMDF venue: a JSON style file whose paints replace the default indoor style's, e.g. {\"unit.classroom\": {\"fill\": \"#ffeecc\"}}.",
      valueName: "path"))
  public var venueStyle: String?

  public init() {}

  public func validate() throws {
    if let n = floors, n < 1 { throw Failure.usage(OptionNumbers.atLeast("--floors", 1, got: n)) }
    if let tag = language, tag.isEmpty || tag.count > 35 || !tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
      throw Failure.usage("--language takes a language tag such as en, ru or zh-Hant, got '\(Quote.value(tag))'")
    }
    if let n = floors, !(1...PlanLimits.maxFloors).contains(n) {
      throw Failure.usage("--floors: \(n) is outside 1...\(PlanLimits.maxFloors)")
    }
    // every floor's number must fit, the last one too
    if !(-(PlanLimits.maxFloorNumber - PlanLimits.maxFloors)...(PlanLimits.maxFloorNumber - PlanLimits.maxFloors)).contains(firstFloor) {
      throw Failure.usage("--first-floor: \(firstFloor) is outside ±\(PlanLimits.maxFloorNumber - PlanLimits.maxFloors)")
    }
  }

  /// The floor `offset` above the first: `--floors N`, pages and inputs number consecutive floors.
  func floor(_ offset: Int) throws -> Floor {
    guard let floor = try Floor(firstFloor, option: "--first-floor").advanced(by: offset) else {
      throw TilecutError.invalidOption(
        option: "--first-floor", reason: "floor \(firstFloor) + \(offset) is outside ±\(PlanLimits.maxFloorNumber); start lower")
    }
    return floor
  }
}

/// Pixel treatment and file encoding.
public struct EncodingOptions: ParsableArguments {
  @Option(help: ArgumentHelp("Tile file format: png, webp or jpeg.", valueName: "format"))
  public var format: TileFormat = .png

  @Option(parsing: .unconditional, help: ArgumentHelp("PNG deflate level, 0 (fast) to 9 (small); upsampled tiles use at most 4.", valueName: "0-9"))
  public var pngCompression: Int = 6

  @Flag(
    help: "Quantise tiles of more than 256 colours to 8-bit palettes (libimagequant, lossy). Tiles of fewer colours are always exact palette PNGs.")
  public var palette = false

  @Option(parsing: .unconditional, help: ArgumentHelp("WebP/JPEG quality, 1 to 100 (WebP is lossy and keeps transparency).", valueName: "q"))
  public var quality: Int = 85

  @Option(parsing: .unconditional, help: ArgumentHelp("libwebp's effort for WebP tiles, 0 (fast) to 6 (small).", valueName: "0-6"))
  public var webpEffort: Int = VipsTileEncoder.defaultWebPEffort

  @Flag(
    help:
      "Optimised Huffman tables for JPEG tiles: the same pixels in about 7-13% fewer bytes, for about twice libjpeg's encoding time.")
  public var jpegOptimize = false

  @Option(
    help: ArgumentHelp(
      "Tiles whose every pixel is transparent or within TOLERANCE of COLOR are not written (e.g. white, '#f8f8f8:6'); JPEG tiles are filled with COLOR where transparent.",
      valueName: "color[:tol]"))
  public var background: String?

  @Option(
    help: ArgumentHelp(
      "Make pixels of COLOR (within TOLERANCE) transparent before tiling, fading anti-aliased edges, so a white paper plan shows the map around its walls.",
      valueName: "color[:tol]"))
  public var knockout: String?

  public init() {}

  public func validate() throws {
    if pngCompression < 0 { throw Failure.usage(OptionNumbers.atLeast("--png-compression", 0, got: pngCompression)) }
    if quality < 1 { throw Failure.usage(OptionNumbers.atLeast("--quality", 1, got: quality)) }
    if !(0...9).contains(pngCompression) { throw Failure.usage("--png-compression: \(pngCompression) is outside 0...9") }
    if !(1...100).contains(quality) { throw Failure.usage("--quality: \(quality) is outside 1...100") }
    if webpEffort < 0 { throw Failure.usage(OptionNumbers.atLeast("--webp-effort", 0, got: webpEffort)) }
    if !(0...6).contains(webpEffort) { throw Failure.usage("--webp-effort: \(webpEffort) is outside 0...6") }
    if palette && format != .png { throw Failure.usage("--palette: only PNG tiles have a palette; drop it or use --format png") }
    do { _ = try colorRules() } catch let e as TilecutError { throw Failure.usage(e.description) }
  }

  /// `--background` and `--knockout` as rules: the one place their text is read.
  func colorRules() throws -> (background: ColorRule?, knockout: ColorRule?) {
    (
      try background.map { try ColorRule(parsing: $0, option: "--background") },
      try knockout.map { try ColorRule(parsing: $0, option: "--knockout") }
    )
  }

  func encoder() -> VipsTileEncoder {
    let fill = (try? colorRules())?.background
    var encoder = VipsTileEncoder(format: format, pngCompression: pngCompression, palette: palette, quality: quality, fill: fill)
    encoder.webpEffort = webpEffort
    encoder.jpegOptimize = jpegOptimize
    return encoder
  }

  /// JPEG tiles cannot be transparent: a source with an alpha channel (or one made
  /// transparent by --knockout) needs --background to say what fills it.
  func checkTransparency(_ inputs: [InputName]) throws {
    guard format == .jpeg, background == nil else { return }
    let remedy = "add --background COLOR to fill it (e.g. --background white) or use --format webp, which keeps it"
    if knockout != nil {
      throw TilecutError.invalidOption(option: "--format", reason: "jpeg tiles cannot be transparent, and --knockout makes the source so; \(remedy)")
    }
    for input in inputs where try SourceImage.hasAlpha(input) {
      throw TilecutError.invalidOption(
        option: "--format", reason: "jpeg tiles cannot be transparent, and \(input.path) has an alpha channel; \(remedy)")
    }
  }
}

/// How the run behaves and reports.
public struct RunOptions: ParsableArguments {
  @Option(parsing: .unconditional, help: ArgumentHelp("Worker threads (default: all cores).", valueName: "n"))
  public var jobs: Int?

  @Flag(help: "Place and plan, print the plan (no pixel decoded: tile counts are upper bounds), write nothing.")
  public var dryRun = false

  @Flag(help: "With --dry-run: render every pixel (nothing written) to count exactly which cells get a tile.")
  public var exact = false

  @Flag(help: "Print the plan (with --dry-run) or the result as one JSON document on stdout.")
  public var json = false

  @Flag(name: [.short, .long], help: "Print only errors.")
  public var quiet = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Render a deterministic share K of N of the tiles and write a partial manifest (combine with `tilecut merge`). 'env' or 'env/N' take K (and N) from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, TILECUT_SHARD_COUNT) or an AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE).",
      valueName: "k/n|env[/n]"))
  public var shard: String?

  @Option(
    name: .customLong("max-pixels"), parsing: .unconditional,
    help: ArgumentHelp(
      "Refuse sources with more pixels than this, and PDF/SVG whose rendering at the deepest zoom would have more (default: 4000000000 for images, 268435456 for a document's rendering).",
      valueName: "n"))
  public var maxPixelsOption: Int?

  /// Images: 4 billion pixels are streamed, never held.
  public static let defaultMaxPixels = 4_000_000_000
  /// A document is rendered whole by libvips at each level: 16384² by default.
  public static let defaultMaxDocumentPixels = 1 << 28

  public var maxPixels: Int { maxPixelsOption ?? Self.defaultMaxPixels }
  public var maxDocumentPixels: Int { maxPixelsOption ?? Self.defaultMaxDocumentPixels }

  @Option(
    name: .customLong("max-memory"), parsing: .unconditional,
    help: ArgumentHelp(
      "Refuse sources whose decoder must hold more than this many megabytes for the whole image at once: a progressive JPEG, an interlaced PNG, an image embedded in an SVG (default: 512).",
      valueName: "MB"))
  public var maxMemoryOption: Int?

  /// Bytes a decoder may hold for one whole image (`--max-memory`).
  public var maxMemory: Int { (maxMemoryOption ?? DecodeBudget.defaultMegabytes).multipliedReportingOverflow(by: 1_000_000).partialValue }

  @Flag(help: "Refuse document formats (PDF, SVG and other loaders libvips marks untrusted).")
  public var noVector = false

  public init() {}

  public func validate() throws {
    if let j = jobs, j < 1 { throw Failure.usage(OptionNumbers.atLeast("--jobs", 1, got: j)) }
    if let j = jobs, !(1...PlanLimits.maxJobs).contains(j) {
      throw Failure.usage("--jobs: \(j) is outside 1...\(PlanLimits.maxJobs)")
    }
    if let m = maxPixelsOption, m < 1 { throw Failure.usage("--max-pixels: must be at least 1, got \(m)") }
    if let m = maxMemoryOption, !(1...1_000_000_000).contains(m) {
      throw Failure.usage("--max-memory: must be at least 1 (megabytes), got \(m)")
    }
    if exact && !dryRun { throw Failure.usage("--exact: counts tiles for --dry-run; add --dry-run or drop --exact") }
    if shard != nil { _ = try shardSelector() }
  }

  func shardSelector() throws -> ShardSelector? {
    guard let shard else { return nil }
    if shard == "env" || shard.hasPrefix("env/") {
      let (k, n) = try ShardEnvironment.selector(spec: shard, environment: ProcessInfo.processInfo.environment)
      return ShardSelector(index: k, count: n)
    }
    let parts = shard.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
    if parts.count == 2, let k = parts[0], k < 1 { throw Failure.usage(OptionNumbers.atLeast("--shard", 1, got: k, what: "K")) }
    if parts.count == 2, let n = parts[1], n < 1 { throw Failure.usage(OptionNumbers.atLeast("--shard", 1, got: n, what: "N")) }
    guard parts.count == 2, let k = parts[0], let n = parts[1], (1...PlanLimits.maxShards).contains(n), (1...n).contains(k) else {
      throw Failure.usage("--shard: '\(Quote.value(shard))' is not K/N with 1 ≤ K ≤ N ≤ \(PlanLimits.maxShards) (e.g. 2/4)")
    }
    return ShardSelector(index: k, count: n)
  }
}
extension TileFormat: ExpressibleByArgument {}
