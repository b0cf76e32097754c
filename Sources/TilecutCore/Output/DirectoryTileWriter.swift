import CTilecutPlatform
import Foundation
import Synchronization

/// Writes tiles under a root directory. The root is a staging directory that is
/// swapped in whole when the run succeeds, so no reader ever sees half a tile and
/// each file is written once, in place (a rename per tile would double the
/// directory updates, the largest system cost of a run).
public final class DirectoryTileWriter: TileWriter {
  public let root: String
  /// How tiles are named under the root.
  public let template: TileNameTemplate?
  private let madeDirectories = Mutex<Set<String>>([])

  /// `createRoot`: make the root (and its parents) now; a store's staging root exists already.
  public init(root: String, template: TileNameTemplate? = nil, createRoot: Bool = true) {
    self.root = root
    self.template = template
    if createRoot { try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true) }
  }

  public func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    guard let template else { throw TilecutError.output(path: root, reason: "no name template for tiles") }
    try write(bytes, to: template.path(floor: floor, tileSize: tileSize, tile: tile))
  }

  public func write(_ bytes: [UInt8], to relativePath: String) throws {
    let path = root + "/" + relativePath
    if let slash = relativePath.lastIndex(of: "/") {
      let dir = root + "/" + relativePath[..<slash]
      let known = madeDirectories.withLock { $0.contains(dir) }
      if !known {
        // folder by folder below the root, never the root itself: a staging root
        // removed by an interrupt must stay removed
        var made = root
        for component in relativePath[..<slash].split(separator: "/") {
          made += "/" + component
          if mkdir(made, 0o755) != 0 && errno != EEXIST {
            throw Self.failure(made, "cannot create directory")
          }
        }
        madeDirectories.withLock { _ = $0.insert(dir) }
      }
    }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw Self.failure(path, "cannot create file") }
    let failed: Int32? = bytes.withUnsafeBytes { raw in
      guard let base = raw.baseAddress else { return nil }
      let e = tc_write_all(fd, base, raw.count)
      return e == 0 ? nil : e
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
