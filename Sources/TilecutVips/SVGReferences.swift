import CTilecutInputCheck
import CVipsShim
import Foundation
import TilecutCore

/// What an SVG makes librsvg read besides itself: `href`s (`<image>`, `<use>`,
/// `<feImage>`, `<pattern>`, `xi:include`, …), CSS `@import` and `url(…)` (in
/// `<style>`, `style` and presentation attributes such as `fill`), the
/// `xml-stylesheet` instruction and entities. A reference to a FIFO, socket,
/// device or directory would block the render for ever or fail it; an embedded
/// or referenced image is decoded whole, so its declared size is held to the
/// memory budget before librsvg sees it.
///
/// References are read as librsvg reads them: XML character references and
/// entities decoded, attribute white space normalised, CSS comments and escapes
/// resolved, URL white space trimmed. A referenced stylesheet or SVG (a file or
/// a `data:` URI) is read the same way in turn, a few levels deep.
enum SVGReferences {
  /// Bytes librsvg holds for each pixel of an image it decodes: gdk-pixbuf's
  /// pixels and cairo's premultiplied copy (peak RSS above an SVG without the
  /// image, librsvg 2.54: 6.7 bytes a pixel for RGB PNGs of 4000², 6000² and
  /// 8000², 7.7 for an RGBA one of 6000²).
  static let bytesPerPixel = 8
  /// Stylesheets and SVGs referenced from referenced ones, at most this deep.
  static let maxDepth = 6
  /// Referenced files read, at most, for one SVG.
  static let maxFiles = 100
  /// The most element copies an SVG's `<use>` elements may make (librsvg stops drawing
  /// at about as many references, leaving the rest of the drawing out).
  static let maxUseCopies = 500_000

  /// The largest font size, in user units, an SVG may set: librsvg 2.54 aborts
  /// ("assertion failed: h >= 0.0") laying out text of 2·10⁶ px (10⁶ is drawn).
  static let maxFontSize = 1_000_000.0

  enum Kind { case resource, stylesheet }

  struct Reference {
    var value: String
    var kind: Kind
  }

  /// What the walk has read so far.
  struct Walk {
    let path: String
    let maxBytes: Int
    /// The SVG's own folder, resolved: librsvg reads no file outside it.
    var home: String? = nil
    var files = 0
    var visited: Set<String> = []
    var images: Set<String> = []
    /// The regular files referenced, in the order read, as their references name them.
    var read: [String] = []
    var imageBytes = 0
    /// `data:` images read so far, in document order.
    var embeddedImages = 0
  }

