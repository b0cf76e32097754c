import CTilecutPlatform
import Foundation
import Synchronization

/// The file-system work of staging: removing trees by descriptor, the staging marker
/// and its lock, abandoned staging, mount points.
extension StagedOutput {
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
