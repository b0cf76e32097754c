/// Checks every tile `merge` takes from a shard, and every tile `verify` reads, against
/// the manifest of the output it comes from:
/// the digest it records for the tile (`Manifest.Shard.levelDigests`), or, for a
/// shard written before tiles had digests, its content version over all of them.
/// A tile swapped for another valid image is refused by its path.
package struct ShardCheck {
  let directory: String
  let template: TileNameTemplate
  let contentVersion: String?
  /// Per level, each tile's recorded digest prefix.
  private var digests: [LevelKey: [TileCoordinate: Substring]]?
  /// Without digests: "path sha256" lines for the content version.
  private var lines: [String] = []

  package init(directory: String, manifest: Manifest) throws {
    self.directory = directory
    template = try TileNameTemplate(manifest.name)
    contentVersion = manifest.contentVersion
    guard let recorded = manifest.shard?.levelDigests else {
      guard manifest.contentVersion != nil else {
        throw TilecutError.invalidInput(
          path: directory + "/" + Manifest.fileName,
          reason: "records neither tile digests nor a content version, so its tiles cannot be checked; run that shard again")
      }
      digests = nil
      return
    }
    let width = Manifest.Shard.digestLength
    guard recorded.count == manifest.levels.count else {
      throw TilecutError.invalidInput(
        path: directory + "/" + Manifest.fileName, reason: "lists \(recorded.count) levels of tile digests for \(manifest.levels.count) levels")
    }
    var all: [LevelKey: [TileCoordinate: Substring]] = [:]
    for (level, text) in zip(manifest.levels, recorded) {
      let tiles = level.tiles
      guard text.utf8.count == tiles.count * width, text.allSatisfy(\.isHexDigit) else {
        throw TilecutError.invalidInput(
          path: directory + "/" + Manifest.fileName,
          reason: "its tile digests for floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) do not match the \(tiles.count) tiles it lists"
        )
      }
      var byTile: [TileCoordinate: Substring] = [:]
      var start = text.startIndex
      for tile in tiles {
        let end = text.index(start, offsetBy: width)
        byTile[tile] = text[start..<end]
        start = end
      }
      all[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] = byTile
    }
    digests = all
  }

  /// True when the manifest records a digest for every tile (a shard), so a changed
  /// tile can be named; otherwise only the content version over them all can be checked.
  package var recordsTileDigests: Bool { digests != nil }

  /// False when `digest` (a tile's SHA-256) is not the one the manifest records for it;
  /// without per-tile digests it is kept for `contentVersionMatches()` and passes.
  package mutating func matches(digest: String, floor: Floor, tileSize: Int, tile: TileCoordinate) -> Bool {
    guard let digests else {
      lines.append(template.path(floor: floor, tileSize: tileSize, tile: tile) + " " + digest + "\n")
      return true
    }
    guard let expected = digests[LevelKey(floor: floor, tileSize: tileSize, zoom: tile.zoom)]?[tile] else { return false }
    return digest.hasPrefix(expected)
  }

  /// Without per-tile digests: whether the tiles given to `matches` make the manifest's
  /// content version (true when there are digests or no content version).
  package func contentVersionMatches() -> Bool {
    guard digests == nil, let contentVersion else { return true }
    return String(SHA256Digest.hex(Array(lines.sorted().joined().utf8)).prefix(16)) == contentVersion
  }

  /// Refuses a tile whose bytes are not those the shard's manifest records.
  package mutating func check(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate, at place: String) throws {
    guard matches(digest: SHA256Digest.hex(bytes), floor: floor, tileSize: tileSize, tile: tile) else {
      throw TilecutError.invalidInput(
        path: place,
        reason:
          "is not the tile this shard's manifest records (its bytes changed after the shard was written); nothing was merged, run that shard again")
    }
  }

  /// For a shard without tile digests: the content version over every tile it gave.
  package func finish() throws {
    guard contentVersionMatches() else {
      throw TilecutError.invalidInput(
        path: directory,
        reason: "holds tiles whose bytes are not those its manifest's content version records; nothing was merged, run that shard again")
    }
  }
}
