import Foundation
import TilecutCore

/// GDAL's warnings while it reads a drawing, as tilecut shows them (`plan.dxf: GDAL: …`,
/// as the other kinds show GDAL's): those that say something is missing from the tiles
/// (an insert of a block the file lacks, blocks inserting each other, a block past
/// GDAL's feature limit, an entity GDAL could not read), without those that say nothing
/// to the user, each one escaped line, and a few lines at most. The file's own text (a
/// block's name, a path) may be in them.
enum DrawingWarnings {
  /// The most of GDAL's warnings shown for one drawing; one more line counts the rest.
  static let maxShown = 8

  /// The most characters shown of one.
  static let maxCharacters = 300

  /// Entities tilecut reads from the DXF itself where GDAL cannot (fit-point SPLINEs,
  /// HATCHes whose boundary GDAL cannot read, MLINEs, XLINEs, RAYs, MESHes, IMAGEs,
  /// WIPEOUTs, tables and arc dimensions): GDAL's reader error on one of them says
  /// nothing about the tiles.
  static let readByTilecut: Set<String> = [
    "SPLINE", "HATCH", "MLINE", "XLINE", "RAY", "MESH", "IMAGE", "WIPEOUT", "ACAD_TABLE", "ARC_DIMENSION", "LARGE_RADIAL_DIMENSION",
  ]

  /// The lines shown (each "GDAL: …") of GDAL's newline-separated `messages` while it read
  /// the drawing at `path` (a DXF when `isDXF`, whose entities GDAL's reader errors are
  /// looked up in). Left out: GDAL's unclosed hatch rings (it closes them, and they are
  /// drawn as ezdxf draws them), reader errors on entities tilecut reads itself, those of
  /// tilecut's second read of the tables' and arc dimensions' blocks (a file in memory
  /// whose lines repeat the drawing's own), and GDAL's "Block X does not exist" where the
  /// DXF defines X (GDAL drops a block of nothing it reads: only tables, XLINEs, MESHes,
  /// IMAGEs…, which tilecut draws itself).
  /// `dropped`: GDAL's messages past those it kept (`messages` holds the first megabyte),
  /// counted in the last line as warnings not shown. Split on "\n" only: a file's text in
  /// a message (a block's name) may hold U+2028 or U+0085, which end no message.
  static func shown(_ messages: String, dropped: Int = 0, path: String, isDXF: Bool) -> [String] {
    // (text, the DXF line of a reader error)
    var found: [(text: String, line: Int?)] = []
    let blank = CharacterSet.whitespaces.union(CharacterSet(charactersIn: "\r"))
    // GDAL's CAD driver says this of each entity it skips, without naming it
    let unhandled = "Unhandled feature. Skipping it."
    var unhandledCount = 0
    for part in messages.utf8.split(separator: UInt8(ascii: "\n")) {
      let message = String(decoding: part, as: UTF8.self).trimmingCharacters(in: blank)
      if message.isEmpty || message.hasPrefix("Non closed ring detected") { continue }
      if message == unhandled {
        unhandledCount += 1
        continue
      }
      if let error = readerError(message) {
        guard error.file == path else { continue }
        found.append((message, error.line))
      } else {
        found.append((message, nil))
      }
    }
    let lines = found.compactMap(\.line)
    let names = isDXF && !lines.isEmpty ? entityNames(path: path, lines: lines) : [:]
    let missing = Set(found.compactMap { $0.line == nil ? missingBlock($0.text) : nil })
    let defined = isDXF && !missing.isEmpty ? definedBlocks(path: path, among: missing) : []
    var shown: [String] = []
    // up to 1 MB of messages (thousands): duplicates found by a set, not by a search
    var seen: Set<String> = []
    for (message, line) in found {
      if line == nil, let block = missingBlock(message), defined.contains(block) { continue }
      var text = message
      if let line {
        let name = names[line]
        if let name, readByTilecut.contains(name) { continue }
        text = "cannot read the \(name.map { Quote.value($0, limit: 40) } ?? "entity") ending near line \(line) (damaged?): it is not drawn"
      }
      let line = "GDAL: " + Quote.value(text, limit: maxCharacters)
      if seen.insert(line).inserted { shown.append(line) }
    }
    if unhandledCount > 0 {
      let one = unhandledCount == 1
      shown.append(
        "GDAL: \(unhandledCount) entit\(one ? "y" : "ies") of a kind GDAL's CAD driver does not read \(one ? "is" : "are") not drawn; save the drawing as DXF to draw \(one ? "it" : "them")"
      )
    }
    let more = max(shown.count - maxShown, 0) + dropped
    guard more > 0 else { return shown }
    return Array(shown.prefix(maxShown)) + ["GDAL: \(more) more warning\(more == 1 ? "" : "s") not shown"]
  }

