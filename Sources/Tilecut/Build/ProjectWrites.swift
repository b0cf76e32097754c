import Foundation
import TilecutCore
import TilecutProject

/// The files a project file names for tilecut to write (`output`, `depfile`,
/// `changes`). A `tilecut.yml` may come with a cloned repository and be run unattended
/// (the SwiftPM plugin), so what it writes stays inside its own folder (where it
/// resolves, links followed), and a file there is replaced only when tilecut wrote it
/// (a depfile or change list, known by its content; an output directory is replaced
/// only when its manifest is tilecut's, as the stores check). The command line's
/// options, named by the user, keep their own rules (`OptionPaths`).
enum ProjectWrites {
  /// The keys whose file tilecut writes.
  static let keys = ["output", "depfile", "changes"]

  /// A file larger than this is no depfile or change list of tilecut's.
  static let maxOwnedBytes = 64 << 20

  /// Refuses, before anything is read or written, the first of `keys` whose path in
  /// `project` leaves its folder or names a file tilecut did not write: one
  /// `ProjectError` naming the key where it is written.
  static func check(_ project: Project, keys: [String]) throws {
    let root = Self.root(of: OptionPaths.resolve(project.directory.isEmpty ? "." : project.directory))
    for key in keys {
      guard let option = project.option(key), case .string(let path) = option.value else { continue }
      if let why = problem(path: path, key: key, root: root) {
        throw ProjectError(file: project.file, mark: option.mark, message: "'\(key)': '\(shown(path))' \(why)")
      }
    }
  }

  /// The folder a project file's writes stay in: the Swift package holding it (the
  /// nearest folder above with a Package.swift: an app package's tilecut.yml in
  /// Sources/App writes its tiles at the package's top), else the file's own folder.
  static func root(of folder: String) -> String {
    var candidate = folder
    while candidate != "/" && !candidate.isEmpty {
      if FileManager.default.fileExists(atPath: candidate + "/Package.swift") { return candidate }
      guard let slash = candidate.lastIndex(of: "/") else { break }
      candidate = slash == candidate.startIndex ? "/" : String(candidate[..<slash])
    }
    return folder
  }

  /// Why the project file may not have tilecut write `path` for `key`, or nil.
  static func problem(path: String, key: String, root: String) -> String? {
    let cli = "--" + key
    let place = OptionPaths.resolve(path)
    let inside = root == "/" ? place != "/" : place.hasPrefix(root + "/")
    guard inside else {
      let resolved = place == path ? "" : " (it resolves to \(shown(place)))"
      return "is outside the project's folder \(shown(root))\(resolved); "
        + "a project file writes only inside its folder: name a path there, or give \(cli) on the command line"
    }
    // an output directory is replaced only when it is tilecut's: the store checks its manifest
    guard key != "output" else { return nil }
    var st = stat()
    guard stat(path, &st) == 0 else {
      var lst = stat()
      if lstat(path, &lst) == 0 { return "is a symbolic link to nothing; name the file itself" }
      return nil
    }
    guard (st.st_mode & S_IFMT) == S_IFREG else {
      return "is not a regular file; a project file writes only new files and tilecut's own: name another, or give \(cli) on the command line"
    }
    let what = key == "depfile" ? "depfile" : "change list"
    guard st.st_size <= maxOwnedBytes, let data = FileManager.default.contents(atPath: place),
      let text = String(data: data, encoding: .utf8),
      key == "depfile" ? isDependencyRule(text) : isChangeList(text)
    else {
      return "exists and is not a \(what) tilecut wrote; a project file replaces only tilecut's own files: "
        + "name a new file, delete this one if it is yours to lose, or give \(cli) on the command line"
    }
    return nil
  }

  /// A depfile as `DependencyFile.text` writes it: `<output>/manifest.json: …` (or the
  /// buildings' index), then an empty rule per prerequisite, each after a blank line.
  static func isDependencyRule(_ text: String) -> Bool {
    guard text.hasSuffix("\n") else { return false }
    let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
    guard let first = lines.first, let colon = unescapedColon(first) else { return false }
    let target = first[..<colon]
    let targets = [Manifest.fileName, BuildingIndex.fileName]
    guard targets.contains(where: { target == $0 || target.hasSuffix("/" + $0) }) else { return false }
    let rest = Array(lines.dropFirst())
    guard rest.count % 2 == 0 else { return false }
    for pair in stride(from: 0, to: rest.count, by: 2) {
      let rule = rest[pair + 1]
      guard rest[pair].isEmpty, rule.count > 1, unescapedColon(rule) == rule.index(before: rule.endIndex) else { return false }
    }
    return true
  }

  /// Where the rule's `:` is: the first not after a backslash.
  static func unescapedColon(_ line: Substring) -> Substring.Index? {
    var escaped = false
    for i in line.indices {
      if line[i] == ":" && !escaped { return i }
      escaped = line[i] == "\\" ? !escaped : false
    }
    return nil
  }

  /// A change list as `ChangeList.text` writes it: `A`, `M` or `D`, a tab and a tile's
  /// path per line (nothing when nothing changed).
  static func isChangeList(_ text: String) -> Bool {
    guard !text.isEmpty else { return true }
    guard text.hasSuffix("\n") else { return false }
    return text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).allSatisfy { line in
      line.count > 2 && ["A", "M", "D"].contains(line.first) && line.dropFirst().first == "\t"
    }
  }

  /// At most 100 characters of a path, control characters escaped.
  static func shown(_ path: String) -> String {
    var out = ""
    for scalar in path.unicodeScalars.prefix(100) {
      if scalar.value < 0x20 || scalar.value == 0x7f || (0x80..<0xa0).contains(scalar.value) {
        out += String(format: "\\x%02x", scalar.value)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return path.unicodeScalars.count > 100 ? out + "…" : out
  }
}
