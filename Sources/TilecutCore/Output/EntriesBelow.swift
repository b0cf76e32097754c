import Foundation

/// One entry under a directory, found without following symbolic links.
public struct TreeEntry {
  public var path: String
  public var isRegular: Bool
  public var isSymlink: Bool
  public var bytes: Int
}

/// Every file, link and odd entry under a directory (directories themselves left out),
/// relative to it; symbolic links are listed, never followed.
public func entriesBelow(_ root: String, limit: Int = 20_000_000) -> [TreeEntry] {
  var out: [TreeEntry] = []
  func walk(_ relative: String, depth: Int) {
    let dir = relative.isEmpty ? root : root + "/" + relative
    guard depth < 32, let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
    for name in names.sorted() where out.count < limit {
      let rel = relative.isEmpty ? name : relative + "/" + name
      var st = stat()
      guard lstat(dir + "/" + name, &st) == 0 else { continue }
      switch st.st_mode & S_IFMT {
      case S_IFDIR: walk(rel, depth: depth + 1)
      case S_IFREG: out.append(TreeEntry(path: rel, isRegular: true, isSymlink: false, bytes: Int(st.st_size)))
      case S_IFLNK: out.append(TreeEntry(path: rel, isRegular: false, isSymlink: true, bytes: 0))
      default: out.append(TreeEntry(path: rel, isRegular: false, isSymlink: false, bytes: 0))
      }
    }
  }
  walk("", depth: 0)
  return out
}