  /// Throws one line for the first reference tilecut must not let librsvg follow;
  /// returns the files the SVG refers to (`Walk.read`).
  @discardableResult
  static func check(path: String, maxBytes: Int) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    var walk = Walk(path: path, maxBytes: maxBytes)
    if let real = canonical(path) { walk.visited.insert(real) }
    let base = (path as NSString).deletingLastPathComponent
    walk.home = canonical(base.isEmpty ? "." : base)
    try scan(data, base: base.isEmpty ? "." : base, via: [], depth: 0, walk: &walk)
    return walk.read
  }

  static func canonical(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
  }

  /// A document's text as UTF-8, which libxml2 would decode from what its first
  /// bytes or XML declaration say; nil for an encoding tilecut does not decode
  /// (UTF-7, EBCDIC, Shift_JIS…), whose references it cannot read.
  static func utf8(_ data: Data) -> (Data?, String) {
    let b = [UInt8](data.prefix(512))
    func has(_ p: [UInt8]) -> Bool { b.starts(with: p) }
    func transcoded(_ encoding: String.Encoding, _ name: String) -> (Data?, String) {
      (String(data: data, encoding: encoding).map { Data($0.utf8) }, name)
    }
    if has([0xEF, 0xBB, 0xBF]) { return (data, "UTF-8") }
    if has([0xFF, 0xFE, 0, 0]) || has([0x3C, 0, 0, 0]) { return transcoded(.utf32LittleEndian, "UTF-32") }
    if has([0, 0, 0xFE, 0xFF]) || has([0, 0, 0, 0x3C]) { return transcoded(.utf32BigEndian, "UTF-32") }
    if has([0xFF, 0xFE]) || has([0x3C, 0]) { return transcoded(.utf16LittleEndian, "UTF-16") }
    if has([0xFE, 0xFF]) || has([0, 0x3C]) { return transcoded(.utf16BigEndian, "UTF-16") }
    if has([0x4C, 0x6F, 0xA7, 0x94]) { return (nil, "EBCDIC") }
    // <?xml … encoding="…"?>
    guard has(Array("<?xml".utf8)) else { return (data, "UTF-8") }
    let head = String(decoding: b.prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self)
    guard let at = head.range(of: "encoding") else { return (data, "UTF-8") }
    let rest = head[at.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\"" || $0 == "'" || $0.isWhitespace }
    let name = String(rest.prefix { $0.isLetter || $0.isNumber || "-_.:".contains($0) })
    switch name.lowercased() {
    case "utf-8", "utf8", "us-ascii", "ascii": return (data, name)
    case "iso-8859-1", "iso_8859-1", "latin1", "latin-1", "l1": return transcoded(.isoLatin1, name)
    case "windows-1252", "cp1252": return transcoded(.windowsCP1252, name)
    default: return (nil, name)
    }
  }

  /// Checks every reference of one document (SVG or CSS) whose relative references resolve against `base`.
  static func scan(_ raw: Data, base: String, via: [String], depth: Int, walk: inout Walk) throws {
    let (text, encoding) = utf8(raw)
    guard let data = text else {
      let what = via.isEmpty ? "is" : "refers to \(describe(via.last!, via: Array(via.dropLast()))), which is"
      throw TilecutError.invalidInput(
        path: walk.path,
        reason: "\(what) in the \(encoding) encoding, in which tilecut cannot read what an SVG refers to; save it as UTF-8")
    }
    let (found, font, copies) = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      let bytes = raw.bindMemory(to: UInt8.self)
      var reader = MarkupReader(bytes)
      reader.read()
      // a referenced file may be a stylesheet, where '<' is no markup
      return (
        reader.references + (depth > 0 ? MarkupReader.cssReferences(bytes) : []), reader.largestFontSize,
        reader.useCopies(limit: maxUseCopies)
      )
    }
    if copies > maxUseCopies {
      let whose = via.isEmpty ? "its" : "\(describe(via.last!, via: Array(via.dropLast())))'s"
      throw TilecutError.invalidInput(
        path: walk.path,
        reason:
          "\(whose) <use> elements expand into more than \(maxUseCopies) copies of elements, which librsvg cuts short or takes minutes to draw; draw the copies, or use fewer levels of <use>"
      )
    }
    if let font, !(font.size <= maxFontSize) {
      let whose = via.isEmpty ? "" : " in \(describe(via.last!, via: Array(via.dropLast())))"
      throw TilecutError.invalidInput(
        path: walk.path,
        reason:
          "sets a font size of '\(Quote.prefix(font.said, 40))'\(whose), more than \(Int(maxFontSize)) user units, which librsvg cannot lay out (it aborts from about 2,000,000); use a smaller font size"
      )
    }
    var seen: Set<String> = []
    for reference in found where seen.insert(reference.value).inserted {
      try follow(reference, base: base, via: via, depth: depth, walk: &walk)
    }
  }

  /// URL parsing as librsvg's (WHATWG): leading and trailing C0 controls and
  /// spaces dropped, tabs and line breaks removed anywhere.
  static func urlTrimmed(_ value: String) -> String {
    let scalars = value.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
    var view = Substring(String(String.UnicodeScalarView(scalars)))
    while let first = view.unicodeScalars.first, first.value <= 0x20 { view = view.dropFirst() }
    while let last = view.unicodeScalars.last, last.value <= 0x20 { view = view.dropLast() }
    return String(view)
  }

  static func describe(_ value: String, via: [String]) -> String {
    // cut by bytes too: 80 characters of a letter with a million combining marks are all of it
    func cut(_ text: String) -> String { text.count > 80 || text.utf8.count > 320 ? Quote.prefix(text, 77) + "…" : text }
    return "'\(cut(value))'" + (via.isEmpty ? "" : " (through \(via.map { "'\(cut($0))'" }.joined(separator: ", ")))")
  }

  static func follow(_ reference: Reference, base: String, via: [String], depth: Int, walk: inout Walk) throws {
    let value = urlTrimmed(reference.value)
    guard !value.isEmpty, !value.hasPrefix("#") else { return }
    if value.lowercased().hasPrefix("data:") {
      try embedded(value, base: base, via: via, depth: depth, walk: &walk)
      return
    }
    guard let file = localPath(value, base: base) else { return }
    var st = stat()
    guard stat(file, &st) == 0 else { return }
    let kind: String
    switch st.st_mode & S_IFMT {
    case S_IFREG:
      // librsvg reads only files in the SVG's folder and below (resolved), and drops the
      // rest without a word: refused before tilecut opens it, or lists it in a depfile
      if let home = walk.home, let real = canonical(file),
        SidecarPath.isSystemTree(real) || !(home == "/" ? real.hasPrefix("/") : real.hasPrefix(home + "/"))
      {
        throw TilecutError.invalidInput(
          path: walk.path,
          reason:
            "refers to \(describe(value, via: via)), outside its folder; librsvg reads no file outside the SVG's folder, so it would not be drawn: copy the file beside the SVG and refer to it there"
        )
      }
      try referencedFile(file, value: value, base: base, via: via, depth: depth, walk: &walk)
      return
    case S_IFDIR: kind = "a directory"
    case S_IFIFO: kind = "a FIFO (named pipe)"
    case S_IFSOCK: kind = "a socket"
    case S_IFCHR, S_IFBLK: kind = "a device"
    default: kind = "not a regular file"
    }
    throw TilecutError.invalidInput(
      path: walk.path,
      reason: "refers to \(describe(value, via: via)), which is \(kind), not a regular file; tilecut does not let an SVG read it")
  }

  /// A regular file: an image is held to the budget; anything else is read as a stylesheet or SVG in turn.
  static func referencedFile(_ file: String, value: String, base: String, via: [String], depth: Int, walk: inout Walk) throws {
    let key = canonical(file) ?? file
    guard walk.visited.insert(key).inserted else { return }
    walk.files += 1
    walk.read.append(file.hasPrefix("./") ? String(file.dropFirst(2)) : file)
    if walk.files > maxFiles {
      throw TilecutError.invalidInput(
        path: walk.path,
        reason: "refers to more than \(maxFiles) files (directly or through its stylesheets and images); tilecut reads at most \(maxFiles)")
    }
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: file), options: .alwaysMapped) else { return }
    let head = [UInt8](data.prefix(1 << 20))
    if isRaster(head) {
      try withinBudget(head, key: key, what: "refers to \(describe(value, via: via)), an image", walk: &walk)
      if let format = SourceFormat.magic(head), [.png, .jpeg, .gif, .webp].contains(format), let damage = damage([UInt8](data), format: format) {
        throw TilecutError.invalidInput(
          path: walk.path, reason: "refers to \(describe(value, via: via)), an image which \(damage); re-export it")
      }
      return
    }
    // a stylesheet, SVG or text librsvg reads whole (and tilecut would read through)
    if data.count > walk.maxBytes {
      throw TilecutError.invalidInput(
        path: walk.path,
        reason:
          "refers to \(describe(value, via: via)), a file of \(DecodeBudget.megabytes(UInt64(data.count))) that librsvg reads whole, more than --max-memory \(walk.maxBytes / 1_000_000) MB; raise --max-memory if this is intended"
      )
    }
    guard depth < maxDepth else {
      throw TilecutError.invalidInput(
        path: walk.path,
        reason: "refers to \(describe(value, via: via)), more than \(maxDepth) stylesheets or SVGs deep; tilecut reads at most \(maxDepth)")
    }
    let dir = (file as NSString).deletingLastPathComponent
    try scan(data, base: dir.isEmpty ? "." : dir, via: via + [value], depth: depth + 1, walk: &walk)
  }

  /// A reference librsvg would resolve to a local file, as a path; nil for other schemes.
  static func localPath(_ value: String, base: String) -> String? {
    var v = value.replacingOccurrences(of: "\\", with: "/")  // a special scheme's URL parser reads '\' as '/'
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

  /// The bytes of a `data:` URI's payload (base64 or percent-encoded), at most `limit` of them.
  static func payload(_ value: String, limit: Int) -> (header: String, bytes: [UInt8])? {
    guard let comma = value.firstIndex(of: ",") else { return nil }
    let header = value[value.index(value.startIndex, offsetBy: 5)..<comma].lowercased().filter { !$0.isWhitespace }
    let body = value.utf8[value.utf8.index(after: comma)...]
    var out: [UInt8] = []
    if header.hasSuffix(";base64") {
      // librsvg's decoder skips white space and stops at padding
      var quantum: UInt32 = 0
      var count = 0
      for c in body {
        let v: UInt32
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
        case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
        default: continue
        }
        quantum = quantum << 6 | v
        count += 1
        if count == 4 {
          out += [UInt8(quantum >> 16 & 255), UInt8(quantum >> 8 & 255), UInt8(quantum & 255)]
          quantum = 0
          count = 0
          if out.count >= limit { break }
        }
      }
      if count == 3 { out += [UInt8(quantum >> 10 & 255), UInt8(quantum >> 2 & 255)] }
      if count == 2 { out.append(UInt8(quantum >> 4 & 255)) }
    } else {
      var it = body.makeIterator()
      func hex(_ c: UInt8?) -> UInt8? {
        guard let c else { return nil }
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
      }
      var pending: [UInt8] = []
      while out.count < limit {
        guard let c = pending.isEmpty ? it.next() : pending.removeFirst() else { break }
        guard c == UInt8(ascii: "%") else {
          out.append(c)
          continue
        }
        let h = it.next()
        guard let hi = hex(h) else {
          out.append(c)
          if let h { pending.append(h) }
          continue
        }
        let l = it.next()
        guard let lo = hex(l) else {
          out.append(c)
          pending.append(h!)
          if let l { pending.append(l) }
          continue
        }
        out.append(hi << 4 | lo)
      }
    }
    return (header, out)
  }

  static func embedded(_ value: String, base: String, via: [String], depth: Int, walk: inout Walk) throws {
    guard let (header, head) = payload(value, limit: 1 << 20) else { return }
    if isRaster(head) {
      try withinBudget(head, key: value, what: "embeds a data: image", walk: &walk)
      walk.embeddedImages += 1
      guard let format = SourceFormat.magic(head), [.png, .jpeg, .gif, .webp].contains(format),
        let (_, whole) = payload(value, limit: Int.max)
      else { return }
      if let damage = damage(whole, format: format) {
        throw TilecutError.invalidInput(
          path: walk.path,
          reason:
            "its embedded image #\(walk.embeddedImages) (data: \(format == .jpeg ? "JPEG" : format == .webp ? "WebP" : format.rawValue.uppercased())\(via.isEmpty ? "" : ", in \(describe(via.last!, via: Array(via.dropLast())))")) \(damage); re-export the drawing with a sound image"
        )
      }
      return
    }
    // an SVG (or anything else librsvg may read as one): its own references, in turn
    guard depth < maxDepth else {
      throw TilecutError.invalidInput(
        path: walk.path, reason: "embeds data: documents more than \(maxDepth) deep; tilecut reads at most \(maxDepth)")
    }
    guard let (_, whole) = payload(value, limit: Int.max) else { return }
    try scan(Data(whole), base: base, via: via + ["data:\(header),…"], depth: depth + 1, walk: &walk)
  }

  static func withinBudget(_ head: [UInt8], key: String, what: String, walk: inout Walk) throws {
    guard let (width, height) = imageSize(head) else { return }
    let (pixelsBytes, overflow) = (width * height).multipliedReportingOverflow(by: bytesPerPixel)
    let bytes = overflow ? Int.max : pixelsBytes
    let isNew = walk.images.insert(key).inserted
    if isNew {
      let (sum, over) = walk.imageBytes.addingReportingOverflow(bytes)
      walk.imageBytes = over ? Int.max : sum
    }
    let mb = walk.maxBytes / 1_000_000
    if bytes > walk.maxBytes {
      throw TilecutError.invalidInput(
        path: walk.path,
        reason:
          "\(what) of \(width) × \(height) pixels, which librsvg decodes whole (\(DecodeBudget.megabytes(UInt64(bytes)))), more than --max-memory \(mb) MB; raise --max-memory if this is intended"
      )
    }
    if walk.imageBytes > walk.maxBytes {
      throw TilecutError.invalidInput(
        path: walk.path,
        reason:
          "\(what) of \(width) × \(height) pixels; with the images before it librsvg holds \(DecodeBudget.megabytes(UInt64(walk.imageBytes))) decoded, more than --max-memory \(mb) MB; raise --max-memory if this is intended"
      )
    }
  }

  /// A format gdk-pixbuf decodes for librsvg, by its first bytes.
  static func isRaster(_ b: [UInt8]) -> Bool {
    if let format = SourceFormat.magic(b), !format.kind.isDrawnPerZoom { return true }
    if b.count >= 2 && b[0] == UInt8(ascii: "B") && b[1] == UInt8(ascii: "M") { return true }
    if b.starts(with: [0, 0, 1, 0]) || b.starts(with: [0, 0, 2, 0]) { return true }  // ICO, CUR
    if b.count >= 3 && b[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(b[1]) && [0x20, 0x09, 0x0A, 0x0D].contains(b[2])
    {
      return true
    }
    return b.starts(with: Array("icns".utf8))
  }

  /// Width and height from the first bytes of a PNG, JPEG, GIF, WebP, TIFF, BMP, ICO or PNM.
  static func imageSize(_ b: [UInt8]) -> (Int, Int)? {
    func be(_ i: Int, _ n: Int) -> Int { i + n <= b.count ? (0..<n).reduce(0) { $0 << 8 | Int(b[i + $1]) } : 0 }
    func le(_ i: Int, _ n: Int) -> Int { i + n <= b.count ? (0..<n).reversed().reduce(0) { $0 << 8 | Int(b[i + $1]) } : 0 }
    if b.count >= 26 && b[0] == UInt8(ascii: "B") && b[1] == UInt8(ascii: "M") {
      let h = Int32(truncatingIfNeeded: le(22, 4))
      return (Int(Int32(truncatingIfNeeded: le(18, 4)).magnitude), Int(h.magnitude))
    }
    if b.count >= 6 && (b.starts(with: [0, 0, 1, 0]) || b.starts(with: [0, 0, 2, 0])) {
      // the largest entry; 0 means 256
      var best: (Int, Int)?
      for k in 0..<min(le(4, 2), 256) where 6 + 16 * k + 2 <= b.count {
        let w = b[6 + 16 * k] == 0 ? 256 : Int(b[6 + 16 * k])
        let h = b[7 + 16 * k] == 0 ? 256 : Int(b[7 + 16 * k])
        if best.map({ w * h > $0.0 * $0.1 }) ?? true { best = (w, h) }
      }
      return best
    }
    if b.count >= 3 && b[0] == UInt8(ascii: "P") && (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(b[1]) {
      // "P6 <width> <height> …" with '#' comments
      var numbers: [Int] = []
      var i = 2
      while i < b.count && numbers.count < 2 {
        if b[i] == UInt8(ascii: "#") {
          while i < b.count && b[i] != 0x0A && b[i] != 0x0D { i += 1 }
        } else if (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) {
          var n = 0
          while i < b.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) {
            n = min(n * 10 + Int(b[i] - UInt8(ascii: "0")), 1 << 40)
            i += 1
          }
          numbers.append(n)
        } else {
          i += 1
        }
      }
      return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
    }
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
    case .tiff where b.count >= 8 && b[2] != 0x2B && b[3] != 0x2B:
      // the first IFD's ImageWidth and ImageLength
      let little = b[0] == 0x49
      func u(_ i: Int, _ n: Int) -> Int { little ? le(i, n) : be(i, n) }
      let ifd = u(4, 4)
      guard ifd + 2 <= b.count else { return nil }
      var width = 0
      var height = 0
      for k in 0..<u(ifd, 2) {
        let e = ifd + 2 + 12 * k
        guard e + 12 <= b.count else { break }
        let value = u(e + 2, 2) == 3 ? u(e + 8, 2) : u(e + 8, 4)
        if u(e, 2) == 256 { width = value }
        if u(e, 2) == 257 { height = value }
      }
      return width > 0 && height > 0 ? (width, height) : nil
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

  /// Why an image librsvg would decode (through gdk-pixbuf, which draws what it
  /// can of a damaged one) is damaged, by tilecut's own checks of a file of that
  /// format ("is truncated: …"); nil when it is sound.
  static func damage(_ bytes: [UInt8], format: SourceFormat) -> String? {
    var result = TcFileCheck()
    switch format {
    case .png:
      // the PNG check reads a file
      let temp = NSTemporaryDirectory() + "/tilecut-svg-\(getpid())-\(UUID().uuidString).png"
      guard FileManager.default.createFile(atPath: temp, contents: Data(bytes)) else { return nil }
      defer { try? FileManager.default.removeItem(atPath: temp) }
      return tc_check_png(temp, 1, &result) == 0 ? nil : InputCheck.reason(result)
    case .jpeg:
      var message = [CChar](repeating: 0, count: 256)
      guard tc_verify_jpeg_buffer(bytes, bytes.count, &message, message.count) != 0 else { return nil }
      return "is damaged (libjpeg: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))"
    case .gif:
      return tc_check_gif_buffer(bytes, bytes.count, &result) == 0 ? nil : InputCheck.reason(result)
    case .webp:
      return webpDamage(bytes)
    default:
      return nil
    }
  }

  /// A WebP's RIFF container: the size it declares is there, and each chunk fits in it.
  static func webpDamage(_ b: [UInt8]) -> String? {
    func le32(_ i: Int) -> Int { (0..<4).reversed().reduce(0) { $0 << 8 | Int(b[i + $1]) } }
    guard b.count >= 20 else { return "is truncated inside its header" }
    let end = le32(4) + 8
    guard end <= b.count else { return "is truncated: its RIFF container declares \(end) bytes, \(b.count) are there" }
    var at = 12
    while at + 8 <= end {
      let size = le32(at + 4)
      guard size <= end - at - 8 else { return "is truncated: its \(String(decoding: b[at..<(at + 4)], as: UTF8.self)) chunk runs past the end" }
      at += 8 + size + (size & 1)
    }
    return at < 20 ? "is damaged: it holds no image chunk" : nil
  }
}
