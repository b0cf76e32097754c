import Foundation

/// The folder an output's records name files from, so that where a command is run
/// from never matters: a project's manifest, fingerprint and depfile name its sources
/// relative to the project file's folder (as the file itself does), a single run's
/// manifest relative to the folder that holds the output.
///
/// Paths are compared by where they lie: the anchor's links resolved, and each
/// path's folder's (a source that is itself a link keeps its own name).
public struct PathAnchor: Sendable, Equatable {
  /// The anchor folder: absolute, its links resolved.
  public let directory: String

  public init(directory: String) {
    let given = directory.isEmpty ? "." : directory
    let absolute = Self.absolute(given)
    self.directory = Self.real(absolute) ?? Self.nearest(absolute)
  }

  /// A single run's anchor: the folder that holds `output`.
  public static func parent(of output: String) -> PathAnchor {
    var path = output
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return PathAnchor(directory: split(path).folder ?? ".")
  }

  /// `a/b/c` → (`a/b`, `c`); `/c` → (`/`, `c`); `c` → (nil, `c`). Not NSString's
  /// path methods: corelibs Foundation traps on a one-character name (`-o w`).
  static func split(_ path: String) -> (folder: String?, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (nil, path) }
    let name = String(path[path.index(after: slash)...])
    return (slash == path.startIndex ? "/" : String(path[..<slash]), name)
  }

  /// `path` (absolute, or relative to the working directory) as seen from the anchor:
  /// `hq/hq.pdf`, `../plans/a.png`; absolute when the two share no folder but the root.
  public func relative(_ path: String) -> String {
    let target = Self.located(path)
    let base = directory.split(separator: "/")
    let parts = target.split(separator: "/")
    var common = 0
    while common < base.count && common < parts.count && base[common] == parts[common] { common += 1 }
    guard common > 0 else { return target }
    let steps = Array(repeating: Substring(".."), count: base.count - common) + parts[common...]
    return steps.isEmpty ? "." : steps.joined(separator: "/")
  }

  /// The working directory's `path` made absolute, without folding anything.
  static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
  }

  /// Where a path lies: its folder's real path and its own name (the whole real path
  /// for `.` and `..`); where the folder does not exist yet (an output's), the real
  /// path of its nearest folder that does, and the rest folded.
  static func located(_ path: String) -> String {
    var absolute = absolute(path)
    while absolute.count > 1 && absolute.hasSuffix("/") { absolute.removeLast() }
    let (folder, name) = split(absolute)
    if name == "." || name == ".." || name.isEmpty {
      return real(absolute) ?? nearest(absolute)
    }
    guard let base = real(folder ?? "/") else { return nearest(absolute) }
    return (base == "/" ? "" : base) + "/" + name
  }

  /// `absolute` folded, its longest existing prefix replaced by that folder's real path.
  static func nearest(_ absolute: String) -> String {
    let parts = OptionFile.lexicallyNormal(absolute).split(separator: "/")
    for cut in stride(from: parts.count, through: 0, by: -1) {
      guard let base = real("/" + parts[..<cut].joined(separator: "/")) else { continue }
      let rest = parts[cut...].joined(separator: "/")
      return rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest
    }
    return OptionFile.lexicallyNormal(absolute)
  }

  static func real(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
