import Foundation

/// A decoded tilecut `manifest.json`: which cells have a tile, for a client that
/// must answer "no tile here" without a request. Foundation only; copy it into an app.
public struct TileManifest: Decodable, Sendable {
  /// Why a manifest was refused.
  public enum Failure: Error, Equatable, CustomStringConvertible {
    case unknownFormat(String)
    case unsupportedVersion(Int, supported: Int)

    public var description: String {
      switch self {
      case .unknownFormat(let format):
        "not a tilecut manifest: format is '\(format)', expected '\(TileManifest.format)'"
      case .unsupportedVersion(let version, let supported):
        version > supported
          ? "manifest version \(version) is newer than this client reads (\(supported)); update the app"
          : "manifest version \(version) does not exist; this client reads version \(supported)"
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

  public let format: String
  public let version: Int
  public let floors: [Int]
  public let tileSizes: [Int]
  /// The tile path template, e.g. "{size}/L{floor}_{z}_{x}_{y}.png".
  public let name: String
  public let levels: [Level]

  /// Which level a cell is looked up in.
  private struct Key: Hashable {
    let floor, tileSize, zoom: Int
  }
  private var index: [Key: [[Int]]] = [:]

  /// The fields a client needs; the rest (sources, options, fingerprint) is the tool's business.
  private enum CodingKeys: String, CodingKey { case format, version, floors, tileSizes, name, levels }

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
    tileSizes = try c.decode([Int].self, forKey: .tileSizes)
    name = try c.decode(String.self, forKey: .name)
    levels = try c.decode([Level].self, forKey: .levels)
    if levels.contains(where: { $0.rows.contains { $0.count != 3 } }) {
      throw DecodingError.dataCorruptedError(forKey: .levels, in: c, debugDescription: "a run is [y, x0, x1]")
    }
    for level in levels { index[Key(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] = level.rows }
  }

  /// Decodes `manifest.json` bytes.
  public static func decode(_ data: Data) throws -> TileManifest {
    try JSONDecoder().decode(TileManifest.self, from: data)
  }

  /// True when the cell has a tile file; O(log n) in the level's runs.
  public func hasTile(floor: Int, zoom: Int, x: Int, y: Int, tileSize: Int = 256) -> Bool {
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

  /// The tile's URL under `base`, or nil when the cell has no tile: exactly what a
  /// `GMSURLTileLayer` constructor should return.
  public func tileURL(base: URL, floor: Int, zoom: Int, x: Int, y: Int, tileSize: Int = 256) -> URL? {
    guard hasTile(floor: floor, zoom: zoom, x: x, y: y, tileSize: tileSize) else { return nil }
    return URL(string: path(floor: floor, zoom: zoom, x: x, y: y, tileSize: tileSize), relativeTo: base)
  }
}
