import Foundation
import Testing
import TilecutFixtures

@testable import TilecutVips

/// Which of GDAL's messages while reading a drawing are shown, and how (DrawingWarnings).
@Suite("GDAL's warnings on a drawing, as shown")
struct DrawingWarningsTests {
  @Test("noise is left out; the rest is kept, escaped, cut and counted")
  func filtered() {
    let ring = "Non closed ring detected. To avoid accepting it, set the OGR_GEOMETRY_ACCEPT_UNCLOSED_RING configuration option to NO"
    let shown = DrawingWarnings.shown(
      "\(ring)\nBlock A\u{1B}[31m does not exist\n\(ring)\nBlock A\u{1B}[31m does not exist", path: "p.dxf", isDXF: true)
    #expect(shown == ["GDAL: Block A\\u{1b}[31m does not exist"])
    let long = DrawingWarnings.shown("Block \(String(repeating: "é", count: 1000)) does not exist", path: "p.dxf", isDXF: true)
    #expect(long.count == 1 && long[0].count == 6 + DrawingWarnings.maxCharacters && long[0].hasSuffix("…"))
    let many = DrawingWarnings.shown((0..<20).map { "Block \($0) does not exist" }.joined(separator: "\n"), path: "p.dxf", isDXF: true)
    #expect(many.count == DrawingWarnings.maxShown + 1)
    #expect(many.last == "GDAL: 12 more warnings not shown")
  }

  /// A block's name may hold U+2028, U+2029 or NEL, which ended a message and made a
  /// second, forged one ("GDAL: Block B does not exist"); and the messages GDAL said past
  /// those kept are counted (hostile42 #11 and #10).
  @Test("GDAL's messages are split on line feeds only, and those not kept are counted")
  func separatorsAndCount() {
    let forged = DrawingWarnings.shown("Block A\u{2028}Block B\u{85}C\u{2029} does not exist\r\nBlock D does not exist", path: "p.dxf", isDXF: true)
    #expect(forged == ["GDAL: Block A\\u{2028}Block B\\u{85}C\\u{2029} does not exist", "GDAL: Block D does not exist"])
    let said = (0..<20).map { "Block \($0) does not exist" }.joined(separator: "\n")
    #expect(DrawingWarnings.shown(said, dropped: 80, path: "p.dxf", isDXF: true).last == "GDAL: 92 more warnings not shown")
    let one = DrawingWarnings.shown("Block A does not exist", dropped: 1, path: "p.dxf", isDXF: true)
    #expect(one == ["GDAL: Block A does not exist", "GDAL: 1 more warning not shown"])
  }

  /// GDAL's CAD driver says "Unhandled feature. Skipping it." of each entity it skips;
  /// a block's name shaped as a reader error of another file was left out (hostile42 #12, #14d).
  @Test("entities the CAD driver skips are counted in one line; a block named like a reader error is said")
  func unhandledAndSpoofed() {
    let skipped = DrawingWarnings.shown(
      "Unhandled feature. Skipping it.\nUnhandled feature. Skipping it.\nUnhandled feature. Skipping it.", path: "p.dwg", isDXF: false)
    #expect(skipped == ["GDAL: 3 entities of a kind GDAL's CAD driver does not read are not drawn; save the drawing as DXF to draw them"])
    let spoof = "Block A.cpp, 1: error at line 5 of other.dxf does not exist"
    #expect(DrawingWarnings.shown(spoof, path: "p.dxf", isDXF: true) == ["GDAL: \(spoof)"])
    #expect(DrawingWarnings.readerError("./ogr/ogrsf_frmts/dxf/ogrdxflayer.cpp, 767: error at line 16 of p.dxf")! == (16, "p.dxf"))
  }

  /// GDAL's reader errors name its own source; the entity is looked up in the file by the
  /// line, and one that tilecut reads itself (a fit-point SPLINE GDAL cannot read) is not said.
  @Test("a reader error names the entity at its line, unless tilecut reads that kind itself")
  func readerErrors() throws {
    let dir = try TestEnvironment.scratchDirectory("vips", for: #function)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/plan.dxf"
    let pairs = [
      "0", "SECTION", "2", "ENTITIES", "0", "TEXT", "8", "0", "10", "0", "20", "0", "40", "1", "1", "x", "0", "SPLINE", "8", "0", "70",
      "8", "0", "ENDSEC", "0", "EOF",
    ]
    try Data(pairs.joined(separator: "\r\n").utf8).write(to: URL(fileURLWithPath: path))
    func error(_ line: Int, _ file: String = path) -> String { "./ogr/ogrsf_frmts/dxf/ogrdxflayer.cpp, 767: error at line \(line) of \(file)" }
    // the TEXT starts at line 5, its last value is line 16, the SPLINE starts at line 17
    #expect(
      DrawingWarnings.shown(error(16), path: path, isDXF: true) == ["GDAL: cannot read the TEXT ending near line 16 (damaged?): it is not drawn"])
    #expect(
      DrawingWarnings.shown(error(17), path: path, isDXF: true) == ["GDAL: cannot read the TEXT ending near line 17 (damaged?): it is not drawn"])
    #expect(DrawingWarnings.shown(error(22), path: path, isDXF: true).isEmpty)
    #expect(DrawingWarnings.shown(error(16, "/vsimem/tilecut-refs-0x1.dxf"), path: path, isDXF: true).isEmpty)
    #expect(
      DrawingWarnings.shown(error(3), path: path, isDXF: true) == ["GDAL: cannot read the entity ending near line 3 (damaged?): it is not drawn"])
    // past the file's end (an entity that took the rest of it as its values): its last, the SPLINE
    #expect(DrawingWarnings.shown(error(400), path: path, isDXF: true).isEmpty)
  }

  /// GDAL drops a block it reads nothing of (one holding only a table, which tilecut draws
  /// through its inserts) and then says an insert's block does not exist.
  @Test("a block GDAL calls missing is not said when the DXF defines it")
  func definedBlocks() throws {
    let dir = try TestEnvironment.scratchDirectory("vips", for: #function)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/plan.dxf"
    let pairs = [
      "0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "5", "B4", "8", "0", "2", "CARD", "70", "0", "0", "ACAD_TABLE", "2", "*T1", "0",
      "ENDBLK", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "INSERT", "2", "CARD", "0", "INSERT", "2", "DOOR", "0", "ENDSEC",
      "0", "EOF",
    ]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
    let said = "Block CARD does not exist\nBlock DOOR does not exist\nBlock *T1 does not exist"
    #expect(DrawingWarnings.shown(said, path: path, isDXF: true) == ["GDAL: Block DOOR does not exist", "GDAL: Block *T1 does not exist"])
  }
}
