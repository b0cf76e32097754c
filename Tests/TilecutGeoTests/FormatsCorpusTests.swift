import Foundation
import Testing
import TilecutFixtures

/// The shared corpus of inputs beyond GeoTIFF (`shared/data/formats-corpus` beside the
/// repository, see its SOURCES.md), found by walking up from this file; nil when absent.
let formatsCorpusDirectory: String? = TestEnvironment.sharedData("formats-corpus")

/// The rasters GDAL reads whose pixels tilecut now reads through libgdal, and the
/// GeoTIFFs with GDAL masks (per-dataset internal, `.msk`, and one `.msk` GDAL ignores).
/// `bands`: a multispectral file is tiled from its first three bands, as gdalwarp's
/// first three are compared.
let gdalRasterFiles: [(file: String, bands: String?)] = [
  ("jp2/s2_T29UNU_20221005T115411_PVI.jp2", nil),
  ("jp2/s2_T29UNU_20221005T115411_TCI_60m.jp2", nil),
  ("envi/geotools_envihdr.dat", nil),
  ("envi/derived_envi_boffa-1986_guinea.bsq", "1,2,3"),
  ("erdas-img/derived_hfa_boffa-1986_guinea.img", "1,2,3"),
  ("gpkg/ngageoint_wgs84_tiles.gpkg", nil),
  ("geotiff-masks/rasterio_RGB2.byte.tif", nil),
  ("geotiff-masks/riocogeo_image_rgb_mask.tif", nil),
  ("geotiff-masks/geotools_masked_internal.tif", nil),
  ("geotiff-masks/geotools_rastermask_external.tif", nil),
]

@Suite(
  "GDAL's raster formats and masks", .serialized,
  .enabled(if: formatsCorpusDirectory != nil, "the shared corpus ../shared/data/formats-corpus is absent"))
struct GDALRasterFormatTests {
  @Test("JPEG 2000, ERDAS .img, ENVI, GeoPackage and masked GeoTIFFs are placed within 0.25 source pixel of GDAL's outline")
  func footprints() throws {
    let root = try #require(formatsCorpusDirectory)
    let files = gdalRasterFiles.map { root + "/" + $0.file } + [root + "/gpkg/ogc_ets_elevation_coverage.gpkg"]
    let reference = try GDALFootprint.of(files)
    for file in files {
      let gdal = try #require(reference[file], "python3-gdal gave no footprint for \(file)")
      let outcome = try corpusOutcome(file, gdal: gdal)
      #expect(outcome.refusal == nil, "\(outcome) \(outcome.stderr)")
      #expect((outcome.offPixels ?? .infinity) <= 0.25, "\(outcome)")
      #expect(outcome.method != "raster", "\(outcome)")
    }
  }

  /// Tiled at the zoom nearest 1:1 and compared with gdalwarp -t_srs EPSG:3857 -r
  /// bilinear -dstalpha (bench/gdalwarp_compare.py): colour where both are opaque, and
  /// which pixels are transparent (GDAL's mask: 2-58 % of them differed when tilecut
  /// ignored it).
  @Test("tiles match gdalwarp's (≥ 30 dB) with the same pixels transparent", arguments: gdalRasterFiles.map(\.file))
  func againstGDALWarp(file: String) throws {
    let root = try #require(formatsCorpusDirectory)
    let source = root + "/" + file
    let gdal = try #require(try GDALFootprint.of([source])[source], "python3-gdal gave no footprint for \(file)")
    let zoom = max(0, Int((log2(1 / (gdal.pixel * 256))).rounded()))
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let bands = gdalRasterFiles.first { $0.file == file }?.bands
    let run = try runBinary(
      [source, "-o", dir + "/out", "--min-zoom", "\(zoom)", "--max-zoom", "\(zoom)", "--tile-size", "256", "--quiet"]
        + (bands.map { ["--bands", $0] } ?? []))
    #expect(run.status == 0, "\(run.stderr)")
    let report = try runTool("/usr/bin/python3", [repositoryRoot() + "/bench/gdalwarp_compare.py", source, dir + "/out", "\(zoom)"])
    // "z9: 14 tiles, max abs 11, mean abs 0.244, min PSNR 47.8 dB, alpha mismatches (px) 223 of 447066 opaque"
    let line = try #require(report.split(separator: "\n").first { $0.hasPrefix("z\(zoom):") }, "\(report)")
    let psnr = line.components(separatedBy: "min PSNR ").last?.split(separator: " ").first.flatMap { Double($0) }
    #expect((psnr ?? 0) >= 30, "\(file): \(line)")
    let counts = line.components(separatedBy: "alpha mismatches (px) ").last?.split(separator: " ")
    let mismatched = counts?.first.flatMap { Double($0) }
    let opaque = counts.flatMap { $0.count > 2 ? Double($0[2]) : nil }
    let fraction = (mismatched ?? .infinity) / max(1, opaque ?? 0)
    #expect(fraction <= 0.01, "\(file): \(line)")
  }

