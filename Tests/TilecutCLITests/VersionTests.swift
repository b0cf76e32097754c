import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// The repository's root, from this file's path.
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

/// A manifest read, changed by `edit`, and written back in place.
private func rewriteManifest(_ path: String, _ edit: (inout Manifest) throws -> Void) throws {
  var manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
  try edit(&manifest)
  try manifest.encoded().write(to: URL(fileURLWithPath: path))
}

/// The options a manifest's fingerprint was made of: its options and its tile sizes.
private func fingerprintOptions(_ manifest: Manifest) -> [String: String] {
  var options = manifest.options
  options["tileSizes"] = manifest.tileSizes.map(String.init).joined(separator: ",")
  return options
}

/// The fingerprint as tilecut 0.2.0 made it: no renderer revision in its first line.
private func fingerprintOfVersion020(_ manifest: Manifest) -> String {
  var text = "tilecut 0.2.0 libvips \(Vips.version)\n"
  for s in manifest.sources { text += "source \(s.floor) \(s.sha256) \(s.page.map(String.init) ?? "-")\n" }
  let options = fingerprintOptions(manifest)
  for key in options.keys.sorted() { text += "option \(key)=\(options[key] ?? "")\n" }
  return Vips.sha256(of: Array(text.utf8))
}

/// Whether `line` is the version line of the binary under test: this build's
/// (`tilecutVersionLine`), or, for the release binary `make test` hands the suites
/// (TILECUT_TEST_BINARY, linked with the commit it was built from), the same version
/// with a commit of 7 hex digits (`-dirty` after it for a tree with changes).
func isVersionLineOfBinaryUnderTest(_ line: String) -> Bool {
  if line == tilecutVersionLine { return true }
  guard ProcessInfo.processInfo.environment["TILECUT_TEST_BINARY"] != nil,
    line.hasPrefix("tilecut \(tilecutVersion) ("), line.hasSuffix(")")
  else { return false }
  var commit = line.dropFirst("tilecut \(tilecutVersion) (".count).dropLast()
  if commit.hasSuffix("-dirty") { commit = commit.dropLast("-dirty".count) }
  return commit.count == 7 && commit.allSatisfy(\.isHexDigit)
}

@Suite("version, notices and the renderer revision")
struct VersionTests {
  @Test("--version names the version and the commit (or says it is unknown); nothing on stderr")
  func versionLine() throws {
    let run = try runTool(["--version"])
    #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
    let line = run.stdout.trimmingCharacters(in: .newlines)
    #expect(isVersionLineOfBinaryUnderTest(line), "\(line)")
    let commit = try #require(line.split(separator: "(").last).dropLast()
    let known = commit.count >= 7 && commit.allSatisfy { $0.isHexDigit || $0 == "-" || $0.isLetter }
    #expect(line.hasPrefix("tilecut \(tilecutVersion) (") && (commit == "unknown commit" || known), "\(line)")
    // the release has its section in CHANGELOG.md, the newest one under [Unreleased]
    let root = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
    let changelog = try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
    let released = changelog.split(separator: "\n").first { $0.hasPrefix("## [") && !$0.hasPrefix("## [Unreleased]") }
    #expect(released?.hasPrefix("## [\(tilecutVersion)] - ") == true, "\(released ?? "no release section")")
  }

  @Test("--version --verbose (either order): the version line, the renderer revision, then NOTICE as the file has it")
  func notices() throws {
    let file = try String(contentsOf: repositoryRoot.appendingPathComponent("NOTICE"), encoding: .utf8)
    // Sources/TilecutCLI/Notice.swift is made from NOTICE by `make notice`
    #expect(noticeText + "\n" == file, "NOTICE and Sources/TilecutCLI/Notice.swift differ: run make notice")
    #expect(file.contains("GeoNames") && file.contains("CC BY 4.0") && file.contains("poppler"))
    for args in [["--version", "--verbose"], ["--verbose", "--version"]] {
      let run = try runTool(args)
      #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
      let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
      #expect(isVersionLineOfBinaryUnderTest(lines.first.map(String.init) ?? ""), "\(run.stdout)")
      #expect(lines.dropFirst().first == "renderer revision \(rendererRevision), libvips \(Vips.version)")
      #expect(run.stdout.hasSuffix("\n\n" + file), "the notices end the output, as the file has them")
    }
  }

