import Foundation

/// `manifest.json`: which cells have a tile, and what made them.
public struct Manifest: Codable, Sendable, Equatable {
  public static let formatName = "tilecut-manifest"
  public static let currentVersion = 1
  public static let fileName = "manifest.json"

  public var format: String = Manifest.formatName
  public var version: Int = Manifest.currentVersion
  public var tileSizes: [Int]
  public var floors: [Floor]
  /// The name template, relative to the directory that holds the manifest.
  public var name: String
  public var levels: [Level]
  /// Per floor: where its footprint lies, in degrees.
  public var footprints: [Footprint]
  public var generator: Generator
  public var sources: [Source]
  /// The options that shaped the pixels, as text.
  public var options: [String: String]
  /// SHA-256 over the tool version, source digests and options: equal means up to date.
  public var fingerprint: String
  /// Present on the partial manifest a `--shard K/N` run writes.
  public var shard: Shard?
  /// Files of the output other than the tiles and this manifest (the preview page,
  /// a store's own files), relative to the output root: with the tiles they are
  /// everything tilecut may replace or delete there.
  public var storeFiles: [String]?
  /// SHA-256 of each of `storeFiles` as tilecut wrote it: a listed file whose bytes
  /// differ is the user's (edited, or named by an edited manifest) and is never replaced.
  public var storeFileDigests: [String: String]?
  /// `mbtiles` or `pmtiles` when the tiles are in MBTiles files or PMTiles archives
  /// (listed in `tileSets`); absent when they are files named by `name`.
  public var store: Store?

  /// Where the tiles are, when not in files named by `name` (a directory of tile
  /// files is written as an absent `store`).
  public typealias Store = StoreKind
  /// With the MBTiles or PMTiles store: the file holding each floor and tile size.
  public var tileSets: [TileSet]?

  /// One MBTiles file of an output: a floor at a tile size.
  public struct TileSet: Codable, Sendable, Equatable, Hashable {
    public var floor: Floor
    public var tileSize: Int
    /// Relative to the output root.
    public var file: String

    public init(floor: Floor, tileSize: Int, file: String) {
      self.floor = floor
      self.tileSize = tileSize
      self.file = file
    }
  }
  /// Levels with no tiles of their own (`--retina-depth native`): a client asking for
  /// a `tileSize` px tile at `zoom` on `floor` shows the `servedBy` px tile of the same
  /// z/x/y, scaled up (the source has no finer detail). Absent when there are none.
  public var substitutes: [Substitute]?

  /// One level served by a smaller tile size.
  public struct Substitute: Codable, Sendable, Equatable, Hashable {
    public var floor: Floor
    public var tileSize: Int
    public var zoom: Int
    public var servedBy: Int

    public init(floor: Floor, tileSize: Int, zoom: Int, servedBy: Int) {
      self.floor = floor
      self.tileSize = tileSize
      self.zoom = zoom
      self.servedBy = servedBy
    }
  }

  /// The tile size that serves `tileSize` at this floor and zoom: its own, or the
  /// smaller one a substitute names.
  public func servingTileSize(floor: Floor, tileSize: Int, zoom: Int) -> Int {
    substitutes?.first { $0.floor == floor && $0.tileSize == tileSize && $0.zoom == zoom }?.servedBy ?? tileSize
  }

  /// With `tilecut build`: the buildings whose floors the pyramids composite, in the
  /// project's order (see `Manifest.Building`). Absent for a plain run.
  public var buildings: [Building]?

  /// A hash over every tile's path and bytes: changes when any tile does, for
  /// cache-busting URLs (`?v=…`) and for clients deciding to clear their tile cache.
  public var contentVersion: String?
  /// `contentVersion` (16 hex digits of SHA-256 over "path sha256(bytes)" lines in
  /// path order, the path the name template gives whatever the store) and each level's
  /// `digest` (the same over its own lines; nil for a level without tiles), in `levels`
  /// order. `hash` is SHA-256 as hex; `digest` gives a tile's SHA-256 by floor, size
  /// and coordinate, asked once per tile.
  public func contentDigests(hash: ([UInt8]) -> String, digest: (Floor, Int, TileCoordinate) throws -> String) throws -> (
    version: String, levels: [String?]
  ) {
    let template = try TileNameTemplate(name)
    var lines: [String] = []
    var perLevel: [String?] = []
    for level in levels {
      let own = try Self.lines(of: level, template: template, digest: digest)
      perLevel.append(own.isEmpty ? nil : Self.shortHash(own, hash))
      lines += own
    }
    return (Self.shortHash(lines, hash), perLevel)
  }

