import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutVips

@testable import Tilecut

/// The shared formats corpus's KML folder (`shared/data/formats-corpus/kml`), nil when absent.
let kmlCorpus: String? = TestEnvironment.sharedData("formats-corpus/kml")

/// A `width` × `height` picture at `path` (PNG or JPEG by its extension).
func writeOverlayPicture(_ path: String, width: Int, height: Int) throws {
  let rgb = geoPicture(width: width, height: height)
  var rgba = [UInt8](repeating: 255, count: width * height * 4)
  for i in 0..<(width * height) { (rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]) = (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]) }
  try RGBAImage(width: width, height: height, pixels: rgba).writePNG(to: path)
}

/// A ZIP archive written by Python's zipfile (an independent writer): each entry from a
/// file, deflated, or compressed by `method` ("bzip2").
func writeZip(_ path: String, entries: [(name: String, file: String)], method: String = "deflate") throws {
  let script = """
    import sys, zipfile
    kind = zipfile.ZIP_BZIP2 if sys.argv[2] == "bzip2" else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(sys.argv[1], "w", kind) as z:
        for pair in sys.argv[3:]:
            name, file = pair.split("=", 1)
            z.write(file, name)
    """
  _ = try runTool("python3", ["-c", script, path, method] + entries.map { "\($0.name)=\($0.file)" })
  #expect(FileManager.default.fileExists(atPath: path))
}

/// A KML document holding one GroundOverlay of `href` placed by `geometry` (its inner XML).
func overlayKML(href: String, geometry: String, prologue: String = "") -> String {
  """
  <?xml version="1.0" encoding="UTF-8"?>
  \(prologue)<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">
    <Document><GroundOverlay><name>Plan</name><Icon><href>\(href)</href></Icon>\(geometry)</GroundOverlay></Document>
  </kml>
  """
}

/// The placement tilecut gives `input` (a KML or KMZ) and its mapping, in-process.
func overlayPlacement(_ input: String) throws -> (placement: Placement, mapping: any SourceMapping, width: Int, height: Int) {
  let floors = try FloorResolver.resolve(inputs: [input], options: FloorOptions(), maxPixels: 1 << 30)
  let floor = try #require(floors.first)
  let placement = try #require(
    try PlacementOptions().resolve(floors: floors, pyramid: PyramidOptions(), printer: Printer(sink: { _ in })).first)
  let mapping: any SourceMapping = try ProjectedMapping.forPlacement(placement) ?? #require(PlacementMapping(placement))
  return (placement, mapping, floor.description.width, floor.description.height)
}

/// The largest distance, in source pixels, between each image corner and where the
/// placement puts the (longitude, latitude) expected there (top-left, top-right,
/// bottom-right, bottom-left).
func cornerError(_ input: String, expected: [(Double, Double)]) throws -> Double {
  let (_, mapping, w, h) = try overlayPlacement(input)
  let pixels = [(0.0, 0.0), (Double(w), 0.0), (Double(w), Double(h)), (0.0, Double(h))]
  let world = expected.map { WorldPoint(u: WebMercator.u(longitudeDegrees: $0.0), v: WebMercator.v(latitudeDegrees: $0.1)) }
  let back = mapping.pixels(of: world)
  return zip(back, pixels).map { hypot($0.x - $1.0, $0.y - $1.1) }.max() ?? .infinity
}

/// A LatLonBox's corners as Google Earth draws them, computed here independently: the
/// box's corners turned counter-clockwise by `rotation` degrees about its centre, in
/// longitude/latitude degrees (top-left, top-right, bottom-right, bottom-left).
func googleEarthBox(north: Double, south: Double, east: Double, west: Double, rotation: Double) -> [(Double, Double)] {
  let (cx, cy) = ((east + west) / 2, (north + south) / 2)
  let r = rotation * .pi / 180
  return [(west, north), (east, north), (east, south), (west, south)].map { lon, lat in
    (cx + (lon - cx) * cos(r) - (lat - cy) * sin(r), cy + (lon - cx) * sin(r) + (lat - cy) * cos(r))
  }
}

