import Foundation
import Testing

/// Every call that differs between Linux and macOS lives in Sources/CTilecutPlatform
/// (C, with its #if branches); the Swift sources name no platform.
@Suite("the platform layer")
struct PlatformLayerTests {
  @Test("no Swift source outside CTilecutPlatform imports Glibc or Darwin or branches on the OS")
  func noPlatformBranches() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let sources = root.appendingPathComponent("Sources")
    let patterns = ["import Glibc", "import Darwin", "canImport(Glibc)", "canImport(Darwin)", "#if os(", "Glibc.", "Darwin."]
    let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
    #expect(files.count > 50, "the Swift sources were not found below \(sources.path)")
    var found: [String] = []
    for file in files {
      let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        if let p = patterns.first(where: { line.contains($0) }) { found.append("Sources/\(file):\(n + 1): \(p)") }
      }
    }
    #expect(found.isEmpty, "platform-specific Swift outside CTilecutPlatform:\n\(found.joined(separator: "\n"))")
  }
}
