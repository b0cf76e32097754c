import Foundation
import Testing
import TilecutFixtures

@testable import Tilecut
@testable import TilecutCore

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 37, item 10: `--tps` is bounded by a count of control points.
@Suite("control point caps")
struct SplineCapTests {
  /// plan.png (600 × 400) with `count` control points in its `.aux.xml`, on an affine grid.
  func controlPoints(_ dir: String, count: Int) throws {
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    let side = Int(Double(count).squareRoot().rounded(.up))
    var xml = "<PAMDataset><GCPList Projection=\"EPSG:4326\">"
    for i in 0..<count {
      let px = Double(i % side) * 600 / Double(side) + 0.5
      let py = Double(i / side) * 400 / Double(side) + 0.5
      xml += "<GCP Id=\"\(i)\" Pixel=\"\(px)\" Line=\"\(py)\" X=\"\(13 + px * 1e-5)\" Y=\"\(52 - py * 1e-5)\"/>"
    }
    try (xml + "</GCPList></PAMDataset>").write(toFile: dir + "/plan.png.aux.xml", atomically: true, encoding: .utf8)
  }

  @Test("--tps through more control points than its cap is refused in one line naming the .aux.xml; a polynomial fit takes them")
  func splinePointsCapped() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // 600 points: 100 more than a spline takes (GDALControlPointTransformer.maxSplinePoints)
    try controlPoints(dir, count: 600)
    let spline = try runIn(dir, ["plan.png", "--tps", "--dry-run", "-o", "out", "-q"])
    #expect(spline.status == 1 && spline.stderrLines.count == 1, "\(spline.stderr)")
    // the .aux.xml that holds the points is the file at fault (issue 39 item 7)
    #expect(spline.stderr.hasPrefix("error: plan.png.aux.xml: has 600 control points"), "\(spline.stderr)")
    #expect(spline.stderr.contains("thin-plate spline") && spline.stderr.contains("--tps"), "\(spline.stderr)")
    let polynomial = try runIn(dir, ["plan.png", "--dry-run", "-o", "out", "-q"])
    #expect(polynomial.status == 0, "\(polynomial.stderr)")
    // a spline through few points is fitted as before
    try controlPoints(dir, count: 25)
    let few = try runIn(dir, ["plan.png", "--tps", "--dry-run", "-o", "out", "-q"])
    #expect(few.status == 0, "\(few.stderr)")
  }
}
