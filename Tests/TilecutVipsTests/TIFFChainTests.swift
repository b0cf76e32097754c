import CVipsShim
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// Issue 37, item 11: the floors of a multi-page TIFF read its directory chain once,
/// not once per floor (50 floors of a 30,000-page TIFF: 5.8 s against 0.3 s).
@Suite("TIFF directory chain")
struct TIFFChainTests {
  @Test("50 pages of a 1000-page TIFF, each measured, checked and opened: the chain is walked once, not once per page")
  func walkedOnce() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/floors.tif"
    let pages = (0..<1000).map { k -> RGBAImage in
      var p = RGBAImage(width: 8, height: 8)
      for i in stride(from: 0, to: p.pixels.count, by: 4) {
        p.pixels[i] = UInt8(k % 256)
        p.pixels[i + 3] = 255
      }
      return p
    }
    try RGBAImage.writePages(pages, to: path)
    let before = tc_tiff_chain_walks()
    for page in stride(from: 0, to: 1000, by: 20) {
      let header = try SourceImage.header(of: InputName(path: path, page: page), maxPixels: 1 << 30)
      #expect(header.pages == 1000 && header.width == 8 && header.height == 8)
      let image = try SourceImage.open(path: path, page: page, sequential: false)
      #expect(image.width == 8 && image.height == 8)
    }
    // once for this file (a test beside this one may push it out of the few kept, and
    // it is walked again then); a walk per page and reader would be 100 or more
    let walks = tc_tiff_chain_walks() - before
    #expect(walks >= 1 && walks <= 4, "\(walks) walks")
    #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path, page: 1000), maxPixels: 1 << 30) }
    // the same path written again is another file: walked again, its own pages
    try RGBAImage.writePages(Array(pages.prefix(5)), to: path)
    #expect(try SourceImage.header(of: InputName(path: path, page: 4), maxPixels: 1 << 30).pages == 5)
    #expect(throws: TilecutError.self) { try SourceImage.header(of: InputName(path: path, page: 5), maxPixels: 1 << 30) }
  }
}
