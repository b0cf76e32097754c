import Foundation

extension ArchiveStoreDriver {
  /// An archive output lends tiles only when its manifest lists its tile sets.
  public func lendsTiles(_ previous: Manifest) -> Bool { previous.tileSets?.isEmpty == false }

  /// Tiles are carried out of the previous archives only when their files still hold
  /// what their manifest lists (`TileStore.difference(from:)`).
  public func carryOverDifference(_ store: any TileStore, previous: Manifest) -> String? { store.difference(from: previous) }

  /// Each tile's bytes read from the previous output's file of its floor and size and
  /// put into the new one (which takes its digest as for a rendered tile), once the
  /// files, opened once, hold the tiles the manifest's level digests record.
  public func tileCarrier(_ previous: Manifest, into store: any TileStore, staging: String, template: TileNameTemplate, inPlace: Bool) throws
    -> any TileCarrier
  {
    let archives = try PreviousArchives(self, location: store.path, manifest: previous)
    try archives.checkLevels(previous)
    return ArchiveTileCarrier(archives: archives, store: store)
  }
}

/// The previous output's archives, each tile set's file opened once by its store.
final class PreviousArchives {
  /// The output directory.
  let location: String
  /// By floor and tile size (zoom 0): the set's file, and the file opened.
  private var sets: [LevelKey: (file: String, reader: any StoreFileReader)] = [:]

  init(_ driver: any ArchiveStoreDriver, location: String, manifest: Manifest) throws {
    self.location = location
    // a floor and size listed twice (a manifest tilecut did not write): the first, as
    // `StoreReader` takes it
    for set in manifest.tileSets ?? [] where sets[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: 0)] == nil {
      let reader = try driver.openFile(path: location + "/" + set.file, name: set.file)
      sets[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: 0)] = (set.file, reader)
    }
  }

  /// The file of `floor`'s tile set at `tileSize`, nil when the output has none.
  func setFile(floor: Floor, tileSize: Int) -> String? { sets[LevelKey(floor: floor, tileSize: tileSize, zoom: 0)]?.file }

  /// The tile's bytes, nil when its set or its file has none; a stored tile of no bytes is refused.
  func read(floor: Floor, tileSize: Int, _ tile: TileCoordinate) throws -> [UInt8]? {
    guard let set = sets[LevelKey(floor: floor, tileSize: tileSize, zoom: 0)], let bytes = try set.reader.tile(tile) else { return nil }
    guard !bytes.isEmpty else { throw StoreCell.emptyTile(tile, at: location + "/" + set.file) }
    return bytes
  }

  /// The previous archives' tiles must be those tilecut wrote before any is carried:
  /// each level's tiles, read from its archive, must make the level's `digest` the
  /// manifest records (the store file's own digest proves nothing: whoever changed a
  /// tile can write the file's new SHA-256 beside it). A manifest without level
  /// digests is checked by its content version over every tile.
  func checkLevels(_ previous: Manifest) throws {
    var file = location
    func refusal(_ what: String) -> TilecutError {
      TilecutError.output(
        path: what,
        reason:
          "holds tiles whose bytes differ from those tilecut wrote (the level digests of \(Manifest.fileName)); tilecut carries over only tiles it wrote: restore the file, or move the output away (--force makes every tile again)"
      )
    }
    let digest = { (floor: Floor, size: Int, tile: TileCoordinate) throws -> String in
      guard let name = self.setFile(floor: floor, tileSize: size) else { throw refusal(self.location) }
      file = self.location + "/" + name
      guard let bytes = try self.read(floor: floor, tileSize: size, tile) else { throw refusal(file) }
      return SHA256Digest.hex(bytes)
    }
    var undigested = false
    for level in previous.levels where level.tileCount > 0 {
      guard let recorded = level.digest else {
        undigested = true
        continue
      }
      if try previous.levelDigest(level, hash: { SHA256Digest.hex($0) }, digest: digest) != recorded {
        throw refusal(file + " (floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom))")
      }
    }
    if undigested, let recorded = previous.contentVersion {
      if try previous.contentDigests(hash: { SHA256Digest.hex($0) }, digest: digest).version != recorded { throw refusal(location) }
    }
  }
}

/// Carries a tile out of the previous archive of its floor and size into the new one.
final class ArchiveTileCarrier: TileCarrier {
  let archives: PreviousArchives
  let store: any TileStore

  init(archives: PreviousArchives, store: any TileStore) {
    self.archives = archives
    self.store = store
  }

  func carry(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> Int {
    guard let bytes = try archives.read(floor: floor, tileSize: tileSize, tile) else {
      throw TilecutError.output(
        path: store.path,
        reason: "floor \(floor) \(tileSize) px tile \(tile) is listed in the manifest but not in its file; run again with --force")
    }
    try store.put(bytes, floor: floor, tileSize: tileSize, tile: tile)
    return bytes.count
  }
}
