import Foundation
import TilecutCore

extension MBTilesDriver {
  public func openFile(path: String, name: String) throws -> any StoreFileReader {
    MBTilesFileReader(reader: try MBTilesReader(path: path))
  }

  /// MBTiles is SQLite: not read over HTTP.
  public func openURL(_ url: URL, name: String) throws -> (any StoreFileReader)? { nil }
}

/// An MBTiles file read for `tilecut show` and `tilecut get`.
final class MBTilesFileReader: StoreFileReader {
  let reader: MBTilesReader

  init(reader: MBTilesReader) { self.reader = reader }

  func tile(_ tile: TileCoordinate) throws -> [UInt8]? { try reader.tile(tile) }

  func cell(_ tile: TileCoordinate, name: String, read: () throws -> [UInt8]?) throws -> StoreCell {
    if let bytes = try reader.tile(tile) { return .tile(bytes) }
    let meta = try reader.metadata()
    let minZoom = meta["minzoom"].flatMap { Int($0) } ?? 0
    let maxZoom = meta["maxzoom"].flatMap { Int($0) } ?? StoreCell.deepestZoom
    guard (minZoom...max(minZoom, maxZoom)).contains(tile.zoom) else {
      return .outside("\(name) is outside the pyramid (zooms \(minZoom)–\(maxZoom))")
    }
    let b = (meta["bounds"] ?? "").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    if b.count == 4 {
      let range = StoreCell.cells(west: b[0], south: b[1], east: b[2], north: b[3], zoom: tile.zoom)
      guard range.x.contains(tile.x), range.y.contains(tile.y) else {
        return .outside(
          "\(name) is outside the pyramid (the file's bounds cover x \(StoreCell.text(range.x)), y \(StoreCell.text(range.y)))")
      }
    }
    return .blank("\(name) is inside the file's bounds and zooms but has no tile (blank: the no-tile rule)")
  }

  func describe(into one: inout [String: Any]) throws {
    let meta = try reader.metadata()
    one["metadata"] = meta
    one["format"] = meta["format"] ?? "unknown"
    if one["tiles"] == nil {
      var count = 0
      try reader.forEachRow { _ in count += 1 }
      one["tiles"] = count
    }
    if one["zooms"] == nil, let lo = meta["minzoom"].flatMap({ Int($0) }), let hi = meta["maxzoom"].flatMap({ Int($0) }) {
      one["zooms"] = [lo, hi]
    }
    if one["bounds"] == nil {
      let b = (meta["bounds"] ?? "").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
      if b.count == 4 { one["bounds"] = b }
    }
  }
}