  @Test("the mask note names where GDAL's mask comes from; a .msk GDAL ignores gives no mask")
  func maskNotes() throws {
    let root = try #require(formatsCorpusDirectory) + "/geotiff-masks/"
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let external = try runBinary([root + "rasterio_RGB2.byte.tif", "-o", dir + "/a", "--dry-run"])
    #expect(external.status == 0, "\(external.stderr)")
    #expect(external.stderr.contains("masked by GDAL's mask (in \(root)rasterio_RGB2.byte.tif.msk) are transparent"), "\(external.stderr)")
    let inside = try runBinary([root + "riocogeo_image_rgb_mask.tif", "-o", dir + "/b", "--dry-run"])
    #expect(inside.stderr.contains("masked by GDAL's mask (inside the file) are transparent"), "\(inside.stderr)")
    let ignored = try runBinary([root + "geotools_rastermask_external.tif", "-o", dir + "/c", "--dry-run"])
    #expect(ignored.status == 0 && !ignored.stderr.contains("GDAL's mask"), "\(ignored.stderr)")
  }

  @Test("a .msk that leads out of the input's folder, or is damaged, is refused naming the .msk")
  func maskSidecarRefused() throws {
    let root = try #require(formatsCorpusDirectory) + "/geotiff-masks/"
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let elsewhere = dir + "/elsewhere"
    try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: root + "rasterio_RGB2.byte.tif.msk", toPath: elsewhere + "/real.msk")
    let plans = dir + "/plans"
    try FileManager.default.createDirectory(atPath: plans, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: root + "rasterio_RGB2.byte.tif", toPath: plans + "/map.tif")
    try FileManager.default.createSymbolicLink(atPath: plans + "/map.tif.msk", withDestinationPath: elsewhere + "/real.msk")
    let linked = try runBinary([plans + "/map.tif", "-o", dir + "/a"])
    #expect(linked.status != 0)
    let lines = linked.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(lines.count == 1 && lines[0].hasPrefix("error: \(plans)/map.tif.msk:"), "\(linked.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/a"))

    // a .msk cut short: GDAL cannot read the mask it announces
    try FileManager.default.removeItem(atPath: plans + "/map.tif.msk")
    let whole = try #require(FileManager.default.contents(atPath: root + "rasterio_RGB2.byte.tif.msk"))
    try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: plans + "/map.tif.msk"))
    let damaged = try runBinary([plans + "/map.tif", "-o", dir + "/b"])
    #expect(damaged.status != 0)
    let damagedLines = damaged.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(damagedLines.count == 1 && damagedLines[0].hasPrefix("error: \(plans)/map.tif.msk:"), "\(damaged.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/b"))
  }

  @Test(
    "a format GDAL knows but tilecut does not read is refused naming GDAL's driver; a GeoPackage GDAL puts off the Earth and an ENVI header are refused"
  )
  func refusals() throws {
    let root = try #require(formatsCorpusDirectory)
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = try runTool("gdal_translate", ["-q", "-of", "PCIDSK", root + "/envi/geotools_envihdr.dat", dir + "/plan.pix"])
    _ = try runTool("gdal_translate", ["-q", "-of", "BMP", root + "/envi/geotools_envihdr.dat", dir + "/plan.bmp"])
    for (file, named) in [("plan.pix", "PCIDSK Database File"), ("plan.bmp", "MS Windows Device Independent Bitmap")] {
      #expect(FileManager.default.fileExists(atPath: dir + "/" + file), "gdal_translate wrote no \(file)")
      let run = try runBinary([dir + "/" + file, "-o", dir + "/out"])
      #expect(run.status != 0)
      let lines = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
      #expect(lines.count == 1 && lines[0].hasPrefix("error: \(dir)/\(file): is ") && lines[0].contains(named), "\(run.stderr)")
    }
    // GDAL 3.6 reads this GeoPackage as 1 × 1 px spanning thousands of degrees: refused, never placed
    let mixed = try runBinary([root + "/gpkg/ngageoint_3857_tiles.gpkg", "-o", dir + "/out"])
    #expect(mixed.status != 0)
    let mixedLines = mixed.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(
      mixedLines.count == 1 && mixedLines[0].hasPrefix("error: \(root)/gpkg/ngageoint_3857_tiles.gpkg: GDAL reads its extent as")
        && mixedLines[0].contains("which is not on the Earth"), "\(mixed.stderr)")
    let header = try runBinary([root + "/envi/geotools_envihdr.hdr", "-o", dir + "/out"])
    #expect(header.status != 0)
    #expect(header.stderr.contains("is an ENVI header; give tilecut the data file it describes"), "\(header.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }
}
