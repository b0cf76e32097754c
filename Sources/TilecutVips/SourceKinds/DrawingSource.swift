import CTilecutDocument
import CTilecutPlatform
import CVips
import CVipsShim
import Foundation
import Synchronization
import TilecutCore

/// CAD drawings (DXF; DWG through GDAL's CAD driver) as sources: read by GDAL's OGR
/// driver into a display list (TilecutDrawing.h) and drawn with cairo in bands at
/// each level's density, as PDF and SVG are rendered (TilecutDXF.h).
public enum DrawingSource {
  /// Bytes of one text tilecut draws: a note, a title block, never a book.
  public static let maxTextBytes = 100_000

  /// Pixels of stroke a millimetre of lineweight, at every zoom: lineweights drawn as
  /// on a 96 dpi screen, as ezdxf and CAD viewers draw them (0.25 mm: about 1 px).
  public static let lineweightPixelsPerMillimeter = 96 / 25.4

  /// Starts loading libgdal (and finding the face texts are drawn in) on a thread of its
  /// own when an argument names a drawing by its extension (`.dxf`, `.dwg`), so that
  /// GDAL's hundred libraries are mapped while the command line is parsed and libvips
  /// starts; the drawing's first reader waits for that load and reports its failure as
  /// if it had loaded it itself.
  public static func preload(forArguments arguments: [String]) {
    let named = arguments.filter { argument in
      let name = argument.lowercased()
      return !name.hasPrefix("-") && (name.hasSuffix(".dxf") || name.hasSuffix(".dwg"))
    }
    guard !named.isEmpty else { return }
    tc_dxf_preload()
    // the one drawing named, when a small text DXF read under the default budget: its
    // display list is read meanwhile too, as the header's measure reads it
    if named.count == 1, !arguments.contains(where: { $0.hasPrefix("--max-memory") }), readsAhead(path: named[0]) {
      tc_dxf_read_ahead(named[0], listBytes(maxMemory: DecodeBudget.defaultBytes), maxTextBytes)
    }
  }

  /// The largest DXF read ahead: a process that exits early (a usage error) waits for
  /// the read (`finishPreload`), about a second for a file this size.
  static let readAheadBytes = 8 << 20

