import Foundation
import Testing
import TilecutFixtures

@testable import Tilecut
@testable import TilecutCore

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 37, item 3: what a project file may have tilecut write (`output`, `depfile`,
/// `changes`): inside its folder, and over tilecut's own files only.
@Suite("project file writes")
struct ProjectWritesTests {
  /// A project file in `dir`: `output: built` (unless `line` gives the output), then
  /// `line` on line 2 (line 1 when it is the output), one floor of plan.png.
  func writeProject(_ dir: String, _ line: String) throws {
    let output = line.hasPrefix("output:") ? "" : "output: built\n"
    let text = "\(output)\(line)\nbuildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: plan.png\n"
    try text.write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
  }

  @Test("a project file's depfile, changes and output stay inside its folder: refused in one line naming the key where it is written")
  func writesOutsideRefused() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    let outside = try scratch("outside")
    defer { try? FileManager.default.removeItem(atPath: outside) }
    try "export PATH=/usr/bin\n".write(toFile: outside + "/bashrc", atomically: true, encoding: .utf8)
    try "my notes\n".write(toFile: outside + "/notes.txt", atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: dir + "/link.d", withDestinationPath: outside + "/bashrc")
    try FileManager.default.createSymbolicLink(atPath: dir + "/elsewhere", withDestinationPath: outside)
    let relative = "../" + URL(fileURLWithPath: outside).lastPathComponent
    let cases: [(line: String, key: String)] = [
      ("depfile: \(outside)/bashrc", "depfile"),
      ("changes: \(relative)/notes.txt", "changes"),
      ("depfile: link.d", "depfile"),
      ("changes: elsewhere/notes.txt", "changes"),
      ("depfile: elsewhere/new.d", "depfile"),
      ("output: \(outside)/tiles", "output"),
      ("output: elsewhere/tiles", "output"),
    ]
    let before = snapshot(outside)
    for c in cases {
      try writeProject(dir, c.line)
      let run = try runIn(dir, ["build", "tilecut.yml", "-q"])
      #expect(run.status == 2 && run.stderrLines.count == 1, "\(c.line): \(run.stderr)")
      let line = c.key == "output" ? 1 : 2
      #expect(run.stderr.hasPrefix("error: tilecut.yml:\(line):1: '\(c.key)'"), "\(c.line): \(run.stderr)")
      #expect(run.stderr.contains("outside the project's folder") && run.stderr.contains("--\(c.key)"), "\(run.stderr)")
      #expect(snapshot(outside) == before, "\(c.line)")
      #expect(try FileManager.default.contentsOfDirectory(atPath: outside).sorted() == ["bashrc", "notes.txt"], "\(c.line)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/built"), "\(c.line)")
    }
  }

  @Test("inside its folder a project file replaces only a depfile or change list tilecut wrote")
  func writesInsideOwnFilesOnly() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    try "# the user's own\nall: plan.png\n".write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
    try "my notes\n".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
    for (line, key) in [("depfile: Makefile", "depfile"), ("changes: notes.txt", "changes"), ("depfile: sub", "depfile")] {
      try writeProject(dir, line)
      let run = try runIn(dir, ["build", "tilecut.yml", "-q"])
      #expect(run.status == 2 && run.stderrLines.count == 1, "\(line): \(run.stderr)")
      #expect(run.stderr.hasPrefix("error: tilecut.yml:2:1: '\(key)'"), "\(line): \(run.stderr)")
    }
    #expect(try String(contentsOfFile: dir + "/Makefile", encoding: .utf8) == "# the user's own\nall: plan.png\n")
    #expect(try String(contentsOfFile: dir + "/notes.txt", encoding: .utf8) == "my notes\n")
    // new files, then the same files again: tilecut's own, replaced
    try writeProject(dir, "depfile: tiles.d\nchanges: changes.txt")
    #expect(try runIn(dir, ["build", "tilecut.yml", "-q"]).status == 0)
    #expect(try String(contentsOfFile: dir + "/tiles.d", encoding: .utf8).hasPrefix("built/manifest.json: tilecut.yml plan.png"))
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).hasPrefix("A\t"))
    let again = try runIn(dir, ["build", "tilecut.yml", "-q", "--force"])
    #expect(again.status == 0, "\(again.stderr)")
    // an up-to-date run writes an empty change list, which a later run replaces too
    #expect(try runIn(dir, ["build", "tilecut.yml", "-q"]).status == 0)
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).isEmpty)
    #expect(try runIn(dir, ["build", "tilecut.yml", "-q", "--force"]).status == 0)
    // the project file run from elsewhere: its paths are its folder's
    let elsewhere = try scratch("elsewhere")
    defer { try? FileManager.default.removeItem(atPath: elsewhere) }
    let away = try runIn(elsewhere, ["build", dir + "/tilecut.yml", "-q", "--force"])
    #expect(away.status == 0, "\(away.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)
  }

  @Test("the command line's --depfile, --changes and --output keep their rules over a project file's")
  func commandLineKeepsItsRules() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    let outside = try scratch("cli-outside")
    defer { try? FileManager.default.removeItem(atPath: outside) }
    try writeProject(dir, "depfile: \(outside)/project.d")
    let run = try runIn(
      dir, ["build", "tilecut.yml", "-q", "--depfile", outside + "/cli.d", "--changes", outside + "/changes.txt", "-o", outside + "/tiles"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: outside + "/cli.d") && FileManager.default.fileExists(atPath: outside + "/changes.txt"))
    #expect(FileManager.default.fileExists(atPath: outside + "/tiles/manifest.json"))
    #expect(!FileManager.default.fileExists(atPath: outside + "/project.d"))
  }

  @Test("tilecut's own files are told from others by their content")
  func ownFilesRecognised() {
    #expect(ProjectWrites.isDependencyRule("out/manifest.json: tilecut.yml a\\ b.png\n\ntilecut.yml:\n\na\\ b.png:\n"))
    #expect(ProjectWrites.isDependencyRule("tiles/tilecut-buildings.json: tilecut.yml\n\ntilecut.yml:\n"))
    #expect(!ProjectWrites.isDependencyRule("all: plan.png\n\tmake tiles\n"))
    #expect(!ProjectWrites.isDependencyRule("export PATH=/usr/bin\n"))
    #expect(!ProjectWrites.isDependencyRule("out/manifest.json: a\n\nrm -rf /:\nx\n"))
    #expect(ProjectWrites.isChangeList("") && ProjectWrites.isChangeList("A\t256/L1_1_2_3.png\nD\tx.png\n"))
    #expect(!ProjectWrites.isChangeList("my notes\n") && !ProjectWrites.isChangeList("A\tx.png"))
  }
}
