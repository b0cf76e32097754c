import Foundation
import Synchronization

/// The output directory a run inspected, held open from inspection to the swap, with
/// its tilecut manifest: while tilecut holds them their inode numbers cannot be given
/// to anything new, so a directory found at the output's path (or swapped out of it)
/// with the same device and inode, and the same manifest in it, is the one inspected.
/// (Without the hold, a folder made where the output was deleted could get the old
/// directory's inode number back and be taken for it, then deleted with the user's
/// files: 1 trial in 6 on ext4.)
package final class OutputHold: @unchecked Sendable {
  /// The directory, open; its device and inode.
  let directory: Int32
  let identity: (UInt64, UInt64)
  /// Its `manifest.json`, open when it is a regular file; its device and inode.
  let manifest: Int32
  let manifestIdentity: (UInt64, UInt64)?

  /// Opens the directory at `path` (never through a link); nil when nothing is there.
  init?(path: String) throws {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
      let e = errno
      // absent, or not a directory: inspection says which
      if e == ENOENT || e == ENOTDIR || e == ELOOP { return nil }
      throw TilecutError.output(path: path, reason: "cannot be opened (\(String(cString: strerror(e))))")
    }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
      close(fd)
      return nil
    }
    directory = fd
    identity = (UInt64(st.st_dev), UInt64(st.st_ino))
    let m = openat(fd, Manifest.fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
    var mst = stat()
    if m >= 0, fstat(m, &mst) == 0, (mst.st_mode & S_IFMT) == S_IFREG {
      manifest = m
      manifestIdentity = (UInt64(mst.st_dev), UInt64(mst.st_ino))
    } else {
      if m >= 0 { close(m) }
      manifest = -1
      manifestIdentity = nil
    }
  }

  deinit {
    close(directory)
    if manifest >= 0 { close(manifest) }
  }

  /// Whether the directory at `path` (not followed) is the one held, holding the held
  /// manifest (or, when none was held, none that is a regular file).
  func isHeld(at path: String) -> Bool {
    guard let found = Self.identity(path), found == identity else { return false }
    let manifestNow = Self.identity(path + "/" + Manifest.fileName, regular: true)
    switch (manifestNow, manifestIdentity) {
    case (nil, nil): return true
    case (let a?, let b?): return a == b
    default: return false
    }
  }

  /// Device and inode of `path`, not followed (`regular`: only of a regular file).
  static func identity(_ path: String, regular: Bool = false) -> (UInt64, UInt64)? {
    var st = stat()
    guard lstat(path, &st) == 0, !regular || (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    return (UInt64(st.st_dev), UInt64(st.st_ino))
  }

  /// Tests' way in between the last check and the swap, keyed by the output's path (a
  /// test replaces the output there, as a user or a program might): empty outside tests.
  package static let beforeSwap = Mutex<[String: @Sendable () -> Void]>([:])

  static func runBeforeSwap(_ path: String) {
    let hook = beforeSwap.withLock { $0[path] }
    hook?()
  }
}
