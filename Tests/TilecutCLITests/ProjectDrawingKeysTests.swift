import Foundation
import Testing
import TilecutVips

/// A project file's `drawingUnits:` and `layers:` keys, as `--drawing-units` and `--layers`.
@Suite("project file: a drawing's units and layers")
struct ProjectDrawingKeysTests {
  /// A unitless R12 DXF: a black (ACI 7) line on WALLS, a red (ACI 1) one on NOTES,
  /// `size` × `size` / 2 units.
  func writeDrawing(_ dir: String, size: Int = 10) throws {
    let (w, h) = (String(size), String(size / 2))
    let pairs = [
      "0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "LAYER", "70", "2", "0", "LAYER", "2", "WALLS", "70", "0", "62", "7", "6",
      "CONTINUOUS", "0", "LAYER", "2", "NOTES", "70", "0", "62", "1", "6", "CONTINUOUS", "0", "ENDTAB", "0", "ENDSEC", "0", "SECTION",
      "2", "ENTITIES", "0", "LINE", "8", "WALLS", "10", "0", "20", "0", "11", w, "21", h, "0", "LINE", "8", "NOTES", "10", "0", "20",
      h, "11", w, "21", "0", "0", "ENDSEC", "0", "EOF",
    ]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
  }

  func project(_ dir: String, units: String, layers: String) throws -> String {
    let file = dir + "/tilecut.yml"
    let yaml = """
      maxZoom: 21
      tileSizes: [256]
      output: out
      force: true
      buildings:
        - id: hq
          floors:
            - floor: 1
              source: plan.dxf
              center: [52, 5]
              drawingUnits: \(units)
              layers: \(layers)
      """
    try yaml.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  /// The floor's footprint's width in Web-Mercator units, from `build --dry-run --json`.
  func footprintWidth(_ file: String) throws -> Double {
    let run = try runTool(["build", file, "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let floors = try #require((json["plan"] as? [String: Any])?["floors"] as? [[String: Any]])
    let footprint = try #require(floors.first?["footprint"] as? [String: Double])
    return try #require(footprint["maxU"]) - #require(footprint["minU"])
  }

  /// Pixels of the deepest zoom's tiles that are inked red (NOTES) and dark (WALLS).
  func inks(_ dir: String) throws -> (red: Int, dark: Int) {
    var red = 0
    var dark = 0
    let files = FileManager.default.enumerator(atPath: dir + "/out")?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
    #expect(!files.isEmpty)
    for name in files {
      let tile = try RGBAImage.decode(file: dir + "/out/" + name)
      for i in stride(from: 0, to: tile.pixels.count, by: 4) where tile.pixels[i + 3] > 128 {
        if tile.pixels[i] > 128 && tile.pixels[i + 1] < 96 { red += 1 }
        if tile.pixels[i] < 96 && tile.pixels[i + 1] < 96 && tile.pixels[i + 2] < 96 { dark += 1 }
      }
    }
    return (red, dark)
  }

  @Test("drawingUnits scales the drawing on the ground; a wrong unit is refused at its line")
  func drawingUnits() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // the frame's margin is 1 % of the drawing's side and at least 2 pixels of 5 cm on
    // the ground: 1000 units, 10 m in centimetres, keep it 1 % in both units
    try writeDrawing(dir, size: 1000)
    let metres = try footprintWidth(try project(dir, units: "m", layers: "[WALLS]"))
    let centimetres = try footprintWidth(try project(dir, units: "cm", layers: "[WALLS]"))
    #expect(abs(metres / centimetres - 100) < 0.5, "\(metres) against \(centimetres)")
    let run = try runTool(["build", try project(dir, units: "parsecs", layers: "[WALLS]"), "--dry-run"])
    #expect(run.status != 0)
    #expect(run.stderr.contains("tilecut.yml:") && run.stderr.contains("drawingUnits: 'parsecs' is not a unit"), "\(run.stderr)")
  }

  @Test("layers, a list or the CLI's text, draws only the layers it names")
  func layers() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeDrawing(dir)
    #expect(try runTool(["build", try project(dir, units: "m", layers: "[WALLS]"), "--quiet"]).status == 0)
    let walls = try inks(dir)
    #expect(walls.dark > 50 && walls.red == 0, "\(walls)")
    #expect(try runTool(["build", try project(dir, units: "m", layers: "\"!WALL*\""), "--quiet"]).status == 0)
    let notes = try inks(dir)
    #expect(notes.red > 50 && notes.dark == 0, "\(notes)")
    let run = try runTool(["build", try project(dir, units: "m", layers: "[WALLS, \"A,B\"]"), "--dry-run"])
    #expect(run.status != 0 && run.stderr.contains("without a comma"), "\(run.stderr)")
  }

  @Test("layers matching none of the drawing's layers: one line naming --layers and the layers it has, not an empty pyramid")
  func layersMatchingNone() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeDrawing(dir)
    let run = try runTool(["\(dir)/plan.dxf", "--center", "52,5", "--drawing-units", "m", "--layers", "DOORS,!NOTES", "-o", "\(dir)/out"])
    #expect(run.status == 2, "\(run.status) \(run.stderr)")
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("--layers: 'DOORS' matches none of the 2 layers of"), "\(run.stderr)")
    #expect(lines.first?.contains("plan.dxf (WALLS, NOTES); give layers it has") == true, "\(run.stderr)")
    let build = try runTool(["build", try project(dir, units: "m", layers: "[door*]"), "--dry-run"])
    #expect(build.status != 0 && build.stderr.contains("'door*' matches none of the 2 layers"), "\(build.stderr)")
    // a pattern matching one layer, in any case, is drawn
    #expect(try runTool(["build", try project(dir, units: "m", layers: "[wall?]"), "--dry-run"]).status == 0)
    // a layer only an entity names (the table lists "0" alone), and a name spelled in the
    // file's code page (GDAL converts it; the bytes are no UTF-8), are not refused
    for (name, bytes) in [("DOORS", Array("DOORS".utf8)), ("M\u{DC}R", [0x4D, 0xDC, 0x52] as [UInt8])] {
      var text = Array("0\nSECTION\n2\nTABLES\n0\nTABLE\n2\nLAYER\n0\nLAYER\n2\n0\n70\n0\n0\nENDTAB\n0\nENDSEC\n".utf8)
      text += Array("0\nSECTION\n2\nENTITIES\n0\nLINE\n8\n".utf8) + bytes
      text += Array("\n10\n0\n20\n0\n11\n10\n21\n5\n0\nENDSEC\n0\nEOF\n".utf8)
      try Data(text).write(to: URL(fileURLWithPath: dir + "/entity.dxf"))
      let drawn = try runTool([dir + "/entity.dxf", "--center", "52,5", "--drawing-units", "m", "--layers", name, "--dry-run", "-q"])
      #expect(drawn.status == 0, "\(name): \(drawn.stderr)")
    }
  }

  /// An AutoCAD 2007+ DXF is UTF-8 whatever its code page: GDAL read "Wände" as Latin-1,
  /// so that --layers neither drew it nor was checked against it (every name past ASCII
  /// skipped the check), and a MATERIAL's empty group 8 was listed as a layer (hostile42 #8).
  @Test("an AutoCAD 2007+ DXF's layer names are UTF-8: listed, checked and drawn by name")
  func utf8LayerNames() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pairs = [
      "0", "SECTION", "2", "HEADER", "9", "$ACADVER", "1", "AC1024", "9", "$DWGCODEPAGE", "3", "ANSI_1252", "9", "$INSUNITS", "70", "6",
      "0", "ENDSEC", "0", "SECTION", "2", "TABLES", "0", "TABLE", "2", "LAYER", "0", "LAYER", "2", "0", "70", "0", "0", "LAYER", "2",
      "Wände", "70", "0", "0", "ENDTAB", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "LINE", "8", "Wände", "10", "0", "20", "0",
      "11", "10", "21", "5", "0", "ENDSEC", "0", "SECTION", "2", "OBJECTS", "0", "MATERIAL", "5", "C1", "8", "", "1", "Global", "0",
      "ENDSEC", "0", "EOF",
    ]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let common = [dir + "/plan.dxf", "--center", "52,5", "--drawing-units", "m"]
    let none = try runTool(common + ["--layers", "NOMATCH", "--dry-run"])
    #expect(none.status == 2 && none.stderrLines.count == 1, "\(none.stderr)")
    #expect(none.stderr.contains("'NOMATCH' matches none of the 2 layers of \(dir)/plan.dxf (0, Wände)"), "\(none.stderr)")
    let drawn = try runTool(common + ["--layers", "Wände", "-o", dir + "/out", "-q"])
    #expect(drawn.status == 0, "\(drawn.stderr)")
  }
}
