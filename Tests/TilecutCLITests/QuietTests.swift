import Foundation
import Testing
import TilecutFixtures

extension RunResult {
  /// stderr without the note `-q` keeps for an image that nothing placed (it lies at the
  /// map's north-west corner): whatever else a quiet run said.
  var stderrBesideUnplacedNote: String {
    stderrLines.filter { !($0.hasPrefix("note: ") && $0.contains(" has no georeference: ")) }.joined(separator: "\n")
  }
}

@Suite("quiet keeps warnings and notes")
struct QuietTests {
  @Test("-q drops progress and the summary, never a warning or the note that a plan was placed at the map's corner")
  func quietKeepsWarnings() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 64, height: 64).writePNG(to: dir + "/plan.png")
    // nothing places it: a CI log must still show where it went
    let unplaced = try runTool([dir + "/plan.png", "-o", dir + "/out", "-q"])
    #expect(unplaced.status == 0, "\(unplaced.stderr)")
    #expect(unplaced.stderrLines.count == 1, "\(unplaced.stderr)")
    #expect(
      unplaced.stderrLines.first?.hasPrefix("note: \(dir)/plan.png has no georeference: it is placed in pixel space") == true, "\(unplaced.stderr)")
    #expect(!unplaced.stderr.contains("done:"))
    // latitude and longitude swapped: the warning with both readings
    let swapped = try runTool([dir + "/plan.png", "-o", dir + "/swapped", "--center", "13.405,52.52", "--meters-per-pixel", "0.5", "-q"])
    #expect(swapped.status == 0, "\(swapped.stderr)")
    #expect(swapped.stderrLines.count == 1 && swapped.stderr.hasPrefix("warning: --center"), "\(swapped.stderr)")
    // a project's floor with no placement
    try "tileSizes: [256]\nmaxZoom: 3\nbuildings:\n  - id: hq\n    floors:\n      - { floor: 1, source: plan.png }\n"
      .write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
    let build = try runTool(["build", dir + "/tilecut.yml", "-q"])
    #expect(build.status == 0, "\(build.stderr)")
    #expect(build.stderrLines.count == 1 && build.stderr.hasPrefix("warning: hq floor 1: "), "\(build.stderr)")
    // an output up to date says nothing with -q (its warnings were the first run's)
    let again = try runTool([dir + "/plan.png", "-o", dir + "/out", "-q"])
    #expect(again.status == 0 && again.stderr.isEmpty, "\(again.stderr)")
  }

  @Test("a one-floor run without a terminal prints at most 6 lines on stderr", arguments: [false, true])
  func oneFloorLines(placed: Bool) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 500).writePNG(to: dir + "/plan.png")
    let place = placed ? ["--center", "51.5,-0.14", "--meters-per-pixel", "0.2"] : []
    let run = try runTool([dir + "/plan.png", "-o", dir + "/out"] + place)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderrLines.count <= 6, "\(run.stderrLines.count) lines:\n\(run.stderr)")
    #expect(run.stderr.contains("done: "), "\(run.stderr)")
  }
}
