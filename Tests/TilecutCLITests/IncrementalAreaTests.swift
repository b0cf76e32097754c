import Foundation
import Synchronization
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// A plan-like picture: pale rooms, dark walls every `step` pixels, marks here and there.
func roomsPicture(width: Int, height: Int, step: Int = 90) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 4
      let wall = x % step < 4 || y % step < 4
      let mark = (x / 7 + y / 5) % 23 == 0
      let v: UInt8 = wall ? 40 : mark ? 120 : UInt8(230 + (x / step + y / step) % 3 * 8)
      (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = (v, v, wall ? 40 : 236, 255)
    }
  }
  return image
}

/// A one-building project in `dir`: floor 1 from `a.png` placed by a centre, a scale and
/// a turn of `rotation` degrees (resampled), and unless `secondFloor` is false floor 2
/// from `b.png` at its native resolution (`raster`-like, by bounds); `extra` is added at
/// the top.
func areaProject(_ dir: String, rotation: Int = 12, secondFloor: Bool = true, extra: String = "") throws -> String {
  let file = dir + "/tilecut.yml"
  var text = """
    output: tiles
    tileSizes: [256, 512]
    \(extra)
    buildings:
      - id: hq
        floors:
          - floor: 1
            source: a.png
            center: [51.5006, -0.1396]
            metersPerPixel: 0.05
            rotation: \(rotation)
    """
  if secondFloor {
    text +=
      "\n"
      + ["      - floor: 2", "        source: b.png", "        center: [51.5006, -0.1396]", "        metersPerPixel: 0.3"].joined(separator: "\n")
  }
  try text.write(toFile: file, atomically: true, encoding: .utf8)
  return file
}

/// Runs `tilecut build` through the library; returns what it said.
func buildSaying(_ file: String, changes: String? = nil, store: StoreKind? = nil) throws -> [String] {
  let said = Mutex<[String]>([])
  try BuildJob.run(BuildRequest(file: file, overrides: BuildOverrides(changes: changes, store: store))) { line in
    said.withLock { $0.append(line) }
  }
  return said.withLock { $0 }
}

/// The inode of a file, to tell a carried tile (the previous file, linked) from a rewritten one.
func inode(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int) ?? nil }

@Suite("build command, incremental by pixels")
struct IncrementalPixelsTests {
  @Test("a source saved again with the same pixels (new bytes): every tile kept, none rendered; the manifest records its pixels")
  func samePixelsNewFile() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let a = roomsPicture(width: 900, height: 700)
    try a.writePNG(to: dir + "/a.png")
    try roomsPicture(width: 300, height: 200, step: 40).writePNG(to: dir + "/b.png")
    let file = try areaProject(dir)
    _ = try buildSaying(file)
    let before = snapshot(dir + "/tiles")
    // the full build hashed floor 1 as its render read it (floor 2, pre-shrunk, by a
    // decode of its own): both are the digests of the decoded files
    let first = try Manifest.decode(try #require(before["manifest.json"]))
    for (floor, name, width, height) in [(1, "a.png", 900, 700), (2, "b.png", 300, 200)] {
      let recorded = try #require(first.buildings?.first?.floors.first { $0.floor.number == floor }?.pixels)
      let source = SourceDescription(path: dir + "/" + name, width: width, height: height)
      #expect(recorded == (try SourcePixelBlocks.digests(of: source, format: .png)), "floor \(floor)")
    }
    let bytes = FileManager.default.contents(atPath: dir + "/a.png")
    // the same image at another compression: other bytes, the same pixels
    try a.writePNG(to: dir + "/a.png[compression=9]")
    #expect(FileManager.default.contents(atPath: dir + "/a.png") != bytes)
    let lines = try buildSaying(file, changes: dir + "/changes.txt")
    #expect(lines.contains("hq floor 1: a new file with the same pixels; its tiles are kept"), "\(lines)")
    let summary = try #require(lines.first { $0.contains("re-rendered") }, "\(lines)")
    #expect(summary.hasPrefix("no pixels changed: 0 of "), "\(summary)")
    let after = snapshot(dir + "/tiles")
    #expect(after.filter { $0.key != "manifest.json" } == before.filter { $0.key != "manifest.json" })
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).isEmpty)
    let manifest = try Manifest.decode(try #require(after["manifest.json"]))
    let floors = try #require(manifest.buildings?.first?.floors)
    let pixels = try #require(floors.first { $0.floor.number == 1 }?.pixels)
    #expect(pixels.width == 900 && pixels.height == 700 && pixels.columns == 4 && pixels.rows == 3)
  }

  @Test("block digests find exactly the blocks an edit touched")
  func changedBlocks() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var image = roomsPicture(width: 700, height: 600)
    try image.writePNG(to: dir + "/a.png")
    let source = SourceDescription(path: dir + "/a.png", width: 700, height: 600)
    let before = try #require(try SourcePixelBlocks.digests(of: source, format: .png))
    // one pixel in block (1, 0), a run across blocks (0, 2) and (1, 2)
    image.pixels[(10 * 700 + 300) * 4] ^= 1
    for x in 200...300 { image.pixels[(520 * 700 + x) * 4 + 1] ^= 0x80 }
    try image.writePNG(to: dir + "/a.png")
    let after = try #require(try SourcePixelBlocks.digests(of: source, format: .png))
    #expect(after.sha256 != before.sha256)
    #expect(
      after.changedBlocks(since: before)
        == [PixelRect(x: 256, y: 0, width: 256, height: 256), PixelRect(x: 0, y: 512, width: 512, height: 88)])
    #expect(before.changedBlocks(since: before) == [])
    var other = before
    other.width = 701
    #expect(after.changedBlocks(since: other) == nil)
  }
}