  @Test("an output written by another version or renderer revision is rendered again, never up to date")
  func olderOutputsAreNotCurrent() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 200).writePNG(to: dir + "/a.png")
    let args = [dir + "/a.png", "-o", dir + "/out"]
    let path = dir + "/out/manifest.json"
    #expect(try runTool(args).status == 0)
    let written = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(written.generator.version == tilecutVersion && written.generator.renderer == rendererRevision)
    // the fingerprint is what the test recomputes below for other versions
    #expect(JobOptions.fingerprint(sources: written.sources, options: fingerprintOptions(written)) == written.fingerprint)
    let same = try runTool(args)
    #expect(same.status == 0 && same.stderr.contains("up to date"), "\(same.stderr)")

    let older: [(String, (inout Manifest) -> Void)] = [
      (
        "0.2.0",
        { m in
          m.generator = Manifest.Generator(version: "0.2.0", libvips: Vips.version)
          m.fingerprint = fingerprintOfVersion020(m)
        }
      ),
      (
        "the previous renderer revision",
        { m in
          m.generator.renderer = rendererRevision - 1
          m.fingerprint = JobOptions.fingerprint(sources: m.sources, options: fingerprintOptions(m), renderer: rendererRevision - 1)
        }
      ),
      (
        "another version, this revision",
        { m in
          m.generator.version = "0.2.9"
          m.fingerprint = JobOptions.fingerprint(sources: m.sources, options: fingerprintOptions(m), version: "0.2.9")
        }
      ),
    ]
    for (name, edit) in older {
      try rewriteManifest(path, edit)
      let again = try runTool(args)
      #expect(again.status == 0 && !again.stderr.contains("up to date"), "\(name): \(again.stderr)")
      let now = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
      #expect(now.generator.version == tilecutVersion && now.generator.renderer == rendererRevision, "\(name)")
      #expect(now.fingerprint == written.fingerprint, "\(name)")
    }
  }

  @Test("a campus built by another renderer revision is built whole again: not up to date, and not incrementally")
  func olderCampusIsRebuilt() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 19")
      .write(toFile: file, atomically: true, encoding: .utf8)
    let path = dir + "/campus/tiles/manifest.json"
    #expect(try runTool(["build", file]).status == 0)
    let written = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(written.generator.renderer == rendererRevision)
    #expect(JobOptions.fingerprint(sources: written.sources, options: fingerprintOptions(written)) == written.fingerprint)
    // as if one floor's source had changed since: by this revision, an incremental rebuild
    func floorChanged(_ m: inout Manifest) {
      if var buildings = m.buildings, !buildings.isEmpty, !buildings[0].floors.isEmpty {
        buildings[0].floors[0].sha256 = String(repeating: "0", count: 64)
        m.buildings = buildings
      }
    }
    try rewriteManifest(path) { m in
      floorChanged(&m)
      m.fingerprint = String(repeating: "1", count: 64)
    }
    let incremental = try runTool(["build", file])
    #expect(incremental.status == 0 && incremental.stderr.contains("re-rendered"), "\(incremental.stderr)")
    // the same, written by the previous revision: every tile made again
    try rewriteManifest(path) { m in
      floorChanged(&m)
      m.generator.renderer = rendererRevision - 1
      m.fingerprint = JobOptions.fingerprint(sources: m.sources, options: fingerprintOptions(m), renderer: rendererRevision - 1)
    }
    let again = try runTool(["build", file])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(!again.stderr.contains("up to date") && !again.stderr.contains("re-rendered"), "\(again.stderr)")
    let now = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(now.generator.renderer == rendererRevision && now.fingerprint == written.fingerprint)
    #expect(now.levels == written.levels, "the same tiles, made again")
  }
}
