import Foundation

/// Reads a file inside `root` without following a symbolic link at any step, so a
/// link planted in a shard can never lead outside it.
public func readInside(_ root: String, _ relative: String, limit: Int = 64 << 20) throws -> [UInt8] {
  let fail = { (why: String) in TilecutError.invalidInput(path: root + "/" + relative, reason: why) }
  var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  guard fd >= 0 else { throw fail("cannot be read (\(String(cString: strerror(errno))))") }
  let parts = relative.split(separator: "/").map(String.init)
  for (i, part) in parts.enumerated() {
    guard part != "..", part != "." else {
      close(fd)
      throw fail("is outside its directory")
    }
    let last = i == parts.count - 1
    let next = openat(fd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (last ? 0 : O_DIRECTORY))
    let e = errno
    close(fd)
    guard next >= 0 else {
      throw fail(
        e == ELOOP || e == ENOTDIR
          ? "is a symbolic link or passes through one; tilecut does not follow links out of an output"
          : "cannot be read (\(String(cString: strerror(e))))")
    }
    fd = next
  }
  defer { close(fd) }
  var st = stat()
  guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw fail("is not a regular file") }
  guard Int(st.st_size) <= limit else { throw fail("is larger than any tile") }
  var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
  var done = 0
  while done < bytes.count {
    let n = bytes.withUnsafeMutableBytes { raw -> Int in
      guard let base = raw.baseAddress else { return 0 }
      return read(fd, base + done, raw.count - done)
    }
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else { break }
    done += n
  }
  guard done == bytes.count else { throw fail("changed while it was read") }
  return bytes
}
