import Foundation
import Testing

/// DXFs that tilecut's own scans beside GDAL read (hatch edge paths, MLINEs, tapered
/// polylines, texts): bad input is refused in one line that names the file, with a
/// non-zero exit and an earlier output left as it was (issue 40, item 5).
@Suite("hostile DXFs read by tilecut's own scans", .serialized)
struct HostileDXFScanTests {
  /// A drawing in metres: a 10 m line and a hatch whose edge path holds a spline.
  func drawing() -> [String] {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    pairs += [
      "0", "HATCH", "5", "A2", "8", "0", "10", "0", "20", "0", "30", "0", "2", "SOLID", "70", "1", "71", "0", "91", "1", "92", "1",
      "93", "2", "72", "1", "10", "0", "20", "0", "11", "10", "21", "0", "72", "4", "94", "2", "73", "0", "74", "0", "95", "6",
      "96", "3", "40", "0", "40", "0", "40", "0", "40", "1", "40", "1", "40", "1", "10", "10", "20", "0", "10", "12", "20", "5",
      "10", "0", "20", "0", "97", "0", "75", "0", "76", "1", "98", "0",
    ]
    return pairs + ["0", "ENDSEC", "0", "EOF"]
  }

  /// Every file below `dir`, by its path there → its bytes.
  func contents(_ dir: String) -> [String: Data] {
    let names = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
    var found: [String: Data] = [:]
    for name in names { found[name] = FileManager.default.contents(atPath: dir + "/" + name) }
    return found
  }

  @Test(
    "a DXF cut short inside an entity is refused in one line, the earlier output kept",
    arguments: [
      // cut in the hatch's edge path, after a group code
      (pairs: 40, half: false),
      // cut inside a value: a code line with half its value
      (pairs: 45, half: true),
    ])
  func cutShort(pairs count: Int, half: Bool) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let whole = drawing()
    try Data(whole.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let options = ["--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "20", "-o", dir + "/out", "-q"]
    let first = try runTool([dir + "/plan.dxf"] + options)
    #expect(first.status == 0, "\(first.stderr)")
    let before = contents(dir + "/out")
    #expect(!before.isEmpty)
    var cut = Array(whole.prefix(2 * count))
    if half { cut[cut.count - 1] = String(cut[cut.count - 1].prefix(1)) }
    try Data(cut.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let second = try runTool([dir + "/plan.dxf"] + options)
    #expect(second.status == 1)
    let lines = second.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(second.stderr)")
    #expect(second.stderr.contains("plan.dxf") && second.stderr.contains("cut short"), "\(second.stderr)")
    #expect(contents(dir + "/out") == before)
  }

  @Test(
    "a text of an absurd height or angle, upright or seen from below, is tiled, not refused as an invalid matrix",
    arguments: [
      // 10^200 high: a float's infinity, skipped as no glyph of it can be seen
      (code: "40", value: "1e200", down: false), (code: "40", value: "1e200", down: true),
      // turned 10^200 and 10^308 degrees: some turn, not a float's infinity
      (code: "50", value: "1e200", down: false), (code: "50", value: "1e308", down: true),
    ])
  func absurdText(code: String, value: String, down: Bool) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    var text = ["0", "TEXT", "5", "A2", "8", "0", "10", "5", "20", "5", "30", "0", "40", "1", "1", "Hello"]
    if down { text += ["210", "0", "220", "0", "230", "-1"] }
    if let at = text.firstIndex(of: code), code == "40" { text[at + 1] = value } else { text += [code, value] }
    pairs += text + ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let result = try runTool([
      dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "20", "-o", dir + "/out", "-q",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty, "\(result.stderr)")
  }
}
