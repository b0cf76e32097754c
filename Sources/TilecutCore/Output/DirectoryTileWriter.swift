import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes tiles under a root directory. The root is a staging directory that is
/// swapped in whole when the run succeeds, so no reader ever sees half a tile and
/// each file is written once, in place (a rename per tile would double the
/// directory updates, the largest system cost of a run).
public final class DirectoryTileWriter: TileWriter {
  public let root: String
  /// How tiles are named under the root.
  public let template: TileNameTemplate?
  private let madeDirectories = Mutex<Set<String>>([])

  public init(root: String, template: TileNameTemplate? = nil) {
    self.root = root
    self.template = template
  }

  public func put(_ bytes: [UInt8], floor: Int, tileSize: Int, tile: TileCoordinate) throws {
    guard let template else { throw TilecutError.output(path: root, reason: "no name template for tiles") }
    try write(bytes, to: template.path(floor: floor, tileSize: tileSize, tile: tile))
  }

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
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Self.failure(path, "cannot create file") }
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
      unlink(path)
      throw TilecutError.output(path: path, reason: "cannot write (\(String(cString: strerror(failed))))")
    }
    guard close(fd) == 0 else {
      let e = errno
      unlink(path)
      throw TilecutError.output(path: path, reason: "cannot write (\(String(cString: strerror(e))))")
    }
  }

  static func failure(_ path: String, _ what: String) -> TilecutError {
    TilecutError.output(path: path, reason: "\(what) (\(String(cString: strerror(errno))))")
  }
}
