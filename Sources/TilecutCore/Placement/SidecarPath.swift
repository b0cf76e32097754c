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
  static func isSystemTree(_ path: String) -> Bool {
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
