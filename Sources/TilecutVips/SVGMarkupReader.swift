/// Reads an SVG (or a stylesheet, or an entity's text) for what librsvg may
/// load from it, decoding what libxml2 and librsvg's CSS parser decode: the
/// character references and entities (predefined and declared) of attribute
/// values and text, attribute white space, CSS comments and escapes. It errs
/// towards finding too much: every attribute is read as CSS for `url(…)`, all
/// character data as one stylesheet, an entity's value as markup.
struct MarkupReader {
  private let document: UnsafeBufferPointer<UInt8>
  private(set) var references: [SVGReferences.Reference] = []
  /// The largest font size set anywhere (attribute, `style`, stylesheet, `font`
  /// shorthand), in user units (an `em` or `%` of 16), with the text that set it.
  private(set) var largestFontSize: (size: Double, said: String)?
  /// Elements in document order: the enclosing element's index (-1 at the top), the
  /// `id`, and a `<use>`'s local target (`#id`), for `useCopies`.
  private var elements: [(parent: Int, id: String?, use: String?)] = []
  /// Elements open at this point of the markup, and the one whose attributes are read.
  private var openElements: [Int] = []
  private var currentElement = -1
  /// Declared entities' values, undecoded (`%name` for parameter entities).
  private var entities: [String: [UInt8]] = [:]
  private var entityOrder: [String] = []
  /// Every run of character data, decoded, one after the other.
  private var text: [UInt8] = []
  /// Entity references expanded so far; more are left as they are (a billion laughs ends here).
  private var expansions = 0
  private static let maxExpansions = 10_000
  private static let maxDecoded = 64 << 20

  init(_ document: UnsafeBufferPointer<UInt8>) { self.document = document }

  mutating func read() {
    readMarkup(document)
    // an entity's value is markup where it is used, its character references replaced when it is declared
    var k = 0
    while k < entityOrder.count && k < 1000 {
      if let value = entities[entityOrder[k]] {
        let decoded = value.withUnsafeBufferPointer { decode($0, attribute: false, depth: 0) }
        decoded.withUnsafeBufferPointer { readMarkup($0) }
      }
      k += 1
    }
    css(text)
    fontSizes(css: text)
  }

  /// A stylesheet as bytes, without markup.
  static func cssReferences(_ bytes: UnsafeBufferPointer<UInt8>) -> [SVGReferences.Reference] {
    var reader = MarkupReader(bytes)
    reader.css(Array(bytes))
    return reader.references
  }

  // MARK: markup

  private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

  private static func starts(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ word: String) -> Bool {
    var k = i
    for w in word.utf8 {
      guard k < b.count, b[k] == w else { return false }
      k += 1
    }
    return true
  }

  private static func find(_ b: UnsafeBufferPointer<UInt8>, _ word: String, from start: Int) -> Int {
    let first = word.utf8.first!
    var i = start
    while i < b.count {
      if b[i] == first && starts(b, i, word) { return i }
      i += 1
    }
    return b.count
  }

  private static func localName(_ name: UnsafeBufferPointer<UInt8>) -> String {
    let start = name.lastIndex(of: UInt8(ascii: ":")).map { $0 + 1 } ?? 0
    guard name.count - start <= 16 else { return "" }  // longer than any name this reader looks for
    return String(decoding: name[start...], as: UTF8.self).lowercased()
  }

