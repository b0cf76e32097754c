import Foundation
import TilecutCore
import TilecutPMTiles

extension PMTilesDriver {
  /// A PMTiles output: every archive's header and metadata as the manifest says,
  /// its directories readable and in order, every listed cell addressed by exactly one
  /// entry whose content decodes at the tile size, no other tile, and the tiles' digests
  /// making the manifest's content version.
  public func verify(_ manifest: Manifest, _ context: StoreVerification, tileSetMissing: Bool) throws -> (problems: [String], tilesChecked: Int) {
    var problems: [String] = []
    var checked = 0
    var digests: [LevelKey: [TileCoordinate: String]] = [:]
    var complete = !tileSetMissing
    for set in manifest.tileSets ?? [] {
      let path = context.directory + "/" + set.file
      var st = stat()
      guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
        problems.append("missing: \(set.file)")
        complete = false
        continue
      }
      var levels: [Int: Manifest.Level] = [:]
      for level in manifest.levels where level.floor == set.floor && level.tileSize == set.tileSize { levels[level.zoom] = level }
      do {
        let found = try verifyArchive(path: path, set: set, levels: levels, manifest: manifest, context: context)
        problems += found.problems
        checked += found.checked
        for (tile, digest) in found.digests {
          digests[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: tile.zoom), default: [:]][tile] = digest
        }
        if !found.problems.isEmpty { complete = false }
      } catch let error as PMTilesFormatError {
        problems.append("unreadable: \(set.file): \(error.reason)")
        complete = false
      }
    }
    // the tiles' own digests against the content version the manifest records
    if complete, let recorded = manifest.contentVersion {
      let version = context.contentVersion(manifest) { floor, size, tile in
        guard let d = digests[LevelKey(floor: floor, tileSize: size, zoom: tile.zoom)]?[tile] else {
          throw TilecutError.invalidInput(path: context.directory, reason: "tile \(tile) has no digest")
        }
        return d
      }
      if version != recorded {
        let files = (manifest.tileSets ?? []).map(\.file).joined(separator: ", ")
        problems.append("changed: \(files) (the tiles do not make the manifest's content version \(recorded))")
      }
    }
    return (problems, checked)
  }

  /// One archive against the manifest's levels for its floor and size.
  private func verifyArchive(
    path: String, set: Manifest.TileSet, levels: [Int: Manifest.Level], manifest: Manifest, context: StoreVerification
  ) throws -> (
    problems: [String], checked: Int, digests: [TileCoordinate: String]
  ) {
    var problems: [String] = []
    let file = set.file
    let scan = try PMTilesArchiveScan(path: path)
    let h = scan.header
    let (expected, _) = try PMTilesTileStore.describe(
      manifest, floor: set.floor, tileSize: set.tileSize, format: manifest.options["format"] ?? "png")
    if h.tileType != expected.tileType || h.minZoom != expected.minZoom || h.maxZoom != expected.maxZoom {
      problems.append(
        "wrong header: \(file) has tile type \(h.tileType), zooms \(h.minZoom)…\(h.maxZoom); the manifest says \(expected.tileType), \(expected.minZoom)…\(expected.maxZoom)"
      )
    }
    let bounds = [
      h.minLongitude - expected.minLongitude, h.minLatitude - expected.minLatitude, h.maxLongitude - expected.maxLongitude,
      h.maxLatitude - expected.maxLatitude,
    ]
    if bounds.contains(where: { abs($0) > 1e-6 }) { problems.append("wrong header: \(file) has bounds other than the floor's footprint") }
    if !h.clustered { problems.append("wrong header: \(file) is not marked clustered") }
    if h.tileCompression != .none { problems.append("wrong header: \(file) claims compressed tiles") }
    let metadata = try scan.metadata()
    if let m = try? JSONDecoder().decode(PMTilesTileStore.Metadata.self, from: Data(metadata)) {
      if m.tilecut.floor != set.floor || m.tilecut.tileSize != set.tileSize || m.tilecut.contentVersion != manifest.contentVersion
        || m.tilecut.levels != levels.values.sorted(by: { $0.zoom < $1.zoom })
      {
        problems.append("wrong metadata: \(file) describes another output than the manifest")
      }
    } else {
      problems.append("wrong metadata: \(file) holds no tilecut metadata")
    }
    // the tiles the manifest lists: an archive that addresses more is not its archive,
    // and a run is never expanded past them (a run of 2^32 − 1 tiles is one problem)
    let listed = UInt64(levels.values.reduce(0) { $0 + $1.tileCount })
    if h.addressedTiles != listed {
      problems.append("wrong header: \(file) counts \(h.addressedTiles) addressed tiles; the manifest lists \(listed)")
    }
    var addressed: UInt64 = 0
    var overflowed = false
    var seen: [TileCoordinate: String] = [:]
    // each content decoded and hashed once, whatever its run lengths and repeats
    var contents: [UInt64: (digest: String, ok: Bool)] = [:]
    var entries: UInt64 = 0
    var end: UInt64 = 0
    struct TooMany: Error {}
    do {
      try scan.forEachTileEntry { e in
        entries += 1
        addressed += UInt64(e.runLength)
        guard addressed <= listed else {
          problems.append(
            "extra tiles: \(file) addresses more tiles than the \(listed) the manifest lists (a run of \(e.runLength) at tile ID \(e.tileID)); its other entries were not read"
          )
          throw TooMany()
        }
        let content: (digest: String, ok: Bool)
        if let known = contents[e.offset] {
          content = known
        } else {
          if e.offset != end { problems.append("not clustered: \(file) has a tile content at \(e.offset), expected \(end)") }
          end = e.offset + UInt64(e.length)
          let data = try scan.tileData(e)
          var ok = true
          if data.isEmpty {
            problems.append("empty tile: \(file) tile content at \(e.offset) (tile ID \(e.tileID)) is 0 bytes: an empty tile is no tile")
            ok = false
          } else {
            do {
              let image = try context.decode(data)
              if image.width != set.tileSize || image.height != set.tileSize {
                problems.append(
                  "wrong size: \(file) tile content at \(e.offset) is \(image.width)×\(image.height), expected \(set.tileSize)×\(set.tileSize)")
                ok = false
              }
            } catch {
              problems.append("does not decode: \(file) tile content at \(e.offset) (tile ID \(e.tileID))")
              ok = false
            }
          }
          content = (context.digest(data), ok)
          contents[e.offset] = content
        }
        for i in 0..<UInt64(e.runLength) {
          guard let t = PMTilesTileID.zxy(e.tileID + i) else { continue }
          let tile = TileCoordinate(zoom: t.z, x: t.x, y: t.y)
          guard let level = levels[t.z], level.hasTile(x: t.x, y: t.y) else {
            problems.append("extra tile: \(file) tile \(tile), not in the manifest")
            continue
          }
          seen[tile] = content.digest
        }
      }
    } catch is TooMany {
      overflowed = true
    }
    if overflowed { return (problems, seen.count, seen) }
    if h.tileEntries != entries || h.tileContents != UInt64(contents.count) || h.addressedTiles != UInt64(seen.count) {
      problems.append(
        "wrong header: \(file) counts \(h.addressedTiles) tiles, \(h.tileEntries) entries, \(h.tileContents) contents; its directories hold \(seen.count), \(entries), \(contents.count)"
      )
    }
    if end != h.tileDataLength { problems.append("wrong header: \(file) has \(h.tileDataLength) bytes of tile data, its entries use \(end)") }
    for level in levels.values.sorted(by: { $0.zoom < $1.zoom }) {
      for tile in level.tiles where seen[tile] == nil {
        problems.append("missing tile: \(file) tile \(tile)")
      }
    }
    return (problems, seen.count, seen)
  }
}
