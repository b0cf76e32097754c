import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutVips

/// Placement warnings and refusals, and pixel types, as a user sees them.
@Suite("no silent misplacement, no garbage pixels")
struct RefusalTests {
  /// A plain PNG of the given size.
  func png(_ dir: String, width: Int, height: Int) throws -> String {
    var image = RGBAImage(width: width, height: height)
    for i in stride(from: 0, to: image.pixels.count, by: 4) {
      image.pixels[i] = UInt8((i / 4) % 251)
      image.pixels[i + 3] = 255
    }
    try image.writePNG(to: dir + "/plan.png")
    return dir + "/plan.png"
  }

  @Test("bounds typed longitude first: a warning naming both aspects and the swap; --strict makes it an error")
  func swappedBounds() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // 1.52:1, the ground aspect of 52.5100…52.5160 N × 13.3700…13.3850 E
    let plan = try png(dir, width: 304, height: 200)
    let swapped = "13.3700,52.5100,13.3850,52.5160"
    let warned = try runBinary([plan, "--bounds", swapped, "-o", dir + "/out"])
    #expect(warned.status == 0)
    #expect(warned.stderr.contains("warning: --bounds: the box is"))
    #expect(warned.stderr.contains("(aspect 0.389)") && warned.stderr.contains("(aspect 1.520)"))
    #expect(warned.stderr.contains("latitude and longitude look swapped: did you mean --bounds 52.51,13.37,52.516,13.385?"))
    let strict = try runBinary([plan, "--bounds", swapped, "--strict", "-o", dir + "/strict"])
    #expect(strict.status == 2)
    #expect(strict.stderr.hasPrefix("error: --strict: --bounds: the box is"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/strict"))
    // typed the right way round: silent
    let right = try runBinary([plan, "--bounds", "52.5100,13.3700,52.5160,13.3850", "--strict", "-o", dir + "/right"])
    #expect(right.status == 0 && !right.stderr.contains("warning: --bounds"))
  }

  @Test("bounds of the wrong shape warn without suggesting a swap that would not fit either")
  func stretchedBounds() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let plan = try png(dir, width: 200, height: 200)
    let run = try runBinary([plan, "--bounds", "52.5100,13.3700,52.5160,13.3850", "-o", dir + "/out", "--dry-run"])
    #expect(run.status == 0 && run.stderr.contains("warning: --bounds") && !run.stderr.contains("swapped"))
  }

  @Test("a control-point fit far off is refused unless --allow-residual accepts it")
  func residual() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let plan = try png(dir, width: 400, height: 300)
    // four corners of a small box; the last one's latitude mistyped by 0.001° (~110 m, ~100 px)
    let points = [
      "0,0,51.5010,-0.1290", "400,0,51.5010,-0.1250", "400,300,51.4993,-0.1250", "0,300,51.4983,-0.1290",
    ].flatMap { ["--gcp", $0] }
    let refused = try runBinary([plan] + points + ["-o", dir + "/out"])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("error: --gcp: the control points fit with an RMS residual of"))
    #expect(refused.stderr.contains("--allow-residual") && refused.stderr.contains("--gcp #"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try runTilecut([plan] + points + ["--allow-residual", "1000", "-o", dir + "/ok"]) == 0)
  }

  @Test("a plain image gets one note that it is placed in pixel space, and how to georeference it")
  func rasterNotice() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let plan = try png(dir, width: 300, height: 200)
    let run = try runBinary([plan, "-o", dir + "/out"])
    #expect(run.status == 0)
    let notes = run.stderr.split(separator: "\n").filter { $0.hasPrefix("note: ") && !$0.contains("upsampled") }
    #expect(notes.count == 1)
    #expect(notes.first?.contains("no georeference") == true && notes.first?.contains("--bounds") == true)
  }

  @Test("a FIFO or directory given as a world file, a .prj or a --source-crs file is refused at once, named as what it is")
  func nonRegularSidecars() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let plan = try png(dir, width: 64, height: 64)
    #expect(mkfifo(dir + "/pipe.pgw", 0o644) == 0)
    let fifoWorld = try runBinary([plan, "--world-file", dir + "/pipe.pgw", "--source-crs", "EPSG:3857", "-o", dir + "/a"])
    #expect(fifoWorld.status == 1 && fifoWorld.stderr.contains("pipe.pgw: is a FIFO (named pipe)"), "\(fifoWorld.stderr)")
    try "1\n0\n0\n-1\n0\n0\n".write(toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
    #expect(mkfifo(dir + "/plan.prj", 0o644) == 0)
    // named after the input, it is refused as the input's sidecar before anything reads it
    let fifoPrj = try runBinary([plan, "--world-file", dir + "/plan.pgw", "-o", dir + "/b"])
    #expect(fifoPrj.status == 1 && fifoPrj.stderr.contains("plan.prj beside it is a FIFO (named pipe)"), "\(fifoPrj.stderr)")
    #expect(unlink(dir + "/plan.prj") == 0 && mkfifo(dir + "/crs.wkt", 0o644) == 0)
    let fifoCRS = try runBinary([plan, "--world-file", dir + "/plan.pgw", "--source-crs", dir + "/crs.wkt", "-o", dir + "/c"])
    #expect(fifoCRS.status != 0 && fifoCRS.stderr.contains("--source-crs") && fifoCRS.stderr.contains("FIFO"), "\(fifoCRS.stderr)")
    try FileManager.default.createDirectory(atPath: dir + "/folder.pgw", withIntermediateDirectories: false)
    let folder = try runBinary([plan, "--world-file", dir + "/folder.pgw", "--source-crs", "EPSG:3857", "-o", dir + "/d"])
    #expect(folder.status == 1 && folder.stderr.contains("folder.pgw: is a directory"), "\(folder.stderr)")
    for name in ["a", "b", "c", "d"] { #expect(!FileManager.default.fileExists(atPath: dir + "/" + name)) }
  }

  @Test("a GeoTIFF placed in no CRS is refused with what to do; --source-crs or a .prj gives it one")
  func geoTIFFWithoutCRS() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoTIFFWriter.write(
      path: dir + "/nocrs.tif", width: 8, height: 8, bands: 3, pixels: [UInt8](repeating: 90, count: 192),
      tiepoint: [0, 0, 0, 390000, 5_820_000, 0], scale: [1, 1, 0])
    let run = try runBinary([dir + "/nocrs.tif", "-o", dir + "/out"])
    #expect(run.status == 1 && run.stderr.contains("no CRS") && run.stderr.contains("--source-crs"))
    #expect(try runTilecut([dir + "/nocrs.tif", "--source-crs", "EPSG:32633", "-o", dir + "/ok"]) == 0)
    // or a .prj beside it
    try "EPSG:32633".write(toFile: dir + "/nocrs.prj", atomically: true, encoding: .utf8)
    #expect(try runTilecut([dir + "/nocrs.tif", "-o", dir + "/prj"]) == 0)
  }

  @Test("more than 4 bands is refused naming the count and --bands; --bands picks them")
  func sixBands() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var pixels = [UInt8](repeating: 0, count: 32 * 16 * 6)
    for i in 0..<(32 * 16) {
      for b in 0..<6 { pixels[i * 6 + b] = UInt8(b * 40) }
    }
    try GeoTIFFWriter.write(
      path: dir + "/six.tif", width: 32, height: 16, bands: 6, pixels: pixels, tiepoint: [0, 0, 0, 390000, 5_820_000, 0],
      scale: [1, 1, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)])
    let refused = try runBinary([dir + "/six.tif", "-o", dir + "/out"])
    #expect(refused.status == 1 && refused.stderr.contains("has 6 bands") && refused.stderr.contains("--bands R,G,B[,A]"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try runTilecut([dir + "/six.tif", "--bands", "6,4,2", "--tile-size", "256", "-o", dir + "/ok"]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/ok/manifest.json")))
    let level = try #require(manifest.levels.max { $0.zoom < $1.zoom })
    let tile = try RGBAImage.decode(file: dir + "/ok/" + (try TileNameTemplate(manifest.name)).path(floor: 1, tileSize: 256, tile: level.tiles[0]))
    let opaque = stride(from: 0, to: tile.pixels.count, by: 4).first { tile.pixels[$0 + 3] == 255 }
    let i = try #require(opaque)
    #expect(Array(tile.pixels[i..<(i + 3)]) == [200, 120, 40])
    let bad = try runBinary([dir + "/six.tif", "--bands", "1,2,9", "-o", dir + "/bad"])
    #expect(bad.status == 2 && bad.stderr.contains("there is no band 9"))
  }

  /// An Int16 elevation model in UTM 33N: value 10·x, a nodata block in the middle.
  func writeDEM(_ path: String, nodataTag: String?) throws {
    let (w, h) = (64, 48)
    var samples = [Int16](repeating: 0, count: w * h)
    for y in 0..<h {
      for x in 0..<w { samples[y * w + x] = (16..<32).contains(x) && (16..<32).contains(y) ? -9999 : Int16(10 * x) }
    }
    try GeoTIFFWriter.write(
      path: path, width: w, height: h, bands: 1, bits: 16, sampleFormat: 2, pixels: samples.withUnsafeBytes { Array($0) },
      tiepoint: [0, 0, 0, 390000, 5_820_000, 0], scale: [4, 4, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)],
      nodata: nodataTag)
  }

  /// The deepest 256 px tiles of a run, decoded.
  func deepestTiles(_ root: String) throws -> [RGBAImage] {
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: root + "/manifest.json")))
    let level = try #require(manifest.levels.filter { $0.tileSize == 256 }.max { $0.zoom < $1.zoom })
    let template = try TileNameTemplate(manifest.name)
    return try level.tiles.map { try RGBAImage.decode(file: root + "/" + template.path(floor: 1, tileSize: 256, tile: $0)) }
  }

  @Test("an Int16 DEM is scaled to grey over its data range, nodata transparent, with a note; --scale and --nodata choose")
  func elevationModel() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeDEM(dir + "/dem.tif", nodataTag: "-9999")
    let run = try runBinary([dir + "/dem.tif", "--tile-size", "256", "--max-zoom", "16", "-o", dir + "/out"])
    #expect(run.status == 0)
    #expect(run.stderr.contains("note: \(dir)/dem.tif is one band of 16-bit signed samples: grey from 0 (black) to 630 (white)"))
    #expect(run.stderr.contains("nodata -9999 is transparent (GDAL_NODATA tag)"))
    let tiles = try deepestTiles(dir + "/out")
    var greys: [UInt8] = []
    var transparentInside = 0
    for tile in tiles {
      for i in stride(from: 0, to: tile.pixels.count, by: 4) where tile.pixels[i + 3] == 255 {
        #expect(tile.pixels[i] == tile.pixels[i + 1] && tile.pixels[i + 1] == tile.pixels[i + 2])
        greys.append(tile.pixels[i])
      }
      // a row through the nodata block: opaque on both sides of it, transparent within
      for y in 0..<256 {
        let row = (0..<256).map { tile[$0, y].a }
        guard let first = row.firstIndex(of: 255), let last = row.lastIndex(of: 255) else { continue }
        transparentInside += row[first...last].filter { $0 == 0 }.count
      }
    }
    #expect(transparentInside > 1000)
    #expect((greys.min() ?? 255) <= 8 && (greys.max() ?? 0) >= 240)
    // the same file without the tag, nodata and range given on the command line
    try writeDEM(dir + "/plain.tif", nodataTag: nil)
    #expect(
      try runTilecut([dir + "/plain.tif", "--nodata", "-9999", "--scale", "0,1260", "--tile-size", "256", "--max-zoom", "16", "-o", dir + "/b"])
        == 0)
    var brightest: UInt8 = 0
    for t in try deepestTiles(dir + "/b") {
      for i in stride(from: 0, to: t.pixels.count, by: 4) where t.pixels[i + 3] == 255 { brightest = max(brightest, t.pixels[i]) }
    }
    // 630 of 0…1260 is mid-grey
    #expect(brightest >= 120 && brightest <= 129)
  }

  @Test("8-bit colour with GDAL_NODATA: a collar whose every band is the value is transparent, a pixel with one band at it is not")
  func colourCollar() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (w, h) = (64, 48)
    var rgb = [UInt8](repeating: 0, count: w * h * 3)
    for y in 0..<h {
      for x in 16..<w {
        // red 0 on the right half: not nodata, since green and blue are not
        rgb[(y * w + x) * 3] = x < 40 ? 200 : 0
        rgb[(y * w + x) * 3 + 1] = 150
        rgb[(y * w + x) * 3 + 2] = 100
      }
    }
    try GeoTIFFWriter.write(
      path: dir + "/collar.tif", width: w, height: h, bands: 3, pixels: rgb, tiepoint: [0, 0, 0, 390000, 5_820_000, 0],
      scale: [4, 4, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)], nodata: "0")
    let run = try runBinary([dir + "/collar.tif", "--tile-size", "256", "--max-zoom", "16", "-o", dir + "/out"])
    #expect(run.status == 0 && run.stderr.contains("every colour band is 0 are transparent"))
    var transparent = 0
    var redless = 0
    for tile in try deepestTiles(dir + "/out") {
      for i in stride(from: 0, to: tile.pixels.count, by: 4) {
        let (r, g, a) = (tile.pixels[i], tile.pixels[i + 1], tile.pixels[i + 3])
        if a == 0 { transparent += 1 }
        if a == 255 && r == 0 && g == 150 { redless += 1 }
      }
    }
    #expect(redless > 100)
    #expect(transparent > 0)
    // compared with no nodata: the collar is black and opaque
    try GeoTIFFWriter.write(
      path: dir + "/plain.tif", width: w, height: h, bands: 3, pixels: rgb, tiepoint: [0, 0, 0, 390000, 5_820_000, 0],
      scale: [4, 4, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)])
    #expect(try runTilecut([dir + "/plain.tif", "--tile-size", "256", "--max-zoom", "16", "-o", dir + "/plain"]) == 0)
    let opaque = { (tiles: [RGBAImage]) in
      tiles.reduce(0) { n, t in n + stride(from: 3, to: t.pixels.count, by: 4).filter { t.pixels[$0] == 255 }.count }
    }
    let withNodata = opaque(try deepestTiles(dir + "/out"))
    let without = opaque(try deepestTiles(dir + "/plain"))
    // a quarter of the image (16 of 64 columns) is the collar
    #expect(Double(without - withNodata) > 0.2 * Double(without))
  }

  @Test(
    "georeferencing numbers that place nothing are refused as input errors, no trap, no output",
    arguments: [
      ([0.0, 0, 0, Double.nan, 5_820_000, 0], [1.0, 1, 0]), ([0.0, 0, 0, 390000, 5_820_000, 0], [0.0, 0, 0]),
      ([0.0, 0, 0, 1e15, 1e15, 0], [1.0, 1, 0]), ([0.0, 0, 0, 390000, 5_820_000, 0], [1e300, 1e300, 0]),
    ])
  func impossibleNumbers(tiepoint: [Double], scale: [Double]) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoTIFFWriter.write(
      path: dir + "/bad.tif", width: 8, height: 8, bands: 3, pixels: [UInt8](repeating: 90, count: 192), tiepoint: tiepoint,
      scale: scale, shortKeys: [(.modelType, 1), (.projectedCSType, 32633)])
    let run = try runBinary([dir + "/bad.tif", "-o", dir + "/out"])
    #expect(run.status == 1 && run.stderr.hasPrefix("error: \(dir)/bad.tif: "), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("a GeoTIFF's control points that disagree are refused unless --allow-residual accepts them")
  func geoTIFFControlPoints() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var fixture = GeoFixture.controlPoints
    fixture.misplace = 60  // metres: 100 px at 0.6 m
    try fixture.write(to: dir + "/gcp.tif")
    let refused = try runBinary([dir + "/gcp.tif", "-o", dir + "/out"])
    #expect(refused.status == 1 && refused.stderr.contains("control points fit with an RMS residual of"))
    #expect(refused.stderr.contains("--allow-residual"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try runTilecut([dir + "/gcp.tif", "--allow-residual", "200", "-o", dir + "/ok"]) == 0)
  }
}