/// Checks that the `--changes` file at `path` names exactly the tile files of `changed`
/// (keys of `storeTiles`: "1 256 18/5/7" is 256/L1_18_5_7.png), each once.
func expectChangesList(_ path: String, names changed: some Collection<String>, sourceLocation: SourceLocation = #_sourceLocation) throws {
  let listed = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
    String($0.split(separator: "\t").last ?? "")
  }
  let expected = changed.map { key -> String in
    let parts = key.split(whereSeparator: { $0 == " " || $0 == "/" })
    return "\(parts[1])/L\(parts[0])_\(parts[2])_\(parts[3])_\(parts[4]).png"
  }
  #expect(Set(listed) == Set(expected), sourceLocation: sourceLocation)
  #expect(listed.count == changed.count, sourceLocation: sourceLocation)
}

/// Every tile of the output at `dir` by floor, size and cell, read through the store reader.
func storeTiles(_ dir: String) throws -> [String: [UInt8]] {
  let reader = try StoreReader(dir)
  let manifest = try #require(reader.manifest)
  var out: [String: [UInt8]] = [:]
  for level in manifest.levels {
    for y in level.yRange[0]...level.yRange[1] {
      for x in level.xRange[0]...level.xRange[1] {
        let tile = TileCoordinate(zoom: level.zoom, x: x, y: y)
        if case .tile(let bytes) = try reader.cell(tile, floor: level.floor.number, tileSize: level.tileSize) {
          out["\(level.floor) \(level.tileSize) \(level.zoom)/\(x)/\(y)"] = bytes
        }
      }
    }
  }
  return out
}

/// "… changed: R of T tiles re-rendered" → (R, T).
func rerendered(_ lines: [String]) throws -> (rendered: Int, total: Int) {
  let summary = try #require(lines.first { $0.contains("re-rendered") }, "\(lines)")
  let numbers =
    summary.split(separator: ":").last.map { $0.split(whereSeparator: { !$0.isNumber && $0 != "," }) }?
    .compactMap { Int($0.replacingOccurrences(of: ",", with: "")) } ?? []
  try #require(numbers.count == 2, "\(summary)")
  return (numbers[0], numbers[1])
}

