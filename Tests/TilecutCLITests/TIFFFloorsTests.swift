import Foundation
import Testing
import TilecutFixtures
import TilecutVips

/// Issue 37, item 11: the floors of a multi-page TIFF cost its directories once, not
/// floors × pages (50 floors of a 30,000-page TIFF: 5.8 s against 0.3 s).
@Suite("floors of a multi-page TIFF")
struct TIFFFloorsTests {
  @Test("20 floors of a 2000-page TIFF read its directories about once: counted in pread64 calls (strace), not time")
  func directoriesReadOnce() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var page = RGBAImage(width: 8, height: 8)
    for i in stride(from: 0, to: page.pixels.count, by: 4) {
      page.pixels[i] = 200
      page.pixels[i + 3] = 255
    }
    let pages = 2000
    try RGBAImage.writePages([RGBAImage](repeating: page, count: pages), to: dir + "/pages.tif")
    let trace = dir + "/pread.trace"
    let binary = try tilecutBinary()
    let r = try runTool(
      [],
      shell: "strace -f -qq -e trace=pread64 -o '\(trace)' '\(binary)' '\(dir)/pages.tif' --floors 20 --dry-run -o '\(dir)/out' -q",
      timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    let reads = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("pread64(") }.count
    // one walk is two reads a directory (its entry count, its next offset); a walk per
    // floor (and per reader) was 20 × 2 × 2000 = 80 000 and more
    #expect(reads >= 2 * pages && reads < 6 * pages, "\(reads) pread64 calls")
  }
}
