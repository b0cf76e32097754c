import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo

/// Hand-made files with the quirks of real ones, placed by tilecut and compared with
/// GDAL's own reading (python3-gdal's transformer, as gdalwarp uses it).
@Suite("Georeferencing read as GDAL reads it")
struct GDALReadingTests {
  /// GDAL's footprint of one file, in world units, and its pixel size.
  func gdal(_ path: String) throws -> GDALFootprint {
    let found = try GDALFootprint.of([path])
    return try #require(found[path], "GDAL does not place \(path)")
  }

  /// tilecut's placement line and footprint from a dry run.
  func tilecut(_ path: String, _ extra: [String] = []) throws -> (run: ToolRun, box: WorldBox?) {
    let run = try runBinary([path, "-o", path + ".out", "--dry-run", "--json"] + extra)
    guard run.status == 0, let data = run.stdout.data(using: .utf8),
      let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let p = (json["placements"] as? [[String: Any]])?.first, let s = p["south"] as? Double, let w = p["west"] as? Double,
      let n = p["north"] as? Double, let e = p["east"] as? Double
    else { return (run, nil) }
    return (run, WorldBox(south: s, west: w, north: n, east: e))
  }

  @Test("ModelTransformation contradicting tie point + scale, and a negative pixel scale, are read as GDAL reads them")
  func contradictoryAndNegative() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pixels = geoPicture(width: 64, height: 48)
    let keys: [(GeoTIFFWriter.Key, Int)] = [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 32633)]
    // the matrix says 500 km east; the tie point says 1,200 km east
    try GeoTIFFWriter.write(
      path: dir + "/both.tif", width: 64, height: 48, bands: 3, pixels: pixels, tiepoint: [0, 0, 0, 1_200_000, 5_800_000, 0],
      scale: [10, 10, 0], matrix: [10, 0, 0, 500_000, 0, -10, 0, 5_800_000, 0, 0, 1, 0, 0, 0, 0, 1], shortKeys: keys)
    try GeoTIFFWriter.write(
      path: dir + "/negative.tif", width: 64, height: 48, bands: 3, pixels: pixels, tiepoint: [0, 0, 0, 500_000, 5_800_000, 0],
      scale: [10, -10, 0], shortKeys: keys)
    for name in ["both.tif", "negative.tif"] {
      let reference = try gdal(dir + "/" + name)
      let (run, box) = try tilecut(dir + "/" + name)
      let placed = try #require(box, "\(name): \(run.stderr)")
      #expect(placed.distance(to: reference.box) / reference.pixel <= 0.25, "\(name): \(run.stderr)")
    }
  }

  @Test("a .tfw beside a GeoTIFF with keys loses, as in GDAL, with a warning when they disagree by more than a pixel")
  func worldFileBesideKeys() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoTIFFWriter.write(
      path: dir + "/plan.tif", width: 64, height: 48, bands: 3, pixels: geoPicture(width: 64, height: 48),
      tiepoint: [0, 0, 0, 500_000, 5_800_000, 0], scale: [10, 10, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)])
    // 5 pixels east of the keys (the world file names the centre of the first pixel)
    try "10\n0\n0\n-10\n500055\n5799995\n".write(toFile: dir + "/plan.tfw", atomically: true, encoding: .utf8)
    let reference = try gdal(dir + "/plan.tif")
    let (run, box) = try tilecut(dir + "/plan.tif")
    let placed = try #require(box, "\(run.stderr)")
    #expect(placed.distance(to: reference.box) / reference.pixel <= 0.25)
    #expect(run.stderr.contains("plan.tfw disagrees with the GeoTIFF keys"), "\(run.stderr)")
    let strict = try tilecut(dir + "/plan.tif", ["--strict"])
    #expect(strict.run.status != 0 && strict.run.stderr.contains("plan.tfw"))
  }

  @Test("a PNG whose GeoTransform, GCPs and SRS gdal_translate kept in .aux.xml is placed as GDAL places it")
  func auxXML() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoTIFFWriter.write(
      path: dir + "/src.tif", width: 64, height: 48, bands: 3, pixels: geoPicture(width: 64, height: 48),
      tiepoint: [0, 0, 0, 390_000, 5_820_000, 0], scale: [2, 2, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)])
    let translate = try runTool("gdal_translate", ["-q", "-of", "PNG", dir + "/src.tif", dir + "/plan.png"])
    _ = translate
    #expect(FileManager.default.fileExists(atPath: dir + "/plan.png.aux.xml"))
    let reference = try gdal(dir + "/plan.png")
    let (run, box) = try tilecut(dir + "/plan.png")
    let placed = try #require(box, "\(run.stderr)")
    #expect(placed.distance(to: reference.box) / reference.pixel <= 0.25)
    #expect(run.stderr.contains("placed by aux-xml"), "\(run.stderr)")
  }
}