@Suite("KML and KMZ GroundOverlays")
struct KMLOverlayTests {
  @Test("a rotated LatLonBox is turned about its centre in lon/lat: corners within 0.25 px", arguments: [0.0, 30.0, -45.0, 90.0, 160.0])
  func rotatedBox(rotation: Double) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 300, height: 200)
    let box = "<LatLonBox><north>52.52</north><south>52.51</south><east>13.39</east><west>13.37</west><rotation>\(rotation)</rotation></LatLonBox>"
    try overlayKML(href: "plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    let expected = googleEarthBox(north: 52.52, south: 52.51, east: 13.39, west: 13.37, rotation: rotation)
    #expect(try cornerError(dir + "/doc.kml", expected: expected) < 0.25)
    let (placement, _, _, _) = try overlayPlacement(dir + "/doc.kml")
    #expect(placement.method == .kml)
    #expect(placement.note?.contains(rotation == 0 ? "LatLonBox" : "rotation") == true)
  }

  @Test("a hand-computed corner: a box turned 90° puts its north-west pixel corner at the box's south-west")
  func handComputedCorner() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 100, height: 100)
    // centre (10, 50), half-sides 0.01°: the top-left corner (9.99, 50.01) is (-0.01, +0.01)
    // from the centre; a quarter turn counter-clockwise takes (x, y) to (-y, x) = (-0.01, -0.01)
    let box = "<LatLonBox><north>50.01</north><south>49.99</south><east>10.01</east><west>9.99</west><rotation>90</rotation></LatLonBox>"
    try overlayKML(href: "plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    let (_, mapping, _, _) = try overlayPlacement(dir + "/doc.kml")
    let corner = try #require(mapping.world(of: [PixelPoint(x: 0, y: 0)]).first)
    #expect(abs(WebMercator.longitudeDegrees(u: corner.u) - 9.99) < 1e-9)
    #expect(abs(WebMercator.latitudeDegrees(v: corner.v) - 49.99) < 1e-9)
  }

  @Test("a gx:LatLonQuad in a KMZ puts the image's corners on the quad's corners (parallelogram or not)", arguments: [false, true])
  func quad(parallelogram: Bool) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 256, height: 192)
    // lower-left, lower-right, upper-right, upper-left
    let corners: [(Double, Double)] =
      parallelogram
      ? [(-0.1290, 51.5000), (-0.1200, 51.5020), (-0.1210, 51.5080), (-0.1300, 51.5060)]
      : [(-0.1290, 51.5000), (-0.1195, 51.5015), (-0.1215, 51.5085), (-0.1300, 51.5060)]
    let text = corners.map { "\($0.0),\($0.1),0" }.joined(separator: " ")
    let kml = overlayKML(href: "files/plan.png", geometry: "<gx:LatLonQuad><coordinates>\(text)</coordinates></gx:LatLonQuad>")
    try kml.write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try writeZip(dir + "/plan.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("files/plan.png", dir + "/plan.png")])
    try FileManager.default.removeItem(atPath: dir + "/plan.png")
    let expected = [corners[3], corners[2], corners[1], corners[0]]
    #expect(try cornerError(dir + "/plan.kmz", expected: expected) < 0.25)
    // between the corners, the edges straight in lon/lat: the bilinear map, on a grid
    // between the placement's own (25 × 25 against its 17 × 17), within 0.25 px
    let (_, mapping, w, h) = try overlayPlacement(dir + "/plan.kmz")
    var worst = 0.0
    for j in 0...24 {
      for i in 0...24 {
        let (s, t) = (Double(i) / 24, Double(j) / 24)
        let (ll, lr, ur, ul) = (corners[0], corners[1], corners[2], corners[3])
        let lon = ul.0 * (1 - s) * (1 - t) + ur.0 * s * (1 - t) + lr.0 * s * t + ll.0 * (1 - s) * t
        let lat = ul.1 * (1 - s) * (1 - t) + ur.1 * s * (1 - t) + lr.1 * s * t + ll.1 * (1 - s) * t
        let world = WorldPoint(u: WebMercator.u(longitudeDegrees: lon), v: WebMercator.v(latitudeDegrees: lat))
        let p = try #require(mapping.pixels(of: [world]).first)
        worst = max(worst, hypot(p.x - s * Double(w), p.y - t * Double(h)))
      }
    }
    #expect(worst < 0.25, "bilinear map off by \(worst) px")
    // the image came from the archive: nothing was extracted beside it
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["doc.kml", "plan.kmz"])
  }

  @Test("a KMZ is tiled end to end, its placement line naming the overlay and the rotation")
  func tiledKMZ() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 256, height: 256)
    let box = "<LatLonBox><north>48.86</north><south>48.85</south><east>2.30</east><west>2.29</west><rotation>45</rotation></LatLonBox>"
    try overlayKML(href: "img/plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try writeZip(dir + "/plan.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/plan.png")])
    let run = try runBinary([dir + "/plan.kmz", "--max-zoom", "15", "-o", dir + "/out"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("placed by kml (KML GroundOverlay 'Plan' of doc.kml (image img/plan.png), LatLonBox, rotation 45°)"))
    #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
  }

  @Test("placement options given with a KML replace its overlay's placement, and a note says so")
  func optionsReplaceOverlay() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 256, height: 256)
    let box = "<LatLonBox><north>48.86</north><south>48.85</south><east>2.30</east><west>2.29</west></LatLonBox>"
    try overlayKML(href: "plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    let run = try runBinary([dir + "/doc.kml", "--bounds", "10,20,11,21", "--max-zoom", "12", "-o", dir + "/out", "--dry-run"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("doc.kml: its GroundOverlay's placement is replaced by the options' (placed by bounds)"), "\(run.stderr)")
    #expect(run.stderr.contains("footprint S 10.000000 W 20.000000 N 11.000000 E 21.000000"), "\(run.stderr)")
  }

  @Test("an edited image beside an unchanged KML is tiled again, not taken for up to date")
  func editedImage() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func plain(_ rgb: (UInt8, UInt8, UInt8)) throws {
      var image = RGBAImage(width: 64, height: 64)
      for i in 0..<(64 * 64) {
        (image.pixels[4 * i], image.pixels[4 * i + 1], image.pixels[4 * i + 2], image.pixels[4 * i + 3]) = (rgb.0, rgb.1, rgb.2, 255)
      }
      try image.writePNG(to: dir + "/plan.png")
    }
    let box = "<LatLonBox><north>46.001</north><south>46.0</south><east>7.001</east><west>7.0</west></LatLonBox>"
    try overlayKML(href: "plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    func centre() throws -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
      #expect(try runTilecut([dir + "/doc.kml", "--min-zoom", "16", "--max-zoom", "16", "--tile-size", "256", "-o", dir + "/out"]) == 0)
      let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
      let level = try #require(manifest.levels.first { $0.tileSize == 256 && $0.zoom == 16 })
      // the tile holding the box's centre
      let world = WebMercator.worldPixels(zoom: 16)
      let (px, py) = (WebMercator.u(longitudeDegrees: 7.0005) * world, WebMercator.v(latitudeDegrees: 46.0005) * world)
      let tile = try #require(level.tiles.first { $0.x == Int(px) / 256 && $0.y == Int(py) / 256 })
      let template = try TileNameTemplate(manifest.name)
      let image = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 256, tile: tile))
      return image[Int(px) % 256, Int(py) % 256]
    }
    try plain((200, 30, 30))
    #expect(try centre().r == 200)
    try plain((30, 30, 200))
    let after = try centre()
    #expect(after.b == 200 && after.r == 30)
  }

  /// Runs tilecut on `input` and checks a refusal: non-zero, one line naming `input`
  /// and holding `says`, and no output written.
  func expectRefused(_ input: String, _ says: String, extra: [String] = [], dir: String) throws {
    let run = try runBinary([input, "-o", dir + "/out"] + extra)
    #expect(run.status != 0)
    let lines = run.stderr.split(separator: "\n").filter { !$0.isEmpty }
    #expect(lines.count == 1, "\(run.stderr)")
    #expect(lines.first?.hasPrefix("error: \(input)") == true, "\(run.stderr)")
    #expect(run.stderr.contains(says), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  @Test("a remote, absolute or escaping href is refused in one line naming the KML and the href")
  func hrefs() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
    try writeOverlayPicture(dir + "/outside.png", width: 64, height: 64)
    try FileManager.default.createSymbolicLink(atPath: dir + "/sub/link.png", withDestinationPath: dir + "/outside.png")
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    let cases = [
      ("https://example.com/plan.png", "tilecut never fetches an overlay's image"),
      ("../outside.png", "outside the KML's folder"),
      (dir + "/outside.png", "absolute path"),
      ("link.png", "leads out of the KML's folder"),
      ("missing.png", "does not exist"),
      ("doc.kml", "is a KML or KMZ, not an image"),
    ]
    for (href, says) in cases {
      try overlayKML(href: href, geometry: box).write(toFile: dir + "/sub/doc.kml", atomically: true, encoding: .utf8)
      try expectRefused(dir + "/sub/doc.kml", says, dir: dir)
    }
    if let corpus = kmlCorpus {
      try expectRefused(
        corpus + "/worldwind_groundoverlay_rotated_remote.kml", "http://kml-samples.googlecode.com/svn/trunk/resources/etna.jpg", dir: dir)
    } else {
      print("skipped the corpus's remote KML: ../shared/data/formats-corpus/kml is absent")
    }
  }

  @Test("an image that is a folder or a PMTiles archive is refused in one line naming the KML and the href")
  func imageOfAnotherKind() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/sub/gdir", withIntermediateDirectories: true)
    // a PMTiles archive's header: tilecut reads one as a source, never as an overlay's image
    #expect(FileManager.default.createFile(atPath: dir + "/sub/z2.pmtiles", contents: Data("PMTiles\u{3}".utf8) + Data(count: 120)))
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    for (href, says) in [
      ("gdir", "GroundOverlay 'Plan''s image gdir is a directory, not an image; a GroundOverlay's image is a raster"),
      (
        "z2.pmtiles", "GroundOverlay 'Plan''s image z2.pmtiles is a PMTiles archive (a tile store), not an image; a GroundOverlay's image is a raster"
      ),
    ] {
      try overlayKML(href: href, geometry: box).write(toFile: dir + "/sub/doc.kml", atomically: true, encoding: .utf8)
      try expectRefused(dir + "/sub/doc.kml", says, dir: dir)
    }
  }

  @Test(
    "an image that is an MBTiles store, a ZIP, a database or text is refused naming the KML and the href; every raster read before still is"
  )
  func imageNotARaster() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 16, height: 12)
    // an MBTiles store as tilecut's own stores lay one out, an IMDF venue's ZIP, a bare SQLite database
    let sqlite = """
      import sqlite3, sys
      c = sqlite3.connect(sys.argv[1])
      c.execute("CREATE TABLE metadata(name text, value text)")
      c.execute("CREATE TABLE tiles(zoom_level int, tile_column int, tile_row int, tile_data blob)")
      c.commit()
      sqlite3.connect(sys.argv[2]).execute("CREATE TABLE t(a int)")
      """
    _ = try runTool("python3", ["-c", sqlite, dir + "/s.mbtiles", dir + "/notes.db"])
    try Data("{}".utf8).write(to: URL(fileURLWithPath: dir + "/manifest.json"))
    try writeZip(dir + "/v.zip", entries: [("manifest.json", dir + "/manifest.json")])
    try Data("a list of rooms\n".utf8).write(to: URL(fileURLWithPath: dir + "/rooms.txt"))
    #expect(mkfifo(dir + "/fifo.png", 0o600) == 0)
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    let raster = "; a GroundOverlay's image is a raster (PNG, JPEG, WebP, TIFF or GIF)"
    for (index, (href, says)) in [
      ("s.mbtiles", "GroundOverlay 'Plan''s image s.mbtiles is an MBTiles store (a tile store), not an image" + raster),
      ("v.zip", "GroundOverlay 'Plan''s image v.zip is a ZIP archive, not an image" + raster),
      ("notes.db", "GroundOverlay 'Plan''s image notes.db is "),
      ("rooms.txt", "GroundOverlay 'Plan''s image rooms.txt is text, not an image" + raster),
    ].enumerated() {
      // a KML of its own each: what was read is kept by the file
      let kml = dir + "/doc\(index).kml"
      try overlayKML(href: href, geometry: box).write(toFile: kml, atomically: true, encoding: .utf8)
      do {
        _ = try OverlaySource.resolve(path: kml, page: nil)
        Issue.record("\(href) was taken as an overlay's image")
      } catch TilecutError.invalidInput(let path, let reason) {
        #expect(path == kml && reason.hasPrefix(says) && reason.hasSuffix(raster), "\(href): \(reason)")
        #expect(!reason.contains("IMDF") && !reason.contains("convert it"), "\(href): \(reason)")
      }
    }
    // not a regular file: not opened here (the input's own check refuses it), so not blocked on
    try overlayKML(href: "fifo.png", geometry: box).write(toFile: dir + "/fifo.kml", atomically: true, encoding: .utf8)
    #expect(try OverlaySource.resolve(path: dir + "/fifo.kml", page: nil)?.imageName == dir + "/fifo.png")
    // the rasters tilecut reads stay images: by their bytes, and through GDAL (ENVI has no
    // magic; a GeoPackage is an SQLite database, as an MBTiles store is)
    var accepted = ["plan.png"]
    for (format, name) in [("GTiff", "plan.tif"), ("JPEG", "plan.jpg"), ("ENVI", "plan.dat"), ("GPKG", "plan.gpkg")] {
      _ = try runTool("gdal_translate", ["-q", "-of", format, dir + "/plan.png", dir + "/" + name])
      accepted.append(name)
    }
    // the others by their magic, which is what is looked at here (their pixels are read later)
    for (name, head) in [
      ("plan.gif", "GIF89a"), ("plan.webp", "RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 "), ("plan.heic", "\u{0}\u{0}\u{0}\u{18}ftypheic"),
      ("big.tif", "II+\u{0}"),
    ] {
      try (Data(head.utf8) + Data(count: 64)).write(to: URL(fileURLWithPath: dir + "/" + name))
      accepted.append(name)
    }
    for (index, href) in accepted.enumerated() {
      let kml = dir + "/ok\(index).kml"
      try overlayKML(href: href, geometry: box).write(toFile: kml, atomically: true, encoding: .utf8)
      #expect(throws: Never.self, "\(href)") { _ = try OverlaySource.resolve(path: kml, page: nil) }
    }
  }

  @Test("zip bombs are refused before they are inflated: by compression ratio and by the memory budget")
  func zipBombs() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    try overlayKML(href: "img/plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    // 64 MB of zeros: bzip2 packs them into a few hundred bytes
    _ = FileManager.default.createFile(atPath: dir + "/zeros", contents: Data(count: 64 << 20))
    try writeZip(dir + "/bomb.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/zeros")], method: "bzip2")
    try expectRefused(dir + "/bomb.kmz", "entry img/plan.png (the image of GroundOverlay 'Plan') inflates", dir: dir)
    // 3 MB that do not compress, over --max-memory 1
    var random = SystemRandomNumberGenerator()
    _ = FileManager.default.createFile(atPath: dir + "/noise", contents: Data((0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }))
    try writeZip(dir + "/big.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/noise")])
    try expectRefused(dir + "/big.kmz", "more than the 1 MB it may take in memory", extra: ["--max-memory", "1"], dir: dir)
  }

  /// A 4.8 MB KMZ whose 503 MB PNG entry decoded to 503 MB more ran at 1022 MB under the
  /// 512 MB budget: an entry may take half of it, and its pixels with it all of it.
  @Test("a KMZ's image is refused when its inflated bytes and its pixels together pass --max-memory")
  func entryAndPixelsWithinBudget() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    try overlayKML(href: "plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    // 1024 × 768 pixels: 3.1 MB decoded; all noise (3.1 MB of PNG), or 70 % noise (2.2 MB)
    var random = SystemRandomNumberGenerator()
    for (name, noisyRows) in [("all", 768), ("most", 538)] {
      var picture = RGBAImage(width: 1024, height: 768)
      picture.pixels.withUnsafeMutableBytes { raw in
        for i in 0..<(1024 * 4 * noisyRows / 8) { raw.storeBytes(of: random.next() as UInt64, toByteOffset: 8 * i, as: UInt64.self) }
      }
      try picture.writePNG(to: dir + "/plan.png")
      try writeZip(dir + "/\(name).kmz", entries: [("doc.kml", dir + "/doc.kml"), ("plan.png", dir + "/plan.png")])
    }
    // over half of 5 MB: refused before it is inflated
    try expectRefused(dir + "/all.kmz", "more than the 3 MB it may take in memory", extra: ["--max-memory", "5"], dir: dir)
    // within half, but with its 3.1 MB of pixels over 5 MB
    try expectRefused(dir + "/most.kmz", "inflated from the archive, more than --max-memory 5 MB", extra: ["--max-memory", "5"], dir: dir)
  }

  /// Eight floors of one 100 MB entry held eight copies of it (1078 MB).
  @Test("overlays of one KMZ that show the same image share one copy of its bytes")
  func overlaysShareTheirImage() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    let overlay = "<GroundOverlay><Icon><href>plan.png</href></Icon>\(box)</GroundOverlay>"
    let kml = "<kml xmlns=\"http://www.opengis.net/kml/2.2\"><Document>\(overlay)\(overlay)</Document></kml>"
    try kml.write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try writeOverlayPicture(dir + "/plan.png", width: 64, height: 64)
    try writeZip(dir + "/two.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("plan.png", dir + "/plan.png")])
    let first = try #require(try OverlaySource.resolve(path: dir + "/two.kmz", page: 0))
    let second = try #require(try OverlaySource.resolve(path: dir + "/two.kmz", page: 1))
    guard case .bytes(let a, _) = first.image, case .bytes(let b, _) = second.image else {
      Issue.record("a KMZ's image is held as bytes")
      return
    }
    #expect(a == b && !a.isEmpty)
    #expect(a.withUnsafeBufferPointer { $0.baseAddress } == b.withUnsafeBufferPointer { $0.baseAddress }, "two copies of one entry")
  }

  @Test("a damaged image in a KMZ is refused at its header, naming the KMZ and the entry: PNG chunks, a truncated JPEG")
  func damagedEntries() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    try writeOverlayPicture(dir + "/plan.png", width: 128, height: 128)
    var png = try #require(FileManager.default.contents(atPath: dir + "/plan.png"))
    // a byte inside the first IDAT's data: its stream (and CRC) no longer hold
    let idat = try #require(png.range(of: Data("IDAT".utf8)))
    png[idat.upperBound + 20] ^= 0xFF
    #expect(FileManager.default.createFile(atPath: dir + "/bad.png", contents: png))
    try overlayKML(href: "img/plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try writeZip(dir + "/png.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/bad.png")])
    try expectRefused(dir + "/png.kmz", "entry img/plan.png is damaged: the compressed pixel data is corrupt", dir: dir)
    var picture = RGBAImage(width: 64, height: 64)
    for i in 0..<(64 * 64 * 4) { picture.pixels[i] = UInt8(truncatingIfNeeded: i * 7) }
    try picture.writeJPEG(to: dir + "/plan.jpg", orientation: 1)
    let jpeg = try #require(FileManager.default.contents(atPath: dir + "/plan.jpg"))
    #expect(FileManager.default.createFile(atPath: dir + "/bad.jpg", contents: jpeg.prefix(jpeg.count / 2)))
    try writeZip(dir + "/jpg.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/bad.jpg")])
    try expectRefused(dir + "/jpg.kmz", "entry img/plan.png is damaged (libjpeg", dir: dir)
  }

  /// A KMZ libzip cannot open was taken for a ZIP archive of another kind: "is a ZIP
  /// archive, which tilecut does not read; convert it to PNG, …". It is read as an
  /// overlay, whose reading says what libzip found.
  @Test("a KMZ cut short is refused in one line that says what libzip found")
  func cutShortKMZ() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    try writeOverlayPicture(dir + "/plan.png", width: 64, height: 64)
    try overlayKML(href: "img/plan.png", geometry: box).write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try writeZip(dir + "/whole.kmz", entries: [("doc.kml", dir + "/doc.kml"), ("img/plan.png", dir + "/plan.png")])
    let whole = try #require(FileManager.default.contents(atPath: dir + "/whole.kmz"))
    #expect(FileManager.default.createFile(atPath: dir + "/plan.kmz", contents: whole.prefix(whole.count - 30)))
    try expectRefused(dir + "/plan.kmz", "is not a ZIP archive libzip can read (Not a zip archive); zip its files again", dir: dir)
  }

  @Test("a document type or entity is refused: no XXE, no billion laughs", arguments: ["xxe", "laughs"])
  func entities(kind: String) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try writeOverlayPicture(dir + "/plan.png", width: 64, height: 64)
    let prologue =
      kind == "xxe"
      ? "<!DOCTYPE kml [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n"
      : "<!DOCTYPE kml [<!ENTITY a \"ha\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]>\n"
    let box = "<LatLonBox><north>1</north><south>0</south><east>1</east><west>0</west></LatLonBox>"
    let kml = overlayKML(href: "plan.png", geometry: box, prologue: prologue).replacingOccurrences(
      of: "<name>Plan</name>", with: "<name>&\(kind == "xxe" ? "xxe" : "c");</name>")
    try kml.write(toFile: dir + "/doc.kml", atomically: true, encoding: .utf8)
    try expectRefused(dir + "/doc.kml", "declares a document type", dir: dir)
  }

  @Test("a control character XML does not allow is named with its line and column, not as NSXMLParserErrorDomain error 9")
  func controlCharacter() throws {
    let kml = Array("<kml>\n<GroundOverlay><name>é x\u{1B}[31mRED</name></GroundOverlay></kml>".utf8)
    do {
      _ = try KMLDocument.overlays(kml)
      Issue.record("a KML holding ESC was read")
    } catch {
      #expect(error.reason == "holds a control character (U+001B) at line 2, column 25, which XML does not allow; remove it", "\(error.reason)")
    }
  }

  @Test("another XML error is not called a control character, though one follows: a byte that is no UTF-8, a lone &, a < in text")
  func notAControlCharacter() throws {
    let head = Array("<kml>\n<GroundOverlay><name>é x".utf8)
    let tail = Array("</name></GroundOverlay>\n<description>\u{1B}[31m</description></kml>".utf8)
    let cases: [([UInt8], String)] = [
      (head + [0xFF] + Array("y".utf8) + tail, "holds a byte that is not UTF-8 (0xFF) at line 2, column 25; KML is read as UTF-8: save it as UTF-8"),
      (head + [0xC3] + Array("(".utf8) + tail, "holds a byte that is not UTF-8 (0xC3) at line 2, column 25; KML is read as UTF-8: save it as UTF-8"),
      // a stray continuation byte (Latin-1's °, ©) is a column of its own, as the parser counts it
      (head + [0xB0] + Array("3".utf8) + tail, "holds a byte that is not UTF-8 (0xB0) at line 2, column 25; KML is read as UTF-8: save it as UTF-8"),
      (head + [0xA9] + Array(" 2020".utf8) + tail, "holds a byte that is not UTF-8 (0xA9) at line 2, column 25;"),
      (head + [0x80] + tail, "holds a byte that is not UTF-8 (0x80) at line 2, column 25;"),
      (head + [0xBF] + Array("é".utf8) + tail, "holds a byte that is not UTF-8 (0xBF) at line 2, column 25;"),
      // a byte-order mark is no column of line 1
      (
        [0xEF, 0xBB, 0xBF] + Array("<kml><a>P\u{1B}</a></kml>".utf8),
        "holds a control character (U+001B) at line 1, column 10, which XML does not allow"
      ),
      ([0xEF, 0xBB, 0xBF] + Array("<kml><a>\u{B0}\u{1B}</a></kml>".utf8), "holds a control character (U+001B) at line 1, column 10,"),
      (
        [0xEF, 0xBB, 0xBF] + Array("<kml><a>P&".utf8) + [0xB0] + Array("</a></kml>".utf8), "holds an '&' that starts no entity at line 1, column 10,"
      ),
      (
        head + Array(" & y".utf8) + tail,
        "holds an '&' that starts no entity at line 2, column 26, which XML does not allow; write &amp; for an ampersand"
      ),
      (
        head + Array(" < y".utf8) + tail,
        "holds a '<' that starts no element at line 2, column 26, which XML does not allow; write &lt; for a less-than sign"
      ),
      // on the control character's own line, before it
      (Array("<kml><a>& \u{1B}</a></kml>".utf8), "holds an '&' that starts no entity at line 1, column 9,"),
      // an error of another kind: the parser's own, at its place
      (Array("<kml><a>AT&T</a>\n<b>\u{1B}</b></kml>".utf8), "is not well-formed XML (line 1, column "),
      // and one at the parser's error is named, after text the parser only warned about
      (
        Array("<kml><gx:a>x</gx:a>\n<b>ab\u{7}</b></kml>".utf8),
        "holds a control character (U+0007) at line 2, column 6, which XML does not allow; remove it"
      ),
    ]
    for (kml, says) in cases {
      do {
        _ = try KMLDocument.overlays(kml)
        Issue.record("read: \(says)")
      } catch {
        #expect(error.reason.hasPrefix(says), "\(error.reason)")
        if !says.contains("control character") { #expect(!error.reason.contains("control character"), "\(error.reason)") }
      }
    }
  }

  @Test("the corpus's KMZs: bare GroundOverlay root, nested overlays by page, an upper-case .JPEG entry")
  func corpus() throws {
    guard let corpus = kmlCorpus else {
      print("skipped: ../shared/data/formats-corpus/kml is absent")
      return
    }
    // img/NASA_KSC.jpg in a sub-folder, the document's root a bare <GroundOverlay>
    let ksc = googleEarthBox(north: 28.61950682000437, south: 28.3816904168634, east: -80.50658750810825, west: -80.77730563832129, rotation: 0)
    #expect(try cornerError(corpus + "/kmlsamples_ground_overlay_ksc.kmz", expected: ksc) < 0.25)
    // files/image.JPEG
    let view = googleEarthBox(north: 37.430419921875, south: 37.41943359375, east: -122.080078125, west: -122.091064453125, rotation: 0)
    #expect(try cornerError(corpus + "/worldwind_historic_overlay.kmz", expected: view) < 0.25)
    // three overlays: page=2 is San Francisco; without a page, refused naming the count
    let sf = googleEarthBox(north: 37.82053872095779, south: 37.70316249008254, east: -122.3497604415885, west: -122.5276024676772, rotation: 0)
    #expect(try cornerError(corpus + "/kmlsamples_usa_ca_sf_regions.kmz[page=2]", expected: sf) < 0.25)
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try expectRefused(corpus + "/kmlsamples_usa_ca_sf_regions.kmz", "holds 3 GroundOverlays ('USA', 'California', 'San Francisco')", dir: dir)
  }
}
