import Foundation
import Testing
import TilecutFixtures

/// The repository's campus example folder.
private let campusFolder =
  URL(fileURLWithPath: TestEnvironment.repositoryRoot).path + "/examples/campus"

@Suite("messages that speak of what the user gave")
struct UserWordsMessageTests {
  @Test("--max-zoom 30 on a plan too wide for it names zoom 30, the zoom given, not the 512 px tiles' density 31")
  func maxZoomNamed() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 3000, height: 20).writePNG(to: dir + "/plan.png")
    let run = try runTool([dir + "/plan.png", "-o", dir + "/out", "--center", "51.5,-0.14", "--meters-per-pixel", "0.1", "--max-zoom", "30"])
    #expect(run.status == 1 && run.stderrLines.count == 1, "\(run.stderr)")
    #expect(run.stderr.contains("tiled to zoom 30,") && !run.stderr.contains("zoom 31"), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("a PDF page past the end says how many pages the file has, from the command line and from a project file")
  func pagePastTheEnd() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.copyItem(atPath: campusFolder + "/hq/hq.pdf", toPath: dir + "/plan.pdf")
    for page in [2, 9] {
      let run = try runTool([dir + "/plan.pdf[page=\(page)]", "-o", dir + "/out", "--dry-run"])
      #expect(run.status == 1 && run.stderrLines.count == 1, "\(run.stderr)")
      #expect(
        run.stderr.contains("plan.pdf: has 2 pages; page=\(page) is past the end (pages count from 0: 0 to 1)") && !run.stderr.contains("pdfload"),
        "\(run.stderr)")
    }
    try "buildings:\n  - id: hq\n    floors:\n      - { floor: 1, source: plan.pdf, page: 4 }\n"
      .write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
    let build = try runTool(["build", dir + "/tilecut.yml"])
    #expect(build.status == 1 && build.stderr.contains("has 2 pages; page=4 is past the end"), "\(build.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/tiles"))
  }

  @Test("an MBTiles store deeper than zoom 22 is written with one warning: GDAL refuses it, and opens the same at zoom 22")
  func mbtilesPastGDAL() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 60, height: 40).writePNG(to: dir + "/plan.png")
    let common = [dir + "/plan.png", "--center", "51.5,-0.14", "--meters-per-pixel", "0.05", "--store", "mbtiles", "--tile-size", "256", "-q"]
    let deep = try runTool(common + ["-o", dir + "/deep", "--max-zoom", "23"])
    #expect(deep.status == 0, "\(deep.stderr)")
    let warnings = deep.stderrLines.filter { $0.hasPrefix("warning: ") }
    #expect(
      warnings.count == 1 && warnings.first?.contains("MBTiles to zoom 23") == true && warnings.first?.contains("zoom 22") == true, "\(deep.stderr)")
    let shallow = try runTool(common + ["-o", dir + "/shallow", "--max-zoom", "22"])
    #expect(shallow.status == 0 && shallow.stderr.isEmpty, "\(shallow.stderr)")
    // what the warning says, as GDAL says it
    func gdalinfo(_ file: String) throws -> Int32 {
      let run = try runTool([], shell: "gdalinfo '\(file)' >/dev/null 2>&1")
      return run.status
    }
    #expect(try gdalinfo(dir + "/deep/L1_256.mbtiles") != 0)
    #expect(try gdalinfo(dir + "/shallow/L1_256.mbtiles") == 0)
  }
}
