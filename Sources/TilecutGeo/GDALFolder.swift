import Foundation
import TilecutCore

/// A private folder GDAL opens a raster in: a link to the raster and one to each of its
/// sidecars that tilecut vetted (a regular file named after it, resolving inside its
/// folder: `SidecarPath`), nothing else. GDAL's drivers look for sidecars by listing the
/// raster's folder (the GeoTIFF driver lists it again whatever sibling list it is
/// given), so the folder they list holds only what may be read: a link out of the
/// input's folder, `/proc/self/environ` behind `plan.IMD`, is never opened, nor is a
/// sidecar GDAL reads whole that is larger than `SidecarPath.maxReadWholeBytes`
/// (`SourceImage.checkSidecars` refused the input for it first).
struct GDALFolder {
  /// The private folder.
  let path: String
  /// The input's folder as its path spells it (`plans/`, or empty), whose names the
  /// private one repeats.
  let original: String
  /// The raster, as GDAL opens it (inside `path`).
  let raster: String
  /// The names in `path`.
  let names: [String]

  /// Nil when the folder cannot be made (then GDAL is not asked).
  init?(for input: String) {
    let url = URL(fileURLWithPath: input)
    let name = url.lastPathComponent
    original = input.lastIndex(of: "/").map { String(input[...$0]) } ?? ""
    var template = Array((NSTemporaryDirectory() + "/tilecut-gdal-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) } }
    guard let made else { return nil }
    path = made
    raster = path + "/" + name
    var linked = [name]
    guard symlink(url.path, raster) == 0 else {
      rmdir(path)
      return nil
    }
    for sibling in WorldFile.namedSiblings(of: input) ?? [] {
      // a link to where the sidecar resolves now: a later swap of its name changes nothing
      var st = stat()
      guard SidecarPath.escape(sibling) == nil, let real = SidecarPath.resolved(sibling), stat(real, &st) == 0,
        st.st_mode & S_IFMT == S_IFREG, SidecarPath.tooLarge(sibling, of: input, size: Int64(st.st_size)) == nil
      else { continue }
      let entry = URL(fileURLWithPath: sibling).lastPathComponent
      if symlink(real, path + "/" + entry) == 0 { linked.append(entry) }
    }
    names = linked
  }

  /// `file` (a path GDAL gave, inside the private folder) as the input's folder names it.
  func originalPath(_ file: String) -> String {
    file.hasPrefix(path + "/") ? original + file.dropFirst(path.count + 1) : file
  }

  /// `text` (GDAL's message) with the private folder's paths given as the input's folder's.
  func originalText(_ text: String) -> String { text.replacingOccurrences(of: path + "/", with: original) }

  /// Removes the links and the folder (GDAL may have left a file of its own there).
  func remove() {
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] { unlink(path + "/" + entry) }
    rmdir(path)
  }
}
