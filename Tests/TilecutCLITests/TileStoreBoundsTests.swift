import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

/// Tile stores given as sources whose numbers ask for absurd work (issue 41's hostile
/// stores): a manifest's ranges widened to the whole grid, a PMTiles run of millions of
/// 1 × 1 px tiles, an MBTiles of tens of thousands. The work is bounded by the tiles the
/// store holds and by --max-memory, or the store is refused in one line.
@Suite("tile stores as sources, bounded")
struct TileStoreBoundsTests {
  /// An unsigned LEB128 varint, as PMTiles directories write numbers.
  func varint(_ value: UInt64) -> [UInt8] {
    var n = value
    var out: [UInt8] = []
    repeat {
      let b = UInt8(n & 0x7f)
      n >>= 7
      out.append(n == 0 ? b : b | 0x80)
    } while n != 0
    return out
  }

  func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

  /// A PMTiles v3 archive of one directory entry: `tile` repeated for the whole of zoom `zoom`.
  func wholeZoomRun(_ path: String, zoom: Int, tile: [UInt8]) throws {
    let first = ((UInt64(1) << (2 * UInt64(zoom))) - 1) / 3
    let run = UInt64(1) << (2 * UInt64(zoom))
    // one entry: its tile ID, run length, length, and offset + 1
    let root = varint(1) + varint(first) + varint(run) + varint(UInt64(tile.count)) + varint(1)
    let metadata = Array("{}".utf8)
    let rootOffset: UInt64 = 127
    let metadataOffset = rootOffset + UInt64(root.count)
    let dataOffset = metadataOffset + UInt64(metadata.count)
    var header = Array("PMTiles".utf8) + [3]
    for n in [rootOffset, UInt64(root.count), metadataOffset, UInt64(metadata.count), dataOffset, 0, dataOffset, UInt64(tile.count), run, 1, 1] {
      header += littleEndian(n)
    }
    // clustered, no internal compression, no tile compression, PNG, zooms
    header += [1, 1, 1, 2, UInt8(zoom), UInt8(zoom)]
    for n: Int32 in [-1_800_000_000, -850_000_000, 1_800_000_000, 850_000_000] { header += littleEndian(n) }
    header += [UInt8(zoom)] + littleEndian(Int32(0)) + littleEndian(Int32(0))
    #expect(header.count == 127)
    try Data(header + root + metadata + tile).write(to: URL(fileURLWithPath: path))
  }

  /// A 1 × 1 px PNG's bytes.
  func onePixel(_ dir: String) throws -> [UInt8] {
    var pixel = RGBAImage(width: 1, height: 1)
    pixel.pixels = [200, 30, 30, 255]
    try pixel.writePNG(to: dir + "/one.png")
    return try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/one.png")))
  }

  @Test("a PMTiles run of every tile of zoom 11 (4 million 1 × 1 px tiles) is refused in one line, at once")
  func pmtilesRunOfTinyTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try wholeZoomRun(dir + "/run.pmtiles", zoom: 11, tile: try onePixel(dir))
    let started = Date()
    let run = try runTool([dir + "/run.pmtiles", "-o", dir + "/out", "-q", "--dry-run"], timeout: 30)
    #expect(!run.signalled && run.status == 1 && run.stderrLines.count == 1, "\(run.status) \(run.stderr)")
    #expect(run.stderr.contains("run.pmtiles") && run.stderr.contains("holds more than 31250 tiles"), "\(run.stderr)")
    #expect(Date().timeIntervalSince(started) < 10)
    // a run of 1,024 tiles within the budget's count still tiles; within --max-memory 1 (61 tiles) it does not
    try wholeZoomRun(dir + "/z5.pmtiles", zoom: 5, tile: try onePixel(dir))
    let small = try runTool([dir + "/z5.pmtiles", "-o", dir + "/out5", "-q", "--dry-run"], timeout: 30)
    #expect(small.status == 0, "\(small.stderr)")
    let tight = try runTool([dir + "/z5.pmtiles", "-o", dir + "/out5", "-q", "--dry-run", "--max-memory", "1"], timeout: 30)
    #expect(tight.status == 1 && tight.stderr.contains("holds more than 61 tiles"), "\(tight.stderr)")
  }

  @Test("an MBTiles of 40,000 1 × 1 px tiles at its deepest zoom is refused in one line, at once")
  func mbtilesOfTinyTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let png = try onePixel(dir)
    let code = """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("CREATE TABLE metadata (name TEXT, value TEXT)")
      db.execute("CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
      db.executemany("INSERT INTO metadata VALUES (?, ?)", [("name", "tiny"), ("format", "png"), ("minzoom", "8"), ("maxzoom", "8")])
      png = open(sys.argv[2], "rb").read()
      db.executemany("INSERT INTO tiles VALUES (8, ?, ?, ?)", ((i % 200, i // 200, png) for i in range(40000)))
      db.commit()
      """
    #expect(try runPython(code, [dir + "/tiny.mbtiles", dir + "/one.png"]) == 0)
    #expect(png.count > 0)
    let started = Date()
    let run = try runTool([dir + "/tiny.mbtiles", "-o", dir + "/out", "-q"], timeout: 60)
    #expect(!run.signalled && run.status == 1 && run.stderrLines.count == 1, "\(run.status) \(run.stderr)")
    #expect(run.stderr.contains("tiny.mbtiles") && run.stderr.contains("holds more than 31250 tiles"), "\(run.stderr)")
    #expect(Date().timeIntervalSince(started) < 10)
  }

  @Test("an output whose manifest's ranges were widened to the whole grid re-tiles from the tiles its rows list, as before")
  func widenedManifestRanges() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let made = try runTool([officePlan, "--center", "52.52,13.4", "--meters-per-pixel", "0.05", "--max-zoom", "19", "-q", "-o", dir + "/src"])
    #expect(made.status == 0, "\(made.stderr)")
    let sound = try runTool([dir + "/src", "--max-zoom", "18", "-o", dir + "/sound"], timeout: 60)
    #expect(sound.status == 0, "\(sound.stderr)")
    // every level's ranges widened to its zoom's whole grid: 2^38 cells at zoom 19
    let manifestPath = dir + "/src/manifest.json"
    var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as? [String: Any])
    var levels = try #require(object["levels"] as? [[String: Any]])
    for i in levels.indices {
      let zoom = try #require(levels[i]["zoom"] as? Int)
      levels[i]["xRange"] = [0, (1 << zoom) - 1]
      levels[i]["yRange"] = [0, (1 << zoom) - 1]
    }
    object["levels"] = levels
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: manifestPath))
    let started = Date()
    let wide = try runTool([dir + "/src", "--max-zoom", "18", "-o", dir + "/wide"], timeout: 30)
    #expect(!wide.signalled && wide.status == 0, "\(wide.status) \(wide.stderr)")
    #expect(Date().timeIntervalSince(started) < 15)
    let line = { (text: String) in text.split(separator: "\n").first { $0.contains("re-tiled from zoom") }.map(String.init) }
    #expect(line(wide.stderr) != nil && line(wide.stderr) == line(sound.stderr), "\(wide.stderr)")
    let tiles = { (root: String) in snapshot(root).filter { $0.key.hasSuffix(".png") } }
    #expect(!tiles(dir + "/sound").isEmpty && tiles(dir + "/wide") == tiles(dir + "/sound"))
  }
}
