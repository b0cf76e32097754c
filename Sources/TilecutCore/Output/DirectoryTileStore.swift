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

  public func stagedDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    digests?.hex(floor: floor, tileSize: tileSize, tile: tile)
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

  /// Inspects a directory without planning to replace it (a shard to merge, an output to verify).
  public static func inspectForReading(_ path: String, option: String) throws -> (manifest: Manifest, tally: [LevelKey: (count: Int, bytes: Int)]) {
    let found = try inspect(path: path, option: option, reading: true)
    guard let manifest = found.manifest else {
      throw TilecutError.invalidInput(path: path + "/" + Manifest.fileName, reason: "no manifest here; is this a tilecut output directory?")
    }
    return (manifest, found.tally)
  }

  static func inspect(path: String, option: String, reading: Bool = false) throws -> Inspection {
    var found = Inspection()
    var st = stat()
    guard lstat(path, &st) == 0 else {
      let e = errno
      if reading { throw TilecutError.invalidInput(path: path, reason: "cannot be read (\(String(cString: strerror(e))))") }
      guard e == ENOENT else { throw TilecutError.output(path: path, reason: "cannot be inspected (\(String(cString: strerror(e))))") }
      let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
      var pst = stat()
      guard stat(parent.isEmpty ? "." : parent, &pst) == 0, (pst.st_mode & S_IFMT) == S_IFDIR else {
        throw TilecutError.invalidOption(option: option, reason: "the parent directory of '\(path)' does not exist")
      }
      return found
    }
    switch st.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK:
      throw TilecutError.invalidOption(option: option, reason: "'\(path)' is a symbolic link; name the directory itself")
    default:
      throw TilecutError.invalidOption(option: option, reason: "'\(path)' is an existing file, not a directory")
    }
    found.existed = true
    found.device = UInt64(st.st_dev)
    found.inode = UInt64(st.st_ino)
    found.mountPoint = isMountPoint(path, device: found.device)

    let manifestPath = path + "/" + Manifest.fileName
    var manifestProblem: String?
    var mst = stat()
    if lstat(manifestPath, &mst) == 0 {
      if (mst.st_mode & S_IFMT) != S_IFREG {
        manifestProblem = "is not a regular file"
      } else if mst.st_size > 256 << 20 {
        manifestProblem = "is larger than any tilecut manifest"
      } else if let data = FileManager.default.contents(atPath: manifestPath) {
        do {
          let manifest = try Manifest.decode(data, path: manifestPath)
          if manifest.format == Manifest.formatName {
            // a tilecut manifest with numbers that do not fit: say which
            try manifest.validate(path: manifestPath)
            found.manifest = manifest
          } else {
            manifestProblem = "is not a tilecut manifest"
          }
        } catch let error as TilecutError {
          throw error
        } catch {
          manifestProblem = "is not a tilecut manifest"
        }
      }
    }
    if reading {
      if let manifestProblem { throw TilecutError.invalidInput(path: manifestPath, reason: manifestProblem) }
      if found.manifest == nil {
        throw TilecutError.invalidInput(path: manifestPath, reason: "no manifest here; is this a tilecut output directory?")
      }
    }
    let manifest = found.manifest
    let owned = Ownership(manifest: manifest)
    var firstForeign: String?
    var foreignReason: String?
    var entries = 0
    func walk(_ relative: String, depth: Int) {
      guard firstForeign == nil else { return }
      let dir = relative.isEmpty ? path : path + "/" + relative
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
        firstForeign = relative.isEmpty ? path : relative
        return
      }
      for name in names.sorted() {
        guard firstForeign == nil else { return }
        let rel = relative.isEmpty ? name : relative + "/" + name
        if relative.isEmpty && !reading && name.hasPrefix(stagingMarker) && isStaging(dir, name) {
          // staging of a run on this mount point; removed when its run was killed.
          // Anything else named like it is the user's, accounted for below.
          if let pid = stagingOwner(name), pid > 0, pid != getpid(), !processAlive(pid), !stagingLocked(dir, name) {
            removeTree(dir + "/" + name)
          }
          continue
        }
        entries += 1
        if entries > 50_000_000 {
          firstForeign = rel
          return
        }
        var est = stat()
        guard lstat(dir + "/" + name, &est) == 0 else {
          firstForeign = rel
          return
        }
        switch est.st_mode & S_IFMT {
        case S_IFDIR:
          if depth >= 32 {
            firstForeign = rel
            return
          }
          let before = entries
          walk(rel, depth: depth + 1)
          // an empty folder is ours only where the template makes folders
          if entries == before && firstForeign == nil && !owned.mayBeFolder(rel) { firstForeign = rel }
        case S_IFREG:
          if rel == Manifest.fileName, manifest != nil { continue }
          if owned.storeFiles.contains(rel) {
            if !reading, let why = owned.storeFileProblem(rel, at: dir + "/" + name) {
              firstForeign = rel
              foreignReason = why
              return
            }
            found.storeFilesPresent.insert(rel)
            continue
          }
          if let key = owned.level(of: rel) {
            let size = Int(est.st_size)
            found.tally[key, default: (0, 0)].count += 1
            found.tally[key, default: (0, 0)].bytes += size
            continue
          }
          firstForeign = rel
        default:
          firstForeign = rel
        }
      }
      if relative.isEmpty { found.topLevel = names.filter { !($0.hasPrefix(stagingMarker) && isStaging(dir, $0)) }.sorted() }
    }
    walk("", depth: 0)
    if let foreign = firstForeign {
      let full = foreign == path ? path : path + "/" + foreign
      if reading {
        throw TilecutError.invalidInput(
          path: full, reason: "is not listed in the manifest (a tilecut output holds only its tiles, manifest and preview); it will not be read")
      }
      let why: String
      if let foreignReason {
        why = foreignReason
      } else if let manifestProblem {
        why = "\(path)/\(Manifest.fileName) \(manifestProblem)"
      } else if manifest == nil {
        why = "\(path) has no tilecut manifest"
      } else {
        why = "not listed in \(path)/\(Manifest.fileName)"
      }
      throw TilecutError.output(
        path: full,
        reason: "is not tilecut's (\(why)); tilecut replaces only outputs it wrote: move it away or choose another output directory")
    }
    if manifest == nil, manifestProblem != nil, !found.topLevel.isEmpty {
      throw TilecutError.output(
        path: manifestPath, reason: "is not tilecut's; tilecut replaces only outputs it wrote: move it away or choose another output directory")
    }
    return found
  }

  /// Which files a manifest accounts for.
  struct Ownership {
    let manifest: Manifest?
    let template: TileNameTemplate?
    let storeFiles: Set<String>
    let levels: [LevelKey: Manifest.Level]
    let folderDepth: Int

    init(manifest: Manifest?) {
      self.manifest = manifest
      template = manifest.flatMap { try? TileNameTemplate($0.name) }
      var files = Set(manifest?.storeFiles ?? [])
      // outputs of earlier versions did not list their preview page
      if manifest != nil { files.insert("preview.html") }
      storeFiles = files
      var levels: [LevelKey: Manifest.Level] = [:]
      for l in manifest?.levels ?? [] { levels[LevelKey(floor: l.floor, tileSize: l.tileSize, zoom: l.zoom)] = l }
      self.levels = levels
      folderDepth = template.map { $0.pattern.split(separator: "/").count - 1 } ?? 0
    }

    /// Why a store file the manifest lists may not be tilecut's, or nil when it is:
    /// its bytes must be those the manifest's digest records. A manifest of an earlier
    /// version records none: then only a preview page that reads as tilecut's, or an
    /// MBTiles file of its `tileSets` that is an SQLite database, counts as tilecut's.
    func storeFileProblem(_ relative: String, at path: String) -> String? {
      guard let manifest else { return "no manifest lists it" }
      if let recorded = manifest.storeFileDigests?[relative] {
        guard let digest = SHA256Digest.hex(ofFile: path) else { return "it cannot be read" }
        return digest == recorded ? nil : "its bytes differ from those tilecut wrote, recorded in \(Manifest.fileName)"
      }
      let unverified = "\(Manifest.fileName) lists it without the digest tilecut records for its own files"
      var head = [UInt8](repeating: 0, count: 512)
      let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      guard fd >= 0 else { return "it cannot be read" }
      let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      close(fd)
      let start = n > 0 ? Array(head[..<n]) : []
      if relative == "preview.html" {
        let text = String(decoding: start, as: UTF8.self)
        return text.hasPrefix("<!DOCTYPE html>") && text.contains("<title>tilecut preview</title>") ? nil : unverified
      }
      if (manifest.tileSets ?? []).contains(where: { $0.file == relative }) {
        return start.starts(with: Array("SQLite format 3\u{0}".utf8)) ? nil : unverified
      }
      return unverified
    }

    func mayBeFolder(_ relative: String) -> Bool {
      manifest != nil && relative.split(separator: "/").count <= folderDepth
    }

    /// The level a file belongs to, when the manifest lists it as a tile.
    func level(of relative: String) -> LevelKey? {
      guard let manifest, let template, let name = template.match(relative), let z = name.zoom, let x = name.x, let y = name.y else {
        return nil
      }
      guard let floor = name.floor ?? (manifest.floors.count == 1 ? manifest.floors[0] : nil),
        let size = name.tileSize ?? (manifest.tileSizes.count == 1 ? manifest.tileSizes[0] : nil)
      else { return nil }
      let key = LevelKey(floor: floor, tileSize: size, zoom: z)
      guard let level = levels[key], level.hasTile(x: x, y: y) else { return nil }
      return key
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
    let tileDigest = { (floor: Floor, size: Int, tile: TileCoordinate) throws -> String in
      let file = self.path + "/" + template.path(floor: floor, tileSize: size, tile: tile)
      guard let bytes = Self.regularFileBytes(file) else { throw refusal(file) }
      return SHA256Digest.hex(bytes)
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

  /// The bytes of a regular file, without following a final link; nil otherwise.
  static func regularFileBytes(_ file: String) -> [UInt8]? {
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
    return bytes
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
    let file = staging + "/" + template.path(floor: floor, tileSize: tileSize, tile: tile)
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

  // MARK: helpers

  /// Deletes a tree without following symbolic links: the one place tilecut removes files.
  /// A few passes, because a worker may still finish a tile while an interrupt removes staging.
  static func removeTree(_ path: String) { removeTree(in: AT_FDCWD, path) }

  /// Deletes `name` in the directory open as `directory`, descending by descriptors.
  static func removeTree(in directory: Int32, _ name: String) {
    for _ in 0..<5 {
      var st = stat()
      guard fstatat(directory, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return }
      guard (st.st_mode & S_IFMT) == S_IFDIR else {
        unlinkat(directory, name, 0)
        return
      }
      let fd = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
      if fd >= 0 {
        for child in names(in: fd) { removeTree(in: fd, child) }
        close(fd)
      }
      if unlinkat(directory, name, AT_REMOVEDIR) == 0 || errno == ENOENT { return }
      usleep(2_000)
    }
  }

  /// The entries of an open directory (without "." and ".."); `fd` stays open.
  static func names(in fd: Int32) -> [String] {
    let copy = dup(fd)
    guard copy >= 0 else { return [] }
    guard let dir = fdopendir(copy) else {
      close(copy)
      return []
    }
    defer { closedir(dir) }
    var out: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
        guard let base = raw.baseAddress else { return "" }
        return String(cString: base.assumingMemoryBound(to: CChar.self))
      }
      if name != "." && name != ".." && !name.isEmpty { out.append(name) }
    }
    return out
  }

  /// The markers of this process's staging, open and locked (`flock`) while their run
  /// lives, by the staging directory's device and inode: another run, even one whose
  /// process it cannot see (another PID namespace: a second container on a shared
  /// volume), finds the lock held and leaves the staging alone.
  static let heldMarkers = Mutex<[String: Int32]>([:])

  /// Puts the marker in a new staging directory and locks it; 0 or the errno that stopped it.
  static func writeStagingMarker(in directory: Int32, _ name: String) -> Int32 {
    let dir = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard dir >= 0 else { return errno }
    defer { close(dir) }
    let fd = openat(dir, stagingMarkerFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return errno }
    let e = stagingMarkerText.withUnsafeBytes { raw in raw.baseAddress.map { tc_write_all(fd, $0, raw.count) } ?? 0 }
    var st = stat()
    // a file system without locks (some network mounts) leaves the process check alone
    guard e == 0, flock(fd, LOCK_EX | LOCK_NB) == 0, fstat(dir, &st) == 0 else {
      close(fd)
      return e
    }
    let old = heldMarkers.withLock { held -> Int32? in
      defer { held["\(st.st_dev):\(st.st_ino)"] = fd }
      return held["\(st.st_dev):\(st.st_ino)"]
    }
    if let old { close(old) }
    return 0
  }

  /// Closes the marker lock of the staging at `path` (published or removed).
  static func releaseStagingMarker(in directory: Int32 = AT_FDCWD, _ path: String) {
    var st = stat()
    guard fstatat(directory, path, &st, 0) == 0 else { return }
    if let fd = heldMarkers.withLock({ $0.removeValue(forKey: "\(st.st_dev):\(st.st_ino)") }) { close(fd) }
  }

  /// Whether a live run holds the marker of staging `name` (its lock is taken).
  static func stagingLocked(in directory: Int32, _ name: String) -> Bool {
    let dir = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard dir >= 0 else { return false }
    defer { close(dir) }
    let marker = openat(dir, stagingMarkerFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard marker >= 0 else { return false }
    defer { close(marker) }
    if flock(marker, LOCK_EX | LOCK_NB) == 0 {
      flock(marker, LOCK_UN)
      return false
    }
    return errno == EWOULDBLOCK
  }

  static func stagingLocked(_ directory: String, _ name: String) -> Bool {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return stagingLocked(in: fd, name)
  }

  /// True only for tilecut's staging: a directory (not a link), owned by this user,
  /// holding the marker file tilecut puts in it.
  static func isStaging(_ directory: String, _ name: String) -> Bool {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return isStaging(in: fd, name)
  }

  static func isStaging(in directory: Int32, _ name: String) -> Bool {
    let dir = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard dir >= 0 else { return false }
    defer { close(dir) }
    var st = stat()
    guard fstat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == geteuid() else { return false }
    let marker = openat(dir, stagingMarkerFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    guard marker >= 0 else { return false }
    defer { close(marker) }
    var mst = stat()
    guard fstat(marker, &mst) == 0, (mst.st_mode & S_IFMT) == S_IFREG, Int(mst.st_size) == stagingMarkerText.count,
      mst.st_uid == geteuid()
    else { return false }
    var bytes = [UInt8](repeating: 0, count: stagingMarkerText.count)
    let n = bytes.withUnsafeMutableBytes { raw in raw.baseAddress.map { read(marker, $0, raw.count) } ?? -1 }
    return n == stagingMarkerText.count && bytes == stagingMarkerText
  }

  /// Removes staging directories left by runs that were killed (their process is gone);
  /// a file or folder of the user's that is only named like staging is left alone.
  static func removeAbandonedStaging(in directory: String, prefix: String) {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    defer { close(fd) }
    for entry in names(in: fd) where entry.hasPrefix(prefix) {
      guard let pid = Int32(entry.dropFirst(prefix.count).split(separator: "-").first ?? ""), pid > 0 else { continue }
      if pid != getpid() && !processAlive(pid) && isStaging(in: fd, entry) && !stagingLocked(in: fd, entry) {
        removeTree(in: fd, entry)
      }
    }
  }

  static func stagingOwner(_ name: String) -> Int32? {
    Int32(name.dropFirst(stagingMarker.count).split(separator: "-").first ?? "")
  }

  static func processAlive(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno == EPERM }

  static func identity(_ path: String) -> (UInt64, UInt64)? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    return (UInt64(st.st_dev), UInt64(st.st_ino))
  }

  static func unsupported(_ e: Int32) -> Bool { e == ENOSYS || e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP }

  static func failure(_ path: String, _ what: String, _ e: Int32) -> TilecutError {
    TilecutError.output(path: path, reason: "\(what) (\(String(cString: strerror(e))))")
  }

  /// True when `path` is a mount point: another device than its parent, or listed
  /// as a mount point by the kernel (a bind mount of the same device).
  static func isMountPoint(_ path: String, device: UInt64) -> Bool {
    let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var pst = stat()
    if stat(parent.isEmpty ? "." : parent, &pst) == 0, UInt64(pst.st_dev) != device { return true }
    // Linux: a bind mount keeps the device, so ask the kernel's mount table too.
    // macOS has no bind mounts (and no /proc): the device comparison above is its check.
    if tc_has_mount_table() != 0 {
      guard let real = realpath(path, nil) else { return false }
      let resolved = String(cString: real)
      free(real)
      guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return false }
      for line in text.split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count > 4 else { continue }
        if unescapeMountField(String(fields[4])) == resolved { return true }
      }
    }
    return false
  }

  /// mountinfo writes space, tab, newline and backslash as octal escapes.
  static func unescapeMountField(_ s: String) -> String {
    guard s.contains("\\") else { return s }
    var out: [UInt8] = []
    let b = Array(s.utf8)
    var i = 0
    while i < b.count {
      if b[i] == UInt8(ascii: "\\"), i + 3 < b.count,
        let v = UInt8(String(decoding: b[i + 1...i + 3], as: UTF8.self), radix: 8)
      {
        out.append(v)
        i += 4
      } else {
        out.append(b[i])
        i += 1
      }
    }
    return String(decoding: out, as: UTF8.self)
  }
}