  /// What the DXF at `path` refers to in other files, which tilecut never opens, said one
  /// line a kind: blocks inserted that are external references (XREFs: their blocks are
  /// empty, nothing of the referenced drawing is drawn), IMAGEs (drawn as their frames)
  /// and PDF, DWF and DGN underlays (not drawn). The file's own text (a block's name, a
  /// path) is quoted and cut.
  static func references(path: String) -> [String] {
    // each block's name, flags and path (group 2, 70 and 1 of a BLOCK)
    var xrefs: [(name: String, file: String)] = []
    var inserted: Set<String> = []
    var images = 0
    var imageFile: String?
    var underlays: [String: Int] = [:]
    var underlayFiles: [String: String] = [:]
    var entity = ""
    var block: (name: String, flags: Int, file: String) = ("", 0, "")
    // the group code of the value read next (0, 1, 2, 70 or another: -1)
    var code = -1
    lines(of: path, upTo: Int.max) { number, bytes in
      if number % 2 == 1 {
        code = equals(bytes, "0") ? 0 : equals(bytes, "1") ? 1 : equals(bytes, "2") ? 2 : equals(bytes, "70") ? 70 : -1
        return true
      }
      func value() -> String { String(decoding: bytes, as: UTF8.self) }
      switch (code, entity) {
      case (-1, _): break
      case (0, _):
        if entity == "BLOCK", block.flags & 4 != 0 { xrefs.append((block.name, block.file)) }
        entity = value().uppercased()
        block = ("", 0, "")
        if entity == "IMAGE" { images += 1 }
        if let kind = underlayKinds[entity] { underlays[kind, default: 0] += 1 }
      case (2, "BLOCK"): block.name = value()
      case (70, "BLOCK"): block.flags = Int(value()) ?? 0
      case (1, "BLOCK"): block.file = value()
      case (2, "INSERT"): inserted.insert(value())
      case (1, "IMAGEDEF"): if imageFile == nil { imageFile = value() }
      case (1, _) where entity.hasSuffix("DEFINITION"):
        if let kind = underlayKinds[String(entity.dropLast("DEFINITION".count)) + "UNDERLAY"], underlayFiles[kind] == nil {
          underlayFiles[kind] = value()
        }
      default: break
      }
      return true
    }
    func quoted(_ text: String) -> String { "'" + Quote.value(text, limit: 60) + "'" }
    var said: [String] = []
    let unbound = xrefs.filter { inserted.contains($0.name) }
    if let first = unbound.first {
      let more = unbound.count - 1
      said.append(
        more == 0
          ? "block \(quoted(first.name)) is an external reference to \(quoted(first.file)), which tilecut does not read: it is not drawn; bind it in the CAD program (XREF, Bind)"
          : "block \(quoted(first.name)) (an external reference to \(quoted(first.file))) and \(more) more are external references, which tilecut does not read: they are not drawn; bind them in the CAD program (XREF, Bind)"
      )
    }
    if images > 0 {
      let file = imageFile.map { " of \(quoted($0))" } ?? ""
      said.append(
        images == 1
          ? "its IMAGE\(file) is drawn as its frame: tilecut does not read the picture file a drawing refers to; tile the picture on its own"
          : "its \(images) IMAGEs (the first\(file)) are drawn as their frames: tilecut does not read the picture files a drawing refers to; tile the pictures on their own"
      )
    }
    for kind in underlays.keys.sorted() {
      let count = underlays[kind] ?? 0
      let file = underlayFiles[kind].map { " of \(quoted($0))" } ?? ""
      said.append(
        count == 1
          ? "its \(kind) underlay\(file) is not drawn: tilecut does not read the files a drawing refers to; import it into the drawing in the CAD program"
          : "its \(count) \(kind) underlays (the first\(file)) are not drawn: tilecut does not read the files a drawing refers to; import them into the drawing in the CAD program"
      )
    }
    return said
  }

  /// The underlay entities, by the kind of file they show.
  static let underlayKinds = ["PDFUNDERLAY": "PDF", "DWFUNDERLAY": "DWF", "DGNUNDERLAY": "DGN"]

  /// The line and the file of GDAL's DXF reader error ("./ogr/ogrsf_frmts/dxf/ogrdxflayer.cpp,
  /// 2151: error at line 1918 of plan.dxf"), or nil for any other message.
  /// Only GDAL's exact shape: its source file (no space in it), its line's digits, then
  /// ": error at line": a block named "A.cpp, 1: error at line 5 of x" makes "Block A.cpp,
  /// …", which is no reader error (and was left out as one of another file).
  static func readerError(_ message: String) -> (line: Int, file: String)? {
    guard let source = message.range(of: ".cpp, "), let at = message.range(of: ": error at line ", range: source.upperBound..<message.endIndex),
      !message[..<source.lowerBound].isEmpty, !message[..<source.lowerBound].contains(" "),
      message[source.upperBound..<at.lowerBound].allSatisfy({ $0.isASCII && $0.isNumber }), source.upperBound < at.lowerBound
    else { return nil }
    let digits = message[at.upperBound...].prefix { $0.isNumber }
    guard let line = Int(digits), let of = message.range(of: " of ", range: at.upperBound..<message.endIndex) else { return nil }
    return (line, String(message[of.upperBound...]))
  }

