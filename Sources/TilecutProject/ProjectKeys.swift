import Foundation

/// What a key's value must be.
public enum KeyKind: Sendable, Equatable {
  case bool
  case int
  case number
  case string
  /// Names: a list of text, or the CLI's comma-separated text (`layers`); read as that text.
  case names
  /// A list of `count` numbers; `orString` also takes the CLI's comma-separated text.
  case numbers(count: ClosedRange<Int>, orString: Bool = false)
  /// A list of at least `minimum` lists of `width` numbers.
  case rows(width: Int, minimum: Int)

  /// For error messages: "a number", "a list of 4 numbers".
  public var phrase: String {
    switch self {
    case .bool: return "true or false"
    case .int: return "a whole number"
    case .number: return "a number"
    case .string: return "text"
    case .names: return "a list of names (or the same as comma-separated text)"
    case .numbers(let count, let orString):
      let n = count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)"
      return "a list of \(n) numbers" + (orString ? " (or the same as comma-separated text)" : "")
    case .rows(let width, let minimum): return "a list of at least \(minimum) lists of \(width) numbers"
    }
  }
}

/// One key of the file: its name (the camelCase of a CLI long option), kind and meaning.
public struct KeySpec: Sendable, Equatable {
  public var name: String
  public var kind: KeyKind
  /// The CLI option it mirrors, or nil for the file's own keys (`buildings`, `floor`, `source`).
  public var cliOption: String?

  public init(_ name: String, _ kind: KeyKind, cli: String? = nil) {
    self.name = name
    self.kind = kind
    self.cliOption = cli
  }
}

/// Every key the project file knows, by where it may appear.
public enum ProjectKeys {
  /// Run-wide keys at the top of the file, each a CLI option.
  public static let run: [KeySpec] = [
    .init("output", .string, cli: "--output"),
    .init("name", .string, cli: "--name"),
    .init("force", .bool, cli: "--force"),
    .init("preview", .bool, cli: "--preview"),
    .init("store", .string, cli: "--store"),
    .init("depfile", .string, cli: "--depfile"),
    .init("changes", .string, cli: "--changes"),
    .init("minZoom", .int, cli: "--min-zoom"),
    .init("maxZoom", .int, cli: "--max-zoom"),
    .init("tileSize", .numbers(count: 1...3, orString: true), cli: "--tile-size"),
    .init("tileSizes", .numbers(count: 1...3, orString: true), cli: "--tile-size"),
    .init("retinaDepth", .string, cli: "--retina-depth"),
    .init("resampling", .string, cli: "--resampling"),
    .init("maxTiles", .int, cli: "--max-tiles"),
    .init("format", .string, cli: "--format"),
    .init("pngCompression", .int, cli: "--png-compression"),
    .init("palette", .bool, cli: "--palette"),
    .init("quality", .int, cli: "--quality"),
    .init("webpEffort", .int, cli: "--webp-effort"),
    .init("jpegOptimize", .bool, cli: "--jpeg-optimize"),
    .init("background", .string, cli: "--background"),
    .init("knockout", .string, cli: "--knockout"),
    .init("jobs", .int, cli: "--jobs"),
    .init("maxPixels", .int, cli: "--max-pixels"),
    .init("noVector", .bool, cli: "--no-vector"),
    .init("strict", .bool, cli: "--strict"),
    .init("lonlat", .bool, cli: "--lonlat"),
  ]

  /// The file's own keys at the top.
  public static let top: [KeySpec] = [.init("buildings", .string)]

  /// Keys of a building.
  public static let building: [KeySpec] = [.init("id", .string), .init("name", .string), .init("floors", .string)]

  /// Placement keys of a floor: each places the drawing; a floor takes at most one.
  public static let placementKeys = ["bounds", "gcp", "center", "worldFile"]

  /// Per-floor keys that mirror CLI options: placement, then pixels.
  public static let floorOptions: [KeySpec] = [
    .init("bounds", .numbers(count: 4...4), cli: "--bounds"),
    .init("sourceProjection", .string, cli: "--source-projection"),
    .init("gcp", .rows(width: 4, minimum: 2), cli: "--gcp"),
    .init("allowResidual", .number, cli: "--allow-residual"),
    .init("center", .numbers(count: 2...2), cli: "--center"),
    .init("metersPerPixel", .number, cli: "--meters-per-pixel"),
    .init("drawingScale", .string, cli: "--drawing-scale"),
    .init("drawingUnits", .string, cli: "--drawing-units"),
    .init("rotation", .number, cli: "--rotation"),
    .init("worldFile", .string, cli: "--world-file"),
    .init("sourceCrs", .string, cli: "--source-crs"),
    .init("wholePage", .bool, cli: "--whole-page"),
    .init("knockout", .string, cli: "--knockout"),
    .init("background", .string, cli: "--background"),
    .init("bands", .numbers(count: 3...4), cli: "--bands"),
    .init("scale", .numbers(count: 2...2), cli: "--scale"),
    .init("nodata", .number, cli: "--nodata"),
    .init("layers", .names, cli: "--layers"),
    .init("lonlat", .bool, cli: "--lonlat"),
    .init("language", .string, cli: "--language"),
    .init("venueStyle", .string, cli: "--venue-style"),
  ]

  /// The file's own keys of a floor.
  public static let floor: [KeySpec] = [
    .init("floor", .int), .init("source", .string), .init("page", .int), .init("band", .string),
  ]

  /// Keys of `band:`.
  public static let band: [KeySpec] = [.init("index", .int), .init("count", .int), .init("stack", .string)]

  static func cliOption(for key: String) -> String {
    (run + floorOptions).first { $0.name == key }?.cliOption ?? "--" + key
  }

  /// The valid key closest to `key` by edit distance, if it is close enough to be a typo.
  public static func nearest(_ key: String, in names: [String]) -> String? {
    // a key far longer than every name is near none (and its distance costs length × length)
    guard key.count <= 2 * (names.map(\.count).max() ?? 0) else { return nil }
    let lowered = key.lowercased()
    let scored = names.map { ($0, distance(lowered, $0.lowercased())) }
    guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
    return best.1 <= max(2, key.count / 3) ? best.0 : nil
  }

  /// Levenshtein distance.
  static func distance(_ a: String, _ b: String) -> Int {
    let x = Array(a)
    let y = Array(b)
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var previous = Array(0...y.count)
    for i in 1...x.count {
      var current = [i] + [Int](repeating: 0, count: y.count)
      for j in 1...y.count {
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
      }
      previous = current
    }
    return previous[y.count]
  }
}
