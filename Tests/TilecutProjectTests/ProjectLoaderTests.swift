import Foundation
import Testing

@testable import TilecutProject

/// A scratch directory with the named files (empty) and a project file of `yaml`.
func projectFile(_ yaml: String, files: [String] = ["hq/L1.pdf", "hq/L2.pdf", "annex/ground.png"]) throws -> String {
  let dir = NSTemporaryDirectory() + "tilecut-project-\(UUID().uuidString.prefix(8))"
  for file in files {
    let path = dir + "/" + file
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
  }
  try yaml.write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
  return dir + "/tilecut.yml"
}

/// The error loading `yaml` throws.
func loadError(_ yaml: String, files: [String] = ["hq/L1.pdf", "hq/L2.pdf", "annex/ground.png"]) throws -> ProjectError? {
  let file = try projectFile(yaml, files: files)
  defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
  do {
    _ = try ProjectLoader.load(path: file)
    return nil
  } catch let error as ProjectError {
    return error
  }
}

let issueExample = """
  output: tiles
  tileSizes: [256, 512]
  maxZoom: 21
  buildings:
    - id: hq
      name: Headquarters
      floors:
        - floor: 1
          source: hq/L1.pdf
          gcp: [[120, 340, 51.50120, -0.14120], [1800, 330, 51.50130, -0.13800], [1790, 1200, 51.49990, -0.13810]]
          knockout: "white:8"
        - floor: 2
          source: hq/L2.pdf
          center: [51.50060, -0.13960]
          metersPerPixel: 0.05
          rotation: 12.5
    - id: annex
      floors:
        - floor: 1
          source: annex/ground.png
  """

@Suite("project file")
struct ProjectLoaderTests {
  @Test("the issue's example loads: buildings, floors, options with their kinds, paths relative to the file")
  func example() throws {
    let file = try projectFile(issueExample)
    defer { try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent) }
    let project = try ProjectLoader.load(path: file)
    #expect(project.buildings.map(\.id) == ["hq", "annex"])
    #expect(project.buildings[0].name == "Headquarters")
    #expect(project.buildings[0].floors.map(\.floor) == [1, 2])
    let dir = (file as NSString).deletingLastPathComponent
    #expect(project.buildings[0].floors[0].source == dir + "/hq/L1.pdf")
    #expect(project.option("maxZoom")?.value == .int(21))
    #expect(project.option("tileSizes")?.value == .numbers([256, 512]))
    #expect(project.option("output")?.value == .string(dir + "/tiles"))
    let gcp = project.buildings[0].floors[0].option("gcp")
    #expect(gcp?.value == .rows([[120, 340, 51.50120, -0.14120], [1800, 330, 51.50130, -0.13800], [1790, 1200, 51.49990, -0.13810]]))
    #expect(gcp?.mark == SourceMark(line: 10, column: 9))
    #expect(project.buildings[0].floors[1].option("rotation")?.value == .number(12.5))
    #expect(project.buildings[0].floors[0].option("knockout")?.cliOption == "--knockout")
  }

  @Test(
    "a mistake is one line naming the file, line and column and what to do",
    arguments: [
      (issueExample.replacingOccurrences(of: "metersPerPixel", with: "metersPerPixle"), 15, 9, "did you mean 'metersPerPixel'"),
      (issueExample.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: high"), 3, 10, "must be a whole number"),
      (issueExample.replacingOccurrences(of: "rotation: 12.5", with: "rotation: [1, 2]"), 16, 19, "must be a number"),
      (issueExample.replacingOccurrences(of: "annex/ground.png", with: "annex/missing.png"), 20, 17, "no such file"),
      (issueExample.replacingOccurrences(of: "- floor: 2", with: "- floor: 1"), 12, 9, "has floor 1 twice"),
      (
        issueExample.replacingOccurrences(of: "rotation: 12.5", with: "rotation: 12.5\n        bounds: [51.5, -0.14, 51.501, -0.139]"), 17, 9,
        "placed twice"
      ),
      (issueExample.replacingOccurrences(of: "id: annex", with: "id: hq"), 17, 5, "'hq' is given twice"),
      (issueExample.replacingOccurrences(of: "id: annex", with: "id: Annex"), 17, 5, "lowercase"),
      (issueExample.replacingOccurrences(of: "buildings:", with: "buildngs:"), 4, 1, "did you mean 'buildings'"),
      (issueExample.replacingOccurrences(of: "gcp: [[120", with: "gcp: [[120, 9"), 10, 15, "4 numbers"),
    ])
  func mistakes(yaml: String, line: Int, column: Int, words: String) throws {
    let error = try #require(try loadError(yaml))
    #expect(error.mark == SourceMark(line: line, column: column), "\(error)")
    #expect(error.description.contains(words), "\(error)")
    #expect(error.description.hasSuffix(error.message))
    #expect(!error.description.contains("\n"))
    #expect(error.description.contains("tilecut.yml:\(line):\(column): "))
  }

  @Test("invalid YAML, an empty file and a missing file are refused with where and what")
  func unreadable() throws {
    let bad = try #require(try loadError("buildings: [\n  - id: hq"))
    #expect(bad.message.contains("not valid YAML"))
    #expect(bad.mark != nil)
    let empty = try #require(try loadError(""))
    #expect(empty.message.contains("empty"))
    do {
      _ = try ProjectLoader.load(path: "/nonexistent/tilecut.yml")
      Issue.record("a missing file loaded")
    } catch let error as ProjectError {
      #expect(error.message.contains("no such file"))
    }
  }

  @Test("a file nested thousands deep (10 KB of '[', '- - -' or indentation) is refused by line before Yams recurses")
  func nestedTooDeep() throws {
    let flow = "x: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
    let dashes = "x:\n" + String(repeating: "- ", count: 5000) + "a\n"
    var indented = "x:\n"
    for level in 0..<400 { indented += String(repeating: " ", count: level + 1) + "k\(level):\n" }
    for (text, what) in [(flow, "flow collections"), (dashes, "block collections"), (indented, "block collections")] {
      let error = try #require(try loadError(text))
      #expect(error.message.contains("nests \(what) deeper"), "\(error)")
      #expect(error.mark != nil)
    }
    // quoted brackets, comments and ordinary nesting are no depth
    let fine = "# [[[[\nbuildings: [{id: hq, name: \"[[[[[[\", floors: [{level: 0, source: 'a[[[.png'}]}]\n"
    let quoted = String(repeating: "[", count: 100)
    #expect(ProjectLoader.tooDeep(fine)?.what == nil)
    #expect(ProjectLoader.tooDeep("a: \"\(quoted)\" # \(quoted)\nb: '\(quoted)'\n")?.what == nil)
  }

  @Test("nearest key: a typo finds its key; a word far from every key finds none")
  func nearest() {
    #expect(ProjectKeys.nearest("maxzoom", in: ProjectKeys.run.map(\.name)) == "maxZoom")
    #expect(ProjectKeys.nearest("knockot", in: ProjectKeys.floorOptions.map(\.name)) == "knockout")
    #expect(ProjectKeys.nearest("elevator", in: ProjectKeys.run.map(\.name)) == nil)
  }
}
