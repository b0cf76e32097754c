import Foundation

/// What a tile source says about one cell: the three answers a map SDK distinguishes.
public enum TileAnswer: Equatable, Sendable {
  /// The tile's file bytes (PNG, WebP or JPEG as tilecut wrote them).
  case tile(Data)
  /// There is no tile here, for good (`kGMSTileLayerNoTile`, MapKit's empty result).
  case noTile
  /// The tile exists but could not be read just now (nil for Google Maps: it asks again).
  case unavailable(String)
}

/// Where tile bytes are stored: the output directory or MBTiles files.
public protocol TileStore: Sendable {
  /// The bytes of a tile the manifest lists, nil when the store has none, or throws
  /// when it cannot be read.
  func data(floor: Int, tileSize: Int, zoom: Int, x: Int, y: Int) throws -> Data?
}

/// Tiles read offline (from the app bundle, say): the manifest answers "no tile"
/// without touching the store; the store gives the rest.
public struct OfflineTiles: Sendable {
  public let manifest: TileManifest
  public let store: any TileStore

  public init(manifest: TileManifest, store: any TileStore) {
    self.manifest = manifest
    self.store = store
  }

  /// A tilecut output directory: `manifest.json` and the tile files it names, or
  /// the MBTiles or PMTiles files it lists (`--store mbtiles`, `--store pmtiles`).
  public init(directory: URL) throws {
    let manifest = try TileManifest(contentsOf: directory.appendingPathComponent("manifest.json"))
    if manifest.store == "pmtiles" || (!manifest.tileSets.isEmpty && manifest.tileSets.allSatisfy { $0.file.lowercased().hasSuffix(".pmtiles") }) {
      var urls: [MBTilesTileStore.TileSet: URL] = [:]
      for set in manifest.tileSets {
        urls[.init(floor: set.floor, tileSize: set.tileSize)] = directory.appendingPathComponent(set.file)
      }
      self.init(manifest: manifest, store: try PMTilesTileStore(urls: urls))
    } else if manifest.store == "mbtiles" {
      var urls: [MBTilesTileStore.TileSet: URL] = [:]
      for set in manifest.tileSets {
        urls[.init(floor: set.floor, tileSize: set.tileSize)] = directory.appendingPathComponent(set.file)
      }
      self.init(manifest: manifest, store: try MBTilesTileStore(urls: urls))
    } else {
      self.init(manifest: manifest, store: DirectoryTileStore(root: directory, manifest: manifest))
    }
  }

  /// The tiles tilecut's build-tool plugin put into a bundle's resources: its
  /// `manifest.json` and the `L{floor}_{size}.mbtiles` files it lists, side by side
  /// (SwiftPM copies a plugin's outputs flat into the bundle). `subdirectory`: where
  /// they are when the app copied them into a folder of its own. For the target that
  /// lists the plugin, `try OfflineTiles(bundle: .module)`; in an app, `.main`.
  public init(bundle: Bundle, subdirectory: String? = nil) throws {
    guard let manifest = bundle.url(forResource: "manifest", withExtension: "json", subdirectory: subdirectory) else {
      let place = (bundle.resourceURL ?? bundle.bundleURL).path + (subdirectory.map { "/" + $0 } ?? "")
      throw TileUnavailable(
        "\(place): no manifest.json among the bundle's resources; list tilecut's build-tool plugin on the target whose tilecut.yml makes them"
      )
    }
    try self.init(directory: manifest.deletingLastPathComponent())
  }

  /// The answer for one cell: for a substituted level (`--retina-depth native`), the
  /// serving size's tile, which the map scales into the asked size.
  public func tile(floor: Int, zoom: Int, x: Int, y: Int, tileSize: Int) -> TileAnswer {
    guard manifest.hasTile(floor: floor, zoom: zoom, x: x, y: y, tileSize: tileSize) else { return .noTile }
    let tileSize = manifest.servingTileSize(floor: floor, zoom: zoom, tileSize: tileSize)
    do {
      guard let data = try store.data(floor: floor, tileSize: tileSize, zoom: zoom, x: x, y: y) else {
        // listed but absent: a damaged copy; the SDK may retry, the app should re-sync
        return .unavailable("tile \(floor)/\(tileSize)/\(zoom)/\(x)/\(y) is listed but missing")
      }
      return .tile(data)
    } catch {
      return .unavailable("\(error)")
    }
  }
}

/// A tilecut output directory, tiles named by the manifest's template.
public struct DirectoryTileStore: TileStore {
  public let root: URL
  public let manifest: TileManifest

  public init(root: URL, manifest: TileManifest) {
    self.root = root
    self.manifest = manifest
  }

  public func data(floor: Int, tileSize: Int, zoom: Int, x: Int, y: Int) throws -> Data? {
    let url = root.appendingPathComponent(manifest.path(floor: floor, zoom: zoom, x: x, y: y, tileSize: tileSize))
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    return try Data(contentsOf: url)
  }
}

/// One MBTiles file per floor and tile size (MBTiles holds one tile set per file).
public struct MBTilesTileStore: TileStore {
  /// Which tile set a file holds.
  public struct TileSet: Hashable, Sendable {
    public var floor: Int
    public var tileSize: Int

    public init(floor: Int, tileSize: Int) {
      self.floor = floor
      self.tileSize = tileSize
    }
  }

  public let files: [TileSet: MBTilesFile]

  public init(files: [TileSet: MBTilesFile]) { self.files = files }

  /// Opens each file read-only.
  public init(urls: [TileSet: URL]) throws {
    var files: [TileSet: MBTilesFile] = [:]
    for (set, url) in urls { files[set] = try MBTilesFile(url: url) }
    self.files = files
  }

  public func data(floor: Int, tileSize: Int, zoom: Int, x: Int, y: Int) throws -> Data? {
    try files[TileSet(floor: floor, tileSize: tileSize)]?.tile(zoom: zoom, x: x, y: y)
  }
}

/// Where a map layer gets its tiles: a server (CDN) or offline storage.
public enum FloorPlanTileSource: Sendable {
  /// Tiles under this URL, as the output directory was uploaded.
  case remote(base: URL)
  /// Tiles read by the app: files on the device (a directory, MBTiles or PMTiles), or
  /// PMTiles archives on a server read with Range requests
  /// (`OfflineTiles(manifest:pmtilesBase:)`).
  case offline(OfflineTiles)

  /// `--store pmtiles` archives served under `base`, next to the manifest.
  public static func pmtiles(manifest: TileManifest, base: URL) throws -> FloorPlanTileSource {
    .offline(try OfflineTiles(manifest: manifest, pmtilesBase: base))
  }
}

/// An error a map SDK reports for a tile that could not be read.
public struct TileUnavailable: Error, CustomStringConvertible {
  public let description: String
  public init(_ description: String) { self.description = description }
}

/// A value several threads read and one replaces (a map SDK asks for tiles off the main thread).
public final class LockedValue<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value

  public init(_ value: Value) { stored = value }

  public var value: Value {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
