import CTilecutDocument
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// Tests/scripts/dxf-writers.py: drawings written as other CAD programs write them.
let dxfWritersScript = URL(fileURLWithPath: inkCompareScript).deletingLastPathComponent()
  .appendingPathComponent("dxf-writers.py").path

@Suite(
  "DXF drawings of every version against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingWritersTests {
  /// The same plan fragment written as R12 (also without entity handles, as old programs
  /// write it), R2000, R2010 and R2018 by ezdxf (polylines
  /// with widths and bulges, curves, aligned and turned texts, MTEXT, doors inserted
  /// rotated, scaled and mirrored with ATTRIBs and hatches, a dimension, off and
  /// frozen layers, true colours, lineweights): issue 40's 0.9 on each.
  @Test("each DXF version is drawn as ezdxf draws it", arguments: ["R12", "R12_NOHANDLES", "R2000", "R2010", "R2018"])
  func matchesEzdxf(version: String) throws {
    let dir = NSTemporaryDirectory() + "tilecut-dxf-writers-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let written = try EzdxfRunner.run(script: dxfWritersScript, [dir, version])
    try #require(written.status == 0, "dxf-writers.py could not write the \(version) drawing")
    let result = try compareWithEzdxf(dir + "/plan_\(version).dxf", columns: 1000)
    print(
      "plan_\(version).dxf: recall \(result.recall), precision \(result.precision), text recall \(result.textRecall), shift \(result.shift) (\(result.subpixelShift ?? []))"
    )
    #expect(result.recall >= 0.9, "\(version): recall \(result.recall)")
    #expect(result.precision >= 0.9, "\(version): precision \(result.precision)")
    #expect(result.textRecall >= 0.9, "\(version): text recall \(result.textRecall)")
    #expect(result.shift == [0, 0], "\(version): shifted by \(result.shift)")
  }

  /// MTEXT notes in columns, which GDAL 3.6 does not read (R2018 writes them as an
  /// embedded object, earlier versions as ACAD XDATA): static columns, dynamic ones of
  /// set heights and of a defined height, a column break, anchored top left, in the
  /// middle and bottom right, each note flowing from column to column as ezdxf lays it
  /// out (seen 0.340/0.359/0.215 in both with each note wrapped at its full width).
  @Test("MTEXT columns are laid out as ezdxf lays them out", arguments: ["notes_R2018", "notes_R2010"])
  func columnsMatchEzdxf(name: String) throws {
    let result = try compareWritten(name, columns: 1000)
    result.expectAsEzdxf("\(name).dxf", least: 0.9)
  }

  /// TEXTs and an ATTRIB mirrored in x and y (generation flags 2, 4 and 6, which GDAL
  /// 3.6 leaves: drawn mirrored about their alignment point), MTEXTs of 0.8 and 1.6
  /// line spacing and two of a height set by a \H at their start, %%d and %%p
  /// (seen 0.577/0.555/0.466 drawn unmirrored, their lines 5/3 of the height apart
  /// whatever the spacing, before the \H notes were added; with them 0.920/0.925/0.894
  /// drawn at the MTEXTs' own height; 1/1/1 now).
  @Test(
    "mirrored texts, MTEXT line spacing and a height set by \\H are drawn as ezdxf draws them",
    arguments: ["marks_R2000", "marks_R2018"])
  func marksMatchEzdxf(name: String) throws {
    let result = try compareWritten(name, columns: 1000)
    result.expectAsEzdxf("\(name).dxf", least: 0.9)
  }

  /// A note of 300 lines, each ending in a column break, through 1000 columns 150 units
  /// high: laid out in at most 100 columns of 110 units, the rest in the last, so its
  /// ink, and with it the frame, is about 11000 units wide (300 columns: 33000).
  @Test("an MTEXT's columns are bounded: at most 100, the rest of its text in the last")
  func boundedColumns() throws {
    let dir = NSTemporaryDirectory() + "tilecut-dxf-columns-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/columns.dxf"
    let written = try runPython(
      """
      import ezdxf, sys
      from ezdxf.entities.mtext import MTextColumns
      doc = ezdxf.new("R2018")
      doc.header["$INSUNITS"] = 4
      note = doc.modelspace().add_mtext("a\\\\N" * 300, dxfattribs={"char_height": 100, "insert": (0, 0)})
      note.setup_columns(MTextColumns.new_dynamic_manual_height_columns(100, 10, [150.0] * 1000))
      doc.saveas(sys.argv[1])
      """,
      [path])
    try #require(written.status == 0, "ezdxf could not write the note")
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 31)
    let frame = try #require(header.drawing)
    let width = Double(header.width - 2 * frame.padding) * frame.unitsPerPixel
    #expect(width > 10000 && width < 11500, "the note's ink is \(width) units wide")
    let left = frame.x0 + Double(frame.padding) * frame.unitsPerPixel
    #expect(abs(left) < 100, "the note's ink starts at \(left), not at its insertion point")
    var source = SourceDescription(path: path, width: header.width, height: header.height, isVector: true)
    source.drawing = frame
    let image = try RGBAImage.decode(SourceImage.pixels(of: source, format: header.format, sequential: true, scale: 1))
    #expect(image.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element > 0 }, "the note is drawn")
  }

  /// Writes `name` with dxf-writers.py and compares tilecut's rendering with ezdxf's.
  func compareWritten(_ name: String, columns: Double) throws -> InkComparison {
    let dir = NSTemporaryDirectory() + "tilecut-dxf-writers-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let written = try EzdxfRunner.run(script: dxfWritersScript, [dir, name])
    try #require(written.status == 0, "dxf-writers.py could not write \(name)")
    return try compareWithEzdxf(dir + "/\(name).dxf", columns: columns)
  }
}
