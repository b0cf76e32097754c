import Foundation
import Testing
import TilecutVips

/// `--drawing-units` wins over a drawing's `$INSUNITS` for the whole frame: its source
/// pixels, its margin, `--max-pixels` and so the deepest zoom, not only the placement's
/// scale (issue 40: a drawing whose `$INSUNITS` disagrees with its geometry).
@Suite("DXF drawings whose $INSUNITS is wrong, framed by --drawing-units")
struct DrawingUnitsTests {
  /// An R12 DXF whose header says `$INSUNITS` `insunits`: a 40 × 30 m room with a wall
  /// across it and a door-sized square, its coordinates in units of `scale` metres.
  func writeRoom(_ path: String, insunits: Int, scale: Double) throws {
    func n(_ metres: Double) -> String { String(metres / scale) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", String(insunits), "0", "ENDSEC"]
    pairs += [
      "0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "LAYER", "70", "1", "0", "LAYER", "2", "WALLS", "70", "0", "62", "7", "6",
      "CONTINUOUS", "0", "ENDTAB", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES",
    ]
    let lines: [(Double, Double, Double, Double)] = [
      (0, 0, 40, 0), (40, 0, 40, 30), (40, 30, 0, 30), (0, 30, 0, 0), (0, 12.5, 40, 12.5), (17, 20, 18, 20), (18, 20, 18, 21),
    ]
    for (x0, y0, x1, y1) in lines {
      pairs += ["0", "LINE", "8", "WALLS", "10", n(x0), "20", n(y0), "11", n(x1), "21", n(y1)]
    }
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
  }

  /// Every PNG below `dir`, by its path there → its decoded pixels.
  func tiles(_ dir: String) throws -> [String: [UInt8]] {
    let names = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
    var found: [String: [UInt8]] = [:]
    for name in names { found[name] = try RGBAImage.decode(file: dir + "/" + name).pixels }
    return found
  }

  @Test(
    "a drawing in one unit labelled another tiles, with --drawing-units, as the same drawing labelled right",
    arguments: [
      // $INSUNITS 6 (metres) on millimetres: framed in metres it is 800000 × 600000 px, over --max-pixels
      (labelled: 6, actual: 4, scale: 0.001, option: "mm"),
      // $INSUNITS 4 (millimetres) on metres: framed in millimetres its pixels are 50 m, its deepest zoom 10 too shallow
      (labelled: 4, actual: 6, scale: 1.0, option: "m"),
      // $INSUNITS 4 on inches, as the corpus' house plan (bjnortier_floorplan.dxf)
      (labelled: 4, actual: 1, scale: 0.0254, option: "in"),
    ])
  func framedByTheOption(labelled: Int, actual: Int, scale: Double, option: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeRoom(dir + "/wrong.dxf", insunits: labelled, scale: scale)
    try writeRoom(dir + "/right.dxf", insunits: actual, scale: scale)
    let given = try runTool([dir + "/wrong.dxf", "--drawing-units", option, "--center", "52,5", "-o", dir + "/given", "-q"])
    #expect(given.status == 0, "\(given.stderr)")
    let right = try runTool([dir + "/right.dxf", "--center", "52,5", "-o", dir + "/right", "-q"])
    #expect(right.status == 0, "\(right.stderr)")
    let expected = try tiles(dir + "/right")
    let found = try tiles(dir + "/given")
    // 816 px of 5 cm: 256 px tiles down to z20, which the wrong label alone makes z16
    #expect(expected.keys.contains { $0.hasPrefix("256/") && $0.contains("_20_") }, "no z20 tile: \(expected.keys.sorted().prefix(3))")
    #expect(found.keys.sorted() == expected.keys.sorted(), "tiles \(found.count) against \(expected.count)")
    for (name, pixels) in expected { #expect(found[name] == pixels, "\(name) differs") }
  }
}
