import CTilecutPlatform
import Foundation

/// The previous output's tiles, checked before it is replaced: they must be the bytes
/// tilecut wrote, and their digests, taken then, serve tiles carried over from them.
extension StagedOutput {
  /// The previous output's tiles as `checkTilesUnchanged` hashed them: each one's
  /// SHA-256 and the file it was read from (device, inode, size, modification time).
  /// A tile carried over by a link is that very file: its digest is taken from here,
  /// not read and hashed a second time, while the file is still the one hashed.
  struct PreviousTile {
    var digest: TileDigests.Raw
    var file: FileStamp
  }

  /// What tells a file from any other and from itself rewritten.
  struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var seconds: Int
    var nanoseconds: Int

    init(_ st: stat) {
      device = UInt64(st.st_dev)
      inode = UInt64(st.st_ino)
      size = Int64(st.st_size)
      let modified = withUnsafePointer(to: st) { tc_stat_mtime_nanoseconds($0) }
      seconds = Int(modified / 1_000_000_000)
      nanoseconds = Int(modified % 1_000_000_000)
    }

    /// The stamp of the file at `path`, not followed; nil unless a regular file.
    init?(path: String) {
      var st = stat()
      guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
      self.init(st)
    }
  }

  /// The SHA-256 the tile check took of the previous output's file that is now this
  /// run's tile `key` at `relativePath` (linked into staging, or kept in place), while
  /// it is still that file.
  public func previousDigest(floor: Floor, tileSize: Int, tile: TileCoordinate, at relativePath: String) -> String? {
    previousDigest(TileDigests.Key(floor: floor, tileSize: tileSize, tile: tile), at: relativePath)
  }

  func previousDigest(_ key: TileDigests.Key, at relativePath: String) -> String? {
    guard let root = keepsTiles ? path : stagingPath, let known = previous.withLock({ $0[key] }),
      let now = FileStamp(path: root + "/" + relativePath), now == known.file
    else { return nil }
    return known.digest.hex
  }

  /// Before a run replaces the previous output, its tiles must be the bytes tilecut
  /// wrote, as its store files must match their digests: a tile someone changed is
  /// theirs, and stops the run like a foreign file. A level whose files are all there
  /// with another byte total than the manifest's holds a changed tile; when every
  /// level's count and total agree, the content version over every tile's bytes must
  /// too (a change that kept the size). A level missing tiles cannot be told apart
  /// from one a user thinned out: its tiles are made again. A manifest without a
  /// content version (an older tilecut's) is taken at its word.
  func checkTilesUnchanged(_ found: Inspection) throws {
    guard found.existed, let manifest = found.manifest, manifest.store == nil, let recorded = manifest.contentVersion,
      let template = try? TileNameTemplate(manifest.name)
    else { return }
    let refusal = { (what: String) in
      TilecutError.output(
        path: what,
        reason:
          "holds a tile whose bytes differ from those tilecut wrote (recorded in \(Manifest.fileName)); tilecut replaces only outputs it wrote: restore or delete the changed tile (a missing tile is made again), or move the output away"
      )
    }
    var hashed: [TileDigests.Key: PreviousTile] = [:]
    defer { previous.withLock { $0 = hashed } }
    let tileDigest = { (floor: Floor, size: Int, tile: TileCoordinate) throws -> String in
      let file = self.path + "/" + template.path(floor: floor, tileSize: size, tile: tile)
      guard let (bytes, st) = Self.regularFile(file) else { throw refusal(file) }
      let hex = SHA256Digest.hex(bytes)
      if let raw = TileDigests.Raw(hex: hex) {
        hashed[TileDigests.Key(floor: floor, tileSize: size, tile: tile)] = PreviousTile(digest: raw, file: FileStamp(st))
      }
      return hex
    }
    var complete = true
    var everyLevelDigested = true
    for level in manifest.levels {
      let have = found.tally[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] ?? (0, 0)
      guard have.count == level.tileCount else {
        complete = false
        continue
      }
      let folder = template.path(floor: level.floor, tileSize: level.tileSize, tile: TileCoordinate(zoom: level.zoom, x: 0, y: 0))
      let place =
        (folder.contains("/") ? path + "/" + String(folder[..<folder.lastIndex(of: "/")!]) : path)
        + " (floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom))"
      if let bytes = level.bytes, bytes != have.bytes { throw refusal(place) }
      guard level.tileCount > 0 else { continue }
      // a level whose digest the manifest records is checked alone, whatever other levels lack
      guard let recordedLevel = level.digest else {
        everyLevelDigested = false
        continue
      }
      if try manifest.levelDigest(level, hash: { SHA256Digest.hex($0) }, digest: tileDigest) != recordedLevel { throw refusal(place) }
    }
    // an older manifest records only the content version over every tile
    guard complete, !everyLevelDigested else { return }
    if try manifest.contentDigests(hash: { SHA256Digest.hex($0) }, digest: tileDigest).version != recorded { throw refusal(path) }
  }

  /// The bytes of a regular file and its status as it was read, without following a
  /// final link; nil otherwise.
  static func regularFile(_ file: String) -> (bytes: [UInt8], status: stat)? {
    let fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
    var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return nil }
      done += n
    }
    return (bytes, st)
  }
}