  /// One level's `digest`, as `contentDigests` gives it.
  public func levelDigest(_ level: Level, hash: ([UInt8]) -> String, digest: (Floor, Int, TileCoordinate) throws -> String) throws
    -> String?
  {
    let own = try Self.lines(of: level, template: try TileNameTemplate(name), digest: digest)
    return own.isEmpty ? nil : Self.shortHash(own, hash)
  }

  private static func lines(of level: Level, template: TileNameTemplate, digest: (Floor, Int, TileCoordinate) throws -> String) throws
    -> [String]
  {
    try level.tiles.map {
      template.path(floor: level.floor, tileSize: level.tileSize, tile: $0) + " " + (try digest(level.floor, level.tileSize, $0)) + "\n"
    }
  }

  private static func shortHash(_ lines: [String], _ hash: ([UInt8]) -> String) -> String {
    String(hash(Array(lines.sorted().joined().utf8)).prefix(16))
  }

  /// Per floor: its mapped outline and control points with their residuals (for the
  /// preview page). Absent in older manifests.
  public var placements: [PlacedFloor]?

  /// For an IMDF venue: each floor's levels (see `Manifest.VenueLevel`). Absent otherwise.
  public var venueLevels: [VenueLevel]?

  public init(
    tileSizes: [Int], floors: [Floor], name: String, levels: [Level], footprints: [Footprint],
    generator: Generator, sources: [Source], options: [String: String], fingerprint: String, shard: Shard? = nil
  ) {
    self.tileSizes = tileSizes
    self.floors = floors
    self.name = name
    self.levels = levels
    self.footprints = footprints
    self.generator = generator
    self.sources = sources
    self.options = options
    self.fingerprint = fingerprint
    self.shard = shard
  }

  /// One floor, tile size and zoom.
  public struct Level: Codable, Sendable, Equatable {
    public var floor: Floor
    public var tileSize: Int
    public var zoom: Int
    /// Inclusive [first, last] of the cells the footprint touches.
    public var xRange: [Int]
    public var yRange: [Int]
    /// Inclusive runs [y, x0, x1] of the cells that have a file, sorted by y then x0.
    public var rows: [[Int]]
    public var tileCount: Int
    /// The bytes of the level's files together: with the count, a cheap check that
    /// the output is still what the manifest says.
    public var bytes: Int?
    /// 16 hex digits of SHA-256 over the level's "path sha256(bytes)" lines in path
    /// order (as `contentVersion` over every level): a tile of the level changed
    /// since tilecut wrote it, even to the same size, changes it. Absent for a level
    /// without tiles, and in older manifests.
    public var digest: String?

    public init(floor: Floor, tileSize: Int, range: TileRange, tiles: [TileCoordinate], bytes: Int? = nil) {
      self.floor = floor
      self.tileSize = tileSize
      self.zoom = range.zoom
      self.xRange = [range.xRange.lowerBound, range.xRange.upperBound]
      self.yRange = [range.yRange.lowerBound, range.yRange.upperBound]
      self.rows = TileRuns.runs(of: tiles)
      self.tileCount = Set(tiles).count
      self.bytes = bytes
    }

    /// Every cell with a file, row by row.
    public var tiles: [TileCoordinate] {
      rows.flatMap { run in (run[1]...run[2]).map { TileCoordinate(zoom: zoom, x: $0, y: run[0]) } }
    }

    public func hasTile(x: Int, y: Int) -> Bool { TileRuns.contains(rows, x: x, y: y) }
  }

  /// A floor's footprint in degrees.
  public struct Footprint: Codable, Sendable, Equatable {
    public var floor: Floor
    public var south, west, north, east: Double
    /// Where the footprint's centre lies, in words (Gazetteer): "1.2 km NW of Berlin, Germany".
    public var location: String?

    public init(floor: Floor, rect: WorldRect) {
      self.floor = floor
      south = WebMercator.latitudeDegrees(v: rect.maxV)
      north = WebMercator.latitudeDegrees(v: rect.minV)
      west = WebMercator.longitudeDegrees(u: rect.minU)
      east = WebMercator.longitudeDegrees(u: rect.maxU)
      location = Gazetteer.locate(latitude: (south + north) / 2, longitude: (west + east) / 2)?.text
    }
  }

  /// The tool that wrote the output.
  public struct Generator: Codable, Sendable, Equatable {
    public var name: String
    public var version: String
    /// The renderer revision (tilecut's `rendererRevision`); nil in a manifest
    /// written before 0.3.0, which is never taken as up to date.
    public var renderer: Int?
    public var libvips: String

    public init(name: String = "tilecut", version: String, renderer: Int? = nil, libvips: String) {
      self.name = name
      self.version = version
      self.renderer = renderer
      self.libvips = libvips
    }
  }

