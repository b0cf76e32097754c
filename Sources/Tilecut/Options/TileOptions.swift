import Foundation
import TilecutCore
import TilecutVips

/// How floors are laid out on a single-page sheet.
public enum StackDirection: String, CaseIterable, Sendable, Codable {
  case vertical, horizontal
}

/// Where the tiles go and what they are called.
public struct OutputOptions: Sendable, Codable {
  /// `-o/--output`
  public var output: String = "tiles"
  /// `--name`
  public var name: String = TileNameTemplate.defaultPattern
  /// `--force`
  public var force = false
  /// `--preview`
  public var preview = false
  /// `--preview-basemap` and `--preview-attribution`
  public var previewBasemap: PreviewBasemap?
  /// `--store`
  public var store: StoreKind = .default
  /// `--depfile`
  public var depfile: String?
  /// `--changes`
  public var changes: String?
  /// `--allow-empty`
  public var allowEmpty = false

  public init() {}

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    if !StoreCatalogue.driver(for: store).tilesAreFiles && preview {
      p.add("--preview: the preview page reads tile files; it goes with --store directory")
    }
    if previewBasemap != nil && !preview { p.add("--preview-basemap goes with --preview (it is drawn in preview.html)") }
    return p.items
  }
}

/// Which zooms and tile sizes to make.
public struct PyramidOptions: Sendable, Codable {
  /// `--min-zoom`
  public var minZoom: Int?
  /// `--max-zoom`
  public var maxZoom: Int?
  /// `--tile-size`: sorted, without repeats (``TileSize/parseList(_:option:)`` reads the text).
  public var tileSizes: [TileSize] = [.standard, .retina]
  /// `--retina-depth`
  public var retinaDepth: RetinaDepth = .full
  /// `--resampling`
  public var resampling: Resampling = .default
  /// `--max-tiles`
  public var maxTiles: Int = 500_000

  public init() {}

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    let zooms = 0...PyramidPlanner.maxSupportedZoom
    if let z = minZoom, z < 0 { p.add(OptionNumbers.atLeast("--min-zoom", 0, got: z)) }
    if let z = maxZoom, z < 0 { p.add(OptionNumbers.atLeast("--max-zoom", 0, got: z)) }
    if let z = minZoom, z >= 0, !zooms.contains(z) { p.add("--min-zoom: \(z) is outside 0...\(PyramidPlanner.maxSupportedZoom)") }
    if let z = maxZoom, z >= 0, !zooms.contains(z) { p.add("--max-zoom: \(z) is outside 0...\(PyramidPlanner.maxSupportedZoom)") }
    if let a = minZoom, let b = maxZoom, a > b { p.add("--min-zoom: \(a) is above --max-zoom \(b)") }
    if maxTiles < 1 { p.add("--max-tiles: must be at least 1, got \(maxTiles)") }
    if tileSizes.isEmpty { p.add("--tile-size: give at least one of 256, 512 and 768") }
    if retinaDepth == .native && !tileSizes.contains(.standard) {
      p.add("--retina-depth: native serves the deepest 512 px tiles by the 256 px ones; add 256 to --tile-size, or use full")
    }
    return p.items
  }
}

extension PyramidOptions {
  /// `--tile-size`'s text (`256,512`) as sizes, refused as a usage error in the option's words:
  /// the command line and the project file read it here.
  public static func tileSizes(parsing text: String) throws -> [TileSize] {
    do { return try TileSize.parseList(text) } catch let e as TilecutError { throw Failure.usage(e.description) }
  }

  /// The sizes as `--tile-size` writes them: `256,512`.
  public static func text(_ sizes: [TileSize]) -> String { sizes.map(\.description).joined(separator: ",") }
}

extension Resampling {
  /// A kernel as the options name it: gdal2tiles' `near` and `lanczos` are tilecut's
  /// nearest and lanczos3.
  public init?(optionValue: String) {
    switch optionValue.lowercased() {
    case "near": self = .nearest
    case "lanczos": self = .lanczos3
    default: self.init(rawValue: optionValue.lowercased())
    }
  }
}

/// Floors: pages, stacked bands or one input per floor.
public struct FloorOptions: Sendable, Codable {
  /// `--floors`
  public var floors: Int?
  /// `--first-floor`
  public var firstFloor: Int = 1
  /// `--stack`
  public var stack: StackDirection = .vertical
  /// `--language`
  public var language: String?
  /// `--venue-style`
  public var venueStyle: String?

  public init() {}

