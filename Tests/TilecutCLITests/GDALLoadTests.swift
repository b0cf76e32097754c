import Foundation
import Testing
import TilecutCore
import TilecutFixtures

/// libgdal is loaded when a file can hold a georeference GDAL reads, not at start:
/// the dynamic loader's own record (`LD_DEBUG=files`, glibc) says which libraries a
/// run opened.
@Suite("libgdal is loaded only when a file asks for it")
struct GDALLoadTests {
  /// The shared objects the run's loader opened, from glibc's `LD_DEBUG=files` lines,
  /// which the loader writes to a file of its own (`LD_DEBUG_OUTPUT`): tilecut keeps
  /// its stderr for its own lines once it starts, libraries' messages go to a pipe.
  func loaded(_ arguments: String) throws -> (result: RunResult, gdal: Bool, proj: Bool) {
    let trace = try scratch()
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let result = try runTool([], shell: "LD_DEBUG=files LD_DEBUG_OUTPUT='\(trace)/ld' TILECUT \(arguments)")
    let lines = try FileManager.default.contentsOfDirectory(atPath: trace).flatMap { name in
      try String(contentsOfFile: trace + "/" + name, encoding: .utf8).split(separator: "\n").map(String.init)
    }
    #expect(!lines.isEmpty, "the loader wrote no LD_DEBUG record")
    func opened(_ library: String) -> Bool { lines.contains { $0.contains("file=\(library).so") || $0.contains("/\(library).so") } }
    return (result, opened("libgdal"), opened("libproj") || opened("libgeotiff"))
  }

  @Test("a PNG with nothing beside it and --version never load libgdal; a GeoTIFF and a world file do, and place as GDAL reads them")
  func onDemand() throws {
    #if os(Linux)
      let dir = try scratch()
      defer { try? FileManager.default.removeItem(atPath: dir) }
      try picture(width: 256, height: 256).writePNG(to: dir + "/plain.png")
      let version = try loaded("--version")
      #expect(version.result.status == 0 && !version.gdal)
      let plain = try loaded("'\(dir)/plain.png' -o '\(dir)/plain-out' --tile-size 256")
      #expect(plain.result.status == 0, "\(plain.result.stderr.suffix(400))")
      #expect(!plain.gdal, "a PNG with no file beside it loaded libgdal")

      // a world file beside the PNG: GDAL reads it (its sidecar list names it)
      try picture(width: 256, height: 256).writePNG(to: dir + "/plan.png")
      let size = 2 * WebMercator.originShift / Double(1 << 18)
      let west = Double(130978) * size - WebMercator.originShift
      let north = WebMercator.originShift - Double(87176) * size
      let px = size / 256
      try Data("\(px)\n0\n0\n\(-px)\n\(west + px / 2)\n\(north - px / 2)\n".utf8).write(to: URL(fileURLWithPath: dir + "/plan.pgw"))
      let world = try loaded("'\(dir)/plan.png' --source-crs EPSG:3857 --tile-size 256 -o '\(dir)/world-out'")
      #expect(world.result.status == 0, "\(world.result.stderr.suffix(400))")
      #expect(world.gdal, "a PNG with a world file beside it did not load libgdal")
      #expect(FileManager.default.fileExists(atPath: dir + "/world-out/256/L1_18_130978_87176.png"))

      // a GeoTIFF: its keys are GDAL's to read
      try GeoTIFFWriter.write(
        path: dir + "/keys.tif", width: 256, height: 256, bands: 3, pixels: [UInt8](repeating: 90, count: 256 * 256 * 3),
        tiepoint: [0, 0, 0, west, north, 0], scale: [px, px, 0],
        shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3857)])
      let keys = try loaded("'\(dir)/keys.tif' --tile-size 256 -o '\(dir)/keys-out'")
      #expect(keys.result.status == 0, "\(keys.result.stderr.suffix(400))")
      #expect(keys.gdal, "a GeoTIFF did not load libgdal")
      #expect(FileManager.default.fileExists(atPath: dir + "/keys-out/256/L1_18_130978_87176.png"))
    #endif
  }

  @Test(
    "PROJ and libgeotiff are loaded when a CRS is read: not for --version, --bounds, --center or raster mode; a UTM world file and a GeoTIFF load them"
  )
  func projOnDemand() throws {
    #if os(Linux)
      let dir = try scratch()
      defer { try? FileManager.default.removeItem(atPath: dir) }
      try picture(width: 256, height: 256).writePNG(to: dir + "/plain.png")
      #expect(try !loaded("--version").proj)
      for (name, placement) in [
        ("raster", ""), ("bounds", "--bounds 52.51,13.37,52.52,13.38"), ("center", "--center 52.5163,13.3777 --meters-per-pixel 0.05"),
      ] {
        let run = try loaded("'\(dir)/plain.png' \(placement) -o '\(dir)/\(name)-out' --tile-size 256")
        #expect(run.result.status == 0, "\(name): \(run.result.stderr.suffix(400))")
        #expect(!run.proj, "a PNG placed by \(name) loaded PROJ or libgeotiff")
      }

      // a world file in ETRS89 / UTM 33N (EPSG:25833): PROJ maps it, loaded for it; the
      // image's north-west corner lies in the z18 tile that cs2cs puts it in
      try picture(width: 256, height: 256).writePNG(to: dir + "/utm.png")
      try Data("0.05\n0\n0\n-0.05\n389950.025\n5819699.975\n".utf8).write(to: URL(fileURLWithPath: dir + "/utm.pgw"))
      let utm = try loaded("'\(dir)/utm.png' --source-crs EPSG:25833 --tile-size 256 --max-zoom 18 -o '\(dir)/utm-out'")
      #expect(utm.result.status == 0, "\(utm.result.stderr.suffix(400))")
      #expect(utm.proj, "a UTM world file did not load PROJ")
      let corner = try runTool([], shell: "printf '389950 5819700\\n' | cs2cs -f %.6f EPSG:25833 EPSG:3857")
      let xy = corner.stdout.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Double($0) }
      try #require(xy.count >= 2, "cs2cs: \(corner.stdout) \(corner.stderr)")
      let tileMeters = 2 * WebMercator.originShift / Double(1 << 18)
      let x = Int(((xy[0] + WebMercator.originShift) / tileMeters).rounded(.down))
      let y = Int(((WebMercator.originShift - xy[1]) / tileMeters).rounded(.down))
      #expect(FileManager.default.fileExists(atPath: dir + "/utm-out/256/L1_18_\(x)_\(y).png"), "tile \(x), \(y) missing")

      // a GeoTIFF's tags are read with libgeotiff, loaded for it
      let size = 2 * WebMercator.originShift / Double(1 << 18)
      let west = Double(130978) * size - WebMercator.originShift
      let north = WebMercator.originShift - Double(87176) * size
      try GeoTIFFWriter.write(
        path: dir + "/keys.tif", width: 256, height: 256, bands: 3, pixels: [UInt8](repeating: 90, count: 256 * 256 * 3),
        tiepoint: [0, 0, 0, west, north, 0], scale: [size / 256, size / 256, 0],
        shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3857)])
      let keys = try loaded("'\(dir)/keys.tif' --tile-size 256 -o '\(dir)/keys-out'")
      #expect(keys.result.status == 0, "\(keys.result.stderr.suffix(400))")
      #expect(keys.proj, "a GeoTIFF did not load libgeotiff")
      #expect(FileManager.default.fileExists(atPath: dir + "/keys-out/256/L1_18_130978_87176.png"))
    #endif
  }
}