  /// One input, by content.
  public struct Source: Codable, Sendable, Equatable {
    public var floor: Floor
    public var path: String
    public var sha256: String
    public var page: Int?
    public var width: Int
    public var height: Int
    /// The file's size and modification time when it was hashed: an unchanged
    /// file is not hashed again, so an up-to-date check takes no time.
    public var bytes: Int?
    public var modified: Double?
    /// Device, inode, size and change times of the file when it was hashed; the
    /// digest is reused only while all of them are unchanged.
    public var identity: String?

    public init(
      floor: Floor, path: String, sha256: String, page: Int?, width: Int, height: Int, bytes: Int? = nil, modified: Double? = nil,
      identity: String? = nil
    ) {
      self.identity = identity
      self.floor = floor
      self.path = path
      self.sha256 = sha256
      self.page = page
      self.width = width
      self.height = height
      self.bytes = bytes
      self.modified = modified
    }
  }

  /// Which part of a sharded job a partial manifest covers.
  public struct Shard: Codable, Sendable, Equatable {
    public var index: Int
    public var count: Int
    /// The fingerprint the whole, unsharded job has: what `merge` writes.
    public var jobFingerprint: String
    /// Per level, in `levels` order: the first 32 hex digits of each tile's SHA-256,
    /// in the level's `tiles` order, run together. `merge` checks every tile against
    /// them and names the one whose bytes changed.
    public var levelDigests: [String]?

    /// How many hex digits of a tile's SHA-256 `levelDigests` keeps per tile.
    public static let digestLength = 32

    public init(index: Int, count: Int, jobFingerprint: String) {
      self.index = index
      self.count = count
      self.jobFingerprint = jobFingerprint
    }
  }

  public func level(floor: Floor, tileSize: Int, zoom: Int) -> Level? {
    levels.first { $0.floor == floor && $0.tileSize == tileSize && $0.zoom == zoom }
  }

  /// Pretty JSON with sorted keys, except that each level sits on one line: readable,
  /// diffable, and small even with thousands of rows.
  public func encoded() throws -> Data {
    let pretty = JSONEncoder()
    pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    let compact = JSONEncoder()
    compact.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var outline = self
    outline.levels = []
    var text = String(decoding: try pretty.encode(outline), as: UTF8.self)
    let lines = try levels.map { "    " + String(decoding: try compact.encode($0), as: UTF8.self) }
    let body = lines.isEmpty ? "[]" : "[\n" + lines.joined(separator: ",\n") + "\n  ]"
    guard let range = text.range(of: "\"levels\" : [\n\n  ]") ?? text.range(of: "\"levels\" : [\n  ]") ?? text.range(of: "\"levels\" : []")
    else { throw EncodingError.invalidValue(self, .init(codingPath: [], debugDescription: "manifest layout")) }
    text.replaceSubrange(range, with: "\"levels\" : " + body)
    return Data((text + "\n").utf8)
  }

  /// Decodes a manifest. With `path`, a floor outside `Floor.range` is a `TilecutError`
  /// naming the file; any other problem stays a `DecodingError`.
  public static func decode(_ data: Data, path: String? = nil) throws -> Manifest {
    let decoder = JSONDecoder()
    if let path, let key = Floor.fileKey { decoder.userInfo[key] = path }
    return try decoder.decode(Manifest.self, from: data)
  }
}

/// Inclusive runs of tiles per row: the manifest's compact form of a tile set.
public enum TileRuns {
  /// Runs [y, x0, x1] sorted by y then x0; duplicates are merged.
  public static func runs(of tiles: [TileCoordinate]) -> [[Int]] {
    let sorted = Set(tiles).sorted { (p: TileCoordinate, q: TileCoordinate) -> Bool in
      p.y != q.y ? p.y < q.y : p.x < q.x
    }
    var runs: [[Int]] = []
    for cell in sorted {
      if var last = runs.last, last[0] == cell.y, last[2] + 1 == cell.x {
        last[2] = cell.x
        runs[runs.count - 1] = last
      } else {
        runs.append([cell.y, cell.x, cell.x])
      }
    }
    return runs
  }

  /// Binary search over sorted runs.
  public static func contains(_ runs: [[Int]], x: Int, y: Int) -> Bool {
    var lo = 0
    var hi = runs.count
    while lo < hi {
      let mid = (lo + hi) / 2
      let r = runs[mid]
      if r[0] < y || (r[0] == y && r[2] < x) { lo = mid + 1 } else { hi = mid }
    }
    return lo < runs.count && runs[lo][0] == y && runs[lo][1] <= x && x <= runs[lo][2]
  }
}
