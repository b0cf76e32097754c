/// The one reading of a number an option takes (`--rotation 12.5`, `--center 51.5,-0.12`,
/// `--drawing-units 0.3048`, `--scale 0,4095`, …): decimal digits with an optional sign,
/// point and exponent (`-12.5`, `+.5`, `7.`, `1e-3`), or one of the words `nan`, `inf` and
/// `infinity` (any case, signed), which each option then refuses, or takes, in its own words
/// as it did before.
///
/// Swift's `Double(_:)` also reads C's hexadecimal forms (`0x10` is 16, `0x1p3` is 8) and
/// `nan(…)`/`snan`, which nobody means on a command line: a hexadecimal number is no
/// number here, as it is no number to `Int(_:)`. White space is no part of a number (the
/// comma-separated options trim it around each one, as a project file's reader does
/// around each of its numbers).
public enum OptionNumber {
  /// The number `text` spells, or nil when it is not one.
  public static func parse(_ text: some StringProtocol) -> Double? {
    let bytes = Array(text.utf8)
    var i = 0
    if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
    let word = String(decoding: bytes[i...], as: UTF8.self).lowercased()
    if word == "nan" || word == "inf" || word == "infinity" { return Double(String(text)) }
    func digits() -> Int {
      let start = i
      while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
      return i - start
    }
    var mantissa = digits()
    if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
      i += 1
      mantissa += digits()
    }
    guard mantissa > 0 else { return nil }
    if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      i += 1
      if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
      guard digits() > 0 else { return nil }
    }
    guard i == bytes.count else { return nil }
    return Double(String(text))
  }
}
