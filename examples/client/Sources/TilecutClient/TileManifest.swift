import Foundation

/// A decoded tilecut `manifest.json`: which cells have a tile, the floors, where
/// each lies and at which zooms, for a client that must answer "no tile here"
/// without a request. Foundation only.
public struct TileManifest: Decodable, Sendable {
  /// Why a manifest was refused.
  public enum Failure: Error, Equatable, CustomStringConvertible {
    case unknownFormat(String)
    case unsupportedVersion(Int, supported: Int)
    case unknownStore(String)

    public var description: String {
      switch self {
      case .unknownFormat(let format):
        "not a tilecut manifest: format is '\(format)', expected '\(TileManifest.format)'"
      case .unsupportedVersion(let version, let supported):
        version > supported
          ? "manifest version \(version) is newer than this client reads (\(supported)); update the app"
          : "manifest version \(version) does not exist; this client reads version \(supported)"
      case .unknownStore(let store):
        "the tiles are in a '\(store)' store, which this client does not read (directory, mbtiles, pmtiles); update the app"
      }
    }
  }

  public static let format = "tilecut-manifest"
  public static let supportedVersion = 1

  /// One floor, tile size and zoom, with the cells that have a file as inclusive runs.
  public struct Level: Decodable, Sendable {
    public let floor: Int
    public let tileSize: Int
    public let zoom: Int
    /// [y, x0, x1], sorted by y then x0.
    public let rows: [[Int]]
  }

  /// Where a floor lies, in degrees: the box to fit the camera to.
  public struct Footprint: Decodable, Sendable, Equatable {
    public let floor: Int
    public let south, west, north, east: Double
  }

  public let format: String
  public let version: Int
  public let floors: [Int]
  /// The tile sizes present, ascending: 256, 512 (@2x) and 768 (@3x) on the same z/x/y grid.
  public let tileSizes: [Int]
  /// The tile path template, e.g. "{size}/L{floor}_{z}_{x}_{y}.png".
  public let name: String
  public let levels: [Level]
  public let footprints: [Footprint]
  /// Changes whenever any tile does: a client that sees a new one clears its tile cache.
  public let contentVersion: String?
  /// `mbtiles` when the tiles are in MBTiles files (`tileSets`); nil when they are
  /// files named by `name`.
  public let store: String?
  /// With the MBTiles store: the file holding each floor and tile size, relative to the manifest.
  public let tileSets: [TileSet]

  /// One MBTiles file of an output: a floor at a tile size.
  public struct TileSet: Decodable, Sendable, Equatable {
    public let floor: Int
    public let tileSize: Int
    public let file: String
  }

  /// A level with no tiles of its own (`tilecut --retina-depth native`): at this
  /// floor and zoom a `tileSize` px tile is the `servedBy` px tile of the same z/x/y,
  /// which the map scales up (the source has no finer detail to show).
  public struct Substitute: Decodable, Sendable, Equatable {
    public let floor: Int
    public let tileSize: Int
    public let zoom: Int
    public let servedBy: Int
  }
  /// Empty when every level has its own tiles.
  public let substitutes: [Substitute]

  /// With `tilecut build`: the campus's buildings in the project's order, each with
  /// its floors and where each lies (empty for a plain run's manifest).
  public let buildings: [Building]

  /// Which level a cell is looked up in.
  private struct Key: Hashable {
    let floor, tileSize, zoom: Int
  }
  private var index: [Key: [[Int]]] = [:]

  /// The fields a client needs; the rest (sources, options, fingerprint) is the tool's business.
  private enum CodingKeys: String, CodingKey {
    case format, version, floors, tileSizes, name, levels, footprints, contentVersion, store, tileSets, substitutes, buildings
  }