  private mutating func readMarkup(_ b: UnsafeBufferPointer<UInt8>) {
    let n = b.count
    var i = 0
    var textStart = 0
    openElements = []
    while i < n {
      guard b[i] == UInt8(ascii: "<") else {
        i += 1
        continue
      }
      appendText(UnsafeBufferPointer(rebasing: b[textStart..<i]))
      let next = i + 1 < n ? b[i + 1] : 0
      if next != UInt8(ascii: "!") && next != UInt8(ascii: "?") && next != UInt8(ascii: "/") {
        var j = i + 1
        while j < n && !Self.isSpace(b[j]) && b[j] != UInt8(ascii: ">") && b[j] != UInt8(ascii: "/") { j += 1 }
        elements.append((openElements.last ?? -1, nil, nil))
        currentElement = elements.count - 1
        i = attributes(b, from: j, element: UnsafeBufferPointer(rebasing: b[(i + 1)..<j]))
        // `<g/>` closes itself; `<g>` stays open until its end tag
        if !(i >= 2 && b[i - 1] == UInt8(ascii: ">") && b[i - 2] == UInt8(ascii: "/")) { openElements.append(currentElement) }
        currentElement = -1
      } else if Self.starts(b, i, "<!--") {
        i = min(n, Self.find(b, "-->", from: i + 4) + 3)
      } else if Self.starts(b, i, "<![CDATA[") {
        let end = Self.find(b, "]]>", from: i + 9)
        text += b[(i + 9)..<end]
        i = min(n, end + 3)
      } else if Self.starts(b, i, "<!ENTITY") {
        i = entityDeclaration(b, from: i + 8)
      } else if Self.starts(b, i, "<!") {
        // DOCTYPE, ATTLIST (whose defaults libxml2 adds to elements), …: every literal up to '[' or '>'
        i = literals(b, from: i + 2, stopAtBracket: true)
      } else if Self.starts(b, i, "<?") {
        let end = Self.find(b, "?>", from: i + 2)
        var j = i + 2
        while j < end && !Self.isSpace(b[j]) { j += 1 }
        let target = String(decoding: b[(i + 2)..<j], as: UTF8.self).lowercased()
        if target == "xml-stylesheet" {
          Array(target.utf8).withUnsafeBufferPointer { name in
            _ = attributes(UnsafeBufferPointer(rebasing: b[j..<end]), from: 0, element: name)
          }
        }
        i = min(n, end + 2)
      } else {
        i = min(n, Self.find(b, ">", from: i) + 1)  // an end tag
        _ = openElements.popLast()
      }
      textStart = i
    }
    if textStart < n { appendText(UnsafeBufferPointer(rebasing: b[textStart..<n])) }
  }

  /// Character data, decoded, for the stylesheet of all of it; white space between tags is left out.
  private mutating func appendText(_ run: UnsafeBufferPointer<UInt8>) {
    guard run.contains(where: { !Self.isSpace($0) }) else { return }
    if run.contains(UInt8(ascii: "&")) || run.contains(0x0D) {
      text += decode(run, attribute: false, depth: 0)
    } else {
      text += run
    }
  }