  /// The files these options have the run read (the `--venue-style` file).
  var namedFiles: [String] { venueStyle.map { [$0] } ?? [] }

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    if let n = floors, n < 1 { p.add(OptionNumbers.atLeast("--floors", 1, got: n)) }
    if let tag = language, tag.isEmpty || tag.count > 35 || !tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
      p.add("--language takes a language tag such as en, ru or zh-Hant, got '\(Quote.value(tag))'")
    }
    if let n = floors, n >= 1, !(1...PlanLimits.maxFloors).contains(n) { p.add("--floors: \(n) is outside 1...\(PlanLimits.maxFloors)") }
    // every floor's number must fit, the last one too
    if !(-(PlanLimits.maxFloorNumber - PlanLimits.maxFloors)...(PlanLimits.maxFloorNumber - PlanLimits.maxFloors)).contains(firstFloor) {
      p.add("--first-floor: \(firstFloor) is outside ±\(PlanLimits.maxFloorNumber - PlanLimits.maxFloors)")
    }
    return p.items
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
public struct EncodingOptions: Sendable, Codable {
  /// `--format`
  public var format: TileFormat = .png
  /// `--png-compression`
  public var pngCompression: Int = 6
  /// `--palette`
  public var palette = false
  /// `--quality`
  public var quality: Int = 85
  /// `--webp-effort`
  public var webpEffort: Int = VipsTileEncoder.defaultWebPEffort
  /// `--jpeg-optimize`
  public var jpegOptimize = false
  /// `--background`: blank tiles are those of this colour (within its tolerance), and
  /// JPEG tiles are filled with it where transparent.
  public var background: ColorRule?
  /// `--knockout`: pixels of this colour (within its tolerance) are made transparent.
  public var knockout: ColorRule?

  public init() {}

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    if pngCompression < 0 { p.add(OptionNumbers.atLeast("--png-compression", 0, got: pngCompression)) }
    if quality < 1 { p.add(OptionNumbers.atLeast("--quality", 1, got: quality)) }
    if pngCompression >= 0 && !(0...9).contains(pngCompression) { p.add("--png-compression: \(pngCompression) is outside 0...9") }
    if quality >= 1 && !(1...100).contains(quality) { p.add("--quality: \(quality) is outside 1...100") }
    if webpEffort < 0 { p.add(OptionNumbers.atLeast("--webp-effort", 0, got: webpEffort)) }
    if webpEffort >= 0 && !(0...6).contains(webpEffort) { p.add("--webp-effort: \(webpEffort) is outside 0...6") }
    if palette && format != .png { p.add("--palette: only PNG tiles have a palette; drop it or use --format png") }
    return p.items
  }

  func encoder() -> VipsTileEncoder {
    var encoder = VipsTileEncoder(format: format, pngCompression: pngCompression, palette: palette, quality: quality, fill: background)
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
public struct RunOptions: Sendable, Codable {
  /// `--jobs`
  public var jobs: Int?
  /// `--dry-run`
  public var dryRun = false
  /// `--exact`
  public var exact = false
  /// `--json`
  public var json = false
  /// `--quiet`
  public var quiet = false
  /// `--shard`
  public var shard: ShardOption?
  /// `--max-pixels`
  public var maxPixelsOption: Int?

  /// Images: 4 billion pixels are streamed, never held.
  public static let defaultMaxPixels = 4_000_000_000
  /// A document is rendered whole by libvips at each level: 16384² by default.
  public static let defaultMaxDocumentPixels = 1 << 28

  public var maxPixels: Int { maxPixelsOption ?? Self.defaultMaxPixels }
  public var maxDocumentPixels: Int { maxPixelsOption ?? Self.defaultMaxDocumentPixels }

  /// `--max-memory`
  public var maxMemoryOption: Int?
  /// Bytes a decoder may hold for one whole image (`--max-memory`).
  public var maxMemory: Int { (maxMemoryOption ?? DecodeBudget.defaultMegabytes).multipliedReportingOverflow(by: 1_000_000).partialValue }

  /// `--no-vector`
  public var noVector = false

  public init() {}

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    if let j = jobs, j < 1 { p.add(OptionNumbers.atLeast("--jobs", 1, got: j)) }
    if let j = jobs, j >= 1, !(1...PlanLimits.maxJobs).contains(j) { p.add("--jobs: \(j) is outside 1...\(PlanLimits.maxJobs)") }
    if let m = maxPixelsOption, m < 1 { p.add("--max-pixels: must be at least 1, got \(m)") }
    if let m = maxMemoryOption, !(1...1_000_000_000).contains(m) { p.add("--max-memory: must be at least 1 (megabytes), got \(m)") }
    if exact && !dryRun { p.add("--exact: counts tiles for --dry-run; add --dry-run or drop --exact") }
    if let shard { p.check { _ = try shard.selector() } }
    return p.items
  }

  func shardSelector() throws -> ShardSelector? { try shard?.selector() }
}
