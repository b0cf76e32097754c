import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import Tilecut
@testable import TilecutCLI

/// `--depfile`'s rule, built once for a single run, a project and a project split by
/// building: what it names and how, whichever job asks.
@Suite("depfile rule")
struct DependencyRuleTests {
  func options(_ dir: String, _ extra: [String]) throws -> JobOptions {
    JobOptions(
      output: try OutputArguments.parse(["-o", dir + "/out"] + extra).options, pyramid: PyramidOptions(), encoding: EncodingOptions(),
      run: RunOptions(), printer: Printer(verbosity: .quiet))
  }

  @Test("no rule and nothing read without --depfile")
  func noDepfile() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var read = false
    let rule = try options(dir, []).dependencyRule {
      read = true
      return ["a.png"]
    }
    #expect(rule == nil && !read)
  }

  @Test("a single run names the output's manifest and its files as given; a project relative to its folder")
  func namesAsTheRecords() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var job = try options(dir, ["--depfile", dir + "/tiles.d"])
    let single = try job.dependencyRule { ["plans/a b.png", "a.prj"] }
    #expect(single == "\(dir)/out/manifest.json: plans/a\\ b.png a.prj\n\nplans/a\\ b.png:\n\na.prj:\n")
    job.recordsFrom = dir
    #expect(try job.dependencyRule { ["tilecut.yml"] } == "out/manifest.json: tilecut.yml\n\ntilecut.yml:\n")
    #expect(try job.dependencyRule(target: dir + "/out/buildings.json") { ["x.png"] } == "out/buildings.json: x.png\n\nx.png:\n")
    #expect(throws: TilecutError.self) { try job.dependencyRule { ["a;b.png"] } }
  }
}
