import Foundation
import Testing

/// Rasters across ±180° (`formats-corpus/antimeridian`, see its SOURCES.md): tiled on
/// both sides, compared with gdalwarp of each side (bench/gdalwarp_compare.py warps the
/// source moved one world over for the tiles across 180° from it).
@Suite(
  "Rasters across the antimeridian", .serialized,
  .enabled(if: formatsCorpusDirectory != nil, "the shared corpus ../shared/data/formats-corpus is absent"))
struct AntimeridianTests {
  /// GeoTools' Pacific radar (Float64, lon 172.036..188.737) as bytes, written by
  /// gdal_translate (its georeferencing unchanged), into `dir`.
  func pacificRadar(_ dir: String) throws -> String {
    let root = try #require(formatsCorpusDirectory)
    let bytes = dir + "/radar8.tif"
    _ = try runTool(
      "gdal_translate", ["-q", "-ot", "Byte", "-scale", "-20", "48.9", "1", "255", root + "/antimeridian/geotools_pacific_radar.tif", bytes])
    #expect(FileManager.default.fileExists(atPath: bytes), "gdal_translate wrote no \(bytes)")
    return bytes
  }

  /// The (x, y) of the 256 px tiles written at `zoom`, from their names (`L1_z_x_y.png`).
  func tiles(_ out: String, zoom: Int) throws -> Set<[Int]> {
    let names = try FileManager.default.contentsOfDirectory(atPath: out + "/256")
    return Set(
      names.compactMap { name -> [Int]? in
        let parts = name.dropLast(4).split(separator: "_").dropFirst().compactMap { Int($0) }
        return parts.count == 3 && parts[0] == zoom ? [parts[1], parts[2]] : nil
      })
  }

  /// "z5: 2 tiles, max abs 1, …, min PSNR 94.8 dB, alpha mismatches (px) 1 of 88540 opaque"
  func compare(_ source: String, _ out: String, zoom: Int) throws -> (psnr: Double, mismatched: Double, line: String) {
    let report = try runTool("/usr/bin/python3", [repositoryRoot() + "/bench/gdalwarp_compare.py", source, out, "\(zoom)"])
    let line = try #require(report.split(separator: "\n").first { $0.hasPrefix("z\(zoom):") }, "\(report)")
    let psnr = line.components(separatedBy: "min PSNR ").last?.split(separator: " ").first.flatMap { Double($0) }
    let counts = line.components(separatedBy: "alpha mismatches (px) ").last?.split(separator: " ")
    let mismatched = counts?.first.flatMap { Double($0) }
    let opaque = counts.flatMap { $0.count > 2 ? Double($0[2]) : nil }
    return (psnr ?? 0, (mismatched ?? .infinity) / max(1, opaque ?? 0), String(line))
  }

