import CTilecutDocument
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

@Suite("a DXF header's $INSUNITS, read as bytes")
struct DrawingUnitsHeaderTests {
  func units(_ text: String) -> Int? { DrawingSource.insunits(header: Array(text.utf8)) }

  @Test("group code and value pairs, with CR LF, LF or CR line ends and padded codes")
  func pairs() {
    let header = ["  0", "SECTION", "  2", "HEADER", "  9", "$ACADVER", "  1", "AC1015", "  9", "$INSUNITS", " 70", "     4", "  0", "ENDSEC"]
    for end in ["\r\n", "\n", "\r"] {
      #expect(units(header.joined(separator: end)) == 4, "\(end.debugDescription)")
    }
    // the value is the line after code 70 only
    #expect(units("0\nSECTION\n9\n$INSUNITS\n40\n4\n0\nENDSEC\n") == nil)
    // after the section's end, or a value that is a group code's text, is nothing
    #expect(units("0\nSECTION\n0\nENDSEC\n9\n$INSUNITS\n70\n6\n") == nil)
    #expect(units("0\nSECTION\n1\n$INSUNITS\n9\nx\n70\n6\n") == nil)
    #expect(units("0\nSECTION\n9\n$INSUNITS\n70\nmm\n") == nil)
    #expect(units("") == nil)
  }

  /// dxflib writes two or three 999 comments before the first section (the program,
  /// the date, the library: CloudCompare's export in ezdxf's integration_tests/data/
  /// cc_dxflib.dxf, refused before as "text, which tilecut does not read"); GDAL and
  /// ezdxf read such a file. A head of comments alone, or other text, is no DXF.
  @Test("a DXF is known by its first section after any number of 999 comments", arguments: ["\n", "\r\n"])
  func comments(end: String) throws {
    func format(_ lines: [String]) -> SourceFormat? { DrawingSource.format(Array(lines.joined(separator: end).utf8)) }
    let comments = ["999", "Created by CloudCompare", "999", "Created 2020/12/16 15:18", "999", "dxflib 3.17.0.0"]
    #expect(format(comments + ["  0", "SECTION", "  2", "HEADER"]) == .dxf)
    #expect(format(Array(comments.prefix(2)) + ["0", "SECTION", "2", "ENTITIES"]) == .dxf)
    #expect(format(["0", "SECTION", "2", "HEADER"]) == .dxf)
    #expect(format(comments) == nil)
    #expect(format(comments + ["  0", "EOF"]) == nil)
    #expect(format(["999", "0", "SECTION"]) == nil)
    #expect(format(["hello", "world"]) == nil)
  }

  @Test(
    "the corpus drawings' units are the ones ezdxf reads",
    .enabled(if: dxfCorpus != nil && ezdxfAvailable, "needs ../shared/data/formats-corpus/dxf and ezdxf"))
  func corpus() throws {
    let dir = try #require(dxfCorpus)
    let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".dxf") }.sorted()
    let script = "import ezdxf, sys\nfor p in sys.argv[1:]:\n    d = ezdxf.readfile(p)\n    print(d.header.get('$INSUNITS', -1))"
    let read = try runPython(script, files.map { dir + "/" + $0 })
    let expected = String(decoding: read.stdout, as: UTF8.self).split(separator: "\n").map { Int($0) ?? -2 }
    #expect(read.status == 0 && expected.count == files.count)
    for (file, want) in zip(files, expected) {
      #expect(DrawingSource.insunits(path: dir + "/" + file) == (want < 0 ? nil : want), "\(file)")
    }
  }
}

@Suite("DXF read ahead", .enabled(if: dxfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/dxf is absent"))
struct DrawingReadAheadTests {
  /// tc_dxf_read_ahead reads a drawing as the header's measure does; the measure then
  /// waits for it and shares its display list (at most one read ahead a process).
  @Test("a drawing read ahead measures as the same drawing read by its header alone")
  func readAheadMeasuresAlike() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tilecut-readahead-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = (dxfCorpus ?? "") + "/bjnortier_floorplan.dxf"
    let ahead = dir + "/ahead.dxf"
    let alone = dir + "/alone.dxf"
    try FileManager.default.copyItem(atPath: source, toPath: ahead)
    try FileManager.default.copyItem(atPath: source, toPath: alone)
    #expect(DrawingSource.readsAhead(path: ahead))
    tc_dxf_read_ahead(ahead, DrawingSource.listBytes(maxMemory: DecodeBudget.defaultBytes), DrawingSource.maxTextBytes)
    let read = try SourceImage.header(of: InputName(path: ahead), maxPixels: 1 << 31)
    tc_dxf_preload_finish()
    let measured = try SourceImage.header(of: InputName(path: alone), maxPixels: 1 << 31)
    #expect(read.width == measured.width && read.height == measured.height)
    #expect(read.drawing?.x0 == measured.drawing?.x0 && read.drawing?.yTop == measured.drawing?.yTop)
    #expect(read.drawing?.unitsPerPixel == measured.drawing?.unitsPerPixel)
    DrawingSource.forget(path: ahead)
    DrawingSource.forget(path: alone)
  }

  @Test("only a regular text DXF of at most 8 MB is read ahead")
  func readsAheadOnlyTextDXF() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tilecut-readahead-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeMinimalDXF(to: dir + "/plan.dxf", layerOff: false)
    #expect(DrawingSource.readsAhead(path: dir + "/plan.dxf"))
    try Data("AutoCAD Binary DXF\r\n\u{1A}\0".utf8).write(to: URL(fileURLWithPath: dir + "/binary.dxf"))
    #expect(!DrawingSource.readsAhead(path: dir + "/binary.dxf"))
    try Data("not a drawing at all".utf8).write(to: URL(fileURLWithPath: dir + "/text.dxf"))
    #expect(!DrawingSource.readsAhead(path: dir + "/text.dxf"))
    #expect(!DrawingSource.readsAhead(path: dir))
    #expect(!DrawingSource.readsAhead(path: dir + "/absent.dxf"))
    let big = FileManager.default.createFile(atPath: dir + "/big.dxf", contents: nil)
    #expect(big)
    let handle = try #require(FileHandle(forWritingAtPath: dir + "/big.dxf"))
    try handle.write(contentsOf: Data("0\nSECTION\n2\nENTITIES\n".utf8))
    try handle.truncate(atOffset: UInt64(DrawingSource.readAheadBytes + 1))
    try handle.close()
    #expect(!DrawingSource.readsAhead(path: dir + "/big.dxf"))
  }
}
