import CTilecutPlatform
import Foundation
import Synchronization

/// The directory store: tiles as files under the output directory, staged in a
/// hidden sibling on the same file system and swapped in whole at the end.
///
/// Ownership: an existing output is replaced only when every entry in it is
/// accounted for by its tilecut manifest (the tiles its runs list, the manifest,
/// the store files it names). The swap exchanges the very directory that was
/// inspected (device and inode compared, rolled back otherwise); when nothing
/// existed, the new tree is published with a rename that never replaces. An
/// output that is a mount point is staged inside itself and swapped entry by entry.
public final class DirectoryTileStore: TileStore, @unchecked Sendable {
  public let path: String
  /// The option or argument that named the output, for error messages.
  let option: String
  let template: TileNameTemplate?
  static let stagingMarker = ".tilecut-staging-"
  /// The file inside every staging directory that says it is tilecut's (removed just
  /// before staging becomes the output): a user's file or folder named like staging
  /// has none, and is never taken for abandoned staging.
  static let stagingMarkerFile = ".tilecut-staging"
  static let stagingMarkerText = Array("tilecut staging\n".utf8)

  private let state = Mutex<State>(State())
  private var writer: DirectoryTileWriter?
  /// Set by `abort()`: a late tile write from a worker must not recreate staging.
  private let aborted = Atomic<Bool>(false)
  private let removal = Mutex<Void>(())

  struct State {
    var inspection: Inspection?
    var staging: String?
    /// The folder staging was made in, opened at `begin()`: staging is removed through
    /// it wherever that folder is moved during the run.
    var home: Int32 = -1
    /// Staging's name in `home`, and its device and inode.
    var stagingName: String?
    var stagingIdentity: (UInt64, UInt64)?
    /// Staging's slot in the fatal-signal handler's list (tc_note_staging): a library
    /// that aborts the process removes it there.
    var noted: Int32 = -1
    /// The output directory inspected, held open until the swap.
    var hold: OutputHold?
    /// See `keepsTiles`.
    var keepsTiles = false
  }

  /// What `inspect()` found at the output path.
  struct Inspection {
    var existed = false
    var device: UInt64 = 0
    var inode: UInt64 = 0
    var mountPoint = false
    var manifest: Manifest?
    /// Files and bytes per level, and the store files present.
    var tally: [LevelKey: (count: Int, bytes: Int)] = [:]
    var storeFilesPresent: Set<String> = []
    /// Top-level entries the output holds (all accounted for).
    var topLevel: [String] = []
  }

  /// `template`: the names this run will write (nil for a store that only reads or merges
  /// with the manifest's own template).
  /// `digests`: where each tile's SHA-256 is kept as it is put (nil: not kept).
  public init(path: String, template: TileNameTemplate?, option: String = "--output", digests: TileDigests? = nil) {
    var p = path
    while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
    // "." and ".." cannot be renamed: name the directory itself
    let last = URL(fileURLWithPath: p).lastPathComponent
    if last == "." || last == ".." || p == "." || p == ".." { p = URL(fileURLWithPath: p).standardizedFileURL.path }
    self.path = p
    self.template = template
    self.option = option
    self.digests = digests
  }

  deinit {
    let home = state.withLock { $0.home }
    if home >= 0 { close(home) }
  }

  /// Each tile's SHA-256 as it was put, for the content version.
  let digests: TileDigests?

  /// The previous output's tiles as `checkTilesUnchanged` hashed them: each one's
  /// SHA-256 and the file it was read from (device, inode, size, modification time).
  /// A tile carried over by a link is that very file: its digest is taken from here,
  /// not read and hashed a second time, while the file is still the one hashed.
  private let previous = Mutex<[TileDigests.Key: PreviousTile]>([:])

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

  /// Set by `keepTiles()`: the run leaves every tile file where it is (they are the
  /// previous output's, unchanged), stages only the manifest, and the commit replaces
  /// only the manifest.
  public var keepsTiles: Bool { state.withLock { $0.keepsTiles } }

