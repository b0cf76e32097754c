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

/// Every regular file under a directory, as paths relative to it.
func filesBelow(_ root: String) -> [String] { entriesBelow(root).filter(\.isRegular).map(\.path) }
