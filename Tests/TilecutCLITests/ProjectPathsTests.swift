import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import Tilecut

@Suite("paths relative to the project, whatever the working directory")
struct ProjectPathsTests {
  @Test(
    "the campus built from a parent folder, then from its own, is up to date the second time; its depfile and manifest are the same"
  )
  func campusFromTwoFolders() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
      .write(toFile: file, atomically: true, encoding: .utf8)
    // as from a repository's root: the project file and the depfile named from the parent
    let first = try runTool([], shell: "cd '\(dir)' && TILECUT build campus/tilecut.yml --depfile campus.d", timeout: 300)
    #expect(first.status == 0, "\(first.stderr)")
    let rule = try String(contentsOfFile: dir + "/campus.d", encoding: .utf8)
    let manifest = try Data(contentsOf: URL(fileURLWithPath: dir + "/campus/tiles/manifest.json"))
    let tile = try #require(filesBelow(dir + "/campus/tiles").first { $0.hasSuffix(".png") })
    let before = try FileManager.default.attributesOfItem(atPath: dir + "/campus/tiles/" + tile)
    // the same project from its own folder
    let second = try runTool([], shell: "cd '\(dir)/campus' && TILECUT build --depfile ../campus.d", timeout: 300)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stderr.contains("up to date") && !second.stderr.contains("changed") && !second.stderr.contains("re-rendered"), "\(second.stderr)")
    let after = try FileManager.default.attributesOfItem(atPath: dir + "/campus/tiles/" + tile)
    #expect(before[.systemFileNumber] as? Int == after[.systemFileNumber] as? Int)
    #expect(try String(contentsOfFile: dir + "/campus.d", encoding: .utf8) == rule)
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/campus/tiles/manifest.json")) == manifest)
    // the sources as the project file names them
    let decoded = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/campus/tiles/manifest.json")))
    #expect(Set(decoded.sources.map(\.path)) == ["hq/hq.pdf", "annex/ground.png"], "\(decoded.sources.map(\.path))")
    #expect(decoded.buildings?.flatMap { $0.floors.map(\.source) } == ["hq/hq.pdf", "hq/hq.pdf", "annex/ground.png"])
    #expect(rule.hasPrefix("tiles/manifest.json: tilecut.yml hq/hq.pdf "), "\(rule)")
  }

  @Test("a changed option is named as the cause of a whole rebuild, not every floor as changed")
  func optionNamed() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 200).writePNG(to: dir + "/a.png")
    try picture(width: 200, height: 300, seed: 2).writePNG(to: dir + "/b.png")
    let project = """
      maxZoom: 19
      tileSizes: [256]
      buildings:
        - id: hq
          floors:
            - { floor: 1, source: a.png, center: [51.5, -0.14], metersPerPixel: 0.5 }
            - { floor: 2, source: b.png, center: [51.5, -0.14], metersPerPixel: 0.5 }
      """
    try project.write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
    let first = try runTool(["build", dir + "/tilecut.yml"])
    #expect(first.status == 0, "\(first.stderr)")
    try project.replacingOccurrences(of: "maxZoom: 19", with: "maxZoom: 18").write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
    let second = try runTool(["build", dir + "/tilecut.yml"])
    #expect(second.status == 0, "\(second.stderr)")
    let said = second.stderrLines.filter { $0.contains("changed") }
    #expect(said == [dir + "/tiles: maxZoom changed: every floor is rebuilt"], "\(second.stderr)")
    #expect(!second.stderr.contains("re-rendered"), "\(second.stderr)")
    // a floor's own change still names the floor
    try picture(width: 300, height: 200, seed: 5).writePNG(to: dir + "/a.png")
    let third = try runTool(["build", dir + "/tilecut.yml"])
    let floors = third.stderrLines.filter { $0.contains("changed") }
    #expect(third.status == 0 && floors.count == 1 && floors.first?.hasPrefix("hq floor 1 changed: ") == true, "\(third.stderr)")
  }

  @Test("an older manifest naming sources from where it ran is rebuilt, said once, and then names them from the project")
  func olderManifest() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/site", withIntermediateDirectories: true)
    try picture(width: 300, height: 200).writePNG(to: dir + "/site/a.png")
    try
      "maxZoom: 18\ntileSizes: [256]\nbuildings:\n  - id: hq\n    floors:\n      - { floor: 1, source: a.png, center: [51.5, -0.14], metersPerPixel: 0.5 }\n"
      .write(toFile: dir + "/site/tilecut.yml", atomically: true, encoding: .utf8)
    #expect(try runTool([], shell: "cd '\(dir)' && TILECUT build site/tilecut.yml").status == 0)
    // what the previous release wrote: the path as the working directory named it, no zooms
    let path = dir + "/site/tiles/manifest.json"
    var old = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    old.sources = old.sources.map {
      var s = $0
      s.path = "site/" + s.path
      return s
    }
    for key in ["minZoom", "maxZoom"] { old.options[key] = nil }
    old.options["hq floor 1"] = old.options["hq floor 1"].map { "site/" + $0 }
    old.fingerprint = String(repeating: "0", count: 64)
    try old.encoded().write(to: URL(fileURLWithPath: path))
    let again = try runTool([], shell: "cd '\(dir)' && TILECUT build site/tilecut.yml")
    #expect(again.status == 0 && again.stderr.contains("made by an earlier tilecut: every floor is rebuilt"), "\(again.stderr)")
    let now = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(now.sources.map(\.path) == ["a.png"] && now.options["maxZoom"] == "18")
    let third = try runTool([], shell: "cd '\(dir)/site' && TILECUT build")
    #expect(third.status == 0 && third.stderr.contains("up to date"), "\(third.stderr)")
  }

  @Test("a single run names its sources from the output's parent: the same run from another folder is up to date")
  func singleRunFromTwoFolders() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
    try picture(width: 300, height: 200).writePNG(to: dir + "/a.png")
    let place = "--center 51.5,-0.14 --meters-per-pixel 0.5 --max-zoom 18"
    let first = try runTool([], shell: "cd '\(dir)' && TILECUT a.png -o out \(place)")
    #expect(first.status == 0, "\(first.stderr)")
    let second = try runTool([], shell: "cd '\(dir)/sub' && TILECUT ../a.png -o ../out \(place)")
    #expect(second.status == 0 && second.stderr.contains("up to date"), "\(second.stderr)")
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    #expect(manifest.sources.map(\.path) == ["a.png"])
    #expect(manifest.options["floor 1"]?.hasPrefix("a.png page=") == true, "\(manifest.options)")
  }

  @Test("PathAnchor names a path from its folder: below, beside, above, absolute when only the root is shared")
  func anchor() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/p/hq", withIntermediateDirectories: true)
    let anchor = PathAnchor(directory: dir + "/p")
    #expect(anchor.relative(dir + "/p/hq/a.pdf") == "hq/a.pdf")
    #expect(anchor.relative(dir + "/p/./hq/a.pdf") == "hq/a.pdf")
    #expect(anchor.relative(dir + "/other/a.png") == "../other/a.png")
    #expect(anchor.relative(dir + "/p") == ".")
    #expect(PathAnchor.parent(of: dir + "/p/tiles/").directory == anchor.directory)
    #expect(PathAnchor(directory: "/").relative("/etc/passwd") == "/etc/passwd")
    #expect(anchor.relative("/dev/null") == "/dev/null")
    // one-character names (`-o w`), which NSString's path methods trap on here
    let here = PathAnchor(directory: ".")
    #expect(PathAnchor.parent(of: "w").directory == here.directory && PathAnchor.parent(of: "w/").directory == here.directory)
    #expect(here.relative("w") == "w" && here.relative("./w") == "w")
  }
}
