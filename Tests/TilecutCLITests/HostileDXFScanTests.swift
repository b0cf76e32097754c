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

  /// Blocks B1 … B`levels`, each inserting the one below (B0 the caller's) ten times, the
  /// k-th at x = `x(k)`: the ladder of the insert bombs below.
  func ladder(levels: Int, x: (Int) -> String = { "\($0)" }) -> [String] {
    var pairs: [String] = []
    for level in 1...levels {
      pairs += ["0", "BLOCK", "8", "0", "2", "B\(level)", "70", "0", "10", "0", "20", "0", "3", "B\(level)"]
      for k in 0..<10 { pairs += ["0", "INSERT", "8", "0", "2", "B\(level - 1)", "10", x(k), "20", "\(level)"] }
      pairs += ["0", "ENDBLK", "8", "0"]
    }
    return pairs
  }

  /// Blocks *D1 (an arc dimension's: a LINE from the origin to (`lineEnd`, `lineEnd`),
  /// block flags `flags`) and CARD (holding one ARC_DIMENSION of *D1): the block of the
  /// table and dimension bombs below.
  func arcDimensionCard(flags: String, lineEnd: String) -> [String] {
    ["0", "BLOCK", "5", "B1", "8", "0", "2", "*D1", "70", flags, "10", "0", "20", "0", "3", "*D1"]
      + ["0", "LINE", "5", "B2", "8", "0", "10", "0", "20", "0", "11", lineEnd, "21", lineEnd, "0", "ENDBLK", "5", "B3", "8", "0"]
      + ["0", "BLOCK", "5", "B4", "8", "0", "2", "CARD", "70", "0", "10", "0", "20", "0", "3", "CARD"]
      + ["0", "ARC_DIMENSION", "5", "B5", "8", "0", "2", "*D1", "12", "0", "22", "0", "0", "ENDBLK", "5", "B6", "8", "0"]
  }

  /// Tiles `drawing()` into a scratch output, then `pairs` written over it as plan.dxf
  /// with `extra` options: refused with status 1 in one line that says each of `says`,
  /// the first output byte for byte as it was.
  func expectRefusal(
    of pairs: [String], extra: [String] = [], says: [String], sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let options = ["--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "20", "-o", dir + "/out", "-q"]
    try Data(drawing().joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let first = try runTool([dir + "/plan.dxf"] + options)
    #expect(first.status == 0, "\(first.stderr)", sourceLocation: sourceLocation)
    let before = contents(dir + "/out")
    #expect(!before.isEmpty, sourceLocation: sourceLocation)
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let second = try runTool([dir + "/plan.dxf"] + options + extra)
    #expect(second.status == 1, sourceLocation: sourceLocation)
    #expect(second.stderr.split(separator: "\n").count == 1, "\(second.stderr)", sourceLocation: sourceLocation)
    for words in says { #expect(second.stderr.contains(words), "\(second.stderr)", sourceLocation: sourceLocation) }
    #expect(contents(dir + "/out") == before, sourceLocation: sourceLocation)
  }

  /// Every file below `dir`, by its path there → its bytes.
  func contents(_ dir: String) -> [String: Data] {
    let names = FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? []
    var found: [String: Data] = [:]
    for name in names { found[name] = FileManager.default.contents(atPath: dir + "/" + name) }
    return found
  }

  /// A BLOCKS section whose end is misaligned (a stray code before the ENTITIES section)
  /// showed GDAL's own text: "(./ogr/ogrsf_frmts/dxf/ogrdxfdatasource.cpp, 312: error at
  /// line 33 of plan.dxf)".
  @Test("a DXF whose BLOCKS section is damaged is refused by its line, without GDAL's source path")
  func damagedBlocks() throws {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "8", "0", "2", "B", "70", "0", "10", "0", "20", "0", "3", "B", "0", "LINE", "8", "0"]
    pairs += ["10", "0", "20", "0", "11", "1", "21", "1", "0", "ENDBLK", "8", "0", "0", "ENDSEC", "999"]
    pairs += ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10", "0", "ENDSEC", "0", "EOF"]
    try expectRefusal(
      of: pairs,
      says: ["plan.dxf: cannot be read as a DXF drawing (its BLOCKS section is damaged near line ", "; save it again from its CAD program)"])
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let r = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "-o", dir + "/out"])
    #expect(!r.stderr.contains(".cpp") && !r.stderr.contains("ogrsf"), "\(r.stderr)")
  }

  /// Model-space arc dimensions past the 10,000 tilecut draws were left out without a word.
  @Test("arc dimensions past the 10,000 drawn are counted in one warning line", arguments: [10000, 10003])
  func blockReferencesPastTheMost(count: Int) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "5", "B1", "8", "0", "2", "*D1", "70", "1", "10", "0", "20", "0", "3", "*D1"]
    pairs += ["0", "LINE", "5", "B2", "8", "0", "10", "0", "20", "0", "11", "1", "21", "1", "0", "ENDBLK", "5", "B3", "8", "0", "0", "ENDSEC"]
    pairs += ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    for k in 0..<count {
      pairs += ["0", "ARC_DIMENSION", "5", String(0x1000 + k, radix: 16), "8", "0", "2", "*D1", "12", "\(k % 10)", "22", "0"]
    }
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let r = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "18", "-o", dir + "/out", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    let warnings = r.stderr.split(separator: "\n").filter { $0.contains("are not drawn") }
    if count > 10000 {
      let line =
        "warning: \(dir)/plan.dxf: \(count - 10000) of its tables and arc or radial dimensions "
        + "(ACAD_TABLE, ARC_DIMENSION, LARGE_RADIAL_DIMENSION) are not drawn: "
      #expect(warnings.count == 1 && warnings[0].hasPrefix(line) && warnings[0].hasSuffix("tilecut draws the first 10000"), "\(r.stderr)")
    } else {
      #expect(warnings.isEmpty, "\(r.stderr)")
    }
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
    var cut = Array(drawing().prefix(2 * count))
    if half { cut[cut.count - 1] = String(cut[cut.count - 1].prefix(1)) }
    try expectRefusal(of: cut, says: ["plan.dxf", "cut short"])
  }

  @Test(
    "a drawing refused while it is read ahead (beside libgdal's load, on threads of its own) is refused in one line, as without the read ahead",
    arguments: ["long text", "cut short", "newer DWG"])
  func refusedWhileReadAhead(name: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + (name == "newer DWG" ? "/plan.dwg" : "/plan.dxf")
    switch name {
    case "long text": try Data(drawing("TEXT", Self.groups("long text")).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
    case "cut short": try Data(drawing().prefix(80).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
    default: try Data("AC1032".utf8 + [UInt8](repeating: 0, count: 64)).write(to: URL(fileURLWithPath: path))
    }
    let options = [path, "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "20", "-o", dir + "/out", "-q"]
    // a single text DXF under the default budget is read ahead; --max-memory (the
    // default's 512 MB, the same bounds) reads it when it is needed
    let ahead = try runTool(options)
    let plain = try runTool(options + ["--max-memory", "512"])
    #expect(ahead.status == 1 && plain.status == 1, "\(ahead.stderr)\(plain.stderr)")
    #expect(ahead.stderr.split(separator: "\n").count == 1, "\(ahead.stderr)")
    #expect(ahead.stderr == plain.stderr)
    #expect(ahead.stderr.contains(name == "newer DWG" ? "save it as DXF" : name == "cut short" ? "cut short" : "100001 bytes"), "\(ahead.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
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

  /// A drawing in metres: a 10 m line, then `entity`'s pairs (its groups after type and handle A9).
  func drawing(_ type: String, _ groups: [String]) -> [String] {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    pairs += ["0", type, "5", "A9", "8", "0"] + groups
    return pairs + ["0", "ENDSEC", "0", "EOF"]
  }

  /// A hatch of one edge path of `edges` line edges (or full-circle arc edges).
  static func hatch(edges: Int, arcs: Bool) -> [String] {
    var groups = ["10", "0", "20", "0", "30", "0", "2", "SOLID", "70", "1", "71", "0", "91", "1", "92", "1", "93", "\(edges)"]
    for k in 0..<edges {
      groups +=
        arcs
        ? ["72", "2", "10", "\(k % 10)", "20", "0", "40", "1", "50", "0", "51", "360", "73", "1"]
        : ["72", "1", "10", "\(k % 10)", "20", "0", "11", "\(k % 10 + 1)", "21", "0"]
    }
    return groups + ["97", "0", "75", "0", "76", "1", "98", "0"]
  }

  /// An LWPOLYLINE of `count` vertices, each with `extra` groups.
  static func polyline(_ count: Int, _ extra: [String]) -> [String] {
    var groups = ["90", "\(count)", "70", "0"]
    for k in 0..<count { groups += ["10", "\(k % 10)", "20", "\(k / 10)"] + extra }
    return groups
  }

  /// An MLINE of `count` vertices of 3 elements.
  static func mline(_ count: Int) -> [String] {
    var groups = ["2", "STANDARD", "40", "1", "70", "0", "71", "1", "72", "\(count)", "73", "3", "10", "0", "20", "0", "30", "0"]
    for k in 0..<count {
      groups += ["11", "\(k)", "21", "0", "31", "0", "12", "1", "22", "0", "32", "0", "13", "0", "23", "1", "33", "0"]
      for _ in 0..<3 { groups += ["74", "1", "41", "0", "75", "0"] }
    }
    return groups
  }

  /// The groups of the entity each case below names.
  static func groups(_ name: String) -> [String] {
    switch name {
    case "long text": return ["10", "5", "20", "5", "40", "1", "1", String(repeating: "W", count: 100_001)]
    case "long mtext":
      return ["10", "5", "20", "5", "40", "1", "3", String(repeating: "W", count: 60_000), "1", String(repeating: "W", count: 40_001)]
    case "short text": return ["10", "5", "20", "5", "40", "1", "1", String(repeating: "W", count: 1000)]
    case "line edges": return hatch(edges: 10_001, arcs: false)
    case "arc edges": return hatch(edges: 800, arcs: true)
    case "fewer arc edges": return hatch(edges: 300, arcs: true)
    case "bulges": return polyline(1500, ["42", "1"])
    case "widths": return polyline(1001, ["40", "0.1", "41", "0.2"])
    case "fewer widths": return polyline(1000, ["40", "0.1", "41", "0.2"])
    case "vertices": return polyline(500_001, [])
    default: return mline(45_000)
    }
  }

  @Test(
    "a single entity past what GDAL reads in seconds or within --max-memory is refused in one line before GDAL opens it",
    arguments: [
      // a text GDAL would cut short: longer than the 100000 bytes tilecut draws
      (type: "TEXT", name: "long text", memory: 512, says: "TEXT A9 holds a text of 100001 bytes"),
      // an MTEXT's text in chunks of group 3 and the last of group 1
      (type: "MTEXT", name: "long mtext", memory: 512, says: "MTEXT A9 holds a text of 100001 bytes"),
      // a boundary path of line edges OGRBuildPolygonFromEdges takes minutes to join
      (type: "HATCH", name: "line edges", memory: 512, says: "HATCH A9 has a boundary path of 10001 edges"),
      // full-circle arcs of 181 points each, 256 bytes a point: past --max-memory 32 (131072 points)
      (type: "HATCH", name: "arc edges", memory: 32, says: "HATCH A9 makes 144800 points"),
      // half circles of 90 points each, and the vertices
      (type: "LWPOLYLINE", name: "bulges", memory: 32, says: "LWPOLYLINE A9 makes 136500 points"),
      (type: "LWPOLYLINE", name: "vertices", memory: 512, says: "LWPOLYLINE A9 has 500001 vertices"),
      // 3 elements a vertex
      (type: "MLINE", name: "mline", memory: 32, says: "MLINE A9 makes 135000 points"),
    ])
  func entityBounds(type: String, name: String, memory: Int, says: String) throws {
    try expectRefusal(of: drawing(type, Self.groups(name)), extra: ["--max-memory", "\(memory)"], says: ["plan.dxf", says])
  }

  @Test("an LWPOLYLINE with widths on 3,000 vertices is drawn: tilecut reads them, GDAL does not list them")
  func manyWidths() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pairs = drawing("LWPOLYLINE", Self.polyline(3000, ["40", "0.1", "41", "0.2"]))
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let result = try runTool([
      dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "16", "-o", dir + "/out", "-q",
    ])
    #expect(result.status == 0, "\(result.stderr)")
  }

  @Test("an LWPOLYLINE with more widths than GDAL lists in seconds is refused where GDAL must list them")
  func listedWidths() throws {
    // a block's MTEXT of a reference width: its 41 is read from GDAL's raw code values
    var pairs = ["0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "2", "NOTE", "70", "0", "10", "0", "20", "0"]
    pairs += ["0", "MTEXT", "8", "0", "10", "0", "20", "0", "40", "1", "41", "20", "1", "Note", "0", "ENDBLK", "0", "ENDSEC"]
    let plain = drawing("LWPOLYLINE", Self.polyline(1001, ["40", "0.1", "41", "0.2"]))
    pairs = Array(plain.prefix(10)) + pairs + Array(plain.dropFirst(10))
    try expectRefusal(of: pairs, says: ["LWPOLYLINE A9 has 2002 vertex widths"])
  }

  @Test("a block holding an MTEXT of a reference width no longer keeps an LWPOLYLINE with 3,000 widths from being drawn")
  func widthsBesideABlock() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // the MTEXT with its subclass markers, placed by an insert with a handle: its 41 is
    // read by tilecut's scan, found by its place among the insert's features
    var block = ["0", "SECTION", "2", "BLOCKS", "0", "BLOCK", "2", "NOTE", "70", "0", "10", "0", "20", "0"]
    block += ["0", "MTEXT", "100", "AcDbEntity", "8", "0", "100", "AcDbMText", "10", "0", "20", "0", "40", "1", "41", "20"]
    block += ["1", "Note", "0", "ENDBLK", "0", "ENDSEC"]
    let insert = ["0", "INSERT", "5", "B0", "8", "0", "2", "NOTE", "10", "0", "20", "0"]
    let plain = drawing("LWPOLYLINE", Self.polyline(3000, ["40", "0.1", "41", "0.2"]))
    let options = ["--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "16", "-o", dir + "/out", "-q"]
    let pairs = Array(plain.prefix(10)) + block + Array(plain[10..<14]) + insert + Array(plain.dropFirst(14))
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let result = try runTool([dir + "/plan.dxf"] + options)
    #expect(result.status == 0, "\(result.stderr)")
    // placed by an insert without a handle, GDAL must list the values, and the widths are refused
    let unhandled = Array(plain.prefix(10)) + block + Array(plain[10..<14]) + insert.filter { $0 != "5" && $0 != "B0" }
    try Data((unhandled + Array(plain.dropFirst(14))).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let second = try runTool([dir + "/plan.dxf"] + options + ["--force"])
    #expect(second.status == 1)
    #expect(second.stderr.contains("LWPOLYLINE A9 has 6000 vertex widths"), "\(second.stderr)")
  }

  @Test(
    "an entity just within each bound is drawn",
    arguments: [(type: "TEXT", name: "short text"), (type: "HATCH", name: "fewer arc edges"), (type: "LWPOLYLINE", name: "fewer widths")])
  func withinBounds(type: String, name: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data(drawing(type, Self.groups(name)).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let result = try runTool([
      dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "16", "-o", dir + "/out", "-q",
      "--max-memory", "32",
    ])
    #expect(result.status == 0, "\(result.stderr)")
  }

  /// Blocks that insert each other (A holds B twice, B holds A twice), each with a TEXT
  /// whose generation flags tilecut's scan gives in GDAL's stead: GDAL inlines a block
  /// met again inside itself as nothing, and so does the scan. The scan followed the
  /// cycle 64 deep (2.7 GB before malloc failed, for a 2 KB file), then drew the drawing
  /// without those values; now a failed scan refuses the file, and under a 2 GB address
  /// space this one is tiled.
  @Test("blocks that insert each other are followed as GDAL follows them, within memory")
  func blocksInsertingEachOther() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func block(_ name: String, text: String, inserts other: String, handle: Int) -> [String] {
      var pairs = ["0", "BLOCK", "8", "0", "2", name, "70", "0", "10", "0", "20", "0", "3", name]
      pairs += ["0", "TEXT", "5", String(handle, radix: 16, uppercase: true), "100", "AcDbEntity", "8", "0", "100", "AcDbText"]
      pairs += ["10", "0", "20", "0", "40", "1", "1", text, "71", "2", "100", "AcDbText"]
      for k in 1...2 {
        pairs += ["0", "INSERT", "5", String(handle + k, radix: 16, uppercase: true), "100", "AcDbEntity", "8", "0"]
        pairs += ["100", "AcDbBlockReference", "2", other, "10", "\(k)", "20", "\(k)"]
      }
      return pairs + ["0", "ENDBLK", "8", "0"]
    }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += block("A", text: "A", inserts: "B", handle: 0x100) + block("B", text: "B", inserts: "A", handle: 0x200)
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "INSERT", "5", "300", "100", "AcDbEntity", "8", "0", "100", "AcDbBlockReference", "2", "A", "10", "0", "20", "0"]
    pairs += ["0", "LINE", "5", "301", "8", "0", "10", "0", "20", "0", "11", "100", "21", "60"]
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let run = try runTool(
      [], shell: "ulimit -v 2000000; TILECUT '\(dir)/plan.dxf' --drawing-units m --center 51.5,-0.12 --max-zoom 19 -o '\(dir)/out' -q")
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
  }

  /// Eight levels of blocks each inserting the next ten times (10^8 lines), reached only
  /// through a model-space table, arc dimension or dimension: GDAL inlines a dimension's
  /// block, and tilecut draws a table's or arc dimension's through an insert of it that
  /// it makes, but the scan counted none of them as an insert, so the drawing was not
  /// refused and GDAL took minutes and gigabytes (3 GB after 90 s) inlining them.
  @Test(
    "a block-insert bomb behind a table, arc dimension or dimension is refused in one line",
    arguments: ["ACAD_TABLE", "ARC_DIMENSION", "LARGE_RADIAL_DIMENSION", "DIMENSION"])
  func bombBehindATable(type: String) throws {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "8", "0", "2", "B0", "70", "0", "10", "0", "20", "0", "3", "B0"]
    pairs += ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "1", "21", "1", "0", "ENDBLK", "8", "0"]
    pairs += ladder(levels: 8)
    pairs += ["0", "BLOCK", "8", "0", "2", "*T1", "70", "1", "10", "0", "20", "0", "3", "*T1"]
    pairs += ["0", "INSERT", "8", "0", "2", "B8", "10", "0", "20", "0", "0", "ENDBLK", "8", "0", "0", "ENDSEC"]
    pairs += ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    // its block, then the codes a table or dimension gives after it (70, 71: no MINSERT's)
    pairs += ["0", type, "5", "A2", "100", "AcDbEntity", "8", "0", "2", "*T1", "10", "0", "20", "0", "11", "0", "21", "0"]
    pairs += ["12", "0", "22", "0", "70", "37", "71", "5", "0", "ENDSEC", "0", "EOF"]
    // the table is an entity of its own too (the line, the table, 10^8 through its block)
    try expectRefusal(of: pairs, says: ["plan.dxf", "makes 100000002 entities once its block inserts are inlined"])
  }

  /// The same bomb behind a table or arc dimension inside a block: tilecut draws one there
  /// through an insert of its block for each model-space insert that places it, so it is
  /// counted as an insert there too.
  @Test(
    "a block-insert bomb behind a table or arc dimension in a block is refused in one line",
    arguments: ["ACAD_TABLE", "ARC_DIMENSION", "LARGE_RADIAL_DIMENSION"])
  func bombBehindATableInABlock(type: String) throws {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "8", "0", "2", "B0", "70", "0", "10", "0", "20", "0", "3", "B0"]
    pairs += ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "1", "21", "1", "0", "ENDBLK", "8", "0"]
    pairs += ladder(levels: 8)
    pairs += ["0", "BLOCK", "8", "0", "2", "*T1", "70", "1", "10", "0", "20", "0", "3", "*T1"]
    pairs += ["0", "INSERT", "8", "0", "2", "B8", "10", "0", "20", "0", "0", "ENDBLK", "8", "0"]
    pairs += ["0", "BLOCK", "8", "0", "2", "CARD", "70", "0", "10", "0", "20", "0", "3", "CARD"]
    pairs += ["0", type, "5", "A2", "100", "AcDbEntity", "8", "0", "2", "*T1", "10", "0", "20", "0", "11", "0", "21", "0"]
    pairs += ["12", "0", "22", "0", "70", "37", "71", "5", "0", "ENDBLK", "8", "0", "0", "ENDSEC"]
    pairs += ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    pairs += ["0", "INSERT", "5", "A3", "8", "0", "2", "CARD", "10", "5", "20", "5", "0", "ENDSEC", "0", "EOF"]
    try expectRefusal(of: pairs, says: ["plan.dxf", "makes 100000002 entities once its block inserts are inlined"])
  }

  /// Tables and arc dimensions in blocks share the 10,000 drawn with model space's: one
  /// arc dimension in a block inserted 10,003 times draws 10,000 and says so.
  @Test("arc dimensions in a block past the 10,000 drawn are counted in one warning line")
  func blockReferencesInABlockPastTheMost() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += arcDimensionCard(flags: "1", lineEnd: "1")
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    for k in 0..<10003 {
      pairs += ["0", "INSERT", "5", String(0x1000 + k, radix: 16), "8", "0", "2", "CARD", "10", "\(k % 10)", "20", "0"]
    }
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let r = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "18", "-o", dir + "/out", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    let warnings = r.stderr.split(separator: "\n").filter { $0.contains("are not drawn") }
    #expect(warnings.count == 1 && warnings[0].contains("plan.dxf: 3 of its tables and arc or radial dimensions "), "\(r.stderr)")
  }

  /// A MINSERT of 1000 by 1000 copies of a block holding an arc dimension: each copy
  /// places it (as its other entities), but past the 10,000 drawn the copies left are
  /// counted, not walked, and said in the one warning line. One of 100000 columns by one
  /// row: every column counts (its columns were cut at 32767: 22767 said).
  @Test(
    "a MINSERT of many copies of a block holding an arc dimension draws 10,000 and says so",
    arguments: [(1000, 1000, 990_000), (100_000, 1, 90_000)])
  func minsertPastTheMost(columns: Int, rows: Int, notDrawn: Int) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += arcDimensionCard(flags: "1", lineEnd: "1")
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    pairs += ["0", "INSERT", "5", "A2", "8", "0", "2", "CARD", "10", "0", "20", "0", "70", "\(columns)", "71", "\(rows)", "44", "0.01", "45", "0.01"]
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let r = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "16", "-o", dir + "/out", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    let warnings = r.stderr.split(separator: "\n").filter { $0.contains("are not drawn") }
    #expect(
      warnings.count == 1 && warnings[0].contains("plan.dxf: \(notDrawn) of its tables and arc or radial dimensions "), "\(r.stderr)")
  }

  /// One model-space insert of ten blocks of ten … of a LINE (10^6 lines, within the
  /// 4,000,000 entities tilecut draws): GDAL makes all of a nested insert's entities
  /// before it gives the first, about 670 bytes each, and peaked at 912 MB under the
  /// default 512 MB budget (the same lines as 10^4 inserts of 100: 246 MB). Refused
  /// before GDAL reads it (DXFScanTests: a budget that holds them lets it through).
  @Test("one insert of nested blocks past what GDAL holds within --max-memory is refused in one line")
  func nestedInsertPastTheBudget() throws {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "8", "0", "2", "B0", "70", "0", "10", "0", "20", "0", "3", "B0"]
    pairs += ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "0.001", "21", "0.001", "0", "ENDBLK", "8", "0"]
    pairs += ladder(levels: 6) { "\(Double($0) * 0.001)" }
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "INSERT", "8", "0", "2", "B6", "10", "0", "20", "0"]
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try expectRefusal(
      of: pairs,
      says: [
        "plan.dxf", "one of its block inserts makes 1000000 entities, which GDAL holds in memory together", "raise --max-memory or explode the block",
      ])
  }

  /// Block A holds a MINSERT of 700 by 700 copies of a block holding an arc dimension,
  /// placed twice by a model-space MINSERT: the pre-scan counts 980,000 entities (686 MB
  /// in GDAL), past the default --max-memory, within 3000. Taken within --max-memory 3000,
  /// it is drawn within it too (the render kept to the default budget: refused, "raise
  /// --max-memory", after the dry run had taken it).
  @Test("a drawing taken within --max-memory is drawn within it, not refused at render")
  func renderKeepsToTheBudget() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += arcDimensionCard(flags: "0", lineEnd: "0.001")
    pairs += ["0", "BLOCK", "5", "B7", "8", "0", "2", "A", "70", "0", "10", "0", "20", "0", "3", "A"]
    pairs += ["0", "INSERT", "5", "B8", "8", "0", "2", "CARD", "10", "0", "20", "0", "70", "700", "71", "700", "44", "0.01", "45", "0.01"]
    pairs += ["0", "ENDBLK", "5", "B9", "8", "0", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10"]
    pairs += ["0", "INSERT", "5", "A2", "8", "0", "2", "A", "10", "0", "20", "0", "70", "2", "71", "1", "44", "1000", "45", "1000"]
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let options = [dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "14", "-o", dir + "/out", "-q"]
    let tight = try runTool(options)
    #expect(tight.status == 1 && tight.stderr.contains("makes 980000 entities") && tight.stderr.contains("raise --max-memory"), "\(tight.stderr)")
    let roomy = try runTool(options + ["--max-memory", "3000"])
    #expect(roomy.status == 0 && !roomy.stderr.contains("raise --max-memory"), "\(roomy.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
  }

  /// A block holding a hatch, a wipeout and fourteen inserts of itself: GDAL does not
  /// insert a block into itself, but tilecut's scan walked each self-insert down to its
  /// depth limit, 14^8 blocks (ten self-inserts took 10 s, twelve 49 s). A block on the
  /// path being walked is not entered again, as in GDAL: the drawing tiles at once.
  @Test("a block that inserts itself many times is walked once, as GDAL inserts it")
  func selfInsertingBlock() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "8", "0", "2", "S", "70", "0", "10", "0", "20", "0", "3", "S"]
    pairs += ["0", "WIPEOUT", "8", "0", "100", "AcDbEntity", "100", "AcDbWipeout", "10", "0", "20", "0", "11", "1", "21", "0"]
    pairs += ["12", "0", "22", "1", "13", "1", "23", "1", "71", "1", "91", "2", "14", "-0.5", "24", "-0.5", "14", "0.5", "24", "0.5"]
    for k in 0..<14 { pairs += ["0", "INSERT", "8", "0", "2", "S", "10", "\(k)", "20", "\(k)"] }
    pairs += ["0", "LINE", "8", "0", "10", "0", "20", "0", "11", "3", "21", "3", "0", "ENDBLK", "8", "0", "0", "ENDSEC"]
    pairs += ["0", "SECTION", "2", "ENTITIES", "0", "INSERT", "8", "0", "2", "S", "10", "0", "20", "0", "0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let run = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "19", "-o", dir + "/out", "-q"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
  }

  /// A DIMENSION whose block is not defined (or not named) is still drawn by GDAL, its
  /// lines and text made from its points: counted as one entity, not as an insert of
  /// nothing. Counted as nothing, a block of one such dimension nested eight levels
  /// ten times each made 10^8 entities the scan did not see (1.15 GB in 25 s).
  @Test("a bomb of dimensions without their blocks is refused in one line", arguments: ["*D99", nil])
  func bombOfBlocklessDimensions(block: String?) throws {
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "BLOCKS"]
    pairs += ["0", "BLOCK", "8", "0", "2", "B0", "70", "0", "10", "0", "20", "0", "3", "B0", "0", "DIMENSION", "8", "0"]
    pairs += (block.map { ["2", $0] } ?? []) + ["10", "0", "20", "0", "11", "1", "21", "0", "13", "0", "23", "0", "14", "1", "24", "0"]
    pairs += ["70", "1", "0", "ENDBLK", "8", "0"]
    pairs += ladder(levels: 8)
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES", "0", "INSERT", "8", "0", "2", "B8", "10", "0", "20", "0"]
    pairs += ["0", "ENDSEC", "0", "EOF"]
    try expectRefusal(of: pairs, says: ["plan.dxf", "makes 100000000 entities once its block inserts are inlined"])
  }

  /// A polygon mesh (POLYLINE flag 16) that its block ends without a SEQEND, in the
  /// 16th block, the next growing the scan's list of blocks: the scan kept the mesh's
  /// block as a pointer into that list and wrote through it after it moved (SIGSEGV).
  /// The mesh now ends where its block does; GDAL refuses the file in one line.
  @Test("a polygon mesh its block ends without a SEQEND ends there")
  func meshCutByItsBlock() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func mesh(seqend: Bool) -> [String] {
      var pairs = ["0", "POLYLINE", "8", "0", "66", "1", "10", "0", "20", "0", "30", "0", "70", "16", "71", "2", "72", "2"]
      for (x, y) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
        pairs += ["0", "VERTEX", "8", "0", "10", "\(x)", "20", "\(y)", "30", "0", "70", "64"]
      }
      return pairs + (seqend ? ["0", "SEQEND", "8", "0"] : [])
    }
    let line = ["0", "LINE", "8", "0", "10", "0", "20", "0", "30", "0", "11", "1", "21", "1", "31", "0"]
    var pairs = ["0", "SECTION", "2", "BLOCKS"]
    for i in 0..<40 {
      pairs += ["0", "BLOCK", "8", "0", "2", "B\(i)", "70", "0", "10", "0", "20", "0", "30", "0", "3", "B\(i)"]
      pairs += i == 15 ? mesh(seqend: true) + mesh(seqend: true) + mesh(seqend: false) : line
      pairs += ["0", "ENDBLK", "8", "0"]
    }
    pairs += ["0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    for i in 0..<40 {
      pairs += ["0", "INSERT", "5", String(0x100 + i, radix: 16, uppercase: true), "8", "0", "2", "B\(i)", "10", "\(3 * i)", "20", "0"]
    }
    pairs += ["0", "LINE", "5", "FFF", "8", "0", "10", "0", "20", "0", "11", "100", "21", "10", "0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let run = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "19", "-o", dir + "/out", "-q"])
    // a status of 1 with one line, not a signal
    #expect(!run.signalled && (run.status == 0 || run.status == 1), "\(run.status) \(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count <= 1, "\(run.stderr)")
  }

  /// A GEODATA object whose coordinate type (group 70) was read as a Double and made an
  /// Int: nan, ±inf and numbers past Int's range trapped (SIGILL) before any message.
  @Test("a GEODATA object whose group 70 is no whole number is refused in one line, and ignored when --center places it")
  func geodataCoordinateTypeNotANumber() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func drawing(type: String) -> String {
      var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC"]
      pairs += ["0", "SECTION", "2", "CLASSES", "0", "CLASS", "1", "GEODATA", "2", "AcDbGeoData", "3", "ObjectDBX Classes", "0", "ENDSEC"]
      pairs += ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10", "0", "ENDSEC"]
      pairs += ["0", "SECTION", "2", "OBJECTS", "0", "GEODATA", "5", "B1", "100", "AcDbGeoData", "90", "2", "70", type]
      pairs += ["10", "0", "20", "0", "11", "530000", "21", "180000", "40", "1", "12", "0", "22", "1"]
      pairs += ["301", #"<Alias id="27700" type="CoordinateSystem"></Alias>"#, "0", "ENDSEC", "0", "EOF"]
      return pairs.joined(separator: "\n")
    }
    let plan = dir + "/plan.dxf"
    for type in ["nan", "-inf", "1e300", "9.3e18"] {
      try Data(drawing(type: type).utf8).write(to: URL(fileURLWithPath: plan))
      let run = try runTool([plan, "-o", dir + "/out", "--dry-run", "-q"])
      #expect(!run.signalled && run.status == 1, "70 = \(type): \(run.status) \(run.stderr)")
      #expect(run.stderrLines.count == 1 && run.stderr.contains("plan.dxf") && run.stderr.contains("group 70"), "\(run.stderr)")
    }
    let placed = try runTool([plan, "--center", "51.5,-0.12", "-o", dir + "/out", "--dry-run", "-q"])
    #expect(!placed.signalled && placed.status == 0, "\(placed.status) \(placed.stderr)")
  }

  /// A GEODATA design or reference point of nan or inf was refused as "whose scale or
  /// north direction is degenerate".
  @Test("a GEODATA object whose design or reference point is no finite number is refused naming that point")
  func geodataPointNotANumber() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let plan = dir + "/plan.dxf"
    for (group, value, says) in [("10", "nan", "design point (groups 10 and 20)"), ("21", "-inf", "reference point (groups 11 and 21)")] {
      var point = ["10": "0", "20": "0", "11": "530000", "21": "180000"]
      point[group] = value
      var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC"]
      pairs += ["0", "SECTION", "2", "CLASSES", "0", "CLASS", "1", "GEODATA", "2", "AcDbGeoData", "3", "ObjectDBX Classes", "0", "ENDSEC"]
      pairs += ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10", "0", "ENDSEC"]
      pairs += ["0", "SECTION", "2", "OBJECTS", "0", "GEODATA", "5", "B1", "100", "AcDbGeoData", "90", "2", "70", "1"]
      pairs += ["10", point["10"]!, "20", point["20"]!, "11", point["11"]!, "21", point["21"]!, "40", "1", "12", "0", "22", "1"]
      pairs += ["301", #"<Alias id="27700" type="CoordinateSystem"></Alias>"#, "0", "ENDSEC", "0", "EOF"]
      try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: plan))
      let run = try runTool([plan, "-o", dir + "/out", "--dry-run", "-q"])
      #expect(
        run.status == 1
          && run.stderrLines == [
            "error: \(plan): has a GEODATA object whose \(says) is not a finite number; place it with --gcp X,Y,LAT,LON"
          ], "\(group) = \(value): \(run.stderr)")
    }
  }

  /// A drawing spanning 1e300 units was refused with its size in pixels as a number of
  /// some 300 digits.
  @Test("a drawing too large in pixels is refused with its size in pixels in a few digits")
  func hugePixelCount() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "HEADER", "9", "$INSUNITS", "70", "6", "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]
    pairs += ["0", "LINE", "5", "A1", "8", "0", "10", "0", "20", "0", "11", "1e300", "21", "10", "0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let run = try runTool([dir + "/plan.dxf", "--center", "51.5,-0.12", "-o", dir + "/out", "-q", "--dry-run"])
    #expect(run.status == 1 && run.stderrLines.count == 1, "\(run.stderr)")
    #expect(run.stderr.contains("spans 1e+300 × 10 drawing units (metres)") && run.stderr.contains("e+30"), "\(run.stderr)")
    #expect(run.stderr.count < 300 && run.stderr.range(of: "[0-9]{16}", options: .regularExpression) == nil, "\(run.stderr)")
  }

  @Test("an MTEXT 1000 times its height (\\H1e300x;) and 5 times as wide: zoom 16's em, past FreeType's 65535 pixels, is drawn smaller")
  func mtextPastFreeTypeSizes() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pairs = ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "5", "20", "8", "0", "10", "0", "20", "0", "11", "20", "21", "10"]
    pairs += ["0", "MTEXT", "5", "30", "100", "AcDbEntity", "8", "0", "100", "AcDbMText", "10", "1", "20", "1", "40", "1", "71", "1"]
    pairs += ["1", "\\H1e300x;big\\W5;wide", "0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir + "/plan.dxf"))
    let run = try runTool([dir + "/plan.dxf", "--drawing-units", "m", "--center", "51.5,-0.12", "--max-zoom", "16", "-q", "-o", dir + "/out"])
    #expect(run.status == 0, "\(run.stderr)")
  }
}
