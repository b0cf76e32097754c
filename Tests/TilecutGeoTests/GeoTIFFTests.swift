import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo

/// GeoTIFF tags written with libgeotiff and read back.
@Suite("GeoTIFF tags")
struct GeoTIFFTests {
  @Test(
    "libgeotiff's keys and tags read back: tie point + scale, PixelIsPoint, ModelTransformation, EPSG and user-defined CRSs",
    arguments: [GeoFixture.utm, .utmPoint, .statePlaneFeet, .rotated, .userDefined])
  func readBack(fixture: GeoFixture) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try fixture.write(to: dir + "/f.tif")
    let tags = try #require(GeoTIFFTags.read(path: dir + "/f.tif"))
    let t = try #require(tags.toModel)
    let g = fixture.geotransform
    // PixelIsPoint is moved back to the corner convention, so all agree with the geotransform
    for (got, want) in zip([t.c, t.a, t.b, t.f, t.d, t.e], g) {
      #expect(abs(got - want) < 1e-9 * max(1, abs(want)), "\(fixture): \(got) != \(want)")
    }
    #expect(tags.pixelIsPoint == fixture.pixelIsPoint)
    let crs = try #require(tags.crs)
    if fixture.crs.hasPrefix("EPSG:") {
      #expect(crs.definition == fixture.crs)
    } else {
      #expect(crs.definition.contains("+proj=lcc"))
    }
    // the CRS from the keys maps like the CRS the fixture was meant to have
    let fromKeys = try ProjectedMapping(crs: crs, toCRS: t)
    let intended = try ProjectedMapping(crs: try ProjTransformer.describe(fixture.crs, option: "test"), toCRS: t)
    let probe = [PixelPoint(x: 0, y: 0), PixelPoint(x: Double(fixture.width), y: Double(fixture.height))]
    for (a, b) in zip(fromKeys.world(of: probe), intended.world(of: probe)) {
      #expect(hypot(a.u - b.u, a.v - b.v) * WebMercator.worldPixels(zoom: 22) < 0.5)
    }
    if fixture.crs == "EPSG:2263" {
      #expect(abs(tags.linearUnitMeters - 1200.0 / 3937.0) < 1e-12)
    }
  }

  @Test("GDAL_NODATA is read; a plain TIFF has no georeference; a PNG is not a TIFF")
  func nodataAndPlain() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let samples = [Int16](repeating: 7, count: 16 * 8)
    let bytes = samples.withUnsafeBytes { Array($0) }
    try GeoTIFFWriter.write(
      path: dir + "/dem.tif", width: 16, height: 8, bands: 1, bits: 16, sampleFormat: 2, pixels: bytes,
      tiepoint: [0, 0, 0, 500000, 4_000_000, 0], scale: [10, 10, 0], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)],
      nodata: "-9999")
    #expect(GeoTIFFTags.read(path: dir + "/dem.tif")?.nodata == -9999)
    try GeoTIFFWriter.write(path: dir + "/plain.tif", width: 4, height: 4, bands: 3, pixels: [UInt8](repeating: 9, count: 48))
    let plain = try #require(GeoTIFFTags.read(path: dir + "/plain.tif"))
    #expect(plain.toModel == nil && plain.crs == nil && plain.nodata == nil)
    try Data("not a tiff".utf8).write(to: URL(fileURLWithPath: dir + "/x.png"))
    #expect(GeoTIFFTags.read(path: dir + "/x.png") == nil)
  }
}
