import Foundation
import Synchronization
import TilecutCore
import TilecutPMTiles

/// The PMTiles store: the output directory holds one PMTiles v3 archive per floor and
/// tile size plus `manifest.json` naming them. Staging, ownership and the swap are the
/// output's (`StagedOutput`; the archives are its store files); this type only decides what
/// goes into each archive. A cell with no tile has no entry, so a reader's "no entry"
/// is `kGMSTileLayerNoTile`.
public final class PMTilesTileStore: ArchiveTileStore, @unchecked Sendable {
  public let output: StagedOutput
  /// `png`, `webp` or `jpeg`.
  let format: String
  let digest: @Sendable ([UInt8]) -> String
  private let writers = Mutex<[LevelKey: PMTilesWriter]>([:])

  /// `format`: the tiles' file format (`png`, `webp`, `jpeg`); `digest` gives a tile's SHA-256 as hex.
  public init(path: String, format: String, option: String = "--output", digest: @escaping @Sendable ([UInt8]) -> String) {
    output = StagedOutput(path: path, option: option)
    self.format = format == "jpg" ? "jpeg" : format
    self.digest = digest
  }

  /// The file name of a floor's archive at a tile size.
  public static func fileName(floor: Floor, tileSize: Int) -> String { "L\(floor)_\(tileSize).pmtiles" }

  /// Nil when every archive of the manifest is present with the tiles per zoom it
  /// lists (read from its directories, no tile decoded).
  public func difference(from manifest: Manifest) -> String? {
    guard manifest.store == .pmtiles, manifest.tileSets != nil else { return "the output holds no PMTiles archives" }
    return manifest.archiveDifference(root: path) { try PMTilesArchiveScan(path: $0).zoomCounts() }
  }

  private func writer(floor: Floor, tileSize: Int) throws -> PMTilesWriter {
    let key = LevelKey(floor: floor, tileSize: tileSize, zoom: 0)
    return try writers.withLock { all in
      if let w = all[key] { return w }
      let w = try wrapped { try PMTilesWriter(path: stagedFile(Self.fileName(floor: floor, tileSize: tileSize))) }
      all[key] = w
      return w
    }
  }

  public func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    let hex = digest(bytes)
    let w = try writer(floor: floor, tileSize: tileSize)
    try wrapped { try w.put(z: tile.zoom, x: tile.x, y: tile.y, data: bytes, sha256: hex) }
  }

  /// The digest the writer keeps per distinct content (no per-tile table beside its index).
  public func stagedDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    let w = writers.withLock { $0[LevelKey(floor: floor, tileSize: tileSize, zoom: 0)] }
    return w?.digest(z: tile.zoom, x: tile.x, y: tile.y)
  }

  public func stagedTile(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8] {
    let w = try writer(floor: floor, tileSize: tileSize)
    guard let bytes = try wrapped({ try w.read(z: tile.zoom, x: tile.x, y: tile.y) }) else {
      throw TilecutError.output(path: path, reason: "tile \(tile) of floor \(floor), \(tileSize) px was not stored")
    }
    return bytes
  }

  /// Finishes every archive (one per floor and tile size of the manifest, empty ones
  /// too), then writes the manifest naming them.
  @discardableResult
  public func finish(manifest: Manifest, files: [String: [UInt8]]) throws -> Manifest {
    try finishArchives(manifest, files: files, store: .pmtiles, fileName: Self.fileName) { floor, tileSize in
      let w = try writer(floor: floor, tileSize: tileSize)
      let (header, metadata) = try Self.describe(manifest, floor: floor, tileSize: tileSize, format: format)
      try wrapped { try w.finish(header: header, metadata: metadata) }
    }
  }

  public func abort() {
    let all = writers.withLock { w -> [PMTilesWriter] in
      let v = Array(w.values)
      w.removeAll()
      return v
    }
    for w in all { w.abort() }
    output.abort()
  }

  /// The writer's errors as the tool's: one line naming the file.
  private func wrapped<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as PMTilesWriteError {
      throw TilecutError.output(path: error.path, reason: error.reason)
    }
  }

  /// The facts tilecut records in an archive's metadata, beside the spec's keys.
  public struct Facts: Codable, Equatable {
    public var floor: Floor
    public var tileSize: Int
    /// Per zoom: the range the footprint touches and the runs of cells that have a
    /// tile (every other cell of the world has none).
    public var levels: [Manifest.Level]
    public var footprint: Manifest.Footprint?
    public var generator: String
    /// The whole output's content version (the manifest's), for cache decisions.
    public var contentVersion: String?
    /// Zooms this archive has no tiles at because a smaller tile size's archive
    /// serves them (`--retina-depth native`).
    public var substitutes: [Manifest.Substitute]?
  }

  /// The JSON metadata of an archive.
  public struct Metadata: Codable {
    public var name: String
    public var description: String
    public var type = "overlay"
    public var version = "1"
    public var format: String
    public var tilecut: Facts
  }

  /// The header fields and JSON metadata of one floor's archive at one size, from the manifest.
  public static func describe(_ manifest: Manifest, floor: Floor, tileSize: Int, format: String) throws -> (PMTilesHeader, [UInt8]) {
    let levels = manifest.levels.filter { $0.floor == floor && $0.tileSize == tileSize }.sorted { $0.zoom < $1.zoom }
    let minZoom = levels.first?.zoom ?? 0
    let maxZoom = levels.last?.zoom ?? 0
    let footprint = manifest.footprints.first { $0.floor == floor }
    var header = PMTilesHeader()
    header.tileType = PMTilesTileType(format: format)
    header.minZoom = UInt8(clamping: minZoom)
    header.maxZoom = UInt8(clamping: maxZoom)
    if let f = footprint {
      header.minLongitude = f.west
      header.minLatitude = f.south
      header.maxLongitude = f.east
      header.maxLatitude = f.north
    } else {
      (header.minLongitude, header.minLatitude, header.maxLongitude, header.maxLatitude) = (-180, -85.0511287, 180, 85.0511287)
    }
    header.centerLongitude = (header.minLongitude + header.maxLongitude) / 2
    header.centerLatitude = (header.minLatitude + header.maxLatitude) / 2
    header.centerZoom = header.minZoom
    let source = manifest.sources.first { $0.floor == floor }
    let sourceName = source.map { URL(fileURLWithPath: $0.path).lastPathComponent } ?? "tilecut"
    let substitutes = (manifest.substitutes ?? []).filter { $0.floor == floor && $0.tileSize == tileSize }
    let facts = Facts(
      floor: floor, tileSize: tileSize, levels: levels, footprint: footprint, generator: "tilecut \(manifest.generator.version)",
      contentVersion: manifest.contentVersion, substitutes: substitutes.isEmpty ? nil : substitutes)
    let metadata = Metadata(
      name: "\(sourceName) floor \(floor) (\(tileSize) px)",
      description:
        "floor \(floor) of \(sourceName): \(tileSize) px tiles\(tileSize > 256 ? " (\(tileSize / 256)× density on the 256 px z/x/y grid)" : ""), made by tilecut",
      format: format == "jpeg" ? "jpg" : format, tilecut: facts)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return (header, Array(try encoder.encode(metadata)))
  }
}
