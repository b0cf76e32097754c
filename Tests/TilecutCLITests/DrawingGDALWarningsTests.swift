import Foundation
import Testing

/// GDAL's warnings while it reads a DXF were collected and never shown: an insert of a
/// block the file lacks, blocks past GDAL's feature limit, … left things out of the tiles
/// without a word. They are printed as the other kinds print GDAL's, one escaped line
/// each, a few at most (issue 40, item 5).
@Suite("GDAL's warnings while reading a DXF")
struct DrawingGDALWarningsTests {
  /// A drawing in metres: a 10 m line, then an INSERT of each of `blocks`, none defined.
  func drawing(inserting blocks: [String]) -> String {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    for (k, name) in blocks.enumerated() {
      pairs += ["0", "INSERT", "5", String(0x100 + k, radix: 16), "8", "0", "2", name, "10", "1", "20", "1"]
    }
    return (pairs + ["0", "ENDSEC", "0", "EOF"]).joined(separator: "\n")
  }

  func run(_ text: String) throws -> (dir: String, status: Int32, warnings: [String], stderr: String) {
    let dir = try scratch()
    try Data(text.utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let r = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "16", "-o", dir + "/out", "-q"])
    return (dir, r.status, r.stderrLines.filter { $0.contains(": GDAL: ") }, r.stderr)
  }

  @Test("an insert of a block the file lacks is said in one line, as GDAL says it")
  func missingBlock() throws {
    let r = try run(drawing(inserting: ["DOOR"]))
    defer { try? FileManager.default.removeItem(atPath: r.dir) }
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.warnings == ["warning: \(r.dir)/plan.dxf: GDAL: Block DOOR does not exist"], "\(r.stderr)")
  }

  @Test("a drawing GDAL reads without a word prints none")
  func quiet() throws {
    let r = try run(drawing(inserting: []))
    defer { try? FileManager.default.removeItem(atPath: r.dir) }
    #expect(r.status == 0 && r.warnings.isEmpty, "\(r.stderr)")
  }

  /// The block names are the file's: 500 of them, with terminal escapes and one of 5,000
  /// characters, print 9 short lines without an escape byte.
  @Test("a file that makes GDAL warn many times prints a few escaped lines")
  func hostileNames() throws {
    let names = (0..<500).map { "B\($0)\u{1B}[2J\u{1B}]0;owned\u{07}" } + [String(repeating: "X", count: 5000)]
    let r = try run(drawing(inserting: names))
    defer { try? FileManager.default.removeItem(atPath: r.dir) }
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.warnings.count == 9, "\(r.stderr)")
    #expect(r.warnings.first?.hasSuffix("GDAL: Block B0\\u{1b}[2J\\u{1b}]0;owned\\u{7} does not exist") == true, "\(r.stderr)")
    #expect(r.warnings.last?.hasSuffix(" more warnings not shown") == true, "\(r.stderr)")
    #expect(!r.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 })
    #expect(r.stderr.utf8.count < 4000, "\(r.stderr.utf8.count) bytes")
  }

  /// GDAL's messages went into 2 KB and the rest were dropped uncounted ("55 more" for 92
  /// more); a block's name with U+2028 in it made a second line (hostile42 #10 and #11).
  @Test("every warning GDAL says is counted, and a name with a line separator stays one line")
  func countedAndOneLine() throws {
    let many = try run(drawing(inserting: (0..<100).map { "MISSING" + String(1000 + $0) }))
    defer { try? FileManager.default.removeItem(atPath: many.dir) }
    #expect(many.status == 0, "\(many.stderr)")
    #expect(many.warnings.count == 9 && many.warnings.last?.hasSuffix("GDAL: 92 more warnings not shown") == true, "\(many.stderr)")
    let forged = try run(drawing(inserting: ["A\u{2028}Block B does not exist"]))
    defer { try? FileManager.default.removeItem(atPath: forged.dir) }
    #expect(forged.warnings.count == 1, "\(forged.stderr)")
    #expect(forged.warnings.first?.hasSuffix("GDAL: Block A\\u{2028}Block B does not exist does not exist") == true, "\(forged.stderr)")
  }

  /// An XREF's block is empty, an IMAGE is drawn as its frame and an underlay not at all:
  /// tilecut opens none of the files they name, and now says so (hostile42 #7).
  @Test("external references, IMAGEs and underlays are each said in one line, their files unread")
  func references() throws {
    let pairs = [
      "0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC",
      "0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "8", "0", "2", "XR", "70", "4", "10", "0", "20", "0", "30", "0", "3", "XR", "1",
      "../walls\u{1B}[2J.dxf", "0", "ENDBLK", "8", "0", "0", "ENDSEC",
      "0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10",
      "0", "INSERT", "5", "A2", "8", "0", "2", "XR", "10", "1", "20", "1",
      "0", "IMAGE", "5", "A3", "8", "0", "10", "0", "20", "0", "30", "0", "11", "0.1", "21", "0", "31", "0", "12", "0", "22", "0.1",
      "32", "0", "13", "10", "23", "10", "340", "B1", "70", "3",
      "0", "PDFUNDERLAY", "5", "A4", "8", "0", "340", "B2", "10", "0", "20", "0", "30", "0", "41", "1", "42", "1", "43", "1",
      "0", "ENDSEC", "0", "SECTION", "2", "OBJECTS", "0", "IMAGEDEF", "5", "B1", "1", "pic.png", "10", "10", "20", "10",
      "0", "PDFDEFINITION", "5", "B2", "1", "/dev/zero", "2", "1", "0", "ENDSEC", "0", "EOF",
    ]
    let r = try run(pairs.joined(separator: "\n"))
    defer { try? FileManager.default.removeItem(atPath: r.dir) }
    #expect(r.status == 0, "\(r.stderr)")
    let said = r.stderr.split(separator: "\n").filter { $0.hasPrefix("warning: \(r.dir)/plan.dxf: ") && !$0.contains(": GDAL: ") }
    #expect(said.count == 3, "\(r.stderr)")
    #expect(
      said.contains {
        $0.hasSuffix(
          "block 'XR' is an external reference to '../walls\\u{1b}[2J.dxf', which tilecut does not read: it is not drawn; bind it in the CAD program (XREF, Bind)"
        )
      }, "\(r.stderr)")
    #expect(said.contains { $0.contains("its IMAGE of 'pic.png' is drawn as its frame") }, "\(r.stderr)")
    #expect(said.contains { $0.contains("its PDF underlay of '/dev/zero' is not drawn") }, "\(r.stderr)")
    #expect(!r.stderr.unicodeScalars.contains { $0.value == 0x1B })
  }
}
