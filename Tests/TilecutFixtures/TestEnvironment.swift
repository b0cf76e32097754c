import Foundation

/// Where the tests find what lies outside them: the repository, the shared corpus beside
/// it and the built `tilecut` binary. Every test target asks here, so the rules (the
/// corpus is optional, `make test` names the release binary) are written once.
public enum TestEnvironment {
  /// The repository's root (two folders above this file's).
  public static let repositoryRoot: String =
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

  /// A folder of the shared test data (`shared/data/<relative>` beside the repository,
  /// each corpus with its SOURCES.md), found by walking up from the repository; nil when
  /// absent, so that the suites that need it are skipped, saying so.
  public static func sharedData(_ relative: String) -> String? {
    var dir = URL(fileURLWithPath: repositoryRoot)
    for _ in 0..<5 {
      dir = dir.deletingLastPathComponent()
      let candidate = dir.appendingPathComponent("shared/data").appendingPathComponent(relative).path
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
        return candidate
      }
    }
    return nil
  }

  /// The built `tilecut` executable: the one `make test` names (TILECUT_TEST_BINARY, the
  /// release build it has just made), else the one beside the test bundle, else the debug
  /// build's; nil when none was built.
  public static var tilecutBinary: String? {
    binaryCandidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// Where `tilecutBinary` looks, in order (the first is named when none is there).
  public static var binaryCandidates: [String] {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    var candidates = ProcessInfo.processInfo.environment["TILECUT_TEST_BINARY"].map { [$0] } ?? []
    candidates.append(here.appendingPathComponent("tilecut").path)
    candidates.append(URL(fileURLWithPath: repositoryRoot).appendingPathComponent(".build/debug/tilecut").path)
    return candidates
  }

  /// A new scratch directory for one test: `tilecut-<label>-<test's name>-<random>` in the
  /// temporary folder.
  public static func scratchDirectory(_ label: String, for name: String) throws -> String {
    let safe = name.filter { $0.isLetter || $0.isNumber }
    let path = NSTemporaryDirectory() + "tilecut-\(label)-\(safe)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }
}
