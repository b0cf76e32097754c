import Foundation

/// Where a file found beside an input really is. A sidecar (world file, `.prj`,
/// `.aux.xml`, GDAL's `.ovr`, `.msk`, `.IMD`, …) is found by its name in the input's
/// folder; one that is a link leading out of that folder, or into the system's
/// `/proc`, `/sys` or `/dev`, is another file the user never named (a CI job's
/// `/proc/self/environ`, a key in the home folder): tilecut refuses it, and GDAL is
/// given only the names that stay inside (`GDALFolder`).
public enum SidecarPath {
  /// The link's target, resolved (nil when it does not resolve: nothing to read).
  public static func resolved(_ path: String) -> String? {
    guard let real = realpath(path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }

  /// Whether a resolved path lies in the kernel's or the devices' trees (`/dev/shm`,
  /// a plain tmpfs folder, is not one of them).
  public static func isSystemTree(_ path: String) -> Bool {
    if path.hasPrefix("/dev/shm/") { return false }
    return ["/proc", "/sys", "/dev"].contains { path == $0 || path.hasPrefix($0 + "/") }
  }

  /// Why the file at `path`, found beside an input, may not be read, or nil when it
  /// resolves inside its own folder (the input's) and outside `/proc`, `/sys` and
  /// `/dev`. Only names are read: the file itself is not opened.
  public static func escape(_ path: String) -> String? {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    return escape(path, home: resolved(folder.isEmpty ? "." : folder))
  }

  /// `escape(_:)` with the folder already resolved.
  static func escape(_ path: String, home: String?) -> String? {
    guard let real = resolved(path) else { return nil }
    if isSystemTree(real) {
      return "is a link into \(top(real)), not a file of the input's folder; tilecut reads no sidecar there: remove the link"
    }
    guard let home else { return nil }
    let inside = home == "/" ? real.hasPrefix("/") : real.hasPrefix(home + "/")
    guard inside else {
      return
        "is a link that leads out of the input's folder; tilecut reads no sidecar outside it (files named after an input are read as its sidecars): copy the file beside the input or remove the link"
    }
    return nil
  }

  /// The most bytes of a sidecar GDAL reads whole (`readWhole`): a real one is a few
  /// kilobytes. GDAL's PAM held a 3 GB sparse `.aux.xml` whole (3 GB under --max-memory
  /// 128), its metadata readers read a 4 GB `.IMD` line by line for half a minute, and
  /// both take time that grows with the square of the items: 54 s for a 4 MB
  /// `.aux.xml` of `<MDI>` items, 7.6 s for a 1 MB `.IMD`; 0.25 s and 0.65 s at 256 KB.
  public static let maxReadWholeBytes = 256 << 10

  /// Whether GDAL reads the sidecar `sibling` of `input` whole, as text: its PAM
  /// (`.aux.xml`), the metadata readers' `.IMD`, `.RPB`, `_RPC.TXT`, `.RPC`, `.TIL`,
  /// `.PVL`, `_metadata.txt`, `.pass`, `.DIM`, and the stem's `.XML`,
  /// `_metadata.xml`, `.txt` and ENVI `.hdr`. Overviews and masks (`.ovr`, `.msk`,
  /// `.aux`) are read by offsets, world files and `.tab` files a hundred lines at most,
  /// and ArcGIS's `plan.tif.xml` (its lineage can grow to megabytes) not at all.
  public static func readWhole(_ sibling: String, of input: String) -> Bool {
    let name = URL(fileURLWithPath: sibling).lastPathComponent.lowercased()
    let own = URL(fileURLWithPath: input).lastPathComponent
    let stem = (own.lastIndex(of: ".").map { String(own[..<$0]) } ?? own).lowercased()
    if [".aux.xml", ".imd", ".rpb", "_rpc.txt", ".rpc", ".til", ".pvl", ".pass", ".dim", "_metadata.txt"].contains(where: name.hasSuffix) {
      return true
    }
    return [".xml", "_metadata.xml", ".txt", ".hdr"].contains { name == stem + $0 }
  }

  /// Why the sidecar `sibling` of `input`, of `size` bytes, is not given to GDAL, or nil.
  public static func tooLarge(_ sibling: String, of input: String, size: Int64) -> String? {
    guard size > maxReadWholeBytes, readWhole(sibling, of: input) else { return nil }
    return
      "is \(size) bytes, more than \(maxReadWholeBytes >> 10) KB; GDAL reads a sidecar such as this (.aux.xml, .IMD, .RPB, …) whole, so tilecut refuses a larger one: remove it or move it away from the input"
  }

  /// `/proc` for `/proc/self/environ`.
  static func top(_ path: String) -> String { "/" + (path.split(separator: "/").first.map(String.init) ?? "") }

  /// Why a source named by the user may not be read, when it is (or leads to) a regular
  /// file of the kernel's `/proc` or `/sys` (`/proc/self/environ`): such a file states a
  /// size of 0, or of a page, whatever it holds, and holds no image. Only its name and
  /// its kind are looked at: the file is not opened.
  public static func kernelFile(_ path: String) -> String? {
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, let real = resolved(path) else { return nil }
    let top = top(real)
    guard top == "/proc" || top == "/sys" else { return nil }
    return "is a file of the kernel's \(top) file system, which tilecut does not read; give an image file"
  }

  /// A file named by the user (`--source-crs FILE`, `--world-file`): refused only when
  /// it resolves into `/proc`, `/sys` or `/dev` (an environment, a device), which hold
  /// no CRS or world file.
  public static func systemTree(_ path: String) -> String? {
    guard let real = resolved(path), isSystemTree(real) else { return nil }
    return "is (or leads to) a file in \(top(real)), which holds no CRS or world file; give a regular file"
  }
}
