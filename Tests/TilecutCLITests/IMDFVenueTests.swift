import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut

/// `../shared/data/formats-corpus/imdf` beside the repository, found by walking up; nil when absent.
let imdfCorpus: String? = TestEnvironment.sharedData("formats-corpus/imdf")

/// Runs a program, failing the test on a non-zero exit; its stderr.
@discardableResult
func runProgram(_ program: String, _ args: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = args
  let err = Pipe()
  process.standardError = err
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  let data = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  let text = String(decoding: data, as: UTF8.self)
  guard process.terminationStatus == 0 else {
    throw TilecutError.invalidInput(path: program, reason: "exited \(process.terminationStatus): \(text)")
  }
  return text
}

/// The venue's levels as its level.geojson says (read here, not by tilecut): ordinal → level ids.
func venueOrdinals(_ venue: String) throws -> [Int: [String]] {
  let data = try Data(contentsOf: URL(fileURLWithPath: venue + "/level.geojson"))
  let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
  var out: [Int: [String]] = [:]
  for case let feature as [String: Any] in root["features"] as? [Any] ?? [] {
    let properties = try #require(feature["properties"] as? [String: Any])
    let ordinal = try #require((properties["ordinal"] as? NSNumber)?.intValue)
    out[ordinal, default: []].append(try #require(feature["id"] as? String))
  }
  return out
}

/// A floor's tiles of one zoom joined into one coverage mask (alpha ≥ 128), row-major,
/// with the tile range it spans.
struct CoverageMask {
  var x0: Int
  var y0: Int
  var columns: Int
  var rows: Int
  var mask: [Bool]
  var width: Int { columns * 256 }
  var height: Int { rows * 256 }

  init(folder: String, floor: Int, zoom: Int, range: (x: ClosedRange<Int>, y: ClosedRange<Int>)) throws {
    (x0, y0, columns, rows) = (range.x.lowerBound, range.y.lowerBound, range.x.count, range.y.count)
    mask = [Bool](repeating: false, count: range.x.count * 256 * range.y.count * 256)
    for x in range.x {
      for y in range.y {
        let file = folder + "/L\(floor)_\(zoom)_\(x)_\(y).png"
        guard let data = FileManager.default.contents(atPath: file) else { continue }
        let image = try RGBAImage.decode(bytes: [UInt8](data))
        for row in 0..<256 {
          for col in 0..<256 where image.pixels[(row * 256 + col) * 4 + 3] >= 128 {
            mask[((y - y0) * 256 + row) * (columns * 256) + (x - x0) * 256 + col] = true
          }
        }
      }
    }
  }
}

@Suite("IMDF venues as sources")
struct IMDFVenueTests {
  /// GDAL's rasterisation of a floor's units (ogr2ogr to EPSG:3857, gdal_rasterize into
  /// the tiles' grid, pixel centres inside): one byte per pixel.
  func gdalUnits(venue: String, levels: [String], mask: CoverageMask, zoom: Int, dir: String) throws -> [Bool] {
    let shift = 20037508.342789244
    let size = 2 * shift / Double(256 << zoom)
    let west = -shift + Double(mask.x0 * 256) * size
    let north = shift - Double(mask.y0 * 256) * size
    let (east, south) = (west + Double(mask.width) * size, north - Double(mask.height) * size)
    let list = levels.map { "'\($0)'" }.joined(separator: ",")
    let units = dir + "/units-\(levels[0]).geojson"
    try runProgram(
      "/usr/bin/ogr2ogr", ["-f", "GeoJSON", "-t_srs", "EPSG:3857", "-where", "level_id IN (\(list))", units, venue + "/unit.geojson"])
    let raster = dir + "/units-\(levels[0]).bin"
    try runProgram(
      "/usr/bin/gdal_rasterize",
      [
        "-burn", "255", "-ot", "Byte", "-of", "ENVI", "-te", "\(west)", "\(south)", "\(east)", "\(north)", "-ts", "\(mask.width)",
        "\(mask.height)", units, raster,
      ])
    let bytes = try #require(FileManager.default.contents(atPath: raster))
    #expect(bytes.count == mask.width * mask.height)
    return bytes.map { $0 != 0 }
  }

  /// The translation of `ours` against `theirs`, in pixels, by least squares on the
  /// first-order change (ours − theirs ≈ −shift · ∇theirs): a shift moves every edge one
  /// way, while a uniform thickening of the outline (walls drawn on the edge) sums to
  /// nothing around a closed outline, so only a misplacement shows.
  func shift(_ ours: [Bool], _ theirs: [Bool], width: Int) -> (x: Double, y: Double) {
    let height = theirs.count / width
    var (axx, axy, ayy, bx, by) = (0.0, 0.0, 0.0, 0.0, 0.0)
    func t(_ x: Int, _ y: Int) -> Double { theirs[y * width + x] ? 1 : 0 }
    for y in 1..<(height - 1) {
      for x in 1..<(width - 1) {
        let gx = (t(x + 1, y) - t(x - 1, y)) / 2
        let gy = (t(x, y + 1) - t(x, y - 1)) / 2
        guard gx != 0 || gy != 0 || ours[y * width + x] != theirs[y * width + x] else { continue }
        let d = (ours[y * width + x] ? 1.0 : 0) - t(x, y)
        (axx, axy, ayy) = (axx + gx * gx, axy + gx * gy, ayy + gy * gy)
        (bx, by) = (bx + d * gx, by + d * gy)
      }
    }
    let det = axx * ayy - axy * axy
    guard det > 0 else { return (.infinity, .infinity) }
    return (-(ayy * bx - axy * by) / det, -(axx * by - axy * bx) / det)
  }

  @Test(
    "each level's units cover what gdal_rasterize burns (IoU ≥ 0.98, no shift over 0.25 px), floors by ordinal",
    .enabled(if: imdfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/imdf is absent"))
  func unitsAgainstGDAL() throws {
    guard let corpus = imdfCorpus else {
      return
    }
    let venue = corpus + "/polymap_spbstu"
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let zoom = 19
    let r = try runTool([venue, "--tile-size", "256", "--min-zoom", "\(zoom)", "--max-zoom", "\(zoom)", "-o", dir + "/out"], timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    let manifest = try JSONDecoder().decode(Manifest.self, from: try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    let ordinals = try venueOrdinals(venue)
    #expect(manifest.floors.map(\.number) == ordinals.keys.sorted())
    // every level present, each on the floor of its ordinal
    let recorded = manifest.venueLevels ?? []
    #expect(Set(recorded.map(\.id)) == Set(ordinals.values.flatMap { $0 }))
    for level in recorded { #expect(ordinals[level.floor.number]?.contains(level.id) == true) }
    #expect(recorded.allSatisfy { $0.shortName != nil })
    for (ordinal, levels) in ordinals.sorted(by: { $0.key < $1.key }) {
      let level = try #require(manifest.levels.first { $0.floor.number == ordinal && $0.zoom == zoom && $0.tileSize == 256 })
      let range = (x: level.xRange[0]...level.xRange[1], y: level.yRange[0]...level.yRange[1])
      let ours = try CoverageMask(folder: dir + "/out/256", floor: ordinal, zoom: zoom, range: range)
      let theirs = try gdalUnits(venue: venue, levels: levels, mask: ours, zoom: zoom, dir: dir)
      var (both, either) = (0, 0)
      for i in theirs.indices {
        if theirs[i] && ours.mask[i] { both += 1 }
        if theirs[i] || ours.mask[i] { either += 1 }
      }
      let iou = Double(both) / Double(max(either, 1))
      let moved = shift(ours.mask, theirs, width: ours.width)
      #expect(iou >= 0.98, "floor \(ordinal): IoU \(iou)")
      #expect(abs(moved.x) <= 0.25 && abs(moved.y) <= 0.25, "floor \(ordinal): shifted \(moved.x), \(moved.y) px")
      // the measure sees a shift: our tiles one pixel to the east are found so
      let east = ours.mask.indices.map { i in i % ours.width > 0 && ours.mask[i - 1] }
      #expect(abs(shift(east, theirs, width: ours.width).x - 1) < 0.3)
    }
  }

  /// Every tile below `folder`, decoded: relative path → pixels.
  func tiles(_ folder: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for file in filesBelow(folder) where file.hasSuffix(".png") {
      out[file] = try RGBAImage.decode(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)))).pixels
    }
    return out
  }

  /// A copy of the campus venue in `dir`, for editing.
  func copyVenue(_ dir: String, name: String = "venue") throws -> String? {
    guard let corpus = imdfCorpus else { return nil }
    let copy = dir + "/" + name
    try FileManager.default.copyItem(atPath: corpus + "/polymap_spbstu", toPath: copy)
    return copy
  }

  @Test(
    "a venue zipped draws the same tiles as its folder; a folder with its manifest.json is no tile store",
    .enabled(if: imdfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/imdf is absent"))
  func zipAndFolder() throws {
    guard let corpus = imdfCorpus else {
      return
    }
    let venue = corpus + "/polymap_spbstu"
    #expect(TileStoreSource.kind(of: venue) == nil)
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try runProgram(
      "/usr/bin/python3",
      [
        "-c",
        "import zipfile,os,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); [z.write(os.path.join(sys.argv[2],n),'venue/'+n) for n in sorted(os.listdir(sys.argv[2]))]; z.close()",
        dir + "/venue.zip", venue,
      ])
    let args = ["--tile-size", "256", "--min-zoom", "17", "--max-zoom", "17"]
    let folder = try runTool([venue] + args + ["-o", dir + "/folder"], timeout: 300)
    let zip = try runTool([dir + "/venue.zip"] + args + ["-o", dir + "/zip"], timeout: 300)
    #expect(folder.status == 0 && zip.status == 0, "\(folder.stderr) \(zip.stderr)")
    let a = try tiles(dir + "/folder")
    #expect(a.count > 10)
    #expect(a == (try tiles(dir + "/zip")))
    #expect(Set(a.keys.map { String($0.split(separator: "/").last?.split(separator: "_").first ?? "") }) == ["L0", "L1", "L2", "L3", "L4", "L5"])
    // the same venue again: up to date, nothing rewritten
    let again = try runTool([dir + "/venue.zip"] + args + ["-o", dir + "/zip"], timeout: 300)
    #expect(again.status == 0 && again.stderr.contains("up to date"), "\(again.stderr)")
  }

  @Test(
    "a feature that cannot be drawn is reported by id and file, and the rest is drawn",
    .enabled(if: imdfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/imdf is absent"))
  func problemsByFeature() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let venue = try copyVenue(dir) else {
      return
    }
    let file = venue + "/unit.geojson"
    var root = try #require(try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: file))) as? [String: Any])
    var features = try #require(root["features"] as? [[String: Any]])
    let (first, second) = (try #require(features[0]["id"] as? String), try #require(features[1]["id"] as? String))
    var properties = try #require(features[0]["properties"] as? [String: Any])
    properties.removeValue(forKey: "level_id")
    features[0]["properties"] = properties
    // a ring that is not closed
    features[1]["geometry"] = ["type": "Polygon", "coordinates": [[[30.38, 60.0], [30.381, 60.0], [30.381, 60.001], [30.38, 60.001]]]]
    // a unit that is a point
    let third = try #require(features[2]["id"] as? String)
    features[2]["geometry"] = ["type": "Point", "coordinates": [30.38, 60.0]]
    root["features"] = features
    try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: file))
    let r = try runTool([venue, "--tile-size", "256", "--min-zoom", "16", "--max-zoom", "16", "-o", dir + "/out"], timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("warning: \(venue)/unit.geojson: feature \(first): has no \"level_id\"; not drawn"), "\(r.stderr)")
    #expect(r.stderr.contains("warning: \(venue)/unit.geojson: feature \(second): has a polygon ring that is not closed"), "\(r.stderr)")
    #expect(r.stderr.contains("unit.geojson: feature \(third): has point geometry; IMDF's unit is polygon; not drawn"), "\(r.stderr)")
    // what stood on the unit left out (its anchors, their occupants) is named too
    #expect(r.stderr.contains("occupant.geojson: feature "), "\(r.stderr)")
    #expect(r.stderr.contains("IMDF venue, 8 levels on 6 floors"))
  }

  @Test(
    "a venue that cannot be read is refused in one line, nothing written",
    .enabled(if: imdfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/imdf is absent"),
    arguments: ["no manifest", "nothing to draw", "deep JSON", "FIFO", "link out", "huge file", "ZIP bomb", "bad style", "--floors", "--first-floor"])
  func refusals(case name: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    guard let venue = try copyVenue(dir), let corpus = imdfCorpus else {
      return
    }
    var input = venue
    var extra: [String] = []
    let expected: String
    switch name {
    case "no manifest":
      input = dir + "/minimal"
      try FileManager.default.copyItem(atPath: corpus + "/indoor_imdf_mcp_valid_minimal", toPath: input)
      expected = "holds IMDF layers but no manifest.json"
    case "nothing to draw":
      input = dir + "/minimal"
      try FileManager.default.copyItem(atPath: corpus + "/indoor_imdf_mcp_valid_minimal", toPath: input)
      try Data(#"{"version": "1.0.0", "language": "en"}"#.utf8).write(to: URL(fileURLWithPath: input + "/manifest.json"))
      expected = "has nothing to draw"
    case "deep JSON":
      try Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8).write(
        to: URL(fileURLWithPath: venue + "/unit.geojson"))
      expected = "nests JSON 100000 deep"
    case "FIFO":
      try FileManager.default.removeItem(atPath: venue + "/unit.geojson")
      #expect(mkfifo(venue + "/unit.geojson", 0o600) == 0)
      expected = "unit.geojson is not a regular file"
    case "link out":
      try FileManager.default.removeItem(atPath: venue + "/unit.geojson")
      try FileManager.default.createSymbolicLink(atPath: venue + "/unit.geojson", withDestinationPath: "/etc/passwd")
      expected = "leads out of the venue's folder"
    case "huge file":
      #expect(truncate(venue + "/unit.geojson", 100 << 20) == 0)
      expected = "more than the 32 MB left"
    case "ZIP bomb":
      input = dir + "/bomb.zip"
      try runProgram(
        "/usr/bin/python3",
        [
          "-c",
          "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); z.write(sys.argv[2]+'/manifest.json','manifest.json'); z.write(sys.argv[2]+'/level.geojson','level.geojson'); z.writestr('unit.geojson', b' '*(80<<20)); z.close()",
          input, venue,
        ])
      expected = "declares 84 MB uncompressed"
    case "bad style":
      try Data(#"{"unit": {"fill": "url(http://example.com/x)"}}"#.utf8).write(to: URL(fileURLWithPath: dir + "/style.json"))
      extra = ["--venue-style", dir + "/style.json"]
      expected = "give #rgb, #rrggbb, #rrggbbaa or none"
    case "--first-floor":
      extra = ["--first-floor", "0"]
      expected = "numbered by their levels' ordinals"
    default:
      extra = ["--floors", "2"]
      expected = "whose floors are its levels (L0, L1, L2, L3, L4, L5)"
    }
    let before = snapshot(dir)
    let r = try runTool([input, "--max-zoom", "16", "-o", dir + "/out"] + extra, timeout: 60)
    #expect(r.status != 0)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && r.stderr.contains(expected), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(snapshot(dir) == before)
  }

  @Test(
    "labels follow --language, falling back to the venue's own",
    .enabled(if: imdfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/imdf is absent"))
  func language() throws {
    guard let corpus = imdfCorpus else {
      return
    }
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var drawn: [String: [String: [UInt8]]] = [:]
    for language in ["en", "ru", "de"] {
      let r = try runTool(
        [
          corpus + "/polymap_spbstu[floor=1]", "--language", language, "--tile-size", "512", "--min-zoom", "18", "--max-zoom", "18", "-o",
          dir + "/" + language,
        ],
        timeout: 300)
      #expect(r.status == 0, "\(r.stderr)")
      drawn[language] = try tiles(dir + "/" + language)
    }
    #expect(drawn["en"]?.isEmpty == false)
    #expect(drawn["ru"] != drawn["en"])
    // no German names: the manifest's language, English
    #expect(drawn["de"] == drawn["en"])
  }

  @Test(
    "a project's floor may be a venue's floor, `venue[floor=K]`, its levels recorded",
    .enabled(if: imdfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/imdf is absent"))
  func projectFloor() throws {
    guard let corpus = imdfCorpus else {
      return
    }
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let project = """
      output: tiles
      tileSizes: [256]
      maxZoom: 16
      buildings:
        - id: campus
          floors:
            - floor: 3
              source: \(corpus)/polymap_spbstu[floor=2]
      """
    try Data(project.utf8).write(to: URL(fileURLWithPath: dir + "/tilecut.yml"))
    let r = try runTool(["build", dir + "/tilecut.yml"], timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    let manifest = try JSONDecoder().decode(Manifest.self, from: try Data(contentsOf: URL(fileURLWithPath: dir + "/tiles/manifest.json")))
    #expect(manifest.floors.map(\.number) == [3])
    let ordinals = try venueOrdinals(corpus + "/polymap_spbstu")
    #expect(Set(manifest.venueLevels?.map(\.id) ?? []) == Set(ordinals[2] ?? []))
    #expect(manifest.venueLevels?.allSatisfy { $0.floor.number == 3 } == true)
    #expect(filesBelow(dir + "/tiles").contains { $0.hasPrefix("256/L3_16_") })
  }
}
