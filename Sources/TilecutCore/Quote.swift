/// How tilecut shows text it did not write (an option's value, a key of a project file,
/// a line of a world file, a file name) in a line it prints: every control character
/// escaped, so that the line stays one line and cannot drive a terminal, and a value at
/// most ``limit`` characters and 4 × ``limit`` UTF-8 bytes long (a letter followed by a
/// million combining marks is one character: characters alone bound nothing).
public enum Quote {
  /// The most characters of one value a message quotes.
  public static let limit = 100
  /// The most characters of one printed line (a backstop: values are cut by `value`).
  public static let lineLimit = 2000
  /// The most UTF-8 bytes per character of the limit: four, so that any text of one
  /// scalar per character (every script, emoji) is cut by characters as before, and
  /// stacked combining marks or long emoji sequences by bytes.
  public static let bytesPerCharacter = 4

  /// `text` escaped (``escaped(_:)``) and cut to `limit` characters and
  /// 4 × `limit` UTF-8 bytes, ending in `…` when cut.
  public static func value(_ text: some StringProtocol, limit: Int = Quote.limit) -> String {
    let maxBytes = limit * bytesPerCharacter
    // a 10 MB value costs no more than its first scalars, even as one character
    var head = ""
    var scalars = 0
    var cut = false
    for scalar in text.unicodeScalars {
      if scalars == maxBytes + 1 {
        cut = true
        break
      }
      head.unicodeScalars.append(scalar)
      scalars += 1
    }
    let characters = head.prefix(limit + 1)
    if characters.endIndex < head.endIndex { cut = true }
    let shown = escaped(characters)
    guard cut || characters.count > limit || shown.count > limit || shown.utf8.count > maxBytes else { return shown }
    let kept = shown.prefix(max(limit - 1, 0))
    return String(utf8Prefix(kept, maxBytes: max(maxBytes - 3, 0))) + "…"
  }

  /// The first `count` characters of `text`, and of them at most 4 × `count` UTF-8 bytes
  /// (cut between scalars): for a message that cuts a value itself, where the first
  /// characters alone of a letter with a million combining marks are all of it.
  public static func prefix(_ text: String, _ count: Int) -> String {
    let head = Substring(text.unicodeScalars.prefix(count * bytesPerCharacter + 1))
    return String(utf8Prefix(head.prefix(count), maxBytes: count * bytesPerCharacter))
  }

  /// The longest start of `text` of at most `maxBytes` UTF-8 bytes, cut between scalars.
  static func utf8Prefix(_ text: Substring, maxBytes: Int) -> Substring {
    guard text.utf8.count > maxBytes else { return text }
    var bytes = 0
    var end = text.unicodeScalars.startIndex
    for index in text.unicodeScalars.indices {
      bytes += UTF8.width(text.unicodeScalars[index])
      if bytes > maxBytes { break }
      end = text.unicodeScalars.index(after: index)
    }
    return Substring(text.unicodeScalars[..<end])
  }

  /// The longest end of `text` of at most `maxBytes` UTF-8 bytes, cut between scalars.
  static func utf8Suffix(_ text: Substring, maxBytes: Int) -> Substring {
    guard text.utf8.count > maxBytes else { return text }
    var bytes = 0
    var start = text.unicodeScalars.endIndex
    for index in text.unicodeScalars.indices.reversed() {
      bytes += UTF8.width(text.unicodeScalars[index])
      if bytes > maxBytes { break }
      start = index
    }
    return Substring(text.unicodeScalars[start...])
  }

  /// Whether `scalar` is shown escaped: C0 and C1 controls (NEL, U+0085, among them),
  /// DEL, the line and paragraph separators (U+2028, U+2029), which a reader may take
  /// for a line break, and the bidirectional marks, embeddings, overrides and isolates
  /// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder what follows
  /// them on a terminal (a file name shown backwards).
  public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F..<0xA0, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }

  /// `text` with every escaped scalar written as `\n`, `\t`, `\r` or `\u{…}`.
  public static func escaped(_ text: some StringProtocol) -> String {
    guard text.unicodeScalars.contains(where: isEscaped) else { return String(text) }
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      default:
        if isEscaped(scalar) {
          out += "\\u{" + String(scalar.value, radix: 16) + "}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }

  /// The first line of a message another library wrote (the argument parser's), with
  /// each of `values` (the arguments it may repeat whole) shown by ``value(_:limit:)``
  /// first: a value with a newline in it no longer cuts the message before its reason,
  /// and a megabyte of one is not repeated.
  public static func firstLine(of message: String, values: [String]) -> String {
    var text = message
    var candidates: [String] = []
    for v in values {
      candidates.append(v)
      // --name=VALUE: the parser repeats VALUE
      if v.hasPrefix("-"), let equals = v.firstIndex(of: "=") { candidates.append(String(v[v.index(after: equals)...])) }
    }
    let risky = candidates.filter { (v: String) -> Bool in
      v.count > limit || v.utf8.count > limit * bytesPerCharacter || v.unicodeScalars.contains(where: isEscaped)
    }
    .sorted { (a: String, b: String) -> Bool in a.utf8.count > b.utf8.count }
    for v in risky where text.contains(v) { text = text.replacingOccurrences(of: v, with: value(v)) }
    return text.split(separator: "\n").first.map(String.init) ?? text
  }

  /// A whole printed line: escaped, and when longer than `limit` characters or
  /// 4 × `limit` UTF-8 bytes its start and its end (where the reason is) kept around a `…`.
  public static func line(_ text: String, limit: Int = Quote.lineLimit) -> String {
    let maxBytes = limit * bytesPerCharacter
    let tail = limit / 4
    let start: String
    let end: String
    if text.utf8.count > 2 * maxBytes {
      // megabytes (of one character, even) cost no more than the start and end kept
      start = escaped(utf8Prefix(Substring(text), maxBytes: maxBytes))
      end = escaped(utf8Suffix(Substring(text), maxBytes: maxBytes))
    } else {
      let shown = escaped(text)
      guard shown.count > limit || shown.utf8.count > maxBytes else { return shown }
      (start, end) = (shown, shown)
    }
    let head = utf8Prefix(start.prefix(limit - tail - 1), maxBytes: maxBytes - maxBytes / 4 - 3)
    return String(head) + "…" + String(utf8Suffix(end.suffix(tail), maxBytes: maxBytes / 4))
  }
}
