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