@Suite("build command, incremental by area")
struct IncrementalAreaTests {
  /// Draws a dark rectangle into a picture.
  func draw(_ image: inout RGBAImage, x: Int, y: Int, width: Int, height: Int, value: UInt8 = 15) {
    for row in y..<(y + height) {
      for col in x..<(x + width) {
        let i = (row * image.width + col) * 4
        (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2], image.pixels[i + 3]) = (value, 90, value, 255)
      }
    }
  }

  @Test(
    "an edit of a small area re-renders only the tiles it reaches; the output is a full build's, byte for byte; --changes exact",
    arguments: [
      (StoreKind.directory, "bilinear"), (.directory, "lanczos3"), (.directory, "nearest"), (.mbtiles, "bilinear"), (.pmtiles, "average"),
    ])
  func areaEdit(store: StoreKind, resampling: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var a = roomsPicture(width: 1300, height: 1000)
    var b = roomsPicture(width: 700, height: 500, step: 40)
    try a.writePNG(to: dir + "/a.png")
    try b.writePNG(to: dir + "/b.png")
    let file = try areaProject(dir, extra: "resampling: \(resampling)")
    _ = try buildSaying(file, store: store)
    let before = try storeTiles(dir + "/tiles")
    // a room relabelled on floor 1 (a rotated, resampled floor), a pixel at a block's corner on floor 2
    draw(&a, x: 610, y: 420, width: 60, height: 14)
    draw(&b, x: 255, y: 256, width: 1, height: 1, value: 200)
    try a.writePNG(to: dir + "/a.png")
    try b.writePNG(to: dir + "/b.png")
    let lines = try buildSaying(file, changes: dir + "/changes.txt", store: store)
    #expect(lines.contains("hq floor 1: 1 of 24 pixel blocks differ"), "\(lines)")
    #expect(lines.contains("hq floor 2: 1 of 6 pixel blocks differ"), "\(lines)")
    let (rendered, total) = try rerendered(lines)
    let after = try storeTiles(dir + "/tiles")
    #expect(total == after.count)
    let changed = Set(after.keys.filter { before[$0] != after[$0] }).union(before.keys.filter { after[$0] == nil })
    #expect(!changed.isEmpty)
    // both floors changed: fewer than their tiles (what floor by floor re-renders), no fewer than those that changed
    #expect(rendered >= changed.count && rendered * 3 < total * 2, "\(rendered) of \(total), \(changed.count) changed")
    // the same project built from nothing
    let full = try buildSaying(try fullCopy(file), store: store)
    #expect(!full.contains { $0.contains("re-rendered") })
    let fresh = try storeTiles(dir + "/full")
    #expect(fresh.count == after.count)
    #expect(fresh.keys.filter { fresh[$0] != after[$0] }.sorted() == [])
    if store == .directory {
      // --changes: exactly the tile files whose bytes differ
      try expectChangesList(dir + "/changes.txt", names: changed)
    }
  }

  /// A copy of the project file writing to `full`: a from-scratch build of the same sources.
  func fullCopy(_ file: String) throws -> String {
    let copy = file.replacingOccurrences(of: "tilecut.yml", with: "full.yml")
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "output: tiles", with: "output: full")
      .write(toFile: copy, atomically: true, encoding: .utf8)
    return copy
  }
}

@Suite("build command, incremental by area, a campus floor")
struct IncrementalAreaCampusTests {
  @Test("an edit of the annex's PNG under the headquarters' PDF: the composited cells it reaches are made again, byte for byte a full build")
  func compositedEdit() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    let campus = dir + "/campus"
    let text = try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 20")
    try text.write(toFile: file, atomically: true, encoding: .utf8)
    _ = try buildSaying(file)
    let before = try storeTiles(campus + "/tiles")
    var ground = try RGBAImage.decode(file: campus + "/annex/ground.png")
    for y in 20..<26 {
      for x in 30..<40 { ground.pixels[(y * ground.width + x) * 4] ^= 0x55 }
    }
    try ground.writePNG(to: campus + "/annex/ground.png")
    let lines = try buildSaying(file)
    #expect(lines.contains("annex floor 1: 1 of 2 pixel blocks differ"), "\(lines)")
    let (rendered, total) = try rerendered(lines)
    let after = try storeTiles(campus + "/tiles")
    let floor1 = after.keys.filter { $0.hasPrefix("1 ") }.count
    #expect(rendered > 0 && rendered < floor1, "\(rendered) of \(floor1) floor-1 tiles, \(total) in all")
    #expect(after != before)
    let copy = file.replacingOccurrences(of: "tilecut.yml", with: "full.yml")
    try text.replacingOccurrences(of: "output: tiles", with: "output: full").write(toFile: copy, atomically: true, encoding: .utf8)
    _ = try buildSaying(copy)
    let full = try storeTiles(campus + "/full")
    #expect(full.count == after.count)
    #expect(full.keys.filter { full[$0] != after[$0] }.sorted() == [])
  }
}
