import CTilecutPlatform
import Foundation

/// The swap: staging published in the output's place in one step, or the output left
/// as it was when it is no longer the directory inspected.
extension StagedOutput {
  /// Publishes staging in place of the output in one step and removes what it replaced.
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
}