  public init(from decoder: Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    format = try c.decode(String.self, forKey: .format)
    version = try c.decode(Int.self, forKey: .version)
    // Checked before anything else: a newer version may lay out the rest differently.
    guard format == Self.format else { throw Failure.unknownFormat(format) }
    guard (1...Self.supportedVersion).contains(version) else {
      throw Failure.unsupportedVersion(version, supported: Self.supportedVersion)
    }
    floors = try c.decode([Int].self, forKey: .floors)
    tileSizes = try c.decode([Int].self, forKey: .tileSizes).sorted()
    name = try c.decode(String.self, forKey: .name)
    levels = try c.decode([Level].self, forKey: .levels)
    footprints = try c.decodeIfPresent([Footprint].self, forKey: .footprints) ?? []
    contentVersion = try c.decodeIfPresent(String.self, forKey: .contentVersion)
    store = try c.decodeIfPresent(String.self, forKey: .store)
    tileSets = try c.decodeIfPresent([TileSet].self, forKey: .tileSets) ?? []
    substitutes = try c.decodeIfPresent([Substitute].self, forKey: .substitutes) ?? []
    buildings = try c.decodeIfPresent([Building].self, forKey: .buildings) ?? []
    if substitutes.contains(where: { $0.servedBy >= $0.tileSize }) {
      throw DecodingError.dataCorruptedError(forKey: .substitutes, in: c, debugDescription: "a substitute is served by a smaller tile size")
    }
    if let store, store != "directory", store != "mbtiles", store != "pmtiles" { throw Failure.unknownStore(store) }
    if levels.contains(where: { $0.rows.contains { $0.count != 3 } }) {
      throw DecodingError.dataCorruptedError(forKey: .levels, in: c, debugDescription: "a run is [y, x0, x1]")
    }
    for level in levels { index[Key(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] = level.rows }
  }

  /// Decodes `manifest.json` bytes.
  public static func decode(_ data: Data) throws -> TileManifest {
    try JSONDecoder().decode(TileManifest.self, from: data)
  }

  /// Reads and decodes a `manifest.json` file (say, from the app bundle).
  public init(contentsOf url: URL) throws {
    self = try Self.decode(try Data(contentsOf: url))
  }

  /// The tile size whose file shows for a `tileSize` px tile at this floor and zoom:
  /// `tileSize` itself, or the smaller size a substitute names (256 for the 512 px
  /// tiles that `--retina-depth native` leaves out). Map SDKs scale the smaller image
  /// into the tile.
  public func servingTileSize(floor: Int, zoom: Int, tileSize: Int) -> Int {
    substitutes.first { $0.floor == floor && $0.zoom == zoom && $0.tileSize == tileSize }?.servedBy ?? tileSize
  }

  /// True when the cell has a tile file (its own, or the serving size's for a
  /// substituted level); O(log n) in the level's runs.
  public func hasTile(floor: Int, zoom: Int, x: Int, y: Int, tileSize: Int = 256) -> Bool {
    let tileSize = servingTileSize(floor: floor, zoom: zoom, tileSize: tileSize)
    guard let rows = index[Key(floor: floor, tileSize: tileSize, zoom: zoom)] else { return false }
    var lo = 0
    var hi = rows.count
    while lo < hi {
      let mid = (lo + hi) / 2
      let r = rows[mid]
      if r[0] < y || (r[0] == y && r[2] < x) { lo = mid + 1 } else { hi = mid }
    }
    return lo < rows.count && rows[lo][0] == y && rows[lo][1] <= x && x <= rows[lo][2]
  }

  /// The tile's path relative to the manifest, whether or not it exists.
  public func path(floor: Int, zoom: Int, x: Int, y: Int, tileSize: Int = 256) -> String {
    name.replacingOccurrences(of: "{floor}", with: String(floor))
      .replacingOccurrences(of: "{z}", with: String(zoom))
      .replacingOccurrences(of: "{x}", with: String(x))
      .replacingOccurrences(of: "{y}", with: String(y))
      .replacingOccurrences(of: "{size}", with: String(tileSize))
  }

  /// The tile's URL under `base` (for a substituted level, the serving size's tile:
  /// the 256 px URL for a 512 px tile at such a zoom), or nil when the cell has no tile: exactly what a
  /// `GMSURLTileLayer` constructor should return. `base` keeps its whole path with
  /// or without a trailing slash (`…/floorplans` and `…/floorplans/` are the same),
  /// and its query (a signed URL's token, say). With `versioned`, `v=<contentVersion>`
  /// is added so that a CDN or URL cache never serves a tile of an older output.
  public func tileURL(base: URL, floor: Int, zoom: Int, x: Int, y: Int, tileSize: Int = 256, versioned: Bool = false) -> URL? {
    guard hasTile(floor: floor, zoom: zoom, x: x, y: y, tileSize: tileSize) else { return nil }
    let tileSize = servingTileSize(floor: floor, zoom: zoom, tileSize: tileSize)
    return TileURL.make(base: base, path: path(floor: floor, zoom: zoom, x: x, y: y, tileSize: tileSize), version: versioned ? contentVersion : nil)
  }

  /// The floor's footprint in degrees, or nil for a floor the manifest does not have.
  public func bounds(floor: Int) -> Footprint? { footprints.first { $0.floor == floor } }

  /// The zooms that have tiles of this size on this floor (any size when nil),
  /// counting the zooms a smaller size serves.
  public func zoomRange(floor: Int, tileSize: Int? = nil) -> ClosedRange<Int>? {
    let own = levels.filter { $0.floor == floor && (tileSize == nil || $0.tileSize == tileSize) }.map(\.zoom)
    let served = substitutes.filter { $0.floor == floor && (tileSize == nil || $0.tileSize == tileSize) }.map(\.zoom)
    let zooms = own + served
    guard let low = zooms.min(), let high = zooms.max() else { return nil }
    return low...high
  }

  /// The tile size to ask for on a screen of this scale: 1× → 256, 2× → 512,
  /// 3× → 768 when the output has it, else 512. A size the output lacks falls back
  /// to the largest smaller one present, else to the smallest present.
  public func tileSize(forScreenScale scale: Double) -> Int {
    let wanted = scale >= 2.5 ? 768 : scale >= 1.5 ? 512 : 256
    if tileSizes.contains(wanted) { return wanted }
    if let smaller = tileSizes.filter({ $0 < wanted }).max() { return smaller }
    return tileSizes.min() ?? 256
  }
}

/// Tile URLs under a base URL.
public enum TileURL {
  /// `base` + `/` + `path` (percent-encoded), keeping the base's path, query and
  /// fragment-free form whether or not it ends with a slash; `version` adds `v=…`.
  public static func make(base: URL, path: String, version: String? = nil) -> URL? {
    guard var components = URLComponents(url: base, resolvingAgainstBaseURL: true) else { return nil }
    var prefix = components.percentEncodedPath
    if !prefix.hasSuffix("/") { prefix += "/" }
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "?#;")
    guard let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed) else { return nil }
    components.percentEncodedPath = prefix + encoded
    if let version {
      components.queryItems = (components.queryItems ?? []) + [URLQueryItem(name: "v", value: version)]
    }
    return components.url
  }
}

/// Remembers which content version a tile layer shows, so that it clears its tile
/// cache exactly when a newer manifest brings different tiles.
public struct TileCacheVersion: Sendable {
  public private(set) var current: String?

  public init(_ manifest: TileManifest? = nil) { current = manifest?.contentVersion }

  /// Takes a freshly loaded manifest; true when the tiles changed (clear the cache).
  /// A manifest without a content version (an older tilecut) always counts as changed.
  public mutating func accept(_ manifest: TileManifest) -> Bool {
    defer { current = manifest.contentVersion }
    guard let new = manifest.contentVersion, let current else { return true }
    return new != current
  }
}
