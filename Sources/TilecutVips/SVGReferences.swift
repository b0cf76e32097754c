import Foundation
import TilecutCore

/// What an SVG makes librsvg read besides itself: `<image href>`, CSS `@import`
/// and `url(…)`, `xi:include`, entities. A reference to a FIFO, socket or device
/// would block the render for ever; an embedded or referenced image is decoded
/// whole, so its declared size is held to the memory budget before librsvg sees it.
enum SVGReferences {
  /// Throws one line for the first reference tilecut must not let librsvg follow.
  static func check(path: String, maxBytes: Int) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    let base = (path as NSString).deletingLastPathComponent
    for value in references(in: data) {
      if value.lowercased().hasPrefix("data:") {
        try checkEmbedded(value, path: path, maxBytes: maxBytes)
        continue
      }
      guard let file = localPath(value, base: base.isEmpty ? "." : base) else { continue }
      var st = stat()
      guard stat(file, &st) == 0 else { continue }
      let kind: String
      switch st.st_mode & S_IFMT {
      case S_IFREG:
        try checkReferencedImage(file, value: value, path: path, maxBytes: maxBytes)
        continue
      case S_IFDIR: continue  // librsvg fails to load a directory; it never blocks
      case S_IFIFO: kind = "a FIFO (named pipe)"
      case S_IFSOCK: kind = "a socket"
      case S_IFCHR, S_IFBLK: kind = "a device"
      default: kind = "not a regular file"
      }
      throw TilecutError.invalidInput(
        path: path, reason: "refers to '\(value)', which is \(kind), not a regular file; tilecut does not let an SVG read it")
    }
  }

  /// Attribute values after `href=`, CSS `url(…)` and `@import "…"`, and entity `SYSTEM "…"` identifiers;
  /// a `data:` value is cut after its first 1.5 MB, which holds any image's header.
  static func references(in data: Data) -> [String] {
    var out: [String] = []
    let limit = 3 << 19
    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      let b = raw.bindMemory(to: UInt8.self)
      let n = b.count
      func skipSpace(_ i: inout Int) { while i < n, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 } }
      func matches(_ i: Int, _ word: [UInt8]) -> Bool {
        guard i + word.count <= n else { return false }
        for k in 0..<word.count where b[i + k] | 0x20 != word[k] | 0x20 { return false }
        return true
      }
      func quoted(from start: Int, end: UInt8? = nil) -> String? {
        var i = start
        skipSpace(&i)
        guard i < n else { return nil }
        var close = end ?? b[i]
        if end == nil {
          guard b[i] == 0x22 || b[i] == 0x27 else { return nil }
          i += 1
        } else if b[i] == 0x22 || b[i] == 0x27 {
          close = b[i]
          i += 1
        }
        var j = i
        while j < n, b[j] != close, j - i < limit { j += 1 }
        var value = String(decoding: UnsafeBufferPointer(rebasing: b[i..<j]), as: UTF8.self)
        if end != nil { value = value.trimmingCharacters(in: .whitespacesAndNewlines) }
        return value
      }
      let href = Array("href".utf8)
      let url = Array("url(".utf8)
      let importWord = Array("@import".utf8)
      let system = Array("system".utf8)
      var i = 0
      while i < n {
        let c = b[i] | 0x20
        if c == UInt8(ascii: "h"), matches(i, href) {
          var j = i + href.count
          skipSpace(&j)
          if j < n, b[j] == UInt8(ascii: "="), let v = quoted(from: j + 1) { out.append(v) }
          i += href.count
        } else if c == UInt8(ascii: "u"), matches(i, url) {
          if let v = quoted(from: i + url.count, end: UInt8(ascii: ")")) { out.append(v) }
          i += url.count
        } else if b[i] == UInt8(ascii: "@"), matches(i, importWord) {
          if let v = quoted(from: i + importWord.count) { out.append(v) }
          i += importWord.count
        } else if c == UInt8(ascii: "s"), matches(i, system) {
          if let v = quoted(from: i + system.count) { out.append(v) }
          i += system.count
        } else {
          i += 1
        }
      }
    }
    return out.filter { !$0.isEmpty && !$0.hasPrefix("#") }
  }

  /// A reference librsvg would resolve to a local file, as a path; nil for other schemes.
  static func localPath(_ value: String, base: String) -> String? {
    var v = value
    if let hash = v.firstIndex(of: "#") { v = String(v[..<hash]) }
    if let query = v.firstIndex(of: "?") { v = String(v[..<query]) }
    if v.lowercased().hasPrefix("file:") {
      v = String(v.dropFirst(5))
      if v.hasPrefix("//") { v = String(v.dropFirst(2)) }
      if !v.hasPrefix("/"), let slash = v.firstIndex(of: "/") { v = String(v[slash...]) }  // file://host/path
    } else if let colon = v.firstIndex(of: ":"), v[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }),
      v.distance(from: v.startIndex, to: colon) > 1
    {
      return nil  // http:, resource:, …: librsvg reads only files
    }
    v = v.removingPercentEncoding ?? v
    guard !v.isEmpty else { return nil }
    return v.hasPrefix("/") ? v : base + "/" + v
  }

  static func checkEmbedded(_ value: String, path: String, maxBytes: Int) throws {
    guard let comma = value.firstIndex(of: ",") else { return }
    let header = value[..<comma].lowercased()
    guard header.hasSuffix(";base64") else { return }
    // the first 64 KB of the image, whitespace removed, padded to whole quanta
    var text = value[value.index(after: comma)...].prefix(1_500_000).filter { !$0.isWhitespace }
    text = String(text.prefix(text.count / 4 * 4))
    guard let bytes = Data(base64Encoded: String(text)) else { return }
    try withinBudget([UInt8](bytes), what: "embeds a data: image", path: path, maxBytes: maxBytes)
  }

  static func checkReferencedImage(_ file: String, value: String, path: String, maxBytes: Int) throws {
    guard let handle = FileHandle(forReadingAtPath: file) else { return }
    defer { try? handle.close() }
    let head = [UInt8](handle.readData(ofLength: 1 << 20))
    try withinBudget(head, what: "refers to '\(value)'", path: path, maxBytes: maxBytes)
  }

  static func withinBudget(_ head: [UInt8], what: String, path: String, maxBytes: Int) throws {
    guard let (width, height) = imageSize(head) else { return }
    let (bytes, overflow) = (width * height).multipliedReportingOverflow(by: 4)
    guard overflow || bytes > maxBytes else { return }
    throw TilecutError.invalidInput(
      path: path,
      reason:
        "\(what) of \(width) × \(height) pixels, which librsvg decodes whole (\(DecodeBudget.megabytes(UInt64(overflow ? Int.max : bytes)))), more than --max-memory \(maxBytes / 1_000_000) MB; raise --max-memory if this is intended"
    )
  }

  /// Width and height from the first bytes of a PNG, JPEG, GIF or WebP.
  static func imageSize(_ b: [UInt8]) -> (Int, Int)? {
    func be(_ i: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 << 8 | Int(b[i + $1]) } }
    func le(_ i: Int, _ n: Int) -> Int { (0..<n).reversed().reduce(0) { $0 << 8 | Int(b[i + $1]) } }
    switch SourceFormat.magic(b) {
    case .png where b.count >= 24:
      return (be(16, 4), be(20, 4))
    case .gif where b.count >= 10:
      return (le(6, 2), le(8, 2))
    case .webp where b.count >= 30:
      let chunk = String(decoding: b[12..<16], as: UTF8.self)
      if chunk == "VP8X" { return (le(24, 3) + 1, le(27, 3) + 1) }
      if chunk == "VP8L", b.count >= 25 {
        let bits = le(21, 4)
        return ((bits & 0x3FFF) + 1, (bits >> 14 & 0x3FFF) + 1)
      }
      if chunk == "VP8 " { return (le(26, 2) & 0x3FFF, le(28, 2) & 0x3FFF) }
      return nil
    case .jpeg:
      var i = 2
      while i + 9 < b.count, b[i] == 0xFF {
        let m = b[i + 1]
        if m == 0xFF {
          i += 1
          continue
        }
        if (0xC0...0xCF).contains(m) && m != 0xC4 && m != 0xC8 && m != 0xCC { return (be(i + 7, 2), be(i + 5, 2)) }
        if m == 0xD8 || (0xD0...0xD7).contains(m) {
          i += 2
          continue
        }
        i += 2 + be(i + 2, 2)
      }
      return nil
    default:
      return nil
    }
  }
}