  /// The block GDAL's "Block X does not exist" names, or nil for any other message.
  static func missingBlock(_ message: String) -> String? {
    let head = "Block "
    let tail = " does not exist"
    guard message.hasPrefix(head), message.hasSuffix(tail), message.count > head.count + tail.count else { return nil }
    return String(message.dropFirst(head.count).dropLast(tail.count))
  }

  /// Those of `names` the DXF at `path` defines (a BLOCK's name, 2), read as `lines` reads it.
  static func definedBlocks(path: String, among names: Set<String>) -> Set<String> {
    var found: Set<String> = []
    var zeroCode = false
    var inBlock = false
    var nameCode = false
    lines(of: path, upTo: Int.max) { number, bytes in
      if number % 2 == 1 {
        zeroCode = equals(bytes, "0")
        nameCode = inBlock && equals(bytes, "2")
      } else if zeroCode {
        inBlock = equals(bytes, "BLOCK")
      } else if nameCode {
        let name = String(decoding: bytes, as: UTF8.self)
        if names.contains(name) { found.insert(name) }
        inBlock = false
      }
      return found.count < names.count
    }
    return found
  }

  /// Whether `bytes` are `word`'s (a StaticString: no String made or released a line).
  static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
    word.withUTF8Buffer { bytes.elementsEqual($0) }
  }

  /// Calls `body` with each line of the file at `path` (its number from 1, its first 256
  /// bytes without surrounding spaces, tabs and CR) up to line `last`, or until it returns false.
  static func lines(of path: String, upTo last: Int, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Bool) {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    defer { try? handle.close() }
    var number = 1
    // the line's first bytes, in a buffer of its own (no array retained and released a line)
    let current = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    defer { current.deallocate() }
    var kept = 0
    func ended() -> Bool {
      var lo = 0
      var hi = kept
      while lo < hi && (current[lo] == 0x20 || current[lo] == 0x09) { lo += 1 }
      while hi > lo && (current[hi - 1] == 0x20 || current[hi - 1] == 0x09 || current[hi - 1] == 0x0D) { hi -= 1 }
      let more = body(number, UnsafeBufferPointer(start: current + lo, count: hi - lo))
      kept = 0
      number += 1
      return more && number <= last
    }
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
      // each line's end found by memchr, its first bytes kept
      let more = chunk.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
        guard let base = raw.baseAddress else { return true }
        var at = 0
        while at < raw.count {
          var end = raw.count
          if let found = memchr(base + at, 0x0A, raw.count - at) { end = UnsafeRawPointer(found) - base }
          let keep = min(end - at, 256 - kept)
          if keep > 0 {
            (current + kept).initialize(from: base.advanced(by: at).assumingMemoryBound(to: UInt8.self), count: keep)
            kept += keep
          }
          if end == raw.count { return true }
          guard ended() else { return false }
          at = end + 1
        }
        return true
      }
      guard more else { return }
    }
    if kept > 0 { _ = ended() }
  }

  /// The entity (its name: SPLINE, TEXT, …) each of `lines` of the DXF at `path` lies in:
  /// the last one started (its group code 0) at least two lines before it, as GDAL
  /// reports an error once it has read the entity's last value or the next one's start;
  /// the last one for a line past the file's end.
  /// Read as bytes up to the last of `lines`, keeping a few bytes of each line.
  static func entityNames(path: String, lines wantedLines: [Int]) -> [Int: String] {
    // what a group code 0 also starts, which is no entity
    let structure: Set<String> = ["SECTION", "ENDSEC", "EOF", "BLOCK", "ENDBLK", "TABLE", "ENDTAB"]
    guard let last = wantedLines.max() else { return [:] }
    let wanted = Set(wantedLines)
    var names: [Int: String] = [:]
    var zeroCode = false
    var read = 0
    // the entity started last, and the one before (its start line, its name)
    var entity: (start: Int, name: String)?
    var previous: (start: Int, name: String)?
    lines(of: path, upTo: last) { number, bytes in
      read = number
      if number % 2 == 1 {
        zeroCode = equals(bytes, "0")
      } else if zeroCode {
        let name = String(decoding: bytes, as: UTF8.self).uppercased()
        if !structure.contains(name) {
          previous = entity
          entity = (number - 1, name)
        }
      }
      if wanted.contains(number) {
        let started = entity.flatMap { $0.start <= number - 2 ? $0 : nil } ?? previous
        if let started { names[number] = started.name }
      }
      return true
    }
    // past the file's end (an entity that took the rest of the file as its values): the last
    for line in wanted where line > read { names[line] = entity?.name }
    return names
  }
}
