import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutMBTiles
import TilecutPMTiles
import TilecutVips

/// `../shared/data/formats-corpus/mbtiles` beside the repository (its SOURCES.md says
/// what each file is), found by walking up from this file; nil when absent.
let mbtilesCorpus: String? = TestEnvironment.sharedData("formats-corpus/mbtiles")

/// Every tile of an MBTiles file, decoded, by XYZ cell.
func decodedTiles(mbtiles path: String) throws -> [TileCoordinate: RGBAImage] {
  var out: [TileCoordinate: RGBAImage] = [:]
  try MBTilesReader(path: path).forEachRow { row in
    guard let tile = row.tile else { return }
    out[tile] = try RGBAImage.decode(bytes: row.data)
  }
  return out
}

/// The largest and the mean channel difference of two tiles' pixels; where both are
/// fully transparent the colour does not count.
func difference(_ a: RGBAImage, _ b: RGBAImage) -> (max: Int, mean: Double) {
  guard a.width == b.width, a.height == b.height else { return (255, 255) }
  var worst = 0
  var sum = 0
  var count = 0
  for i in stride(from: 0, to: a.pixels.count, by: 4) where a.pixels[i + 3] != 0 || b.pixels[i + 3] != 0 {
    for c in 0..<4 {
      let d = abs(Int(a.pixels[i + c]) - Int(b.pixels[i + c]))
      worst = max(worst, d)
      sum += d
      count += 1
    }
  }
  return (worst, count == 0 ? 0 : Double(sum) / Double(count))
}

/// The Web-Mercator extent of tile (z, x, y) in degrees, from the textbook formula
/// (not tilecut's code): west, south, east, north.
func tileExtent(z: Int, x: Int, y: Int) -> (west: Double, south: Double, east: Double, north: Double) {
  let n = Double(1 << z)
  func lat(_ row: Double) -> Double { atan(sinh(Double.pi * (1 - 2 * row / n))) * 180 / .pi }
  return (Double(x) / n * 360 - 180, lat(Double(y + 1)), Double(x + 1) / n * 360 - 180, lat(Double(y)))
}

