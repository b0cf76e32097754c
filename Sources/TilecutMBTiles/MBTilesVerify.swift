import Foundation
import TilecutCore

extension MBTilesDriver {
  /// An MBTiles output: every listed cell a row that decodes at the tile size, no row
  /// the manifest does not list. A file whose bytes changed is not read: that it
  /// changed says it all.
  public func verify(_ manifest: Manifest, _ context: StoreVerification, tileSetMissing: Bool) throws -> (problems: [String], tilesChecked: Int) {
    var problems: [String] = []
    var checked = 0
    let limit = ArchiveVerification.problemsPerArchive
    for set in manifest.tileSets ?? [] {
      let path = context.directory + "/" + set.file
      var st = stat()
      guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
        problems.append("missing: \(set.file)")
        continue
      }
      // not the file tilecut wrote: that one line says it all, its rows are not read
      if context.changedFiles.contains(set.file) { continue }
      var levels: [Int: Manifest.Level] = [:]
      for level in manifest.levels where level.floor == set.floor && level.tileSize == set.tileSize { levels[level.zoom] = level }
      var seen = Set<TileCoordinate>()
      // a damaged archive can have millions of bad rows: the first few say what it is
      var found = 0
      func note(_ problem: String) throws {
        found += 1
        problems.append(problem)
        if found >= limit { throw StopReading() }
      }
      do {
        let reader = try MBTilesReader(path: path)
        try reader.forEachRow { row in
          let at = "\(set.file) row zoom \(row.zoom), column \(row.column), row \(row.row)"
          guard let tile = row.tile else { return try note("outside the grid: \(at)") }
          guard let level = levels[tile.zoom], level.hasTile(x: tile.x, y: tile.y) else {
            return try note("extra row: \(at) (tile \(tile)), not in the manifest")
          }
          guard seen.insert(tile).inserted else { return try note("duplicate row: \(at)") }
          guard !row.data.isEmpty else { return try note("empty tile: \(at) (tile \(tile)): 0 bytes, an empty tile is no tile") }
          do {
            let image = try context.decode(row.data)
            if image.width != set.tileSize || image.height != set.tileSize {
              try note("wrong size: \(at) is \(image.width)×\(image.height), expected \(set.tileSize)×\(set.tileSize)")
            }
          } catch is StopReading {
            throw StopReading()
          } catch {
            try note("does not decode: \(at) (tile \(tile))")
          }
          checked += 1
        }
      } catch is StopReading {
        problems.append("stopped: \(set.file) after its first \(limit) problems; the rest of it was not read")
        continue
      } catch let error as TilecutError {
        problems.append("unreadable: \(error.description)")
        continue
      }
      var missing = 0
      for level in levels.values.sorted(by: { $0.zoom < $1.zoom }) {
        for tile in level.tiles where !seen.contains(tile) {
          missing += 1
          if found + missing <= limit {
            problems.append("missing row: \(set.file) tile \(tile) (TMS row \(mbtilesRow(for: tile)))")
          }
        }
      }
      if found + missing > limit {
        problems.append("missing row: \(set.file) lacks \(found + missing - limit) more rows the manifest lists")
      }
    }
    return (problems, checked)
  }
}

/// Ends the reading of a file that has shown enough problems.
private struct StopReading: Error {}
