import Foundation
import Testing
import TilecutFixtures

/// A PDF page whose viewport states a drawing scale (`/Measure /RL`, as AutoCAD plots
/// write it) is placed by `--center` alone: the scale gives metres per point.
@Suite("A PDF page's drawing scale (/Measure /RL) with --center")
struct PDFDrawingScaleTests {
  /// A 200 × 100 pt page with viewports of `/RL` measures, each (units per point, unit).
  func drawing(_ dir: String, _ measures: [(Double, String)], ratio: String = "1 in = 10 ft") throws -> String {
    let viewports = measures.map { c, u in
      "<< /Type /Viewport /BBox [0 0 200 100] /Measure << /Type /Measure /Subtype /RL /R (\(ratio)) /X [<< /U (\(u)) /C \(c) >>] /D [<< /U (\(u)) /C 1 >>] /A [<< /U (sq \(u)) /C 1 >>] >> >>"
    }
    let path = dir + "/plan.pdf"
    let page = measures.isEmpty ? "" : "/VP [\(viewports.joined(separator: " "))]"
    try Data(PDFWriter().document(content: Array("0 0 0 rg 10 10 180 80 re f".utf8), page: page)).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The JSON placement of a dry run.
  func placement(_ run: ToolRun) throws -> [String: Any] {
    let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    return try #require((json?["placements"] as? [[String: Any]])?.first, "\(run.stdout)")
  }

  @Test("1 pt = 10/72 ft: a 200 pt page at the equator spans 200 × 10/72 × 0.3048 m of longitude")
  func feet() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = try drawing(dir, [(10.0 / 72, "ft")])
    let run = try runBinary([path, "-o", dir + "/out", "--center", "0,0", "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let p = try placement(run)
    // WGS 84's equator: 2π · 6378137 m / 360° = 111319.49 m per degree of longitude
    let width = (p["east"] as? Double ?? .nan) - (p["west"] as? Double ?? .nan)
    let expected = 200 * 10.0 / 72 * 0.3048 / 111_319.490_793
    #expect(abs(width - expected) / expected < 1e-3, "width \(width)° against \(expected)°")
    #expect(run.stderr.contains("scale from the page's viewport: 1 pt = 0.138889 ft, \"1 in = 10 ft\""), "\(run.stderr)")
  }

  @Test("the options' scale wins over the viewport's")
  func optionsFirst() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = try drawing(dir, [(10.0 / 72, "ft")])
    let run = try runBinary([path, "-o", dir + "/out", "--center", "0,0", "--meters-per-pixel", "1", "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let width = try (placement(run)["east"] as? Double ?? .nan) - (placement(run)["west"] as? Double ?? .nan)
    #expect(abs(width - 200 / 111_319.490_793) < 1e-7, "\(width)")
    #expect(!run.stderr.contains("viewport"), "\(run.stderr)")
  }

  @Test("refused in one line naming --center, writing nothing", arguments: ["blank", "unknown", "disagree", "none"])
  func refused(kind: String) throws {
    let dir = try geoScratch("drawingscale-\(kind)")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let measures: [(Double, String)] =
      switch kind {
      case "blank": [(0.81499, " ")]
      case "unknown": [(2, "furlong")]
      case "disagree": [(1, "m"), (2, "m")]
      default: []
      }
    let path = try drawing(dir, measures)
    let run = try runBinary([path, "-o", dir + "/out", "--center", "0,0"])
    #expect(run.status == 2, "\(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    let expected =
      switch kind {
      case "blank": "as 1 pt = 0.81499 units it does not name; give --drawing-scale 1:N (1:58.6793 if those are inches, 1:704.151 if feet)"
      case "unknown": "'furlong', a unit tilecut does not know"
      case "disagree": "and otherwise in 1 more; give --drawing-scale 1:N"
      default: "--center needs --meters-per-pixel"
      }
    #expect(run.stderr.hasPrefix("error: --center") && run.stderr.contains(expected), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }
}
