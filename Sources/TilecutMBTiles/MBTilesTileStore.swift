import Foundation
import Synchronization
import TilecutCore

/// The MBTiles store: the output directory holds one MBTiles 1.3 file per floor and
/// tile size plus `manifest.json` naming them. Staging, ownership and the swap are the
/// output's (`StagedOutput`; the files are its store files); this type only decides what
/// goes into each file. A cell with no tile has no row, so a reader's "no row" is
/// `kGMSTileLayerNoTile`.
public final class MBTilesTileStore: ArchiveTileStore, @unchecked Sendable {
  public let output: StagedOutput
  /// `png`, `webp` or `jpg`, as MBTiles names formats.
  let format: String
  let digest: @Sendable ([UInt8]) -> String
  private let writers = Mutex<[LevelKey: MBTilesWriter]>([:])
  /// Each tile's SHA-256 as it was put, for the content version.
  private let digests: TileDigests

  /// `format`: the tiles' file format (`png`, `webp`, `jpeg`); `digest` names a tile by its content.
  public init(path: String, format: String, option: String = "--output", digest: @escaping @Sendable ([UInt8]) -> String) {
    output = StagedOutput(path: path, option: option)
    self.format = format == "jpeg" ? "jpg" : format
    self.digest = digest
    digests = TileDigests(digest: digest)
  }

  /// The file name of a floor's tile set at a tile size.
  public static func fileName(floor: Floor, tileSize: Int) -> String { "L\(floor)_\(tileSize).mbtiles" }

  /// Nil when every tile set of the manifest is present with the rows per zoom it lists.
  public func difference(from manifest: Manifest) -> String? {
    guard manifest.store == .mbtiles, manifest.tileSets != nil else { return "the output holds tile files, not MBTiles" }
    return manifest.archiveDifference(root: path) { try MBTilesReader(path: $0).rowCounts() }
  }

  private func writer(floor: Floor, tileSize: Int) throws -> MBTilesWriter {
    let key = LevelKey(floor: floor, tileSize: tileSize, zoom: 0)
    return try writers.withLock { all in
      if let w = all[key] { return w }
      let w = try MBTilesWriter(path: stagedFile(Self.fileName(floor: floor, tileSize: tileSize)), digest: digest)
      all[key] = w
      return w
    }
  }

  public func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    // the writer names the bytes by their digest: kept for the content version, not taken again
    let id = try writer(floor: floor, tileSize: tileSize).put(tile, data: bytes)
    digests.record(hex: id, floor: floor, tileSize: tileSize, tile: tile)
  }

  public func stagedDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    digests.hex(floor: floor, tileSize: tileSize, tile: tile)
  }

  public func stagedTile(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8] {
    guard let bytes = try writer(floor: floor, tileSize: tileSize).read(tile) else {
      throw TilecutError.output(path: path, reason: "tile \(tile) of floor \(floor), \(tileSize) px was not stored")
    }
    return bytes
  }

  /// Finishes every tile set (one per floor and tile size of the manifest, empty ones
  /// too), then writes the manifest naming them.
  @discardableResult
  public func finish(manifest: Manifest, files: [String: [UInt8]]) throws -> Manifest {
    try finishArchives(manifest, files: files, store: .mbtiles, fileName: Self.fileName) { floor, tileSize in
      try writer(floor: floor, tileSize: tileSize).finish(metadata: Self.metadata(manifest, floor: floor, tileSize: tileSize, format: format))
    }
  }

  public func abort() {
    let all = writers.withLock { w -> [MBTilesWriter] in
      let v = Array(w.values)
      w.removeAll()
      return v
    }
    for w in all { w.abort() }
    output.abort()
  }

  /// The metadata rows of one floor's tile set at one size, from the manifest.
  static func metadata(_ manifest: Manifest, floor: Floor, tileSize: Int, format: String) throws -> MBTilesMetadata {
    let levels = manifest.levels.filter { $0.floor == floor && $0.tileSize == tileSize }.sorted { $0.zoom < $1.zoom }
    let minZoom = levels.first?.zoom ?? 0
    let maxZoom = levels.last?.zoom ?? 0
    let footprint = manifest.footprints.first { $0.floor == floor }
    let bounds: [Double] = footprint.map { [$0.west, $0.south, $0.east, $0.north] } ?? [-180, -85.0511287798066, 180, 85.0511287798066]
    let source = manifest.sources.first { $0.floor == floor }
    let sourceName = source.map { URL(fileURLWithPath: $0.path).lastPathComponent } ?? "tilecut"
    // the no-tile cells: per zoom, the range the footprint touches and the runs that
    // have a tile (every other cell of the world has none too)
    struct Info: Encodable {
      var floor: Floor
      var tileSize: Int
      var scheme = "tms"
      var levels: [Manifest.Level]
      var generator: String
      /// The whole output's content version (the manifest's), for cache decisions.
      var contentVersion: String?
      /// Zooms this set has no tiles at because a smaller tile size's set serves them
      /// (`--retina-depth native`): show that set's tile of the same z/x/y, scaled.
      var substitutes: [Manifest.Substitute]?
    }
    let substitutes = (manifest.substitutes ?? []).filter { $0.floor == floor && $0.tileSize == tileSize }
    let info = Info(
      floor: floor, tileSize: tileSize, levels: levels, generator: "tilecut \(manifest.generator.version)",
      contentVersion: manifest.contentVersion, substitutes: substitutes.isEmpty ? nil : substitutes)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(info), as: UTF8.self)
    return MBTilesMetadata(
      name: "\(sourceName) floor \(floor) (\(tileSize) px)", format: format, bounds: bounds,
      center: ((bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, minZoom), minZoom: minZoom, maxZoom: maxZoom,
      // the spec's version is a number, the tile set's revision: what changes is in json
      version: "1",
      description:
        "floor \(floor) of \(sourceName): \(tileSize) px tiles\(tileSize > 256 ? " (\(tileSize / 256)× density on the 256 px z/x/y grid)" : ""), made by tilecut",
      json: json)
  }
}

extension MBTilesReader {
  /// Rows and tile bytes per zoom level, without decoding a tile.
  public func rowCounts() throws -> [Int: (count: Int, bytes: Int)] {
    let q = try db.prepare("SELECT zoom_level, count(*), sum(length(tile_data)) FROM tiles GROUP BY zoom_level")
    var out: [Int: (count: Int, bytes: Int)] = [:]
    while try q.next() { out[q.int(0)] = (q.int(1), q.int(2)) }
    return out
  }
}
