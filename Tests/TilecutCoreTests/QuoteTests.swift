import Foundation
import Testing

@testable import TilecutCore

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Quoting values and vetting sidecar paths")
struct QuoteTests {
  @Test("a value is cut to 100 characters with an ellipsis, its controls escaped (C0, DEL, C1, bidi overrides)")
  func value() {
    #expect(Quote.value("short") == "short")
    let long = Quote.value(String(repeating: "a", count: 10_000_000))
    #expect(long.count == Quote.limit && long.hasSuffix("…"))
    #expect(Quote.value("a\nb\u{1B}[2J\u{7F}\u{9B}\u{202E}c") == "a\\nb\\u{1b}[2J\\u{7f}\\u{9b}\\u{202e}c")
    // escaping counts against the limit too
    #expect(Quote.value(String(repeating: "\u{0}", count: 500)).count == Quote.limit)
    #expect(Quote.value("é日本") == "é日本")
  }

  @Test("a line is escaped, and one longer than the limit keeps its start and its end")
  func line() {
    #expect(Quote.line("error: a\u{1B}b") == "error: a\\u{1b}b")
    let text = "error: " + String(repeating: "x", count: 50_000) + " the reason"
    let shown = Quote.line(text)
    #expect(shown.count == Quote.lineLimit && shown.hasPrefix("error: x") && shown.hasSuffix(" the reason") && shown.contains("…"))
  }

  /// A letter with a million combining marks is one Character: cut by characters alone,
  /// an IMDF id or a KML name of 2 MB went out whole (hostile42 #3).
  @Test("a value or a line of one character with a million combining marks is cut by UTF-8 bytes")
  func combiningMarks() {
    let zalgo = "u" + String(repeating: "\u{301}", count: 1_000_000)
    let value = Quote.value(zalgo)
    #expect(value.utf8.count <= Quote.limit * Quote.bytesPerCharacter && value.utf8.starts(with: "u\u{301}\u{301}".utf8))
    #expect(value.hasSuffix("…"))
    #expect(Quote.value(zalgo, limit: 40).utf8.count <= 160)
    let line = Quote.line("error: " + zalgo + " the reason " + zalgo + " is missing")
    #expect(line.utf8.count <= Quote.lineLimit * Quote.bytesPerCharacter && line.utf8.starts(with: "error: u".utf8))
    #expect(line.unicodeScalars.contains("…"))
    #expect(line.hasSuffix(" is missing"))
    // one value among short ones: the parser's message repeats it no more
    #expect(Quote.firstLine(of: "Unexpected argument '\(zalgo)'", values: [zalgo]).utf8.count < 500)
    // a message that cuts a value itself (an SVG's reference)
    #expect(Quote.prefix(zalgo, 40).utf8.count <= 160 && Quote.prefix("abcdef", 2) == "ab")
    // what is cut by characters is as before: 100 of CJK, 99 and an ellipsis past it
    #expect(Quote.value(String(repeating: "日", count: 100)) == String(repeating: "日", count: 100))
    #expect(Quote.value(String(repeating: "日", count: 101)) == String(repeating: "日", count: 99) + "…")
  }

  /// U+2028 and U+2029 break a line in some terminals and viewers, NEL (U+0085) in others,
  /// and the bidi marks reorder what follows (hostile42 #11).
  @Test("line and paragraph separators, NEL and the bidi marks are escaped")
  func separatorsAndMarks() {
    #expect(Quote.value("A\u{2028}B\u{2029}C\u{85}D") == "A\\u{2028}B\\u{2029}C\\u{85}D")
    #expect(Quote.value("a\u{200E}b\u{200F}c\u{61C}d\u{202B}e\u{2067}f") == "a\\u{200e}b\\u{200f}c\\u{61c}d\\u{202b}e\\u{2067}f")
    #expect(Quote.line("x\u{2028}y") == "x\\u{2028}y")
  }

  @Test("the parser's message keeps its reason after a value with a newline, and repeats no megabyte")
  func firstLine() {
    let value = "1\n2"
    let message = "The value '\(value)' is invalid for '--max-zoom <z>'\nHelp: --max-zoom <z>"
    #expect(Quote.firstLine(of: message, values: ["--max-zoom=" + value]) == "The value '1\\n2' is invalid for '--max-zoom <z>'")
    let big = String(repeating: "v", count: 1_000_000)
    #expect(Quote.firstLine(of: "Unexpected argument '\(big)'", values: [big]).count < 200)
  }

  @Test("a world file found beside the input is refused without quoting its bytes")
  func worldFileNotQuoted() {
    for quoting in [true, false] {
      do {
        _ = try WorldFile.parse("1\n0\n0\n-1\nSECRET=x\n0", path: "plan.pgw", quoting: quoting)
        Issue.record("accepted")
      } catch {
        #expect("\(error)".hasPrefix("plan.pgw: ") && "\(error)".contains("SECRET") == quoting, "\(error)")
      }
    }
  }

  @Test("a sidecar path is vetted by where it resolves: inside its folder, not out of it nor into /proc")
  func sidecarPath() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("tilecut-sidecar-\(UUID().uuidString)").path
    let dir = base + "/in"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    try "x".write(toFile: base + "/outside.txt", atomically: true, encoding: .utf8)
    try "x".write(toFile: dir + "/plan.png", atomically: true, encoding: .utf8)
    try "x".write(toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: dir + "/plan.wld", withDestinationPath: "plan.pgw")
    try FileManager.default.createSymbolicLink(atPath: dir + "/plan.prj", withDestinationPath: "../outside.txt")
    try FileManager.default.createSymbolicLink(atPath: dir + "/plan.IMD", withDestinationPath: "/proc/self/environ")
    #expect(SidecarPath.escape(dir + "/plan.pgw") == nil)
    #expect(SidecarPath.escape(dir + "/plan.wld") == nil)
    #expect(SidecarPath.escape(dir + "/plan.prj")?.contains("out of the input's folder") == true)
    #expect(SidecarPath.escape(dir + "/plan.IMD")?.contains("/proc") == true)
    #expect(SidecarPath.systemTree(dir + "/plan.IMD") != nil && SidecarPath.systemTree(dir + "/plan.prj") == nil)
  }
}
