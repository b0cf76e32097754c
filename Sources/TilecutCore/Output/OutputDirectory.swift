import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The output root and its staging twin: a run builds beside the output and swaps
/// the finished tree in at the end, so the previous output survives any failure.
public struct OutputDirectory: Sendable {
  public let path: String
  static let stagingMarker = ".tilecut-staging-"

  public init(path: String) {
    var p = path
    while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
    self.path = p
  }

  var url: URL { URL(fileURLWithPath: path) }
  var parent: String { url.deletingLastPathComponent().path }
  var baseName: String { url.lastPathComponent }

  /// The manifest of the current output, if it has one that decodes.
  public func existingManifest() -> Manifest? {
    guard let data = FileManager.default.contents(atPath: path + "/" + Manifest.fileName) else { return nil }
    return try? Manifest.decode(data)
  }

  /// Refuses outputs tilecut must not replace: a file, or a non-empty directory it did not make.
  public func checkReplaceable(option: String = "--output") throws {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      var parentIsDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: parent, isDirectory: &parentIsDirectory), parentIsDirectory.boolValue else {
        throw TilecutError.invalidOption(option: option, reason: "the parent directory of '\(path)' does not exist")
      }
      return
    }
    guard isDirectory.boolValue else {
      throw TilecutError.invalidOption(option: option, reason: "'\(path)' is an existing file, not a directory")
    }
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    if !entries.isEmpty && !FileManager.default.fileExists(atPath: path + "/" + Manifest.fileName) {
      throw TilecutError.invalidOption(
        option: option,
        reason: "'\(path)' is a non-empty directory without a tilecut manifest; tilecut will not replace it (choose an empty or new directory)")
    }
  }

  /// Removes staging directories left by runs that were killed (their process is gone).
  public func removeAbandonedStaging() {
    let prefix = "." + baseName + Self.stagingMarker
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
    for entry in entries where entry.hasPrefix(prefix) {
      let pidText = entry.dropFirst(prefix.count).split(separator: "-").first.map(String.init) ?? ""
      if let pid = Int32(pidText), pid > 0, kill(pid, 0) == 0 || errno == EPERM { continue }
      try? FileManager.default.removeItem(atPath: parent + "/" + entry)
    }
  }

  /// Makes a fresh staging directory beside the output.
  public func makeStaging() throws -> String {
    let staging = parent + "/." + baseName + Self.stagingMarker + "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    do {
      try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
    } catch {
      throw TilecutError.output(path: parent, reason: "cannot create a staging directory here (\(Self.reason(error)))")
    }
    return staging
  }

  /// Puts a finished staging tree in place of the output, atomically when the
  /// system can exchange two names, and removes what it replaced.
  public func commit(staging: String, exchange: (String, String) -> Bool) throws {
    let fm = FileManager.default
    if fm.fileExists(atPath: path) {
      if exchange(staging, path) {
        try? fm.removeItem(atPath: staging)
        return
      }
      let old = staging + "-old"
      guard rename(path, old) == 0 else {
        throw TilecutError.output(path: path, reason: "cannot move the previous output aside (\(String(cString: strerror(errno))))")
      }
      guard rename(staging, path) == 0 else {
        let reason = String(cString: strerror(errno))
        _ = rename(old, path)
        throw TilecutError.output(path: path, reason: "cannot move the new output in (\(reason))")
      }
      try? fm.removeItem(atPath: old)
    } else {
      guard rename(staging, path) == 0 else {
        throw TilecutError.output(path: path, reason: "cannot move the new output in (\(String(cString: strerror(errno))))")
      }
    }
  }

  /// Deletes a staging tree after a failed or interrupted run.
  public static func abandon(staging: String) {
    try? FileManager.default.removeItem(atPath: staging)
  }

  static func reason(_ error: Error) -> String {
    let ns = error as NSError
    if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(Int32(underlying.code)))
    }
    return ns.localizedDescription
  }
}
