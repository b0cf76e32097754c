import Foundation

extension Manifest {
  /// For a store of one archive file per floor and tile size (MBTiles, PMTiles): nil
  /// when every tile set holds, per zoom, the tiles and tile bytes the manifest lists
  /// and no other zoom, and every store file is present; otherwise the first
  /// difference. `counts` reads a set's archive (under `root`) into tiles and bytes per
  /// zoom, without decoding a tile; a set it cannot read is a difference.
  public func archiveDifference(root: String, counts: (String) throws -> [Int: (count: Int, bytes: Int)]) -> String? {
    for set in tileSets ?? [] {
      let have: [Int: (count: Int, bytes: Int)]
      do { have = try counts(root + "/" + set.file) } catch { return "\(set.file) cannot be read" }
      for level in levels where level.floor == set.floor && level.tileSize == set.tileSize {
        let got = have[level.zoom] ?? (0, 0)
        if got.count != level.tileCount {
          return "\(set.file) has \(got.count) tiles at zoom \(level.zoom); the manifest lists \(level.tileCount)"
        }
        if let bytes = level.bytes, bytes != got.bytes {
          return "\(set.file) holds \(got.bytes) bytes of tiles at zoom \(level.zoom); the manifest says \(bytes)"
        }
      }
      let listed = Set(levels.filter { $0.floor == set.floor && $0.tileSize == set.tileSize }.map(\.zoom))
      if let extra = have.keys.sorted().first(where: { !listed.contains($0) }) {
        return "\(set.file) has tiles at zoom \(extra), which the manifest does not list"
      }
    }
    for file in storeFiles ?? [] where !FileManager.default.fileExists(atPath: root + "/" + file) {
      return "\(file) is missing"
    }
    return nil
  }
}