  public func stagedDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    if let hex = digests?.hex(floor: floor, tileSize: tileSize, tile: tile) { return hex }
    return previousDigest(floor: floor, tileSize: tileSize, tile: tile)
  }

  /// The SHA-256 the tile check took of the previous output's file that is now this
  /// run's tile (linked into staging, or kept in place), while it is still that file.
  func previousDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    guard let template, let root = keepsTiles ? path : stagingPath,
      let known = previous.withLock({ $0[TileDigests.Key(floor: floor, tileSize: tileSize, tile: tile)] }),
      let now = FileStamp(path: root + "/" + template.path(floor: floor, tileSize: tileSize, tile: tile)), now == known.file
    else { return nil }
    return known.digest.hex
  }

  var url: URL { URL(fileURLWithPath: path) }
  var parent: String {
    let p = url.deletingLastPathComponent().path
    return p.isEmpty ? "." : p
  }
  var baseName: String { url.lastPathComponent }

  public var existingManifest: Manifest? { state.withLock { $0.inspection?.manifest } }

  /// The staging directory, once `begin()` made it.
  public var stagingPath: String? { state.withLock { $0.staging } }

  // MARK: inspection

  public func inspect() throws {
    // opened first: what the walk below finds must be the directory held
    let hold = try OutputHold(path: path)
    let found = try Self.inspect(path: path, option: option)
    if found.existed {
      guard let hold, hold.identity == (found.device, found.inode), hold.isHeld(at: path) else {
        throw TilecutError.output(path: path, reason: "was replaced while tilecut inspected it; it was left as it is (run again)")
      }
    }
    state.withLock {
      $0.inspection = found
      $0.hold = found.existed ? hold : nil
    }
  }

  // MARK: up to date

  public func difference(from manifest: Manifest) -> String? {
    guard let found = state.withLock({ $0.inspection }) else { return "not inspected" }
    for level in manifest.levels {
      let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
      let have = found.tally[key] ?? (0, 0)
      if have.count != level.tileCount {
        return "floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) has \(have.count) tile files; the manifest lists \(level.tileCount)"
      }
      if let bytes = level.bytes, bytes != have.bytes {
        return "floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) holds \(have.bytes) bytes of tiles; the manifest says \(bytes)"
      }
    }
    for file in manifest.storeFiles ?? [] where !found.storeFilesPresent.contains(file) {
      return "\(file) is missing"
    }
    return nil
  }

  public func markUpToDate() throws {
    let manifestPath = path + "/" + Manifest.fileName
    guard utimes(manifestPath, nil) == 0 else {
      throw TilecutError.output(path: manifestPath, reason: "cannot update its time (\(String(cString: strerror(errno))))")
    }
  }

  // MARK: staging and writing

  public func begin() throws {
    if state.withLock({ $0.inspection }) == nil { try inspect() }
    guard let found = state.withLock({ $0.inspection }) else { return }
    try checkTilesUnchanged(found)
    // staging must be on the output's own file system: beside it, or inside it
    // when it is a mount point (a bind-mounted cache), where nothing can rename it
    let home = found.mountPoint ? path : parent
    if !found.mountPoint { Self.removeAbandonedStaging(in: parent, prefix: "." + baseName + Self.stagingMarker) }
    let name = (found.mountPoint ? "" : "." + baseName) + Self.stagingMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let staging = home + "/" + name
    let homeFD = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard homeFD >= 0 else {
      throw TilecutError.output(path: home, reason: "cannot create a staging directory here (\(String(cString: strerror(errno))))")
    }
    guard mkdirat(homeFD, name, 0o755) == 0 else {
      let e = errno
      close(homeFD)
      throw TilecutError.output(path: home, reason: "cannot create a staging directory here (\(String(cString: strerror(e))))")
    }
    var st = stat()
    let marked = Self.writeStagingMarker(in: homeFD, name)
    guard marked == 0, fstatat(homeFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
      let e = marked != 0 ? marked : errno
      Self.removeTree(in: homeFD, name)
      close(homeFD)
      throw TilecutError.output(path: home, reason: "cannot create a staging directory here (\(String(cString: strerror(e))))")
    }
    if found.existed && !found.mountPoint && UInt64(st.st_dev) != found.device {
      Self.removeTree(in: homeFD, name)
      close(homeFD)
      throw TilecutError.output(
        path: path, reason: "is on another file system than its parent but not a mount point tilecut can see; choose another output directory")
    }
    writer = DirectoryTileWriter(root: staging, createRoot: false)
    let noted = tc_note_staging(homeFD, name)
    state.withLock {
      $0.noted = noted
      $0.staging = staging
      $0.home = homeFD
      $0.stagingName = name
      $0.stagingIdentity = (UInt64(st.st_dev), UInt64(st.st_ino))
    }
  }

  /// After `begin()`, for a run whose tiles are exactly the previous output's (a source
  /// saved again with the same pixels): nothing is staged but the manifest, and
  /// `commit()` replaces the output's manifest alone, in one rename, instead of
  /// swapping in a tree of links to the same files. Only for an output that exists,
  /// is tilecut's and holds no file besides its tiles and manifest, on a file system
  /// that links (the previous manifest is linked into staging, to be put back if the
  /// output is found replaced after the rename); false otherwise, and nothing changes.
  /// After true, the caller must put no tile and no file but the manifest.
  public func keepTiles() -> Bool {
    guard let found = state.withLock({ $0.inspection }), found.existed, found.manifest != nil, found.storeFilesPresent.isEmpty,
      (found.manifest?.storeFiles ?? []).isEmpty,
      let (home, name, hold) = state.withLock({ s in s.stagingName.flatMap { n in s.hold.map { (s.home, n, $0) } } }), home >= 0,
      linkat(hold.directory, Manifest.fileName, home, name + "/" + Self.previousManifest, 0) == 0
    else { return false }
    state.withLock { $0.keepsTiles = true }
    return true
  }

  /// Where `keepTiles()` keeps the previous manifest in staging until the commit.
  static let previousManifest = ".previous-" + Manifest.fileName

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

  public func write(_ bytes: [UInt8], to relativePath: String) throws {
    guard let writer, !aborted.load(ordering: .relaxed) else { throw TilecutError.cancelled }
    do { try writer.write(bytes, to: relativePath) } catch let error as TilecutError {
      try checkStagingInPlace()
      throw error
    }
  }

  /// Refuses to go on when staging is no longer where its path says (the output's
  /// folder was moved or renamed during the run), naming the output, not staging.
  public func checkStagingInPlace() throws {
    guard let (staging, identity) = state.withLock({ s in s.staging.flatMap { p in s.stagingIdentity.map { (p, $0) } } }) else { return }
    guard let now = Self.identity(staging), now == identity else {
      throw TilecutError.output(
        path: path, reason: "its folder was moved or renamed during the run; nothing was published there (run again where it is now)")
    }
  }

  public func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    guard let template else { throw TilecutError.output(path: path, reason: "this store was opened without a name template") }
    try write(bytes, to: template.path(floor: floor, tileSize: tileSize, tile: tile))
    digests?.record(bytes, floor: floor, tileSize: tileSize, tile: tile)
  }

  public func stagedTile(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8] {
    guard let template, let staging = stagingPath else { throw TilecutError.output(path: path, reason: "the store was not begun") }
    let file = (keepsTiles ? path : staging) + "/" + template.path(floor: floor, tileSize: tileSize, tile: tile)
    guard let data = FileManager.default.contents(atPath: file) else {
      throw TilecutError.output(path: file, reason: "cannot be read back")
    }
    return [UInt8](data)
  }

  @discardableResult
  public func finish(manifest: Manifest, files: [String: [UInt8]]) throws -> Manifest {
    guard let staging = stagingPath else { throw TilecutError.output(path: path, reason: "the store was not begun") }
    var final = manifest
    let listed = Set(manifest.storeFiles ?? []).union(files.keys)
    final.storeFiles = listed.isEmpty ? nil : listed.sorted()
    do {
      for (name, bytes) in files.sorted(by: { $0.key < $1.key }) { try write(bytes, to: name) }
      // what each store file is as written here: a later run replaces it only while it still is
      var digests: [String: String] = [:]
      for name in final.storeFiles ?? [] {
        guard let digest = SHA256Digest.hex(ofFile: staging + "/" + name) else {
          throw TilecutError.output(path: staging + "/" + name, reason: "cannot be read back")
        }
        digests[name] = digest
      }
      final.storeFileDigests = digests.isEmpty ? nil : digests
      try write(Array(try final.encoded()), to: Manifest.fileName)
    } catch let error as TilecutError {
      throw error
    } catch {
      throw TilecutError.output(path: staging, reason: "cannot write the manifest (\(error.localizedDescription))")
    }
    return final
  }

  // MARK: commit

  public func commit() throws {
    guard let staging = stagingPath, let before = state.withLock({ $0.inspection }) else {
      throw TilecutError.output(path: path, reason: "the store was not begun")
    }
    try checkStagingInPlace()
    // what is at the output now must be what was inspected, and still all tilecut's
    let now: Inspection
    do { now = try Self.inspect(path: path, option: option) } catch let error as TilecutError {
      throw TilecutError.output(path: path, reason: "changed during the run (\(error.description)); it was left as it is")
    }
    let hold = state.withLock { $0.hold }
    guard now.existed == before.existed, now.device == before.device, now.inode == before.inode, hold?.isHeld(at: path) ?? true
    else {
      throw TilecutError.output(path: path, reason: "was created or replaced during the run; it was left as it is")
    }
    if state.withLock({ $0.keepsTiles }), let hold {
      try commitManifest(staging: staging, hold: hold)
      return
    }
    // from here staging becomes the output, and the output's old tree takes staging's
    // name: nothing the fatal-signal handler may remove
    forgetStaging()
    if now.mountPoint {
      try commitInPlace(staging: staging, found: now)
    } else if now.existed, let hold {
      try commitByExchange(staging: staging, hold: hold)
    } else if now.existed {
      throw TilecutError.output(path: path, reason: "was created during the run; it was left as it is")
    } else {
      try publishNew(staging: staging)
    }
    state.withLock {
      $0.staging = nil
      if $0.home >= 0 { close($0.home) }
      $0.home = -1
      $0.hold = nil
    }
  }

  /// `keepTiles()`: the staged manifest takes the place of the output's, in the very
  /// directory inspected (renamed into the folder held open), in one step. The
  /// previous manifest is kept under staging until the output is found still at its
  /// path, and put back otherwise; staging is then removed.
  private func commitManifest(staging: String, hold: OutputHold) throws {
    guard let (home, name) = state.withLock({ s in s.stagingName.map { (s.home, $0) } }), home >= 0 else {
      throw TilecutError.output(path: path, reason: "the store was not begun")
    }
    OutputHold.runBeforeSwap(path)
    guard hold.isHeld(at: path) else { throw TilecutError.output(path: path, reason: "was replaced during the run; it was left as it is") }
    guard renameat(home, name + "/" + Manifest.fileName, hold.directory, Manifest.fileName) == 0 else {
      throw Self.failure(path, "cannot move the new manifest in", errno)
    }
    guard let now = Self.identity(path), now == hold.identity else {
      // another directory is at the output's path now: the one held gets its manifest back
      _ = renameat(home, name + "/" + Self.previousManifest, hold.directory, Manifest.fileName)
      throw TilecutError.output(path: path, reason: "was replaced during the run; it was left as it is")
    }
    // staging (its marker, the previous manifest's link) goes as a dropped run's does
    abort()
  }

  /// Nothing existed: publish without ever replacing what may have appeared since.
  private func publishNew(staging: String) throws {
    unlink(staging + "/" + Self.stagingMarkerFile)
    Self.releaseStagingMarker(staging)
    if tc_fs_rename_noreplace(staging, path) == 0 { return }
    let e = errno
    if e == EEXIST || e == ENOTEMPTY {
      throw TilecutError.output(path: path, reason: "appeared during the run; it was left as it is (run again to replace it)")
    }
    guard Self.unsupported(e) else { throw Self.failure(path, "cannot move the new output in", e) }
    var st = stat()
    guard lstat(path, &st) != 0 else {
      throw TilecutError.output(path: path, reason: "appeared during the run; it was left as it is (run again to replace it)")
    }
    guard rename(staging, path) == 0 else { throw Self.failure(path, "cannot move the new output in", errno) }
  }

  /// Swaps staging and output in one step, checks that the directory that came out
  /// is the one inspected, still held open, with its manifest (swapping back
  /// otherwise), then deletes it.
  private func commitByExchange(staging: String, hold: OutputHold) throws {
    unlink(staging + "/" + Self.stagingMarkerFile)
    Self.releaseStagingMarker(staging)
    OutputHold.runBeforeSwap(path)
    if tc_fs_exchange(staging, path) == 0 {
      guard hold.isHeld(at: staging) else {
        // another directory came out: it goes back where it was, the new tree to staging's name
        guard tc_fs_exchange(staging, path) == 0 else {
          let e = errno
          // staging's name now holds that directory: nothing may remove it
          state.withLock { s in
            s.staging = nil
            if s.home >= 0 { close(s.home) }
            s.home = -1
          }
          let why = String(cString: strerror(e))
          throw TilecutError.output(
            path: path, reason: "was replaced during the run, and the swap could not be undone (\(why)): the directory found there is now \(staging)")
        }
        throw TilecutError.output(path: path, reason: "was replaced during the run; it was left as it is")
      }
      // the old tree now has staging's name: marked, so a run killed while it is
      // removed leaves what a later run recognises and removes
      _ = Self.writeStagingMarker(in: AT_FDCWD, staging)
      Self.releaseStagingMarker(staging)
      Self.removeTree(staging)
      return
    }
    let e = errno
    guard Self.unsupported(e) else { throw Self.failure(path, "cannot swap the new output in", e) }
    // a file system without exchange: move the old tree aside, then the new one in
    let aside = staging + "-old"
    guard rename(path, aside) == 0 else { throw Self.failure(path, "cannot move the previous output aside", errno) }
    guard hold.isHeld(at: aside) else {
      _ = rename(aside, path)
      throw TilecutError.output(path: path, reason: "was replaced during the run; it was left as it is")
    }
    guard rename(staging, path) == 0 else {
      let e = errno
      _ = rename(aside, path)
      throw Self.failure(path, "cannot move the new output in", e)
    }
    _ = Self.writeStagingMarker(in: AT_FDCWD, aside)
    Self.releaseStagingMarker(aside)
    Self.removeTree(aside)
  }

  /// A mount point cannot be renamed: swap its entries one by one, the manifest
  /// last, and undo every step if one fails.
  private func commitInPlace(staging: String, found: Inspection) throws {
    let fm = FileManager.default
    let incoming = ((try? fm.contentsOfDirectory(atPath: staging)) ?? []).filter { $0 != Self.stagingMarkerFile }
      .sorted { a, _ in a != Manifest.fileName }
    let trash = staging + "/" + Self.stagingMarker + "old"
    var undo: [() -> Void] = []
    func fail(_ what: String, _ e: Int32) -> TilecutError {
      for step in undo.reversed() { step() }
      return Self.failure(path, what, e)
    }
    let newNames = Set(incoming)
    // old entries the new tree does not have go into the trash
    guard mkdir(trash, 0o755) == 0 else { throw Self.failure(staging, "cannot prepare the swap", errno) }
    for name in found.topLevel where !newNames.contains(name) {
      let from = path + "/" + name
      let to = trash + "/" + name
      guard rename(from, to) == 0 else { throw fail("cannot move \(name) aside", errno) }
      undo.append { _ = rename(to, from) }
    }
    let ordered = incoming.filter { $0 != Manifest.fileName } + incoming.filter { $0 == Manifest.fileName }
    for name in ordered where name != Self.stagingMarker + "old" {
      let from = staging + "/" + name
      let to = path + "/" + name
      var st = stat()
      if lstat(to, &st) == 0 {
        if tc_fs_exchange(from, to) == 0 {
          undo.append { _ = tc_fs_exchange(from, to) }
          continue
        }
        let e = errno
        guard Self.unsupported(e) else { throw fail("cannot swap \(name) in", e) }
        let old = trash + "/" + name
        guard rename(to, old) == 0 else { throw fail("cannot move \(name) aside", errno) }
        undo.append { _ = rename(old, to) }
        guard rename(from, to) == 0 else { throw fail("cannot move \(name) in", errno) }
        undo.append { _ = rename(to, from) }
      } else {
        guard rename(from, to) == 0 else { throw fail("cannot move \(name) in", errno) }
        undo.append { _ = rename(to, from) }
      }
    }
    Self.removeTree(staging)
  }

  public func abort() {
    aborted.store(true, ordering: .relaxed)
    forgetStaging()
    // a second caller (the signal watchdog) waits until the first has removed it all
    removal.withLock { _ in
      let (staging, home, name) = state.withLock { s -> (String?, Int32, String?) in
        let v = (s.staging, s.home, s.stagingName)
        s.staging = nil
        s.home = -1
        s.hold = nil
        return v
      }
      guard let staging else { return }
      // through the folder opened at begin: staging goes wherever that folder went
      if home >= 0, let name {
        Self.releaseStagingMarker(in: home, name)
        Self.removeTree(in: home, name)
        close(home)
      } else {
        Self.releaseStagingMarker(staging)
        Self.removeTree(staging)
      }
    }
  }

  /// Takes staging off the fatal-signal handler's list.
  private func forgetStaging() {
    let slot = state.withLock { s -> Int32 in
      defer { s.noted = -1 }
      return s.noted
    }
    tc_forget_staging(slot)
  }
}
