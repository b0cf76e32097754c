import Foundation
import TilecutCore

/// The MBTiles store as the rest of tilecut sees it: one MBTiles 1.3 file per floor
/// and tile size. Each verb it does is in its own file beside this one.
public struct MBTilesDriver: ArchiveStoreDriver {
  public init() {}

  public var kind: StoreKind { .mbtiles }
  public var displayName: String { "MBTiles" }
  public var fileNoun: String { "MBTiles file" }
  public var filesNoun: String { "MBTiles files" }
  public var entryNoun: String { "row" }
  public var fileExtension: String { "mbtiles" }

  public func fileName(floor: Floor, tileSize: Int) -> String { MBTilesTileStore.fileName(floor: floor, tileSize: tileSize) }

  /// Tiles go into its files, not named by `template`.
  public func makeStore(
    path: String, format: String, template: TileNameTemplate, option: String, digest: @escaping @Sendable ([UInt8]) -> String
  ) -> any TileStore {
    MBTilesTileStore(path: path, format: format, option: option, digest: digest)
  }

  /// The deepest zoom GDAL's MBTiles driver opens (gdalinfo, QGIS, gdal2tiles read no deeper).
  public static let gdalMaxZoom = 22

  /// Past GDAL's deepest zoom: one line saying so (the files are valid MBTiles all the same).
  public func zoomWarning(path: String, deepestZoom deepest: Int) -> String? {
    guard deepest > Self.gdalMaxZoom else { return nil }
    return
      "\(path): MBTiles to zoom \(deepest), which GDAL's MBTiles driver (gdalinfo, QGIS) will not open: it opens none past zoom \(Self.gdalMaxZoom). The files are valid MBTiles (tilecut, TilecutClient and other readers read them); for GDAL, lower --max-zoom to \(Self.gdalMaxZoom)"
  }

  /// A SQLite file that is no GeoPackage (that one is read through GDAL).
  public func holds(head: [UInt8], file: FileHandle) -> Bool {
    head.starts(with: Array("SQLite format 3\u{0}".utf8)) && !Self.isGeoPackage(file)
  }

  /// A SQLite file that is a GeoPackage (read through GDAL, not as MBTiles): its
  /// header's application_id (offset 68) is "GPKG", "GP10" or "GP11", or, for one
  /// written without it, its schema on the first pages names `gpkg_contents`.
  static func isGeoPackage(_ handle: FileHandle) -> Bool {
    guard (try? handle.seek(toOffset: 0)) != nil, let start = try? handle.read(upToCount: 64 << 10) else { return false }
    let bytes = [UInt8](start)
    if bytes.count >= 72, ["GPKG", "GP10", "GP11"].contains(String(decoding: bytes[68..<72], as: UTF8.self)) { return true }
    let marker = Array("gpkg_contents".utf8)
    guard bytes.count >= marker.count else { return false }
    return (0...(bytes.count - marker.count)).contains { i in bytes[i] == marker[0] && Array(bytes[i..<(i + marker.count)]) == marker }
  }
}
