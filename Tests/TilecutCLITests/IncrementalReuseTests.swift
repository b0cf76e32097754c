import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// An incremental rebuild that takes the clean part of each reduced level from the
/// previous output's tiles: byte for byte a full build, `--changes` exact, wherever the
/// edit falls (a corner, across a tile's edge where the kernel reaches both sides, two
/// places far apart), and the fallback where the previous tiles are lossy.
@Suite("build command, incremental by area, coarse zooms from the previous tiles")
struct IncrementalReuseTests {
  enum Edit: String, CaseIterable, Sendable {
    case corner, tileEdge, apart, lastRows
    /// at the left and right edges of the source, halfway down (the densest level's
    /// strips are then read in columns from or to its edge)
    case leftEdge, rightEdge
    /// a band across a tile column's edge and out to several columns each side, and
    /// edits at the top left and the bottom right, each strip read in its own columns
    case acrossColumns, diagonal
  }

  /// A one-floor project in `dir` from `a.png`, placed by a centre, a scale and a turn
  /// (IncrementalAreaTests' project without its second floor).
  func project(_ dir: String, rotation: Int, extra: String = "") throws -> String {
    try areaProject(dir, rotation: rotation, secondFloor: false, extra: extra)
  }

  func draw(_ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int) {
    guard x < image.width, y < image.height, x + width > 0, y + height > 0 else { return }
    for row in max(0, y)..<min(image.height, y + height) {
      for col in max(0, x)..<min(image.width, x + width) {
        let i = (row * image.width + col) * 4
        (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = (200, 30, 60, 255)
      }
    }
  }

  /// The source column an edge of the deepest zoom's 256 px tiles falls on, near the
  /// middle of an unturned floor (its footprint maps columns to longitudes linearly).
  func tileEdgeColumn(_ manifest: Manifest, width: Int) throws -> Int {
    let floor = try #require(manifest.buildings?.first?.floors.first)
    let zoom = try #require(manifest.levels.filter { $0.tileSize == 256 }.map(\.zoom).max())
    let u0 = WebMercator.u(longitudeDegrees: floor.west)
    let u1 = WebMercator.u(longitudeDegrees: floor.east)
    let tiles = Double(1 << zoom)
    // an edge of 2 tiles, so that it is one at two zooms
    let edge = ((u0 + u1) / 2 * tiles / 2).rounded() * 2 / tiles
    return Int(((edge - u0) / (u1 - u0) * Double(width)).rounded())
  }

  /// "hq floor 1: its densest level read in 2 of 6 strips, …" → (2, 6).
  func stripsRead(_ lines: [String]) throws -> (read: Int, of: Int) {
    let note = try #require(lines.first { $0.contains("its densest level read in") }, "\(lines)")
    let words = note.split(separator: " ")
    let i = try #require(words.firstIndex(of: "in"))
    return (try #require(Int(words[i + 1])), try #require(Int(words[i + 3])))
  }

  /// A copy of the project writing to `full`: a from-scratch build of the same sources.
  func fullBuild(_ file: String) throws -> [String: [UInt8]] {
    let copy = file.replacingOccurrences(of: "tilecut.yml", with: "full.yml")
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "output: tiles", with: "output: full")
      .write(toFile: copy, atomically: true, encoding: .utf8)
    try? FileManager.default.removeItem(atPath: (file as NSString).deletingLastPathComponent + "/full")
    let said = try buildSaying(copy)
    #expect(!said.contains { $0.contains("re-rendered") })
    return try storeTiles((file as NSString).deletingLastPathComponent + "/full")
  }

  @Test(
    "an edit re-renders only what it reaches, the coarse zooms from the previous tiles; byte for byte a full build, --changes exact",
    arguments: [
      (0, Edit.corner), (0, .tileEdge), (0, .apart), (0, .lastRows), (12, .corner), (12, .apart), (0, .leftEdge), (0, .rightEdge),
      (12, .leftEdge), (12, .rightEdge), (0, .acrossColumns), (0, .diagonal), (12, .diagonal),
    ])
  func edit(rotation: Int, edit: Edit) throws {
    let dir = try scratch("reuse-\(rotation)-\(edit.rawValue)")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var a = roomsPicture(width: 1000, height: 2800)
    try a.writePNG(to: dir + "/a.png")
    let file = try project(dir, rotation: rotation)
    _ = try buildSaying(file)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/tiles/manifest.json")))
    let before = try storeTiles(dir + "/tiles")
    switch edit {
    case .corner: draw(&a, x: 0, y: 0, width: 24, height: 10)
    case .tileEdge:
      // three columns across the edge: the kernel reaches the tiles on both sides
      let x = try tileEdgeColumn(manifest, width: a.width)
      #expect(x > 100 && x < a.width - 100, "\(x)")
      draw(&a, x: x - 1, y: 1300, width: 3, height: 3)
    case .apart:
      draw(&a, x: 20, y: 1400, width: 30, height: 8)
      draw(&a, x: 950, y: 1420, width: 8, height: 30)
    case .lastRows: draw(&a, x: 500, y: a.height - 2, width: 40, height: 2)
    case .leftEdge: draw(&a, x: 0, y: 1350, width: 5, height: 30)
    case .rightEdge: draw(&a, x: a.width - 5, y: 1350, width: 5, height: 30)
    case .acrossColumns:
      let x = try tileEdgeColumn(manifest, width: a.width)
      draw(&a, x: x - 150, y: 1500, width: 300, height: 2)
    case .diagonal:
      draw(&a, x: 40, y: 100, width: 12, height: 12)
      draw(&a, x: 930, y: 2600, width: 12, height: 12)
    }
    try a.writePNG(to: dir + "/a.png")
    let lines = try buildSaying(file, changes: dir + "/changes.txt")
    let (read, strips) = try stripsRead(lines)
    // the diagonal's two edits, near the top and the bottom, reach every strip (each in its own columns)
    #expect(read < strips || edit == .diagonal, "\(lines)")
    let (rendered, total) = try rerendered(lines)
    let after = try storeTiles(dir + "/tiles")
    #expect(total == after.count)
    let changed = Set(after.keys.filter { before[$0] != after[$0] }).union(before.keys.filter { after[$0] == nil })
    #expect(!changed.isEmpty)
    #expect(rendered >= changed.count && rendered * 2 < total, "\(rendered) of \(total), \(changed.count) changed")
    let fresh = try fullBuild(file)
    #expect(fresh.count == after.count)
    #expect(Set(fresh.keys) == Set(after.keys))
    #expect(fresh.keys.filter { fresh[$0] != after[$0] }.sorted() == [])
    // --changes: exactly the tile files whose bytes differ
    try expectChangesList(dir + "/changes.txt", names: changed)
    // the edited image saved again (other bytes, the same pixels): nothing is made again
    try a.writePNG(to: dir + "/a.png[compression=9]")
    let again = try buildSaying(file, changes: dir + "/changes.txt")
    #expect(again.contains("hq floor 1: a new file with the same pixels; its tiles are kept"), "\(again)")
    #expect(try storeTiles(dir + "/tiles") == after)
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).isEmpty)
  }

  @Test("previous tiles that are lossy (WebP) are not decoded into the coarse zooms: the rebuild says so and is still a full build's bytes")
  func lossyFallsBack() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var a = roomsPicture(width: 1200, height: 900)
    try a.writePNG(to: dir + "/a.png")
    let file = try project(dir, rotation: 0, extra: "format: webp")
    _ = try buildSaying(file)
    let before = try storeTiles(dir + "/tiles")
    draw(&a, x: 500, y: 400, width: 20, height: 20)
    try a.writePNG(to: dir + "/a.png")
    let lines = try buildSaying(file)
    #expect(lines.contains("hq floor 1: its coarse zooms are reduced from the whole source (its tiles are WEBP, not lossless)"), "\(lines)")
    #expect(!lines.contains { $0.contains("its densest level read in") }, "\(lines)")
    let after = try storeTiles(dir + "/tiles")
    #expect(after != before)
    let fresh = try fullBuild(file)
    #expect(fresh.keys.filter { fresh[$0] != after[$0] }.sorted() == [])
    #expect(fresh.count == after.count)
  }

  @Test("a floor whose previous tiles hold its pixels exactly but under --background falls back and says why")
  func backgroundFallsBack() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var a = roomsPicture(width: 1200, height: 900)
    try a.writePNG(to: dir + "/a.png")
    let file = try project(dir, rotation: 0, extra: "background: \"#e6e6ec:8\"")
    _ = try buildSaying(file)
    draw(&a, x: 500, y: 400, width: 20, height: 20)
    try a.writePNG(to: dir + "/a.png")
    let lines = try buildSaying(file)
    #expect(
      lines.contains { $0.hasPrefix("hq floor 1: its coarse zooms are reduced from the whole source (blank tiles of --background") }, "\(lines)")
    let after = try storeTiles(dir + "/tiles")
    let fresh = try fullBuild(file)
    #expect(fresh.keys.filter { fresh[$0] != after[$0] }.sorted() == [])
    #expect(fresh.count == after.count)
  }

  @Test("a previous manifest whose pixel digests are SHA-256's (tilecut 0.7.0): the edited floor is made again whole, said once")
  func olderDigestKind() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var a = roomsPicture(width: 900, height: 700)
    try a.writePNG(to: dir + "/a.png")
    let file = try project(dir, rotation: 0)
    _ = try buildSaying(file)
    // the manifest as an earlier tilecut wrote it: block digests without their kind
    let path = dir + "/tiles/manifest.json"
    var text = try String(contentsOfFile: path, encoding: .utf8)
    #expect(text.contains("\"hash\" : \"xxh3-128\"") || text.contains("\"hash\":\"xxh3-128\""))
    text = text.replacingOccurrences(of: "\"hash\" : \"xxh3-128\",", with: "").replacingOccurrences(of: "\"hash\":\"xxh3-128\",", with: "")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    draw(&a, x: 400, y: 300, width: 10, height: 10)
    try a.writePNG(to: dir + "/a.png")
    let lines = try buildSaying(file)
    let notes = lines.filter { $0.contains("of an earlier kind") }
    #expect(
      notes == ["hq floor 1: the previous manifest's pixel digests are of an earlier kind (SHA-256, now XXH3-128); made again whole"], "\(lines)")
    let (rendered, total) = try rerendered(lines)
    #expect(rendered == total)
    let after = try storeTiles(dir + "/tiles")
    let fresh = try fullBuild(file)
    #expect(fresh.keys.filter { fresh[$0] != after[$0] }.sorted() == [])
    #expect(fresh.count == after.count)
  }
}
