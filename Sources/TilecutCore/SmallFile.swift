import Foundation

/// A small text input (a KML, world file, `.prj`, project file, manifest or style file)
/// read whole only after its size is checked with `fstat` on the opened file, so a huge
/// or sparse file is refused before a byte of it is held in memory.
public enum SmallFile {
  /// Why a file was not read.
  public enum Problem: Error, Equatable {
    /// It could not be opened (the `errno` text).
    case unreadable(String)
    /// A FIFO, socket, device or directory.
    case notRegular
    /// Its size (bytes) is over the limit.
    case tooLarge(Int64)
    /// It was shorter or longer when read than `fstat` said.
    case changed
  }

  /// The bytes of the regular file at `path` when it holds at most `maxBytes`.
  public static func read(_ path: String, maxBytes: Int) throws(Problem) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw .notRegular }
    guard Int64(st.st_size) <= Int64(maxBytes) else { throw .tooLarge(Int64(st.st_size)) }
    var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { raw -> Int in
        guard let base = raw.baseAddress else { return 0 }
        return Foundation.read(fd, base + done, raw.count - done)
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { break }
      done += n
    }
    // a file that grew after fstat is as suspect as one cut short
    var extra: UInt8 = 0
    guard done == bytes.count, Foundation.read(fd, &extra, 1) == 0 else { throw .changed }
    return bytes
  }
}
