import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes tiles under a root directory, each to a temporary name and then renamed,
/// so that no reader ever sees half a tile.
public final class DirectoryTileWriter: TileWriter {
  public let root: String
  private let madeDirectories = Mutex<Set<String>>([])

  public init(root: String) { self.root = root }

  public func write(_ bytes: [UInt8], to relativePath: String) throws {
    let path = root + "/" + relativePath
    if let slash = relativePath.lastIndex(of: "/") {
      let dir = root + "/" + relativePath[..<slash]
      let known = madeDirectories.withLock { $0.contains(dir) }
      if !known {
        do {
          try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
          throw TilecutError.output(path: dir, reason: "cannot create directory (\(error.localizedDescription))")
        }
        madeDirectories.withLock { _ = $0.insert(dir) }
      }
    }
    let temporary = path + ".part"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Self.failure(temporary, "cannot create file") }
    var offset = 0
    let failed: Int32? = bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return nil }
      while offset < raw.count {
        let n = Glibc.write(fd, base + offset, raw.count - offset)
        if n < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += n
      }
      return nil
    }
    if let failed {
      close(fd)
      unlink(temporary)
      throw TilecutError.output(path: path, reason: "cannot write (\(String(cString: strerror(failed))))")
    }
    guard close(fd) == 0 else {
      let e = errno
      unlink(temporary)
      throw TilecutError.output(path: path, reason: "cannot write (\(String(cString: strerror(e))))")
    }
    guard rename(temporary, path) == 0 else {
      let e = Self.failure(path, "cannot rename into place")
      unlink(temporary)
      throw e
    }
  }

  static func failure(_ path: String, _ what: String) -> TilecutError {
    TilecutError.output(path: path, reason: "\(what) (\(String(cString: strerror(errno))))")
  }
}
