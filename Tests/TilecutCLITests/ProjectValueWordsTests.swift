import ArgumentParser
import Foundation
import Testing
import TilecutProject

@testable import Tilecut
@testable import TilecutCLI

/// The project loader fills the option values without the parser; a value no choice
/// takes must still be refused in the parser's own words (said of the key).
@Suite("a project file's refused choice is worded as the command line words it")
struct ProjectValueWordsTests {
  @Test(
    "store, retinaDepth, resampling, format and sourceProjection",
    arguments: [
      ("store", "--store", "zarr", false), ("retinaDepth", "--retina-depth", "half", false), ("resampling", "--resampling", "cubic", false),
      ("format", "--format", "gif", false), ("sourceProjection", "--source-projection", "projected", true),
    ])
  func choices(key: String, option: String, value: String, perFloor: Bool) throws {
    // the parser's sentence for the same value on the command line
    let parsed = Result { try TileCommand.parse(["a.png", "\(option)=\(value)"]) }
    guard case .failure(let error) = parsed else {
      Issue.record("\(option)=\(value) was accepted")
      return
    }
    let parser = TileCommand.message(for: error)
    let expected = ProjectArguments.explain(parser, ProjectOption(key: key, value: .string(value), mark: SourceMark(line: 1, column: 1)))
    let floorExtra = perFloor ? "\n        \(key): \(value)\n        bounds: [1, 2, 3, 4]" : ""
    let text =
      (perFloor ? "" : "\(key): \(value)\n") + "buildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: a.png" + floorExtra + "\n"
    let project = try ProjectLoader.parse(text, file: "t.yml")
    let refusal = Result {
      let job = try BuildJob.make(project, overrides: BuildOverrides(), printer: Printer(verbosity: .quiet))
      _ = try project.buildings[0].floors.map { try job.placementOptions($0) }
    }
    guard case .failure(let got as ProjectError) = refusal else {
      Issue.record("\(key): \(value) was not refused as a ProjectError: \(refusal)")
      return
    }
    #expect(got.message == expected)
    #expect(got.message.contains("'\(value)' is invalid for '\(key) <"))
  }
}
