import Foundation
import Testing

@testable import TilecutProject

/// Issue 37, items 9 and 16: aliases that multiply a project, and paths no file can have.
@Suite("project file bounds")
struct ProjectBoundsTests {
  /// `buildings` of `copies` aliases of one building whose floors are an alias of `floors` floors.
  func aliased(copies: Int, floors: Int) -> String {
    var text = "buildings:\n  - &b\n    id: hq\n    floors: &f\n"
    for n in 1...floors { text += "      - {floor: \(n), source: a.png}\n" }
    for _ in 1..<copies { text += "  - *b\n" }
    return text
  }

  @Test("aliases that expand past the node bound are refused in one line naming the file, before any floor is read")
  func aliasesBounded() throws {
    // 200 buildings of 300 floors: 300 000 floors' worth of nodes from a 10 KB file
    let text = aliased(copies: 200, floors: 300)
    #expect(text.utf8.count < 20_000)
    var caught: ProjectError?
    do { _ = try ProjectLoader.parse(text, file: "campus.yml") } catch let error as ProjectError { caught = error }
    let error = try #require(caught)
    #expect(error.description.hasPrefix("campus.yml"), "\(error)")
    #expect(error.message.contains("\(ProjectBounds.maxNodes) YAML nodes") && error.message.contains("alias"), "\(error)")
    #expect(!error.description.contains("\n"))
    // the same project written with few enough repeats is read
    let small = try ProjectLoader.parse(aliased(copies: 3, floors: 300), file: "campus.yml")
    #expect(small.buildings.count == 3 && small.buildings.allSatisfy { $0.floors.count == 300 })
  }

  @Test("the bound counts nodes after expansion: a chain of aliases ten deep is refused though the text is 2 KB")
  func aliasChain() throws {
    // each level a list of 4 of the level below: 4^10 ≈ 10^6 scalars
    var text = "buildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: a.png\n        bands: [1, 2, 3]\n"
    text += "        scale: &l0 [0, 1]\n"
    var level = "l0"
    for k in 1...10 {
      text += "        # level \(k)\n        x\(k): &l\(k) [*\(level), *\(level), *\(level), *\(level)]\n"
      level = "l\(k)"
    }
    var caught: ProjectError?
    do { _ = try ProjectLoader.parse(text, file: "deep.yml") } catch let error as ProjectError { caught = error }
    let error = try #require(caught)
    #expect(error.message.contains("YAML nodes"), "\(error)")
  }

  @Test("nesting made by aliases alone is bounded too")
  func aliasDepth() throws {
    var text = "buildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: a.png\n        gcp: &l0 [1, 2, 3, 4]\n"
    for k in 1...80 { text += "        x\(k): &l\(k) [*l\(k - 1)]\n" }
    var caught: ProjectError?
    do { _ = try ProjectLoader.parse(text, file: "deep.yml") } catch let error as ProjectError { caught = error }
    let error = try #require(caught)
    #expect(error.message.contains("nests deeper than \(ProjectBounds.maxDepth)"), "\(error)")
  }

  @Test(
    "a NUL in any path the file names is refused where it is written (the path would end there and name another file)",
    arguments: [
      ("source", "      - floor: 1\n        source: \"a.png\\0.pdf\"\n"),
      ("worldFile", "      - floor: 1\n        source: a.png\n        worldFile: \"a.pgw\\0x\"\n"),
      ("sourceCrs", "      - floor: 1\n        source: a.png\n        worldFile: a.pgw\n        sourceCrs: \"a.prj\\0\"\n"),
    ])
  func nulInFloorPaths(key: String, floor: String) throws {
    let text = "buildings:\n  - id: hq\n    floors:\n" + floor
    var caught: ProjectError?
    do { _ = try ProjectLoader.parse(text, file: "tilecut.yml") } catch let error as ProjectError { caught = error }
    let error = try #require(caught)
    #expect(error.message.contains("'\(key)' holds a NUL"), "\(error)")
    #expect(error.mark != nil && !error.description.contains("\n") && !error.description.contains("\0"))
  }

  @Test(
    "a NUL, or a name no file system takes, in output, depfile, changes or name is refused",
    arguments: [
      ("output: \"tiles\\0/x\"", "'output' holds a NUL"), ("depfile: \"t.d\\0\"", "'depfile' holds a NUL"),
      ("changes: \"\\0\"", "'changes' holds a NUL"), ("name: \"{z}\\0/{x}\"", "'name' holds a NUL"),
      ("changes: \(String(repeating: "c", count: 300))", "longer than 255 bytes"),
      ("output: \(String(repeating: "abc/", count: 1100))", "longer than any path"),
    ])
  func badWritePaths(line: String, expected: String) throws {
    let text = line + "\nbuildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: a.png\n"
    var caught: ProjectError?
    do { _ = try ProjectLoader.parse(text, file: "tilecut.yml") } catch let error as ProjectError { caught = error }
    let error = try #require(caught)
    #expect(error.message.contains(expected), "\(error)")
    #expect(error.mark?.line == 1, "\(error)")
  }

  @Test("a NUL in the source of a loaded project never reaches the file system: the error names the line, not another file")
  func nulSourceLoaded() throws {
    let error = try loadError("buildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: \"annex/ground.png\\0.tif\"\n")
    let found = try #require(error)
    #expect(found.mark?.line == 5 && found.message.contains("NUL"), "\(found)")
  }
}