@Suite("tile stores as sources")
struct TileSourceTests {
  @Test("a tilecut output re-tiled into 512 px MBTiles matches a direct 512 px run of the same image")
  func outputRetiled() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let world = officePlan.replacingOccurrences(of: "office.png", with: "office-berlin.pgw")
    let src = try runTool([officePlan, "--world-file", world, "--tile-size", "256", "--max-zoom", "19", "-q", "-o", dir + "/src"])
    #expect(src.status == 0, "\(src.stderr)")
    // 256 px tiles at zoom 19 hold the density of 512 px tiles at zoom 18
    let re = try runTool([dir + "/src", "--tile-size", "512", "--store", "mbtiles", "--max-zoom", "18", "-o", dir + "/re"])
    #expect(re.status == 0, "\(re.stderr)")
    #expect(re.stderr.contains("re-tiled from zoom 19, 5 tiles of 256 px"), "\(re.stderr)")
    #expect(re.stderr.contains("placed by tiles, CRS EPSG:3857"), "\(re.stderr)")
    let direct = try runTool([
      officePlan, "--world-file", world, "--tile-size", "512", "--store", "mbtiles", "--max-zoom", "18", "-q", "-o", dir + "/direct",
    ])
    #expect(direct.status == 0, "\(direct.stderr)")
    let a = try decodedTiles(mbtiles: dir + "/re/L1_512.mbtiles")
    let b = try decodedTiles(mbtiles: dir + "/direct/L1_512.mbtiles")
    #expect(
      Set(a.keys) == Set(b.keys), "\(a.keys.sorted { $0.description < $1.description }) vs \(b.keys.sorted { $0.description < $1.description })")
    #expect(a.keys.contains { $0.zoom == 18 })
    for (tile, image) in a {
      guard let other = b[tile] else { continue }
      let d = difference(image, other)
      // measured: identical (max 0) at every zoom; resampling at the same density copies
      #expect(d.max <= 2 && d.mean <= 0.5, "\(tile): max \(d.max), mean \(d.mean)")
    }
    // the same inputs again: nothing to do
    let again = try runTool([dir + "/src", "--tile-size", "512", "--store", "mbtiles", "--max-zoom", "18", "-o", dir + "/re"])
    #expect(again.status == 0 && again.stderr.contains("up to date"), "\(again.stderr)")
  }

  @Test(
    "an MBTiles re-tiled at its own zoom and size gives back its tiles, placed on their cells",
    .enabled(if: mbtilesCorpus != nil, "the shared corpus ../shared/data/formats-corpus/mbtiles is absent"))
  func corpusRetiled() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = (mbtilesCorpus ?? "") + "/geotools_world_lakes.mbtiles"
    let r = try runTool([source, "--tile-size", "256", "--store", "mbtiles", "-q", "-o", dir + "/out"])
    #expect(r.status == 0, "\(r.stderr)")
    let theirs = try decodedTiles(mbtiles: source).filter { $0.key.zoom == 4 }
    let ours = try decodedTiles(mbtiles: dir + "/out/L1_256.mbtiles")
    #expect(theirs.count == 64)
    // the default pyramid ends at the store's deepest zoom
    #expect(ours.keys.map(\.zoom).max() == 4)
    for (tile, image) in theirs {
      let mine = try #require(ours[tile], "\(tile) missing")
      let d = difference(image, mine)
      #expect(d.max <= 1, "\(tile): max \(d.max)")
    }
    // placement: the tiles' own extent (z4, x 8–15, y 8–15), by the formula; its bounds'
    // east of 180.00000000000003 is not valid and does not clip
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    let f = try #require(manifest.footprints.first)
    let nw = tileExtent(z: 4, x: 8, y: 8)
    let se = tileExtent(z: 4, x: 15, y: 15)
    #expect(abs(f.west - nw.west) < 1e-9 && abs(f.north - nw.north) < 1e-9, "\(f)")
    #expect(abs(f.east - se.east) < 1e-9 && abs(f.south - se.south) < 1e-9, "\(f)")
  }

  @Test(
    "valid MBTiles bounds clip the raster as GDAL does: size and corners as gdalinfo says",
    .enabled(if: mbtilesCorpus != nil, "the shared corpus ../shared/data/formats-corpus/mbtiles is absent"))
  func boundsClip() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = (mbtilesCorpus ?? "") + "/mbutil_one_tile.mbtiles"
    let info = try runTool([], shell: "gdalinfo -json '\(source)'")
    try #require(info.status == 0, "gdalinfo: \(info.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
    let size = try #require(json["size"] as? [Int])
    let corners = try #require(json["cornerCoordinates"] as? [String: [Double]])
    let r = try runTool([source, "-q", "-o", dir + "/out"])
    #expect(r.status == 0, "\(r.stderr)")
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    let s = try #require(manifest.sources.first)
    #expect([s.width, s.height] == size, "ours \(s.width) × \(s.height), GDAL's \(size)")
    // the footprint's corners in EPSG:3857 metres against GDAL's, within a quarter pixel
    let f = try #require(manifest.footprints.first)
    let r0 = 6_378_137.0
    func x(_ lon: Double) -> Double { lon * .pi / 180 * r0 }
    func y(_ lat: Double) -> Double { log(tan(.pi / 4 + lat * .pi / 360)) * r0 }
    let pixel = 2 * .pi * r0 / 512  // zoom 1, 256 px tiles
    let ul = try #require(corners["upperLeft"])
    let lr = try #require(corners["lowerRight"])
    #expect(abs(x(f.west) - ul[0]) < pixel / 4 && abs(y(f.north) - ul[1]) < pixel / 4, "\(f) vs \(corners)")
    #expect(abs(x(f.east) - lr[0]) < pixel / 4 && abs(y(f.south) - lr[1]) < pixel / 4, "\(f) vs \(corners)")
  }

  @Test(
    "a store's holes stay holes: no tile where it has none",
    .enabled(if: mbtilesCorpus != nil, "the shared corpus ../shared/data/formats-corpus/mbtiles is absent"))
  func holes() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = (mbtilesCorpus ?? "") + "/nodembtiles_some_empty_tiles.mbtiles"
    let r = try runTool([source, "--tile-size", "256", "-q", "-o", dir + "/out"])
    #expect(r.status == 0, "\(r.stderr)")
    let theirs = try decodedTiles(mbtiles: source).filter { $0.key.zoom == 2 }
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    let level = try #require(manifest.levels.first { $0.tileSize == 256 && $0.zoom == 2 })
    #expect(level.tileCount == theirs.count && theirs.count == 7)
    for tile in theirs.keys { #expect(level.hasTile(x: tile.x, y: tile.y), "\(tile)") }
  }

  @Test("refusals: one line naming the file, nothing written")
  func refusals() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let two = try runTool([officePlan, officePlan, "--bounds", "51.5006,-0.1275,51.5016,-0.1255", "--max-zoom", "17", "-q", "-o", dir + "/two"])
    #expect(two.status == 0, "\(two.stderr)")
    let cases: [([String], String)] = [
      ([dir + "/two"], "holds floors 1, 2: name the one to re-tile"),
      ([dir + "/two[floor=7]"], "has no floor 7; it has 1, 2"),
      ([officePlan + "[floor=1]"], "names a floor of a tilecut output, and this is none"),
      ([dir + "/two[floor=2]", "--max-pixels", "1000"], "more than --max-pixels 1000"),
      ([dir + "/two[floor=2]", "--bands", "1,2,3"], "is a tile store"),
    ]
    for (args, words) in cases {
      let r = try runTool(args + ["-o", dir + "/out"])
      #expect(r.status != 0 && r.stderrLines.count == 1 && r.stderr.contains(words), "\(args): \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/out"), "\(args)")
    }
    let one = try runTool([dir + "/two[floor=2]", "-q", "-o", dir + "/floor2"])
    #expect(one.status == 0, "\(one.stderr)")
    // a store of vector tiles: named as such
    let vector = dir + "/vector.mbtiles"
    let db = try MBTilesWriter(path: vector, digest: { _ in "" })
    _ = try db.put(TileCoordinate(zoom: 0, x: 0, y: 0), data: [0x1F, 0x8B, 0x08, 0x00])
    try db.finish(
      metadata: MBTilesMetadata(
        name: "v", format: "pbf", bounds: [-180, -85, 180, 85], center: (0, 0, 0), minZoom: 0, maxZoom: 0, version: "1", description: "",
        json: "{}"))
    let r = try runTool([vector, "-o", dir + "/out"])
    #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("vector.mbtiles: holds vector tiles (format pbf)"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    // a damaged PNG tile (its decoder's complaint is an error) and a GIF tile
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/two/manifest.json")))
    let level = try #require(manifest.levels.first { $0.tileSize == 256 && $0.floor.number == 1 && $0.tileCount > 0 })
    let cell = try #require(level.tiles.first)
    let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/two/256/L1_\(cell.zoom)_\(cell.x)_\(cell.y).png")))
    for (name, bytes, words) in [
      ("damaged", Array(png.prefix(png.count * 2 / 3)), "damaged.mbtiles: cannot be decoded"),
      ("gif", Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 32), "holds a tile at \(cell.zoom)/\(cell.x)/\(cell.y) that is GIF"),
    ] {
      let path = dir + "/\(name).mbtiles"
      let writer = try MBTilesWriter(path: path, digest: { _ in "" })
      _ = try writer.put(cell, data: bytes)
      try writer.finish(
        metadata: MBTilesMetadata(
          name: name, format: "png", bounds: [-180, -85, 180, 85], center: (0, 0, 0), minZoom: 0, maxZoom: cell.zoom, version: "1",
          description: "", json: "{}"))
      let r = try runTool([path, "-o", dir + "/out"])
      #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(words), "\(name): \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir + "/out"), "\(name)")
    }
  }

  @Test("a PMTiles archive re-tiled at its own zoom and size gives back its tiles; an output is a layer of a project")
  func pmtilesAndProject() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let world = officePlan.replacingOccurrences(of: "office.png", with: "office-berlin.pgw")
    let src = try runTool([
      officePlan, "--world-file", world, "--tile-size", "256", "--max-zoom", "19", "--store", "pmtiles", "-q", "-o", dir + "/src",
    ])
    #expect(src.status == 0, "\(src.stderr)")
    let archive = dir + "/src/L1_256.pmtiles"
    let re = try runTool([archive, "--tile-size", "256", "-q", "-o", dir + "/re"])
    #expect(re.status == 0, "\(re.stderr)")
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/re/manifest.json")))
    let reader = try PMTilesReader(path: archive)
    let deepest = try #require(manifest.levels.filter { $0.tileSize == 256 }.max { $0.zoom < $1.zoom })
    #expect(deepest.zoom == 19)
    var compared = 0
    for tile in deepest.tiles {
      let theirs = try #require(try reader.tile(z: 19, x: tile.x, y: tile.y), "\(tile) is not in the archive")
      let ours = try RGBAImage.decode(file: dir + "/re/256/L1_19_\(tile.x)_\(tile.y).png")
      let d = difference(try RGBAImage.decode(bytes: theirs), ours)
      #expect(d.max <= 1, "\(tile): max \(d.max)")
      compared += 1
    }
    #expect(compared == 5)
    // a project file: the output as one building's floor 1, composited with another
    let project = dir + "/tilecut.yml"
    try """
    output: tiles
    tileSizes: [256]
    maxZoom: 19
    buildings:
      - id: old
        floors:
          - floor: 1
            source: src[floor=1]
      - id: near
        floors:
          - floor: 1
            source: \(officePlan)
            bounds: [52.5160, 13.3790, 52.5168, 13.3805]
    """.write(toFile: project, atomically: true, encoding: .utf8)
    let built = try runTool(["build", project, "-q"], timeout: 300)
    #expect(built.status == 0, "\(built.stderr)")
    let composite = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/tiles/manifest.json")))
    #expect(composite.sources.map(\.path).contains("src"), "\(composite.sources.map(\.path))")
    #expect(composite.floors.count == 1)
  }
}
