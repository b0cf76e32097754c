import TilecutCore
import TilecutVips

/// Checks every tile `merge` takes from a shard against that shard's own manifest:
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

  /// Refuses a tile whose bytes are not those the shard's manifest records.
  package mutating func check(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate, at place: String) throws {
    let digest = Vips.sha256(of: bytes)
    guard let digests else {
      lines.append(template.path(floor: floor, tileSize: tileSize, tile: tile) + " " + digest + "\n")
      return
    }
    let expected = digests[LevelKey(floor: floor, tileSize: tileSize, zoom: tile.zoom)]?[tile]
    guard let expected, digest.hasPrefix(expected) else {
      throw TilecutError.invalidInput(
        path: place,
        reason:
          "is not the tile this shard's manifest records (its bytes changed after the shard was written); nothing was merged, run that shard again")
    }
  }

  /// For a shard without tile digests: the content version over every tile it gave.
  package func finish() throws {
    guard digests == nil, let contentVersion else { return }
    let version = String(Vips.sha256(of: Array(lines.sorted().joined().utf8)).prefix(16))
    guard version == contentVersion else {
      throw TilecutError.invalidInput(
        path: directory,
        reason: "holds tiles whose bytes are not those its manifest's content version records; nothing was merged, run that shard again")
    }
  }
}
