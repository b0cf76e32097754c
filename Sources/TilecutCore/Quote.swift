/// How tilecut shows text it did not write (an option's value, a key of a project file,
/// a line of a world file, a file name) in a line it prints: every control character
/// escaped, so that the line stays one line and cannot drive a terminal, and a value at
/// most ``limit`` characters long.
public enum Quote {
  /// The most characters of one value a message quotes.
  public static let limit = 100
  /// The most characters of one printed line (a backstop: values are cut by `value`).
  public static let lineLimit = 2000

  /// `text` escaped (``escaped(_:)``) and cut to `limit` characters, ending in `…` when cut.
  public static func value(_ text: some StringProtocol, limit: Int = Quote.limit) -> String {
    // a 10 MB value costs no more than its first characters
    let head = text.prefix(limit + 1)
    let shown = escaped(head)
    guard head.count > limit || shown.count > limit else { return shown }
    return String(shown.prefix(max(limit - 1, 0))) + "…"
  }

  /// Whether `scalar` is shown escaped: C0 and C1 controls, DEL, and the bidirectional
  /// overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what follows
  /// them on a terminal (a file name shown backwards).
  public static func isEscaped(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069: return true
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
    let risky = candidates.filter { (v: String) -> Bool in v.count > limit || v.unicodeScalars.contains(where: isEscaped) }
      .sorted { (a: String, b: String) -> Bool in a.count > b.count }
    for v in risky where text.contains(v) { text = text.replacingOccurrences(of: v, with: value(v)) }
    return text.split(separator: "\n").first.map(String.init) ?? text
  }

  /// A whole printed line: escaped, and when longer than `limit` characters its start
  /// and its end (where the reason is) kept around a `…`.
  public static func line(_ text: String, limit: Int = Quote.lineLimit) -> String {
    let shown = escaped(text)
    guard shown.count > limit else { return shown }
    let tail = limit / 4
    return String(shown.prefix(limit - tail - 1)) + "…" + String(shown.suffix(tail))
  }
}
