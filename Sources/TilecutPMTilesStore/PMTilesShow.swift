import Foundation
import TilecutCore
import TilecutPMTiles

extension PMTilesDriver {
  public func openFile(path: String, name: String) throws -> any StoreFileReader {
    PMTilesFileReader(reader: try Self.opening(path) { try PMTilesReader(path: path) }, name: name)
  }

  public func openURL(_ url: URL, name: String) throws -> (any StoreFileReader)? {
    PMTilesFileReader(reader: try Self.opening(name) { try PMTilesReader(url: url) }, name: name)
  }

  /// The format's errors opening an archive as the tool's, naming `name`.
  static func opening(_ name: String, _ open: () throws -> PMTilesReader) throws -> PMTilesReader {
    do { return try open() } catch let error as PMTilesFormatError {
      throw TilecutError.invalidInput(path: name, reason: error.reason)
    }
  }
}

/// An archive read for `tilecut show` and `tilecut get`: its header and directories,
/// from a file or over HTTP.
final class PMTilesFileReader: StoreFileReader {
  let reader: PMTilesReader
  /// How errors name the archive.
  let name: String

  init(reader: PMTilesReader, name: String) {
    self.reader = reader
    self.name = name
  }

  func tile(_ tile: TileCoordinate) throws -> [UInt8]? {
    do {
      let compression = reader.header.tileCompression
      // brotli or zstd tiles would go out still compressed, as if they were the tile
      guard compression == .none || compression == .gzip || compression == .unknown else {
        throw PMTilesFormatError("its tiles are \(compression)-compressed; tilecut undoes gzip tile compression only")
      }
      guard let stored = try reader.tile(z: tile.zoom, x: tile.x, y: tile.y) else { return nil }
      // the tile itself: an archive's gzip tile compression is undone (a PNG is stored as it is)
      return compression == .gzip ? try PMTilesGzip.decompress(stored, limit: 64 << 20) : stored
    } catch let error as PMTilesFormatError {
      throw TilecutError.invalidInput(path: name, reason: error.reason)
    }
  }

  func cell(_ tile: TileCoordinate, name: String, read: () throws -> [UInt8]?) throws -> StoreCell {
    let h = reader.header
    let zooms = Int(h.minZoom)...Int(h.maxZoom)
    if let bytes = try read() { return .tile(bytes) }
    guard zooms.contains(tile.zoom) else {
      return .outside("\(name) is outside the pyramid (zooms \(zooms.lowerBound)–\(zooms.upperBound))")
    }
    let range = StoreCell.cells(west: h.minLongitude, south: h.minLatitude, east: h.maxLongitude, north: h.maxLatitude, zoom: tile.zoom)
    // an archive without bounds (west ≥ east) is judged by its zooms alone
    let bounded = h.minLongitude < h.maxLongitude && h.minLatitude < h.maxLatitude
    guard !bounded || (range.x.contains(tile.x) && range.y.contains(tile.y)) else {
      return .outside(
        "\(name) is outside the pyramid (the archive's bounds cover x \(StoreCell.text(range.x)), y \(StoreCell.text(range.y)))")
    }
    return .blank("\(name) is inside the archive's bounds and zooms but has no tile (blank: the no-tile rule)")
  }

  func describe(into one: inout [String: Any]) throws {
    let h = reader.header
    one["format"] = h.tileType.fileExtension
    one["zooms"] = [Int(h.minZoom), Int(h.maxZoom)]
    one["bounds"] = [h.minLongitude, h.minLatitude, h.maxLongitude, h.maxLatitude]
    one["center"] = [h.centerLongitude, h.centerLatitude, Double(h.centerZoom)]
    one["tiles"] = Int(clamping: h.addressedTiles)
    one["pmtiles"] = [
      "addressedTiles": Int(clamping: h.addressedTiles), "tileEntries": Int(clamping: h.tileEntries),
      "tileContents": Int(clamping: h.tileContents), "clustered": h.clustered,
      "tileCompression": String(describing: h.tileCompression), "internalCompression": String(describing: h.internalCompression),
    ]
    do {
      one["metadata"] = try reader.metadataObject()
    } catch let error as PMTilesFormatError {
      throw TilecutError.invalidInput(path: name, reason: error.reason)
    }
  }
}
