import Foundation
import Testing
import TilecutVips

/// A CAD drawing is drawn at each zoom's own density, not reduced from the deepest:
/// strokes stay a pixel wide and texts legible where the drawing is small (issue 40, item 4).
@Suite("DXF drawings at every zoom: strokes and texts legible where the drawing is small")
struct DrawingZoomTests {
  /// A unitless R12 DXF (a unit a metre): a black (ACI 7) line 100 units long on WALLS,
  /// and "HH" on NOTES in red (ACI 1), 0.38 units high, well apart from the line.
  func writeDrawing(_ dir: String) throws {
    let pairs = [
      "0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "LAYER", "70", "2", "0", "LAYER", "2", "WALLS", "70", "0", "62", "7", "6",
      "CONTINUOUS", "0", "LAYER", "2", "NOTES", "70", "0", "62", "1", "6", "CONTINUOUS", "0", "ENDTAB", "0", "ENDSEC", "0", "SECTION",
      "2", "ENTITIES", "0", "LINE", "8", "WALLS", "10", "0", "20", "0", "11", "100", "21", "0", "0", "TEXT", "8", "NOTES", "10", "40",
      "20", "20", "30", "0", "40", "0.38", "1", "HH", "0", "LINE", "8", "WALLS", "10", "0", "20", "30", "11", "0.5", "21", "30", "0",
      "ENDSEC", "0", "EOF",
    ]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
  }

  /// Per zoom, over every tile of the zoom placed in one pixel grid: the median of the
  /// dark (line) ink of each column the line crosses, as the sum of its pixels' alpha
  /// (255 for a line a pixel wide, however it straddles rows), and the height in pixels
  /// of the red (text) ink.
  func inks(_ out: String) throws -> [Int: (lineInk: Int, textHeight: Int)] {
    var columns: [Int: [Int: Int]] = [:]
    var textRows: [Int: (min: Int, max: Int)] = [:]
    let files = FileManager.default.enumerator(atPath: out)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
    for name in files {
      // 256/L1_{z}_{x}_{y}.png, the default names
      let parts = (name.split(separator: "/").last ?? "").dropLast(4).split(separator: "_")
      guard parts.count == 4, let z = Int(parts[1]), let x = Int(parts[2]), let y = Int(parts[3]) else { continue }
      let tile = try RGBAImage.decode(file: out + "/" + name)
      for row in 0..<tile.height {
        for column in 0..<tile.width {
          let i = 4 * (row * tile.width + column)
          let (r, g, b, a) = (tile.pixels[i], tile.pixels[i + 1], tile.pixels[i + 2], tile.pixels[i + 3])
          guard a > 0 else { continue }
          if r < 96 && g < 96 && b < 96 { columns[z, default: [:]][x * tile.width + column, default: 0] += Int(a) }
          if r > 128 && g < 96 && b < 96 && a > 100 {
            let global = y * tile.height + row
            let seen = textRows[z] ?? (global, global)
            textRows[z] = (min(seen.min, global), max(seen.max, global))
          }
        }
      }
    }
    var result: [Int: (lineInk: Int, textHeight: Int)] = [:]
    for (z, sums) in columns {
      let sorted = sums.values.sorted()
      result[z] = (sorted[sorted.count / 2], 0)
    }
    for (z, rows) in textRows { result[z, default: (0, 0)].textHeight = rows.max - rows.min + 1 }
    return result
  }

  @Test("a one-pixel line stays opaque at every zoom; a text is at least 6 px high where that takes at most 3× its size")
  func legibleAtEveryZoom() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeDrawing(dir)
    let run = try runTool([
      dir + "/plan.dxf", "--center", "52,5", "--drawing-units", "m", "--min-zoom", "16", "--max-zoom", "21", "--tile-size", "256", "-o", dir + "/out",
      "-q",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let found = try inks(dir + "/out")
    // reduced from z21, a 1 px line would hold 1/2^(21−z) of its ink: drawn at each zoom, it is whole
    for z in 16...21 {
      let ink = found[z]?.lineInk ?? 0
      #expect((220...300).contains(ink), "z\(z): the line's ink a column is \(ink) (255: a pixel wide)")
    }
    // 0.38 m at 52° N is 8.3 px at z21: drawn as it is there, 6 px at z20 (4.1) and z19
    // (2.1, three times), as drawn (1 px) at z18, where 6 px would be six times its size
    let height = { (z: Int) in found[z]?.textHeight ?? 0 }
    #expect((7...10).contains(height(21)), "z21 text \(height(21)) px")
    #expect((6...8).contains(height(20)), "z20 text \(height(20)) px")
    #expect((6...8).contains(height(19)), "z19 text \(height(19)) px")
    #expect(height(18) <= 3, "z18 text \(height(18)) px")
  }

  @Test("the deepest zoom's tiles are the drawing as drawn: the same with or without the shallower zooms")
  func deepestUnchanged() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeDrawing(dir)
    for (name, minZoom) in [("all", "16"), ("deep", "21")] {
      let run = try runTool([
        dir + "/plan.dxf", "--center", "52,5", "--drawing-units", "m", "--min-zoom", minZoom, "--max-zoom", "21", "--tile-size", "256", "-o",
        dir + "/" + name, "-q",
      ])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let deep = FileManager.default.enumerator(atPath: dir + "/deep")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
    #expect(!deep.isEmpty)
    for name in deep {
      let a = try RGBAImage.decode(file: dir + "/deep/" + name)
      let b = try RGBAImage.decode(file: dir + "/all/" + name)
      #expect(a.pixels == b.pixels, "\(name) differs")
    }
  }
}