  @Test("a raster across 180° is tiled on both sides, in the cells the lon/lat bounds give")
  func bothSides() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = try pacificRadar(dir)
    let zoom = 6
    let run = try runBinary([source, "-o", dir + "/out", "--min-zoom", "\(zoom)", "--max-zoom", "\(zoom)", "--tile-size", "256"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("crosses the antimeridian"), "\(run.stderr)")
    // the textbook tile of a longitude, wrapped into the world: floor((lon + 180) / 360 · 2^z)
    let n = 1 << zoom
    func column(_ lon: Double) -> Int { ((Int(floor((lon + 180) / 360 * Double(n))) % n) + n) % n }
    func row(_ lat: Double) -> Int {
      let phi = lat * .pi / 180
      return Int(floor((1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2 * Double(n)))
    }
    let (west, east, north, south) = (
      172.035981292517, 172.035981292517 + 251 * 0.066537414965986, -11.616231292517, -11.616231292517 - 147 * 0.066537414965986
    )
    #expect(column(east) < column(west), "the bounds cross 180°")
    let xs = Array(column(west)...(n - 1)) + Array(0...column(east))
    let expected = Set(xs.flatMap { x in (row(north)...row(south)).map { [x, $0] } })
    let written = try tiles(dir + "/out", zoom: zoom)
    #expect(written == expected, "written \(written.sorted { $0.lexicographicallyPrecedes($1) })")
    #expect(written.contains { $0[0] == 0 } && written.contains { $0[0] == n - 1 })
    // one floor in the manifest, its footprint both pieces' (−180..180°)
    let data = try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json"))
    let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(manifest["floors"] as? [Int] == [1], "\(manifest["floors"] ?? "none")")
    let footprints = manifest["footprints"] as? [[String: Any]] ?? []
    #expect(footprints.count == 1 && footprints.first?["west"] as? Double == -180 && footprints.first?["east"] as? Double == 180, "\(footprints)")
    let result = try compare(source, dir + "/out", zoom: zoom)
    #expect(result.psnr >= 30, "\(result.line)")
    #expect(result.mismatched <= 0.01, "\(result.line)")
  }

  @Test("the 64-bit float original, which libvips' TIFF loader refuses, is read through GDAL and matches gdalwarp")
  func float64ThroughGDAL() throws {
    let root = try #require(formatsCorpusDirectory)
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = root + "/antimeridian/geotools_pacific_radar.tif"
    let run = try runBinary([source, "-o", dir + "/out", "--min-zoom", "6", "--max-zoom", "6", "--tile-size", "256"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stderr.contains("one band of 64-bit float samples: grey from -20 (black) to 48.844 (white)"), "\(run.stderr)")
    // the same grey ramp as bytes, by gdal_translate: what gdalwarp is given
    let bytes = dir + "/radar_ramp.tif"
    _ = try runTool("gdal_translate", ["-q", "-ot", "Byte", "-scale", "-20", "48.844", "0", "255", source, bytes])
    let result = try compare(bytes, dir + "/out", zoom: 6)
    #expect(result.psnr >= 30, "\(result.line)")
    #expect(result.mismatched <= 0.01, "\(result.line)")
  }

  @Test("a polar stereographic grid around the North Pole (EPSG:3413, across 180°) matches gdalwarp's pixels")
  func polarGrid() throws {
    let root = try #require(formatsCorpusDirectory)
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // GDAL makes it: the corpus's world grid as colour, warped to NSIDC's polar stereographic
    let rgb = dir + "/world_rgb.tif"
    let polar = dir + "/polar.tif"
    _ = try runTool("gdal_translate", ["-q", "-expand", "rgb", root + "/antimeridian/geotools_off_dateline.tif", rgb])
    _ = try runTool(
      "gdalwarp",
      ["-q", "-t_srs", "EPSG:3413", "-te", "-3000000", "-3000000", "3000000", "3000000", "-tr", "10000", "10000", "-r", "bilinear", rgb, polar])
    let run = try runBinary([polar, "-o", dir + "/out", "--min-zoom", "3", "--max-zoom", "3", "--tile-size", "256"])
    #expect(run.status == 0, "\(run.stderr)")
    let result = try compare(polar, dir + "/out", zoom: 3)
    #expect(result.psnr >= 30, "\(result.line)")
    #expect(result.mismatched <= 0.01, "\(result.line)")
  }

  @Test("a world grid 0.4° wider than 360° is clipped to ±180°, as gdalwarp gives the world")
  func widerThanTheWorld() throws {
    let root = try #require(formatsCorpusDirectory)
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = root + "/antimeridian/geotools_off_dateline.tif"
    let run = try runBinary([source, "-o", dir + "/out", "--min-zoom", "2", "--max-zoom", "2", "--tile-size", "256"])
    #expect(run.status == 0, "\(run.stderr)")
    let written = try tiles(dir + "/out", zoom: 2)
    #expect(written == Set((0..<4).flatMap { x in (0..<4).map { [x, $0] } }), "\(written)")
    // gdalwarp reads the palette's indices: compare with its colours
    let rgb = dir + "/off_dateline_rgb.tif"
    _ = try runTool("gdal_translate", ["-q", "-expand", "rgb", "-a_nodata", "0", source, rgb])
    let result = try compare(rgb, dir + "/out", zoom: 2)
    #expect(result.psnr >= 30, "\(result.line)")
    // 1.6 % here as for the same grid cut to ±180° first (gdal_translate -projwin): its
    // nodata edges, not the clipping
    #expect(result.mismatched <= 0.02, "\(result.line)")
  }

  @Test("a project build refuses a raster across 180° in one line naming the floor, writing nothing")
  func projectRefuses() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = try pacificRadar(dir)
    let file = dir + "/tilecut.yml"
    try "output: t\ntileSizes: [256]\nbuildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: radar8.tif\n"
      .write(toFile: file, atomically: true, encoding: .utf8)
    let run = try runBinary(["build", file])
    #expect(run.status != 0)
    #expect(run.stderr.hasPrefix("error: \(file):6:9: hq floor 1: \(dir)/radar8.tif crosses the antimeridian"), "\(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/t"))
  }

  @Test("zoom 0 for a raster across 180° is refused in one line: its one tile would hold both sides")
  func zoomZeroRefused() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = try pacificRadar(dir)
    let run = try runBinary([source, "-o", dir + "/out", "--min-zoom", "0", "--max-zoom", "3"])
    #expect(run.status != 0)
    #expect(run.stderr.hasPrefix("error: --min-zoom"), "\(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }
}
