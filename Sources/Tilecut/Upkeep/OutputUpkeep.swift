import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// Starts libvips (once per process), then runs `body`.
func withVips<T>(_ body: () throws -> T) throws -> T {
  try Vips.start()
  return try body()
}

/// Reads an output directory's manifest, validated against the tile grid, or says why not.
func loadManifest(_ directory: String) throws -> Manifest {
  let path = directory + "/" + Manifest.fileName
  var st = stat()
  guard lstat(path, &st) == 0 else {
    if let index = try? BuildingIndex.load(directory), let first = index.buildings.first {
      throw TilecutError.invalidInput(
        path: directory,
        reason:
          "holds a pyramid per building (\(index.buildings.map(\.id).joined(separator: ", "))), each with its own manifest: name one, e.g. \(directory)/\(first.id)"
      )
    }
    throw TilecutError.invalidInput(path: path, reason: "no manifest here; is this a tilecut output directory?")
  }
  guard (st.st_mode & S_IFMT) == S_IFREG else { throw TilecutError.invalidInput(path: path, reason: "is not a regular file") }
  guard st.st_size <= 256 << 20 else { throw TilecutError.invalidInput(path: path, reason: "is larger than any tilecut manifest") }
  guard let data = FileManager.default.contents(atPath: path) else {
    throw TilecutError.invalidInput(path: path, reason: "cannot be read")
  }
  let manifest: Manifest
  do { manifest = try Manifest.decode(data, path: path) } catch let error as TilecutError { throw error } catch {
    throw TilecutError.invalidInput(path: path, reason: "is not a valid tilecut manifest (\(decodingProblem(error)))")
  }
  try manifest.validate(path: path)
  return manifest
}

/// A decoding error in a few words.
func decodingProblem(_ error: any Error) -> String {
  switch error {
  case DecodingError.keyNotFound(let key, _): return "no \(key.stringValue)"
  case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c), DecodingError.dataCorrupted(let c):
    let at = c.codingPath.map(\.stringValue).joined(separator: ".")
    return at.isEmpty ? "not JSON" : "bad value at \(at)"
  default: return "not JSON"
  }
}

/// One entry under a directory, found without following symbolic links.
struct TreeEntry {
  var path: String
  var isRegular: Bool
  var isSymlink: Bool
  var bytes: Int
}

/// Every file, link and odd entry under a directory (directories themselves left out),
/// relative to it; symbolic links are listed, never followed.
func entriesBelow(_ root: String, limit: Int = 20_000_000) -> [TreeEntry] {
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

/// Every regular file under a directory, as paths relative to it.
func filesBelow(_ root: String) -> [String] { entriesBelow(root).filter(\.isRegular).map(\.path) }
