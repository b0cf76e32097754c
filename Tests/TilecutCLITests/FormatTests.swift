import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@Suite("tile formats: lossy WebP keeps transparency, JPEG needs a fill")
struct FormatTests {
  /// Largest channel difference between two RGB triples.
  func distance(_ a: (r: UInt8, g: UInt8, b: UInt8, a: UInt8), _ b: (UInt8, UInt8, UInt8)) -> Int {
    max(abs(Int(a.r) - Int(b.0)), abs(Int(a.g) - Int(b.1)), abs(Int(a.b) - Int(b.2)))
  }

  @Test("--format webp --quality 70: transparent stays transparent, colours close to the source")
  func webpKeepsAlpha() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let source = picture(width: 600, height: 400, seed: 3, transparentLeft: 100)
    try source.writePNG(to: c.path("overlay.png"))
    let r = try runTool([c.path("overlay.png"), "-o", c.path("webp"), "--format", "webp", "--quality", "70", "--tile-size", "256", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    let tile = try RGBAImage.decode(file: c.path("webp/256/L1_2_0_0.webp"))
    #expect(tile.width == 256)
    #expect(tile[20, 50].a == 0 && tile[99, 200].a == 0, "the transparent left edge")
    #expect(tile[150, 50].a == 255 && tile[255, 255].a == 255)
    let want = source[150, 50]
    #expect(distance(tile[150, 50], (want.r, want.g, want.b)) < 24, "\(tile[150, 50]) vs \(want)")
  }

  @Test("--format jpeg refuses a source with an alpha channel, or --knockout, unless --background fills it")
  func jpegNeedsBackground() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 600, height: 400, seed: 3, transparentLeft: 100).writePNG(to: c.path("overlay.png"))
    let refused = try runTool([c.path("overlay.png"), "-o", c.path("out"), "--format", "jpeg", "--force"])
    c.expectClean(refused, status: 2, mentions: "--background")
    #expect(refused.stderr.contains("overlay.png"))
    c.expectClean(
      try runTool([c.path("good.png"), "-o", c.path("out"), "--format", "jpeg", "--knockout", "white", "--force"]), status: 2,
      mentions: "--knockout")
    let filled = try runTool([
      c.path("overlay.png"), "-o", c.path("jpeg"), "--format", "jpeg", "--background", "#336699", "--tile-size", "256", "-q",
    ])
    #expect(filled.status == 0, "\(filled.stderr)")
    let tile = try RGBAImage.decode(file: c.path("jpeg/256/L1_2_0_0.jpg"))
    #expect(tile[20, 50].a == 255 && distance(tile[20, 50], (0x33, 0x66, 0x99)) <= 6, "\(tile[20, 50])")
    // an opaque source (a JPEG) needs no fill: the margins outside it are white as before
    try picture(width: 600, height: 400, seed: 3).writePNG(to: c.path("photo.jpg"))
    let opaque = try runTool([c.path("photo.jpg"), "-o", c.path("plain"), "--format", "jpeg", "--tile-size", "256", "-q"])
    #expect(opaque.status == 0, "\(opaque.stderr)")
    let edge = try RGBAImage.decode(file: c.path("plain/256/L1_2_2_1.jpg"))
    #expect(distance(edge[200, 200], (255, 255, 255)) <= 4, "\(edge[200, 200])")
  }
}
