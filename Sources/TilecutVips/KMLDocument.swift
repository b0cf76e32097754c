import Foundation
import TilecutCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// One `<GroundOverlay>` of a KML document: its name, its image's `<Icon><href>`, and
/// where it goes.
public struct KMLGroundOverlay: Hashable, Sendable {
  public var name: String?
  public var href: String?
  public var geometry: GroundOverlayGeometry?

  /// `'San Francisco'`, or `#2` for an overlay without a name (counted from 1).
  public func label(index: Int) -> String {
    if let name, !name.isEmpty { return "'" + Quote.value(name, limit: 60) + "'" }
    return "#\(index + 1)"
  }
}

/// A KML document read with Foundation's `XMLParser` (libxml2): its GroundOverlays in
/// document order. A document type declaration is refused before the parser sees the
/// text, so no entity is declared, expanded or fetched (no XXE, no billion laughs).
public enum KMLDocument {
  /// The largest KML text read (a doc.kml of overlays is a few kilobytes).
  public static let maxBytes = 16 << 20
  /// The most elements a document may hold, and overlays it may list.
  static let maxElements = 2_000_000
  static let maxOverlays = 10_000

  /// The overlays of `data`; throws a reason (without the file's name) when it is not
  /// a KML document tilecut reads.
  public static func overlays(_ data: [UInt8]) throws(KMLProblem) -> [KMLGroundOverlay] {
    guard data.count <= maxBytes else { throw KMLProblem("is \(data.count) bytes of KML, more than \(maxBytes >> 20) MB") }
    if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) || data.contains(0) {
      throw KMLProblem("is not UTF-8 text (KML is read as UTF-8)")
    }
    if let declaration = declaration(in: data) {
      throw KMLProblem(
        "declares \(declaration); tilecut reads no document type or entity in KML (an entity can read other files or expand without end)")
    }
    let reader = Reader()
    let parser = XMLParser(data: Data(data))
    parser.shouldResolveExternalEntities = false
    parser.shouldProcessNamespaces = false
    parser.delegate = reader
    let parsed = parser.parse()
    if let problem = reader.problem { throw problem }
    guard parsed else {
      // the parser goes on past its first error (its place afterwards is not the error's):
      // the cause is the character where the first error that is no warning was found
      let first = reader.errors.first { !Reader.isWarning($0.code) } ?? reader.errors.first
      if let first, let cause = cause(in: data, line: first.line, column: first.column) { throw KMLProblem(cause) }
      let error = first?.description ?? parser.parserError.map { ($0 as NSError).localizedDescription } ?? "unknown error"
      let place = first.map { "line \($0.line), column \($0.column)" } ?? "line \(parser.lineNumber)"
      throw KMLProblem("is not well-formed XML (\(place): \(Quote.value(error, limit: 120)))")
    }
    guard let root = reader.root, root == "kml" || root == "GroundOverlay" || root == "Document" || root == "Folder" else {
      throw KMLProblem("is XML whose root element is <\(reader.root ?? "none")>, not <kml>")
    }
    return reader.overlays
  }

  /// What the character at `line`, `column` (from 1; columns in characters, as the
  /// parser counts them) is, when it is the cause of the parser's error there: a C0
  /// control character XML 1.0 does not allow (any but tab, line feed and carriage
  /// return), a byte that is no UTF-8, or the character after a lone `&` or `<` (in
  /// text, where they must be written `&amp;` and `&lt;`); nil for anything else, which
  /// the parser's own error describes.
  static func cause(in data: [UInt8], line: Int, column: Int) -> String? {
    guard let at = offset(in: data, line: line, column: column) else { return nil }
    let byte = data[at]
    if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
      let hex = String(byte, radix: 16, uppercase: true)
      let code = String(repeating: "0", count: 4 - hex.count) + hex
      return "holds a control character (U+\(code)) at line \(line), column \(column), which XML does not allow; remove it"
    }
    if at > 0, data[at - 1] == UInt8(ascii: "&") {
      return "holds an '&' that starts no entity at line \(line), column \(column - 1), which XML does not allow; write &amp; for an ampersand"
    }
    if at > 0, data[at - 1] == UInt8(ascii: "<") {
      return "holds a '<' that starts no element at line \(line), column \(column - 1), which XML does not allow; write &lt; for a less-than sign"
    }
    guard byte >= 0x80 else { return nil }
    // a whole, valid UTF-8 sequence is a character; a byte on its own is no UTF-8
    if characterLength(data, at: at) > 1 { return nil }
    let hex = String(byte, radix: 16, uppercase: true)
    return
      "holds a byte that is not UTF-8 (0x\(hex.count == 1 ? "0" : "")\(hex)) at line \(line), column \(column); KML is read as UTF-8: save it as UTF-8"
  }

  /// The byte offset of the character at `line`, `column` (from 1), counted as libxml2
  /// counts them: a UTF-8 sequence is one column, and so is each byte that is not part of
  /// one (a stray continuation byte 0x80–0xBF, a lead byte without its continuation);
  /// a byte-order mark at the start of the text is no column of line 1. nil when the
  /// text has no such place.
  static func offset(in data: [UInt8], line: Int, column: Int) -> Int? {
    guard line >= 1, column >= 1 else { return nil }
    var i = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var lines = 1
    while lines < line {
      guard let newline = data[i...].firstIndex(of: 0x0A) else { return nil }
      i = newline + 1
      lines += 1
    }
    var columns = 1
    while i < data.count, data[i] != 0x0A {
      if columns == column { return i }
      columns += 1
      i += characterLength(data, at: i)
    }
    return nil
  }

  /// The bytes of the character at `i`: the length of the UTF-8 sequence its lead byte
  /// starts when the sequence is whole and valid, else 1.
  static func characterLength(_ data: [UInt8], at i: Int) -> Int {
    let byte = data[i]
    guard byte >= 0xC2 else { return 1 }
    let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
    guard i + length <= data.count, String(validating: data[i..<(i + length)], as: UTF8.self) != nil else { return 1 }
    return length
  }

  /// `<!DOCTYPE` or `<!ENTITY` anywhere in the text (outside comments too: refusing
  /// more is safer than parsing a declaration).
  static func declaration(in data: [UInt8]) -> String? {
    let lower = data.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
    for word in ["<!doctype", "<!entity"] {
      let w = Array(word.utf8)
      if lower.count >= w.count, (0...(lower.count - w.count)).contains(where: { lower[$0] == w[0] && Array(lower[$0..<($0 + w.count)]) == w }) {
        return word == "<!doctype" ? "a document type (<!DOCTYPE>)" : "an entity (<!ENTITY>)"
      }
    }
    return nil
  }

  /// The element name without its namespace prefix (`gx:LatLonQuad` → `LatLonQuad`).
  static func local(_ name: String) -> String { name.split(separator: ":").last.map(String.init) ?? name }

  /// "lon,lat[,alt] lon,lat[,alt] …" as points (x: longitude, y: latitude).
  static func coordinates(_ text: String) -> [PixelPoint]? {
    let tuples = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" })
    var out: [PixelPoint] = []
    for tuple in tuples {
      let parts = tuple.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingCharacters(in: .whitespaces)) }
      guard parts.count >= 2, parts.count <= 3, let lon = parts[0], let lat = parts[1] else { return nil }
      out.append(PixelPoint(x: lon, y: lat))
    }
    return out
  }

  /// Collects the overlays as the parser walks the elements.
  final class Reader: NSObject, XMLParserDelegate {
    var overlays: [KMLGroundOverlay] = []
    var problem: KMLProblem?
    var root: String?
    private var stack: [String] = []
    private var text = ""
    private var elements = 0
    private var current: KMLGroundOverlay?
    private var box: [String: Double] = [:]
    private var boxBad: String?
    private var quad: [PixelPoint]?

    /// Each error the parser reported (it goes on past the first): its code and place.
    var errors: [(code: Int, line: Int, column: Int, description: String)] = []

    /// libxml2's warnings and namespace errors (a relative `xmlns`, an undeclared `gx:`
    /// prefix), which stop no parse: no cause of a failure.
    static func isWarning(_ code: Int) -> Bool { (200..<300).contains(code) || [27, 93, 97, 98, 99, 100, 102, 106, 107].contains(code) }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
      let error = parseError as NSError
      if errors.count < 100 { errors.append((error.code, parser.lineNumber, parser.columnNumber, error.localizedDescription)) }
    }

    func fail(_ parser: XMLParser, _ reason: String) {
      if problem == nil { problem = KMLProblem(reason) }
      parser.abortParsing()
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
      attributes attributeDict: [String: String] = [:]
    ) {
      let name = KMLDocument.local(elementName)
      if root == nil { root = name }
      elements += 1
      if elements > KMLDocument.maxElements { return fail(parser, "holds more than \(KMLDocument.maxElements) elements") }
      if name == "GroundOverlay" {
        if current != nil { return fail(parser, "has a GroundOverlay inside a GroundOverlay") }
        if overlays.count >= KMLDocument.maxOverlays { return fail(parser, "holds more than \(KMLDocument.maxOverlays) GroundOverlays") }
        current = KMLGroundOverlay()
        box = [:]
        boxBad = nil
        quad = nil
      }
      stack.append(name)
      text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      if current != nil && text.utf8.count < 1 << 20 { text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
      if current != nil && text.utf8.count < 1 << 20 { text += String(decoding: block, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
      let name = KMLDocument.local(elementName)
      let parent = stack.count >= 2 ? stack[stack.count - 2] : nil
      defer {
        stack.removeLast()
        text = ""
      }
      guard current != nil else { return }
      let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
      switch (parent, name) {
      case ("GroundOverlay", "name"):
        current?.name = value
      case ("Icon", "href") where stack.count >= 3 && stack[stack.count - 3] == "GroundOverlay":
        current?.href = value
      case ("LatLonBox", "north"), ("LatLonBox", "south"), ("LatLonBox", "east"), ("LatLonBox", "west"), ("LatLonBox", "rotation"):
        if let number = Double(value) { box[name] = number } else { boxBad = "its LatLonBox's <\(name)> is not a number" }
      case ("LatLonQuad", "coordinates"):
        guard let points = KMLDocument.coordinates(value) else {
          boxBad = "its gx:LatLonQuad's coordinates are not lon,lat numbers"
          return
        }
        quad = points
      case (_, "GroundOverlay"):
        guard var overlay = current else { return }
        if let boxBad {
          return fail(parser, "\(overlay.label(index: overlays.count)): \(boxBad)")
        }
        if let quad {
          overlay.geometry = .quad(quad)
        } else if !box.isEmpty {
          guard let north = box["north"], let south = box["south"], let east = box["east"], let west = box["west"] else {
            let missing = ["north", "south", "east", "west"].filter { box[$0] == nil }
            return fail(parser, "GroundOverlay \(overlay.label(index: overlays.count))'s LatLonBox has no <\(missing.joined(separator: ">, <"))>")
          }
          overlay.geometry = .box(north: north, south: south, east: east, west: west, rotation: box["rotation"] ?? 0)
        }
        overlays.append(overlay)
        current = nil
      default:
        break
      }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
      fail(parser, "declares an entity (\(Quote.value(name, limit: 40))); tilecut reads no entity in KML")
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
      fail(parser, "declares an external entity (\(Quote.value(name, limit: 40))); tilecut reads no entity in KML")
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
      fail(parser, "refers to an external entity; tilecut reads no entity in KML")
      return nil
    }
  }
}

/// Why a KML document is refused, without the file's name (the caller adds it).
public struct KMLProblem: Error, Sendable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
}
