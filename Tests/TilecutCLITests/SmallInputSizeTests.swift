import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

#if canImport(Glibc)
  import Glibc
#endif

/// Small text inputs (a KML, a project file, a world file, a `--source-crs` file) are
/// refused by their size before they are read: a sparse KML of 4 GB was read whole
/// (8.2 GB resident) before its 16 MB check.
@Suite("small text inputs are sized before they are read")
struct SmallInputSizeTests {
  /// A sparse file of `bytes` starting with `head`: no disk, and no time to write.
  func sparse(_ path: String, head: String, bytes: Int) throws {
    try Data(head.utf8).write(to: URL(fileURLWithPath: path))
    #expect(truncate(path, off_t(bytes)) == 0)
  }

  @Test("a sparse KML, project file, world file and --source-crs file of 200 MB are refused in one line within 150 MB")
  func sparseInputs() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let size = 200 << 20
    try sparse(dir + "/big.kml", head: "<kml><Document>", bytes: size)
    try sparse(dir + "/tilecut.yaml", head: "output: out\n", bytes: size)
    try sparse(dir + "/plan.pgw", head: "0.5\n0\n0\n-0.5\n", bytes: size)
    try sparse(dir + "/crs.wkt", head: "PROJCS[", bytes: size)
    try "0.5\n0\n0\n-0.5\n500000\n180000\n".write(toFile: dir + "/small.pgw", atomically: true, encoding: .utf8)
    try RGBAImage(width: 16, height: 16).writePNG(to: dir + "/plan.png")
    let runs: [(args: [String], names: String, says: String)] = [
      ([dir + "/big.kml", "-o", dir + "/out", "-q", "--dry-run"], "big.kml", "more than 16 MB"),
      (["build", dir + "/tilecut.yaml"], "tilecut.yaml", "more than 16 MB"),
      ([dir + "/plan.png", "--world-file", dir + "/plan.pgw", "-o", dir + "/out", "-q", "--dry-run"], "plan.pgw", "more than 1 MB"),
      (
        [dir + "/plan.png", "--world-file", dir + "/small.pgw", "--source-crs", dir + "/crs.wkt", "-o", dir + "/out", "-q", "--dry-run"],
        "crs.wkt", "more than 1 MB"
      ),
    ]
    let binary = try tilecutBinary()
    for run in runs {
      // through a fresh python3: a child of the test process reports the test's own peak
      let result = try peakMemory([binary] + run.args)
      #expect(result.status == 1 || result.status == 2, "\(run.names): \(result.status) \(result.stderr)")
      #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
      #expect(result.stderr.contains(run.names) && result.stderr.contains(run.says), "\(result.stderr)")
      #expect(result.maxResidentKB < 150 << 10, "\(run.names): \(result.maxResidentKB) KB resident")
    }
  }
}
