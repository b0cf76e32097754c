import CTilecutPlatform
import Foundation
import Synchronization

/// An output directory as a run replaces it, the same for every tile store: what it
/// held when inspected (its manifest and the entries that manifest accounts for), the
/// hidden staging directory the new output is built in, on the output's own file
/// system, and the swap that publishes staging whole (or the abort that drops it).
/// A store decides only what goes into staging; `merge` stages through a store too.
///
/// Ownership: an existing output is replaced only when every entry in it is
/// accounted for by its tilecut manifest (the tiles its runs list, the manifest,
/// the store files it names). The swap exchanges the very directory that was
/// inspected (device and inode compared, rolled back otherwise); when nothing
/// existed, the new tree is published with a rename that never replaces. An
/// output that is a mount point is staged inside itself and swapped entry by entry.
public final class StagedOutput: @unchecked Sendable {
  /// The output directory as the user named it ("." and ".." as the directory itself).
  public let path: String
  /// The option or argument that named the output, for error messages.
  let option: String
  static let stagingMarker = ".tilecut-staging-"
  /// The file inside every staging directory that says it is tilecut's (removed just
  /// before staging becomes the output): a user's file or folder named like staging
  /// has none, and is never taken for abandoned staging.
  static let stagingMarkerFile = ".tilecut-staging"
  static let stagingMarkerText = Array("tilecut staging\n".utf8)

  let state = Mutex<State>(State())
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

  /// The output directory at `path`, named by `option` in messages.
  public init(path: String, option: String = "--output") {
    var p = path
    while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
    // "." and ".." cannot be renamed: name the directory itself
    let last = URL(fileURLWithPath: p).lastPathComponent
    if last == "." || last == ".." || p == "." || p == ".." { p = URL(fileURLWithPath: p).standardizedFileURL.path }
    self.path = p
    self.option = option
  }

  deinit {
    let home = state.withLock { $0.home }
    if home >= 0 { close(home) }
  }

  /// The previous output's tiles as `checkTilesUnchanged` hashed them (see `previousDigest`).
  let previous = Mutex<[TileDigests.Key: PreviousTile]>([:])

  /// Set by `keepTiles()`: the run leaves every tile file where it is (they are the
  /// previous output's, unchanged), stages only the manifest, and the commit replaces
  /// only the manifest.
  public var keepsTiles: Bool { state.withLock { $0.keepsTiles } }

  var url: URL { URL(fileURLWithPath: path) }
  var parent: String {
    let p = url.deletingLastPathComponent().path
    return p.isEmpty ? "." : p
  }
  var baseName: String { url.lastPathComponent }

  /// What `inspect()` found, nil before it.
  var inspection: Inspection? { state.withLock { $0.inspection } }

  /// What `inspect()` found of the output's files, nil before it: the files and bytes
  /// per level, and the store files present.
  public var inspectedFiles: (tally: [LevelKey: (count: Int, bytes: Int)], storeFiles: Set<String>)? {
    inspection.map { ($0.tally, $0.storeFilesPresent) }
  }

  /// The output's manifest, validated, when it has one (after `inspect()`).
  public var existingManifest: Manifest? { state.withLock { $0.inspection?.manifest } }

  /// The staging directory, once `begin()` made it.
  public var stagingPath: String? { state.withLock { $0.staging } }

  // MARK: inspection

  /// Checks that the output is absent, empty, or wholly tilecut's, and holds it open
  /// until the swap. Throws one line naming the first path it may not replace.
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

  /// Marks an up-to-date output as checked now (its manifest's time), so a make rule
  /// on the manifest converges.
  public func markUpToDate() throws {
    let manifestPath = path + "/" + Manifest.fileName
    guard utimes(manifestPath, nil) == 0 else {
      throw TilecutError.output(path: manifestPath, reason: "cannot update its time (\(String(cString: strerror(errno))))")
    }
  }

  // MARK: staging and writing

  /// Inspects the output if that was not done, checks that the previous output's tiles
  /// are the bytes tilecut wrote, and makes the staging directory.
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

  /// Writes a file at `relativePath` in staging (its folders made as needed).
  public func write(_ bytes: [UInt8], to relativePath: String) throws {
    guard let writer, !aborted.load(ordering: .relaxed) else { throw TilecutError.cancelled }
    do { try writer.write(bytes, to: relativePath) } catch let error as TilecutError {
      try checkStagingInPlace()
      throw error
    }
  }

  /// Where a store file named `name` is written while the run goes on (after `begin()`).
  public func stagedFile(_ name: String) throws -> String {
    guard let staging = stagingPath else { throw TilecutError.output(path: path, reason: "the store was not begun") }
    try checkStagingInPlace()
    return staging + "/" + name
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

  /// Writes the output's other files (name → bytes, such as preview.html) and then the
  /// manifest into staging, the manifest recording each store file's digest as written
  /// (`storeFiles` names them). Returns the manifest as written.
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

  // MARK: abort

  /// Drops staging; the output stays as it was. Safe to call twice, and from a signal watchdog.
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
  func forgetStaging() {
    let slot = state.withLock { s -> Int32 in
      defer { s.noted = -1 }
      return s.noted
    }
    tc_forget_staging(slot)
  }
}