  /// Whether `path` is a regular file of at most `readAheadBytes` whose first bytes are a text DXF's.
  static func readsAhead(path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= readAheadBytes,
      let handle = FileHandle(forReadingAtPath: path)
    else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 256)).map { Array($0) } ?? []
    return format(head) == .dxf && !SourceFormat.starts(head, "AutoCAD Binary DXF")
  }

  /// Waits for what `preload(forArguments:)` started, if anything: call it before the
  /// process exits, which must not unload libgdal under that thread.
  public static func finishPreload() { tc_dxf_preload_finish() }

  /// `.dxf` (text or binary DXF) or `.dwg` from a file's first bytes, or nil.
  static func format(_ head: [UInt8]) -> SourceFormat? {
    if SourceFormat.starts(head, "AutoCAD Binary DXF") { return .dxf }
    if SourceFormat.starts(head, "AC10"), head.count >= 6, head[4...5].allSatisfy({ (0x30...0x39).contains($0) }) { return .dwg }
    let text = String(decoding: head.prefix(256), as: UTF8.self)
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard lines.count >= 2 else { return nil }
    // group code 0 then SECTION, after any 999 comments (dxflib's writers put two or
    // three: the program, the date, the library)
    var at = 0
    while at + 1 < lines.count && lines[at] == "999" { at += 2 }
    return at + 1 < lines.count && lines[at] == "0" && lines[at + 1] == "SECTION" ? .dxf : nil
  }

  /// A DWG's release from its magic ("AC1015" is AutoCAD 2000), and whether GDAL's CAD driver reads it.
  static func dwgRelease(_ head: [UInt8]) -> (name: String, readable: Bool) {
    let magic = String(decoding: head.prefix(6), as: UTF8.self)
    let names = [
      "AC1012": "R13", "AC1014": "R14", "AC1015": "2000", "AC1018": "2004", "AC1021": "2007", "AC1024": "2010", "AC1027": "2013",
      "AC1032": "2018",
    ]
    return (names[magic].map { "AutoCAD \($0) (\(magic))" } ?? magic, magic == "AC1015")
  }

  /// Metres in one unit of `$INSUNITS` code `code`, and the unit's name; nil for unitless (0) or unknown codes.
  public static func unit(insunits code: Int) -> (meters: Double, name: String)? {
    let table: [Int: (Double, String)] = [
      1: (0.0254, "inches"), 2: (0.3048, "feet"), 3: (1609.344, "miles"), 4: (0.001, "millimetres"), 5: (0.01, "centimetres"),
      6: (1, "metres"), 7: (1000, "kilometres"), 8: (0.0254e-6, "microinches"), 9: (0.0254e-3, "mils"), 10: (0.9144, "yards"),
      11: (1e-10, "ångströms"), 12: (1e-9, "nanometres"), 13: (1e-6, "micrometres"), 14: (0.1, "decimetres"), 15: (10, "decametres"),
      16: (100, "hectometres"), 17: (1e9, "gigametres"), 21: (1200.0 / 3937.0, "US survey feet"),
    ]
    return table[code].map { (meters: $0.0, name: $0.1) }
  }

  /// The metres in one unit a number may give: from an ångström, the smallest unit
  /// `$INSUNITS` names, to 10,000 km.
  public static let unitMeters: ClosedRange<Double> = 1e-10...1e7

  /// Metres in one unit named `text` (m, cm, mm, in, ft, yd, km, mi, us-ft) or given as a number of metres.
  public static func unit(named text: String) -> (meters: Double, name: String)? {
    let names: [String: Int] = [
      "in": 1, "inch": 1, "inches": 1, "ft": 2, "foot": 2, "feet": 2, "mi": 3, "mile": 3, "miles": 3, "mm": 4, "millimetres": 4,
      "millimeters": 4, "cm": 5, "centimetres": 5, "centimeters": 5, "m": 6, "metres": 6, "meters": 6, "km": 7, "yd": 10,
      "yards": 10, "dm": 14, "us-ft": 21, "us-feet": 21,
    ]
    let key = text.trimmingCharacters(in: .whitespaces).lowercased()
    if let code = names[key] { return unit(insunits: code) }
    if let m = OptionNumber.parse(key), unitMeters.contains(m) { return (m, "\(key) m") }
    return nil
  }

  /// `$INSUNITS` from a DXF's HEADER section (text DXF), or nil when it has none.
  static func insunits(path: String) -> Int? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    // the HEADER section comes first; 4 MB holds any real one
    guard let data = try? handle.read(upToCount: 4 << 20) else { return nil }
    return insunits(header: Array(data))
  }

  /// `$INSUNITS` from the first bytes of a text DXF: its lines read as bytes, pairs of a
  /// group code and a value, up to the end of the first section.
  static func insunits(header bytes: [UInt8]) -> Int? {
    var lines = DXFLines(bytes)
    func line() -> ArraySlice<UInt8>? { lines.next() }
    let equals = DXFLines.equals
    while let code = line(), let value = line() {
      if equals(code, "0") && equals(value, "ENDSEC") { return nil }
      if equals(code, "9") && equals(value, "$INSUNITS") {
        guard let next = line(), equals(next, "70"), let number = line() else { return nil }
        return Int(String(decoding: number, as: UTF8.self))
      }
    }
    return nil
  }

  /// The layer names a text DXF gives (its LAYER table's and those its entities and
  /// blocks are on), in the file's order; empty, so that nothing is checked against
  /// them, when the file is over 16 MB, is no text DXF, or spells a name past ASCII in
  /// a code page tilecut does not decode (``layerNames(text:)``).
  public static func layerNames(path: String) -> [String] {
    guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
    defer { try? handle.close() }
    let limit = 16 << 20
    guard let data = try? handle.read(upToCount: limit + 1), data.count <= limit else { return [] }
    return layerNames(text: Array(data))
  }

  /// The layer names of a text DXF's bytes, each once, as the drawing reader reads them:
  /// group 2 of each LAYER table entry and group 8 of every entity and block in its
  /// BLOCKS and ENTITIES sections (GDAL draws an entity on a layer the table does not
  /// list; group 8 of other tables' entries and of objects names no layer drawn).
  /// Decoded as UTF-8 from AC1021 (AutoCAD 2007) on, before it as Latin-1 when the file's
  /// code page ($DWGCODEPAGE) is ANSI_1252 or none GDAL knows (as GDAL decodes them).
  /// Empty, so that nothing is checked against them, when a name past ASCII is in
  /// another code page, or is no valid UTF-8.
  static func layerNames(text bytes: [UInt8]) -> [String] {
    var lines = DXFLines(bytes)
    func line() -> ArraySlice<UInt8>? { lines.next() }
    let equals = DXFLines.equals
    var raw: [ArraySlice<UInt8>] = []
    var seen: Set<ArraySlice<UInt8>> = []
    var section = ""
    var sectionNamed = false
    var variable = ""
    var version = 0
    var codePage: String?
    var inLayer = false
    while let code = line(), let value = line() {
      if equals(code, "0") {
        sectionNamed = equals(value, "SECTION")
        if equals(value, "ENDSEC") { section = "" }
        inLayer = section == "TABLES" && equals(value, "LAYER")
        continue
      }
      if sectionNamed, equals(code, "2") {
        section = String(decoding: value, as: UTF8.self)
        sectionNamed = false
        continue
      }
      if section == "HEADER" {
        if equals(code, "9") {
          variable = String(decoding: value, as: UTF8.self)
        } else if variable == "$ACADVER", equals(code, "1") {
          version = Int(String(decoding: value.drop { $0 != UInt8(ascii: "1") }, as: UTF8.self)) ?? 0
        } else if variable == "$DWGCODEPAGE", equals(code, "3") {
          codePage = String(decoding: value, as: UTF8.self)
        }
        continue
      }
      let entityLayer = (section == "ENTITIES" || section == "BLOCKS") && equals(code, "8")
      guard (inLayer && equals(code, "2")) || entityLayer, !value.isEmpty else { continue }
      if seen.insert(value).inserted { raw.append(value) }
    }
    let latin1 = codePage.map { $0 == "ANSI_1252" || !$0.uppercased().hasPrefix("ANSI_") } ?? true
    var names: [String] = []
    for value in raw {
      if !value.contains(where: { $0 >= 0x80 }) {
        names.append(String(decoding: value, as: UTF8.self))
      } else if version >= 1021 {
        guard let name = String(bytes: value, encoding: .utf8) else { return [] }
        names.append(name)
      } else if latin1 {
        var name = ""
        name.unicodeScalars.append(contentsOf: value.map { Unicode.Scalar($0) })
        names.append(name)
      } else {
        return []
      }
    }
    return names
  }

  /// GDAL's DXF reader error ("./ogr/ogrsf_frmts/dxf/ogrdxfdatasource.cpp, 312: error at
  /// line 5370 of plan.dxf") as a sentence: the line kept, GDAL's source dropped. Its
  /// BLOCKS section when GDAL's check is the BLOCKS reader's (ogrdxf_blockmap.cpp) or the
  /// one after it that expects ENTITIES (ogrdxfdatasource.cpp, 312 in GDAL 3.6). Nil for
  /// any other message.
  static func parseError(_ message: String) -> String? {
    guard let source = message.range(of: ".cpp, "), let at = message.range(of: ": error at line ", range: source.upperBound..<message.endIndex),
      let sourceLine = Int(message[source.upperBound..<at.lowerBound])
    else { return nil }
    let digits = message[at.upperBound...].prefix { $0.isNumber }
    guard let line = Int(digits) else { return nil }
    let file = message[..<source.lowerBound].split(separator: "/").last.map(String.init) ?? ""
    let blocks = file == "ogrdxf_blockmap" || (file == "ogrdxfdatasource" && sourceLine == 312)
    return "\(blocks ? "its BLOCKS section" : "its DXF text") is damaged near line \(line); save it again from its CAD program"
  }

  /// Whether the file is a binary DXF (its sentinel "AutoCAD Binary DXF").
  static func isBinaryDXF(path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    let head = (try? handle.read(upToCount: 18)).map { Array($0) } ?? []
    return SourceFormat.starts(head, "AutoCAD Binary DXF")
  }

  /// Source pixels (at scale 1) around a drawing's extent of `columns` × `rows`: 2, or
  /// 1 % of its larger side. Each zoom is drawn at its own scale, so that a stroke on the
  /// extent is drawn whole (its outer half within the frame) at every zoom down to the
  /// one where the drawing is about 100 pixels across.
  static func framePadding(columns: Double, rows: Double) -> Int {
    let side = max(columns, rows)
    guard side.isFinite, side > 0 else { return 2 }
    return max(2, Int(min(side / 100, 1e6).rounded(.up)))
  }

  /// A count of pixels for a message: whole below 10^15, else in three digits (a drawing
  /// spanning 1e300 units printed a count of 300 digits).
  static func pixelCount(_ value: Double) -> String {
    String(format: value.isFinite && abs(value) >= 1e15 ? "%.3g" : "%.0f", value)
  }

  /// A size in pixels for a message: "W × H pixels" (``pixelCount(_:)``), or, past what a
  /// number holds (a drawing spanning 1e308 units was "inf × inf pixels"), "more than
  /// 10^15 pixels across".
  static func pixelSize(columns: Double, rows: Double) -> String {
    guard columns.isFinite, rows.isFinite else { return "more than 10^15 pixels across" }
    return "\(pixelCount(columns)) × \(pixelCount(rows)) pixels"
  }

  /// A drawing's width × height in its units for a message, or "more than 1e+308" past
  /// what a number holds (a span from -1e308 to 1e308).
  static func spanSize(_ width: Double, _ height: Double) -> String {
    guard width.isFinite, height.isFinite else { return "more than 1e+308" }
    return String(format: "%.6g × %.6g", width, height)
  }

  /// The model-space tables and arc dimensions drawn at most (MAX_BLOCK_REFS in TilecutDXFWipeout.c).
  static let maxBlockReferences = 10000

  /// The display list's bound: what `maxMemory` allows, less the band.
  static func listBytes(maxMemory: Int) -> Int { max(16 << 20, maxMemory / 2) }

  /// The `--max-memory` each drawing's header was read within, by path: its render
  /// (`banded`, `placed`) keeps to the same budget, so that a drawing the dry run takes
  /// is not refused when its levels are drawn.
  private static let budgets = Mutex<[String: Int]>([:])

  /// The budget the header of the drawing at `path` was read within (the default when
  /// none was read).
  static func budget(for path: String) -> Int { budgets.withLock { $0[path] } ?? DecodeBudget.defaultBytes }

  /// Reads a drawing's extent and units: the header of a source whose pixels are
  /// `DrawingFrame.groundMetersPerPixel` of ground (a drawing unit a metre when unitless).
  /// `units`: the drawing's units as `--drawing-units` gives them, which win over its
  /// `$INSUNITS` (the frame, its margin and `--max-pixels` are then in those units).
  static func header(
    path: String, format: SourceFormat, maxPixels: Int, maxMemory: Int, units given: (meters: Double, name: String)? = nil
  ) throws -> SourceHeader {
    var head = [UInt8](repeating: 0, count: 8)
    if format == .dwg {
      let n = (try? FileHandle(forReadingFrom: URL(fileURLWithPath: path)).read(upToCount: 8)).map { Array($0) } ?? []
      head = n
      let release = dwgRelease(head)
      guard release.readable else {
        throw TilecutError.invalidInput(
          path: path,
          reason: "is a DWG drawing of \(release.name), which GDAL's CAD driver does not read (it reads AutoCAD 2000 DWG); save it as DXF")
      }
    }
    if format == .dxf, isBinaryDXF(path: path) {
      throw TilecutError.invalidInput(
        path: path, reason: "is a binary DXF, which GDAL's DXF driver does not read; save it as an ASCII DXF (DXF text)")
    }
    var extent = [Double](repeating: 0, count: 4)
    var drawn = 0
    var features = 0
    var hidden = 0
    var notDrawn = 0
    var error: UnsafeMutablePointer<CChar>?
    var said: UnsafeMutablePointer<CChar>?
    var unsaid = 0
    let status = tc_dxf_measure(
      path, format == .dwg ? 1 : 0, listBytes(maxMemory: maxMemory), maxTextBytes, &extent, &drawn, &features, &hidden, &notDrawn, &said,
      &unsaid, &error)
    defer {
      free(error)
      free(said)
      tc_release_free_memory()
    }
    guard status == 0 else {
      let why = error.map { String(cString: $0) } ?? "GDAL cannot read it"
      let kind = format == .dwg ? "a DWG drawing" : "a DXF drawing"
      let first = String(why.split(separator: "\n").first ?? "")
      // libopencad says so of a damaged header, whatever the release its magic names
      if format == .dwg, first.contains("does not support this version of CAD file") {
        throw TilecutError.invalidInput(
          path: path,
          reason: "is a damaged \(dwgRelease(head).name) DWG: GDAL's CAD driver cannot read its header; save it again from its CAD program, or as DXF"
        )
      }
      let shown = format == .dxf ? Self.parseError(first) ?? first : first
      throw TilecutError.invalidInput(path: path, reason: "cannot be read as \(kind) (\(shown))")
    }
    let (minX, minY, maxX, maxY) = (extent[0], extent[1], extent[2], extent[3])
    guard drawn > 0, minX.isFinite, minY.isFinite, maxX >= minX, maxY >= minY else {
      let hiddenNote = hidden > 0 ? " (\(hidden) of its \(features) entities lie on layers that are off or frozen)" : ""
      throw TilecutError.invalidInput(path: path, reason: "draws nothing in model space\(hiddenNote)")
    }
    let unit: (meters: Double, name: String)? = given ?? (format == .dxf ? insunits(path: path).flatMap { Self.unit(insunits: $0) } : nil)
    let metersPerUnit = unit?.meters ?? 1
    let unitsPerPixel = DrawingFrame.groundMetersPerPixel / metersPerUnit
    // a margin, so that strokes on the extent are drawn whole
    let padding = framePadding(columns: (maxX - minX) / unitsPerPixel, rows: (maxY - minY) / unitsPerPixel)
    let pad = Double(padding) * unitsPerPixel
    let columns = ((maxX - minX + 2 * pad) / unitsPerPixel).rounded(.up)
    let rows = ((maxY - minY + 2 * pad) / unitsPerPixel).rounded(.up)
    guard columns.isFinite, rows.isFinite, columns * max(rows, 1) <= Double(maxPixels) else {
      throw TilecutError.invalidInput(
        path: path,
        reason: String(
          format: "spans %@ drawing units (%@), %@ of %g m, more than --max-pixels %ld; %@",
          spanSize(maxX - minX, maxY - minY), unit?.name ?? "unitless, read as metres", pixelSize(columns: columns, rows: rows),
          DrawingFrame.groundMetersPerPixel, maxPixels,
          columns.isFinite && rows.isFinite ? "check its units or raise --max-pixels" : "check its units, and its entities far from the rest"))
    }
    let width = max(1, Int(columns))
    let height = max(1, Int(rows))
    budgets.withLock { $0[path] = maxMemory }
    var header = SourceHeader(path: path, width: width, height: height, pages: 1, isVector: true, format: format)
    header.drawing = DrawingFrame(
      x0: minX - pad, yTop: maxY + pad, unitsPerPixel: unitsPerPixel, metersPerUnit: unit?.meters, unitName: unit?.name,
      pixelsPerLineweightMillimeter: lineweightPixelsPerMillimeter, isDWG: format == .dwg)
    header.drawing?.padding = padding
    if format == .dxf { header.drawing?.geodata = DrawingGeodataReader.read(path: path) }
    header.warnings += DrawingWarnings.shown(said.map { String(cString: $0) } ?? "", dropped: unsaid, path: path, isDXF: format == .dxf)
    if format == .dxf { header.warnings += DrawingWarnings.references(path: path) }
    if notDrawn > 0 {
      header.warnings.append(
        "\(notDrawn) of its tables and arc or radial dimensions (ACAD_TABLE, ARC_DIMENSION, LARGE_RADIAL_DIMENSION) are not drawn: tilecut draws the first \(maxBlockReferences)"
      )
    }
    return header
  }

  /// Frees the display list read of the drawing at `path` once its floor is drawn (every
  /// zoom's image of it, and the header's measure, share one parse while it is held).
  public static func forget(path: String) { tc_dxf_forget(path) }

  /// The drawing drawn straight on a direct level's grid (`LevelRecipe.draw`): the
  /// region's pixels, in bands of `SourceImage.documentBandBytes`, through the frame's
  /// and the placement's affine maps, and only within the frame (the source's outline),
  /// as a rendering in source pixels resampled onto the grid would be. Texts are sized
  /// for `documentScale`, the scale that rendering would have.
  static func placed(
    _ source: SourceDescription, frame: DrawingFrame, placement: Placement, level: DensityLevel, documentScale: Double,
    maxMemory: Int? = nil
  ) throws -> VipsImageHandle {
    let maxMemory = maxMemory ?? budget(for: source.path)
    let region = level.region
    let map = LevelGeometry.drawingMap(frame: frame, source: source, placement: placement, region: region, worldPixels: level.worldPixels)
    let outline = LevelGeometry.sourceOutline(source: source, placement: placement, region: region, worldPixels: level.worldPixels)
    let matrix = [map.a, map.b, map.c, map.d, map.e, map.f]
    let rows = Int(max(64, min(4096, Double(SourceImage.documentBandBytes) / (4 * Double(max(1, region.width))))))
    let layers = frame.layers?.joined(separator: "\n")
    return try VipsImageHandle.make("render \(source.path)") { out in
      var image: UnsafeMutableRawPointer?
      let status = tc_dxf_open_placed(
        source.path, frame.isDWG ? 1 : 0, layers, matrix, outline, Int32(region.width), Int32(region.height),
        frame.pixelsPerLineweightMillimeter, frame.minimumTextPixels(atScale: documentScale), Int32(rows), listBytes(maxMemory: maxMemory),
        maxTextBytes, &image)
      out = image?.assumingMemoryBound(to: VipsImage.self)
      return status
    }
  }

  /// The drawing rendered at `scale` in bands of `rows` rows.
  static func banded(_ source: SourceDescription, frame: DrawingFrame, scale: Double, rows: Int, maxMemory: Int? = nil)
    throws -> VipsImageHandle
  {
    let maxMemory = maxMemory ?? budget(for: source.path)
    let layers = frame.layers?.joined(separator: "\n")
    return try VipsImageHandle.make("render \(source.path)") { out in
      var image: UnsafeMutableRawPointer?
      let status = tc_dxf_open_banded(
        source.path, frame.isDWG ? 1 : 0, layers, frame.x0, frame.yTop, frame.unitsPerPixel, Int32(source.width), Int32(source.height),
        scale, frame.pixelsPerLineweightMillimeter / scale, frame.minimumTextPixels(atScale: scale), Int32(rows),
        listBytes(maxMemory: maxMemory), maxTextBytes, &image)
      out = image?.assumingMemoryBound(to: VipsImage.self)
      return status
    }
  }
}

/// The lines of a text DXF's bytes, each without its line break and the spaces and tabs
/// around it (CR LF, LF or a lone CR ends a line).
struct DXFLines {
  let bytes: [UInt8]
  var start = 0

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  /// The next line, nil past the end.
  mutating func next() -> ArraySlice<UInt8>? {
    guard start < bytes.count else { return nil }
    var end = start
    while end < bytes.count && bytes[end] != 0x0A && bytes[end] != 0x0D { end += 1 }
    var lo = start
    var hi = end
    while lo < hi && (bytes[lo] == 0x20 || bytes[lo] == 0x09) { lo += 1 }
    while hi > lo && (bytes[hi - 1] == 0x20 || bytes[hi - 1] == 0x09) { hi -= 1 }
    start = end < bytes.count && bytes[end] == 0x0D && end + 1 < bytes.count && bytes[end + 1] == 0x0A ? end + 2 : end + 1
    return bytes[lo..<hi]
  }

  /// Whether a line is `word`.
  static func equals(_ text: ArraySlice<UInt8>, _ word: String) -> Bool { text.elementsEqual(word.utf8) }
}
