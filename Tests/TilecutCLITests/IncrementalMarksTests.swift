import CTilecutPNGRead
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut

/// Rebuilds whose render reads the source again only in the strips its dirty tiles
/// need: the PNG reader starts at the mark the digest pass left above them.
@Suite("build command, incremental, the source read again from the reader's marks")
struct IncrementalMarksTests {
  /// Draws a dark rectangle into a picture.
  func draw(_ image: inout RGBAImage, _ rect: PixelRect) {
    for row in rect.y..<(rect.y + rect.height) {
      for col in rect.x..<(rect.x + rect.width) {
        let i = (row * image.width + col) * 4
        (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = (15, 90, 15, 255)
      }
    }
  }

  // A 1300 px wide RGBA source: its reader leaves a mark every 806 rows (two batches
  // of 403 rows); 2400 rows, so marks at 806 and 1612. Edits just above and below
  // them, at the last row, and two far apart (the render skips the rows between).
  @Test(
    "edits near the reader's marks, at the last row, and far apart: a full build's bytes; --changes exact",
    arguments: [
      [PixelRect(x: 500, y: 805, width: 40, height: 1)], [PixelRect(x: 500, y: 806, width: 3, height: 1)],
      [PixelRect(x: 90, y: 1610, width: 700, height: 4)], [PixelRect(x: 1299, y: 2399, width: 1, height: 1)],
      [PixelRect(x: 0, y: 0, width: 2, height: 2), PixelRect(x: 640, y: 2000, width: 30, height: 30)],
    ])
  func editNearMarks(edits: [PixelRect]) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var a = roomsPicture(width: 1300, height: 2400)
    try a.writePNG(to: dir + "/a.png")
    let file = try areaProject(dir, rotation: 0, secondFloor: false)
    _ = try buildSaying(file)
    let before = try storeTiles(dir + "/tiles")
    for rect in edits { draw(&a, rect) }
    try a.writePNG(to: dir + "/a.png")
    let jumps = tc_png_mark_jumps()
    let lines = try buildSaying(file, changes: dir + "/changes.txt")
    #expect(lines.contains { $0.hasPrefix("hq floor 1: ") && $0.hasSuffix("pixel blocks differ") }, "\(lines)")
    let after = try storeTiles(dir + "/tiles")
    let changed = Set(after.keys.filter { before[$0] != after[$0] }).union(before.keys.filter { after[$0] == nil })
    #expect(!changed.isEmpty)
    // the same project built from nothing
    _ = try buildSaying(try fullCopy(file))
    let fresh = try storeTiles(dir + "/full")
    #expect(fresh.count == after.count)
    #expect(fresh.keys.filter { fresh[$0] != after[$0] }.sorted() == [])
    try expectChangesList(dir + "/changes.txt", names: changed)
    // the last row edited: the render read the last of the densest level's 4 strips,
    // from a mark, not from the top (the edits higher up need strips from above the
    // first mark); the doubled level's reach into the strip above is put back from the
    // previous tiles, not read (it read 2 strips and put back 2 tiles before)
    if edits.allSatisfy({ $0.y >= 2300 }) {
      #expect(lines.contains("hq floor 1: its densest level read in 1 of 4 strips, 4 previous tiles put back"), "\(lines)")
      #expect(tc_png_mark_jumps() > jumps)
    }
  }

  @Test("a source whose digest pass fails midway (a damaged stream near its end): one line naming it; the previous output stays")
  func damagedSource() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try roomsPicture(width: 1300, height: 2400).writePNG(to: dir + "/a.png")
    let file = try areaProject(dir, rotation: 0, secondFloor: false)
    _ = try buildSaying(file)
    let before = try storeTiles(dir + "/tiles")
    let manifest = FileManager.default.contents(atPath: dir + "/tiles/manifest.json")
    // a pixel changed, then the stream's last deflate bytes damaged, the chunk's CRC made right
    var edited = roomsPicture(width: 1300, height: 2400)
    edited.pixels[(1700 * 1300 + 20) * 4] ^= 0x40
    try edited.writePNG(to: dir + "/a.png")
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/a.png")))
    let idat = try #require(Self.lastIDAT(bytes))
    bytes[idat.lowerBound + idat.count * 3 / 4] ^= 0x21
    let crc = Self.crc(Array(bytes[(idat.lowerBound - 4)..<idat.upperBound]))
    bytes.replaceSubrange(idat.upperBound..<(idat.upperBound + 4), with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
    try Data(bytes).write(to: URL(fileURLWithPath: dir + "/a.png"))
    do {
      _ = try buildSaying(file)
      Issue.record("a damaged source was built")
    } catch {
      let message = "\(error)"
      #expect(message.contains("a.png") && !message.contains("\n"), "\(message)")
    }
    #expect(try storeTiles(dir + "/tiles") == before)
    #expect(FileManager.default.contents(atPath: dir + "/tiles/manifest.json") == manifest)
  }

  /// The byte range of the last IDAT chunk's data.
  static func lastIDAT(_ file: [UInt8]) -> Range<Int>? {
    var at = 8
    var found: Range<Int>?
    while at + 12 <= file.count {
      let n = file[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      if String(decoding: file[(at + 4)..<(at + 8)], as: UTF8.self) == "IDAT" { found = (at + 8)..<(at + 8 + n) }
      at += 12 + n
    }
    return found
  }

  static func crc(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      c ^= UInt32(b)
      for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return ~c
  }

  /// A copy of the project file writing to `full`: a from-scratch build of the same sources.
  func fullCopy(_ file: String) throws -> String {
    let copy = file.replacingOccurrences(of: "tilecut.yml", with: "full.yml")
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "output: tiles", with: "output: full")
      .write(toFile: copy, atomically: true, encoding: .utf8)
    return copy
  }
}