  /// A tag's attributes from `start` to its '>'; returns the index after it.
  private mutating func attributes(_ b: UnsafeBufferPointer<UInt8>, from start: Int, element: UnsafeBufferPointer<UInt8>) -> Int {
    let n = b.count
    var i = start
    while i < n {
      let c = b[i]
      if c == UInt8(ascii: ">") { return i + 1 }
      if Self.isSpace(c) || c == UInt8(ascii: "/") {
        i += 1
        continue
      }
      var j = i
      while j < n && !Self.isSpace(b[j]) && b[j] != UInt8(ascii: "=") && b[j] != UInt8(ascii: ">") { j += 1 }
      let name = UnsafeBufferPointer(rebasing: b[i..<j])
      i = max(j, i + 1)
      while i < n && Self.isSpace(b[i]) { i += 1 }
      guard i < n, b[i] == UInt8(ascii: "=") else { continue }
      i += 1
      while i < n && Self.isSpace(b[i]) { i += 1 }
      guard i < n else { break }
      let valueStart: Int
      let valueEnd: Int
      if b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") {
        let quote = b[i]
        valueStart = i + 1
        var k = valueStart
        while k < n && b[k] != quote { k += 1 }
        valueEnd = k
        i = min(n, k + 1)
      } else {
        valueStart = i
        while i < n && !Self.isSpace(b[i]) && b[i] != UInt8(ascii: ">") { i += 1 }
        valueEnd = i
      }
      attribute(name: name, element: element, raw: UnsafeBufferPointer(rebasing: b[valueStart..<valueEnd]))
    }
    return n
  }

  private mutating func attribute(name: UnsafeBufferPointer<UInt8>, element: UnsafeBufferPointer<UInt8>, raw: UnsafeBufferPointer<UInt8>) {
    let local = Self.localName(name)
    if local == "font-size" || local == "font" || local == "style" {
      let value = decode(raw, attribute: true, depth: 0)
      if local == "style" { fontSizes(css: value) } else { fontSize(value) }
    }
    let isHref = local == "href"
    if currentElement >= 0 && (local == "id" || (isHref && Self.localName(element) == "use")) {
      let value = String(decoding: decode(raw, attribute: true, depth: 0), as: UTF8.self)
      if local == "id" {
        elements[currentElement].id = value
      } else if value.hasPrefix("#") {
        elements[currentElement].use = String(value.dropFirst())
      }
    }
    // CSS needs a '(' for url(…) and an '@' for @import; either may come from a reference
    guard isHref || raw.contains(where: { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "&") }) else { return }
    let value = decode(raw, attribute: true, depth: 0)
    let elementName = Self.localName(element)
    // an <a>'s link is followed by a browser, never loaded by librsvg
    if isHref && elementName != "a" {
      references.append(
        .init(value: String(decoding: value, as: UTF8.self), kind: elementName == "xml-stylesheet" ? .stylesheet : .resource))
    }
    css(value)
  }

  /// `<!ENTITY [%] name "value" | SYSTEM "id" | PUBLIC "pub" "id">`; returns the index after it.
  private mutating func entityDeclaration(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let n = b.count
    var i = start
    while i < n && Self.isSpace(b[i]) { i += 1 }
    var prefix = ""
    if i < n && b[i] == UInt8(ascii: "%") {
      prefix = "%"
      i += 1
      while i < n && Self.isSpace(b[i]) { i += 1 }
    }
    var j = i
    while j < n && !Self.isSpace(b[j]) && b[j] != UInt8(ascii: ">") { j += 1 }
    let name = prefix + String(decoding: b[i..<j], as: UTF8.self)
    i = j
    while i < n && Self.isSpace(b[i]) { i += 1 }
    if i < n && (b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'")) {
      let quote = b[i]
      var k = i + 1
      while k < n && b[k] != quote { k += 1 }
      if entities[name] == nil {  // the first declaration binds
        entities[name] = Array(b[(i + 1)..<k])
        entityOrder.append(name)
      }
      return min(n, Self.find(b, ">", from: k) + 1)
    }
    return literals(b, from: i, stopAtBracket: false)
  }

  /// Every quoted literal of a declaration, as a reference, up to its '>' (or '[').
  private mutating func literals(_ b: UnsafeBufferPointer<UInt8>, from start: Int, stopAtBracket: Bool) -> Int {
    let n = b.count
    var i = start
    while i < n {
      let c = b[i]
      if c == UInt8(ascii: ">") || (stopAtBracket && c == UInt8(ascii: "[")) { return i + 1 }
      if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
        var k = i + 1
        while k < n && b[k] != c { k += 1 }
        let value = decode(UnsafeBufferPointer(rebasing: b[(i + 1)..<k]), attribute: true, depth: 0)
        references.append(.init(value: String(decoding: value, as: UTF8.self), kind: .resource))
        css(value)
        i = min(n, k + 1)
      } else {
        i += 1
      }
    }
    return n
  }

  /// Character and entity references replaced; in an attribute, tabs and line breaks become spaces (XML's normalisation).
  private mutating func decode(_ b: UnsafeBufferPointer<UInt8>, attribute: Bool, depth: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(b.count)
    let n = b.count
    var i = 0
    while i < n && out.count < Self.maxDecoded {
      let c = b[i]
      if c == UInt8(ascii: "&") {
        var semi = i + 1
        while semi < n && semi - i < 64 && b[semi] != UInt8(ascii: ";") && b[semi] != UInt8(ascii: "&") { semi += 1 }
        if semi < n && b[semi] == UInt8(ascii: ";") {
          let name = String(decoding: b[(i + 1)..<semi], as: UTF8.self)
          if let replaced = reference(name, attribute: attribute, depth: depth) {
            out += replaced
            i = semi + 1
            continue
          }
        }
        out.append(c)
        i += 1
      } else if c == 0x0D {
        out.append(attribute ? 0x20 : 0x0A)
        i += (i + 1 < n && b[i + 1] == 0x0A) ? 2 : 1
      } else if attribute && (c == 0x09 || c == 0x0A) {
        out.append(0x20)
        i += 1
      } else {
        out.append(c)
        i += 1
      }
    }
    return out
  }

  private mutating func reference(_ name: String, attribute: Bool, depth: Int) -> [UInt8]? {
    if name.hasPrefix("#") {
      let digits = name.dropFirst()
      let number = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
      guard let number, let scalar = Unicode.Scalar(number) else { return nil }
      return Array(String(Character(scalar)).utf8)
    }
    switch name {
    case "lt": return [UInt8(ascii: "<")]
    case "gt": return [UInt8(ascii: ">")]
    case "amp": return [UInt8(ascii: "&")]
    case "quot": return [UInt8(ascii: "\"")]
    case "apos": return [UInt8(ascii: "'")]
    default:
      guard depth < 8, expansions < Self.maxExpansions, let value = entities[name] else { return nil }
      expansions += 1
      return value.withUnsafeBufferPointer { decode($0, attribute: attribute, depth: depth + 1) }
    }
  }

  // MARK: CSS

  private static func isHex(_ c: UInt8) -> Bool {
    (0x30...0x39).contains(c) || (0x41...0x46).contains(c) || (0x61...0x66).contains(c)
  }

  private static func isNameByte(_ c: UInt8) -> Bool {
    (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F || c >= 0x80
  }

  /// A CSS escape at `i` (just after the backslash): its character, and the index after it.
  private static func escape(_ s: [UInt8], _ i: Int) -> ([UInt8], Int) {
    guard i < s.count else { return ([0xEF, 0xBF, 0xBD], i) }
    guard isHex(s[i]) else { return ([s[i]], i + 1) }
    var j = i
    var value: UInt32 = 0
    while j < s.count && j - i < 6 && isHex(s[j]) {
      value = value << 4 | UInt32(Int(String(UnicodeScalar(s[j])), radix: 16)!)
      j += 1
    }
    if j < s.count && isSpace(s[j]) { j += (s[j] == 0x0D && j + 1 < s.count && s[j + 1] == 0x0A) ? 2 : 1 }
    let scalar = value == 0 ? nil : Unicode.Scalar(value)
    return (Array(String(Character(scalar ?? "\u{FFFD}")).utf8), j)
  }

  private static func validEscape(_ s: [UInt8], _ i: Int) -> Bool {
    i + 1 < s.count && s[i] == UInt8(ascii: "\\") && s[i + 1] != 0x0A && s[i + 1] != 0x0D && s[i + 1] != 0x0C
  }

  /// A name (identifier) with its escapes resolved.
  private static func name(_ s: [UInt8], _ i: inout Int) -> [UInt8] {
    var out: [UInt8] = []
    while i < s.count {
      if isNameByte(s[i]) {
        out.append(s[i])
        i += 1
      } else if validEscape(s, i) {
        let (c, next) = escape(s, i + 1)
        out += c
        i = next
      } else {
        break
      }
    }
    return out
  }

  /// A quoted string starting at its quote, escapes resolved.
  private static func string(_ s: [UInt8], _ i: inout Int) -> [UInt8] {
    let quote = s[i]
    i += 1
    var out: [UInt8] = []
    while i < s.count && s[i] != quote && s[i] != 0x0A {
      if s[i] == UInt8(ascii: "\\") {
        if i + 1 < s.count && (s[i + 1] == 0x0A || s[i + 1] == 0x0D || s[i + 1] == 0x0C) {
          i += 2  // an escaped line break continues the string
          continue
        }
        let (c, next) = escape(s, i + 1)
        out += c
        i = next
      } else {
        out.append(s[i])
        i += 1
      }
    }
    if i < s.count && s[i] == quote { i += 1 }
    return out
  }

  /// `url(…)` and `@import "…"` in CSS (or anything read as CSS), with comments and escapes as CSS has them.
  private mutating func css(_ s: [UInt8]) {
    guard s.contains(where: { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: "@") }) else { return }
    let n = s.count
    var i = 0
    var afterImport = false
    func add(_ value: [UInt8], _ kind: SVGReferences.Kind) {
      references.append(.init(value: String(decoding: value, as: UTF8.self), kind: kind))
    }
    while i < n {
      let c = s[i]
      if c == UInt8(ascii: "/") && i + 1 < n && s[i + 1] == UInt8(ascii: "*") {
        var j = i + 2
        while j + 1 < n && !(s[j] == UInt8(ascii: "*") && s[j + 1] == UInt8(ascii: "/")) { j += 1 }
        i = j + 2
      } else if Self.isSpace(c) || c == 0x0C {
        i += 1
      } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
        let value = Self.string(s, &i)
        if afterImport { add(value, .stylesheet) }
        afterImport = false
      } else if c == UInt8(ascii: "@") {
        i += 1
        afterImport = String(decoding: Self.name(s, &i), as: UTF8.self).lowercased() == "import"
      } else if Self.isNameByte(c) || Self.validEscape(s, i) {
        let word = Self.name(s, &i)
        if i < n && s[i] == UInt8(ascii: "(") && String(decoding: word, as: UTF8.self).lowercased() == "url" {
          i += 1
          while i < n && (Self.isSpace(s[i]) || s[i] == 0x0C) { i += 1 }
          if i < n && (s[i] == UInt8(ascii: "\"") || s[i] == UInt8(ascii: "'")) {
            add(Self.string(s, &i), afterImport ? .stylesheet : .resource)
          } else {
            var value: [UInt8] = []
            while i < n && s[i] != UInt8(ascii: ")") && !Self.isSpace(s[i]) {
              if Self.validEscape(s, i) {
                let (e, next) = Self.escape(s, i + 1)
                value += e
                i = next
              } else {
                value.append(s[i])
                i += 1
              }
            }
            add(value, afterImport ? .stylesheet : .resource)
          }
        }
        if word.isEmpty { i += 1 }
        afterImport = false
      } else {
        i += 1
        afterImport = false
      }
    }
  }

  // MARK: font sizes

  /// Each `font-size:` and `font:` declaration of a stylesheet or `style` attribute.
  private mutating func fontSizes(css s: [UInt8]) {
    let n = s.count
    func starts(_ i: Int, _ word: String) -> Bool { i + word.utf8.count <= n && s[i..<(i + word.utf8.count)].elementsEqual(word.utf8) }
    var i = 0
    while i < n {
      guard s[i] == UInt8(ascii: "f"), starts(i, "font"), i == 0 || !Self.isNameByte(s[i - 1]) else {
        i += 1
        continue
      }
      var j = i + 4
      if starts(j, "-size") { j += 5 }
      while j < n && (Self.isSpace(s[j]) || s[j] == 0x0C) { j += 1 }
      guard j < n, s[j] == UInt8(ascii: ":") else {
        i = j
        continue
      }
      var end = j + 1
      while end < n && s[end] != UInt8(ascii: ";") && s[end] != UInt8(ascii: "}") && s[end] != UInt8(ascii: "<") { end += 1 }
      fontSize(Array(s[(j + 1)..<end]))
      i = end
    }
  }

  /// A font size's value (or every size-like number of a `font` shorthand), in user units.
  private mutating func fontSize(_ value: [UInt8]) {
    let n = value.count
    var i = 0
    while i < n {
      let c = value[i]
      let isStart = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
      guard isStart, i == 0 || !Self.isNameByte(value[i - 1]) || value[i - 1] == UInt8(ascii: "-") else {
        i += 1
        continue
      }
      var j = i + 1
      while j < n, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(value[j]) || value[j] == UInt8(ascii: ".") { j += 1 }
      if j + 1 < n, value[j] == UInt8(ascii: "e") || value[j] == UInt8(ascii: "E"),
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(value[j + 1]) || value[j + 1] == UInt8(ascii: "+") || value[j + 1] == UInt8(ascii: "-")
      {
        j += 2
        while j < n, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(value[j]) { j += 1 }
      }
      let start = i
      let number = Double(String(decoding: value[i..<j], as: UTF8.self))
      var k = j
      while k < n && (value[k] == UInt8(ascii: "%") || (Self.isNameByte(value[k]) && value[k] != UInt8(ascii: "-"))) { k += 1 }
      let unit = String(decoding: value[j..<k], as: UTF8.self).lowercased()
      i = max(k, i + 1)
      guard let number else { continue }
      let scale: Double
      switch unit {
      case "", "px": scale = 1
      case "pt": scale = 4.0 / 3
      case "pc": scale = 16
      case "in": scale = 96
      case "cm": scale = 96 / 2.54
      case "mm": scale = 9.6 / 2.54
      case "q": scale = 2.4 / 2.54
      case "em", "rem", "ex", "ch": scale = 16
      case "%": scale = 0.16
      default: continue  // a weight, a family's digits, a unit librsvg does not read
      }
      let size = abs(number) * scale
      if largestFontSize.map({ size > $0.size }) ?? true {
        largestFontSize = (size, String(decoding: value[start..<k], as: UTF8.self))
      }
    }
  }

  /// How many element copies the document's `<use>` elements make once expanded (a
  /// `<use>` of a group of groups of `<use>`s doubles at every level: 23 levels in
  /// 2 KB make 8 million), counted up to `limit` + 1 without expanding anything.
  func useCopies(limit: Int) -> Int {
    let count = elements.count
    var children = [[Int]](repeating: [], count: count)
    var byID: [String: Int] = [:]
    for (k, e) in elements.enumerated() {
      if e.parent >= 0 { children[e.parent].append(k) }
      if let id = e.id, byID[id] == nil { byID[id] = k }
    }
    func parts(_ k: Int) -> [Int] { children[k] + (elements[k].use.flatMap { byID[$0] }.map { [$0] } ?? []) }
    let cap = limit + count + 1
    // elements drawn from each element down, copies included; -1 not yet seen, -2 being
    // counted (a reference back to it is a cycle, which librsvg refuses: counted 0)
    var drawn = [Int](repeating: -1, count: count)
    var total = 0
    for root in 0..<count where elements[root].parent < 0 {
      var stack: [(element: Int, counted: Bool)] = [(root, false)]
      while let (k, partsDone) = stack.popLast() {
        if partsDone {
          drawn[k] = parts(k).reduce(1) { min(cap, $0 + max(drawn[$1], 0)) }
          continue
        }
        guard drawn[k] == -1 else { continue }
        drawn[k] = -2
        stack.append((k, true))
        for part in parts(k) where drawn[part] == -1 { stack.append((part, false)) }
      }
      total = min(cap, total + max(drawn[root], 0))
    }
    return max(0, total - count)
  }
}
