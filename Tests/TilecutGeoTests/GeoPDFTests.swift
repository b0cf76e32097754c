import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

/// The GeoPDFs of the shared formats corpus (`shared/data/formats-corpus/geopdf` beside
/// the repository, see its SOURCES.md), found by walking up from this file; nil when absent.
let geoPDFDirectory: String? = {
  var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  for _ in 0..<6 {
    dir = dir.deletingLastPathComponent()
    let candidate = dir.appendingPathComponent("shared/data/formats-corpus/geopdf").path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue { return candidate }
  }
  return nil
}()

/// Where GDAL puts a GeoPDF page's map frame: its NEATLINE's corners, taken from
/// GDAL's pixels (its default 150 dpi) to EPSG:4326 by gdaltransform, and how far a
/// quarter of GDAL's pixel moves each corner there.
struct GDALFrame {
  var west, south, east, north: Double
  var quarterPixelLon, quarterPixelLat: Double

  /// `dataset`: a file, or GDAL's subdataset `PDF:N:path`.
  static func of(_ dataset: String) throws -> GDALFrame? {
    let info = try runTool("gdalinfo", ["-json", dataset])
    guard let json = try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any], let gt = json["geoTransform"] as? [Double],
      gt.count == 6, let metadata = (json["metadata"] as? [String: Any])?[""] as? [String: Any],
      let neatline = metadata["NEATLINE"] as? String,
      let open = neatline.range(of: "(("), let close = neatline.range(of: "))")
    else { return nil }
    let points = neatline[open.upperBound..<close.lowerBound].split(separator: ",").map {
      $0.split(separator: " ").compactMap { Double($0) }
    }
    // the corners in GDAL's pixels, and a quarter pixel right and down of each
    let det = gt[1] * gt[5] - gt[2] * gt[4]
    var input = ""
    for p in points where p.count == 2 {
      let (x, y) = (p[0] - gt[0], p[1] - gt[3])
      let (col, row) = ((gt[5] * x - gt[2] * y) / det, (-gt[4] * x + gt[1] * y) / det)
      input += "\(col) \(row)\n\(col + 0.25) \(row)\n\(col) \(row + 0.25)\n"
    }
    let out = try runTool("gdaltransform", ["-t_srs", "EPSG:4326", dataset], input: input)
    let lonLat = out.split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }.filter { $0.count >= 2 }
    guard lonLat.count == 3 * points.count, !points.isEmpty else { return nil }
    let corners = stride(from: 0, to: lonLat.count, by: 3).map { lonLat[$0] }
    var frame = GDALFrame(
      west: corners.map { $0[0] }.min()!, south: corners.map { $0[1] }.min()!, east: corners.map { $0[0] }.max()!,
      north: corners.map { $0[1] }.max()!, quarterPixelLon: 0, quarterPixelLat: 0)
    for k in stride(from: 0, to: lonLat.count, by: 3) {
      for m in [k + 1, k + 2] {
        frame.quarterPixelLon = max(frame.quarterPixelLon, abs(lonLat[m][0] - lonLat[k][0]))
        frame.quarterPixelLat = max(frame.quarterPixelLat, abs(lonLat[m][1] - lonLat[k][1]))
      }
    }
    return frame
  }
}

@Suite("GeoPDF placement", .serialized, .enabled(if: geoPDFDirectory != nil, "the corpus ../shared/data/formats-corpus/geopdf is absent"))
struct GeoPDFTests {
  /// (file, tilecut's page from 0, GDAL's dataset, the encoding the placement line names)
  static let georeferenced: [(String, Int?, String, String)] = [
    ("terrago_build_grid_12SUE9996786249.pdf", nil, "", "geopdf-lgidict"),
    ("terrago_inset_frame_only.pdf", nil, "", "geopdf-lgidict"),
    ("terrago_hyperlink_jump_to_page_2pages.pdf", 1, "PDF:2:", "geopdf-lgidict"),
    ("pdflib_wuhan_iso32000.pdf", nil, "", "geopdf-iso32000"),
  ]

  @Test("each georeferenced page is placed by its neatline within 0.25 of GDAL's pixel (gdaltransform of the corners)")
  func frames() throws {
    let root = try #require(geoPDFDirectory)
    for (name, page, prefix, method) in Self.georeferenced {
      let path = root + "/" + name
      let input = page.map { path + "[page=\($0)]" } ?? path
      let run = try runBinary([input, "-o", NSTemporaryDirectory() + "tilecut-geopdf-\(UUID().uuidString.prefix(8))", "--dry-run", "--json"])
      #expect(run.status == 0, "\(name): \(run.stderr)")
      let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
      let placement = try #require((json?["placements"] as? [[String: Any]])?.first, "\(name): \(run.stdout)")
      #expect(placement["method"] as? String == method, "\(name)")
      let gdal = try #require(try GDALFrame.of(prefix + path), "\(name): gdalinfo gives no neatline")
      let (w, s, e, n) = (
        placement["west"] as? Double ?? .nan, placement["south"] as? Double ?? .nan, placement["east"] as? Double ?? .nan,
        placement["north"] as? Double ?? .nan
      )
      let offLon = max(abs(w - gdal.west), abs(e - gdal.east)) / gdal.quarterPixelLon * 0.25
      let offLat = max(abs(s - gdal.south), abs(n - gdal.north)) / gdal.quarterPixelLat * 0.25
      print(String(format: "geopdf: %@: %.4f px (lon), %.4f px (lat) from GDAL's neatline", name, offLon, offLat))
      #expect(offLon <= 0.25 && offLat <= 0.25, "\(name): \(offLon), \(offLat) GDAL px off; tilecut \(placement), GDAL \(gdal)")
      // the placement line names the encoding
      let label = method == "geopdf-lgidict" ? "OGC best practice (LGIDict)" : "ISO 32000 (/VP /Measure /GEO)"
      #expect(run.stderr.contains("placed by GeoPDF, \(label)"), "\(name): \(run.stderr)")
    }
  }

  @Test("an AutoCAD plot's /Measure /RL viewport is a drawing scale, not georeferencing: placed in pixel space as before")
  func drawingScaleIsNoGeoreference() throws {
    let root = try #require(geoPDFDirectory)
    let path = root + "/ibm_autocad_floorplan_building1959_floor08.pdf"
    // GDAL does not place it either
    let info = try runTool("gdalinfo", ["-json", path])
    let json = try JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any]
    #expect(json?["geoTransform"] == nil && json?["coordinateSystem"] == nil)
    let run = try runBinary([path, "-o", NSTemporaryDirectory() + "tilecut-geopdf-\(UUID().uuidString.prefix(8))", "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let placement = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]).flatMap {
      ($0["placements"] as? [[String: Any]])?.first
    }
    #expect(placement?["method"] as? String == "raster")
    #expect(run.stderr.contains("has no georeference"), "\(run.stderr)")
    let strict = try runBinary([path, "-o", NSTemporaryDirectory() + "tilecut-geopdf-strict", "--dry-run", "--strict"])
    #expect(strict.status != 0 && strict.stderr.contains("--strict refuses"), "\(strict.stderr)")
  }

  @Test("a multi-page GeoPDF gives each page its own placement: the cover in pixel space, the map by its frame")
  func pagesAsFloors() throws {
    let root = try #require(geoPDFDirectory)
    let path = root + "/terrago_hyperlink_jump_to_page_2pages.pdf"
    let run = try runBinary([
      path, "--floors", "2", "-o", NSTemporaryDirectory() + "tilecut-geopdf-\(UUID().uuidString.prefix(8))", "--dry-run", "--json",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let placements = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["placements"] as? [[String: Any]] ?? []
    #expect(placements.map { $0["method"] as? String ?? "" } == ["raster", "geopdf-lgidict"], "\(run.stdout)")
    // the file alone is its first page, the cover, as GDAL opens it: the note names the map page
    let first = try runBinary([path, "-o", NSTemporaryDirectory() + "tilecut-geopdf-\(UUID().uuidString.prefix(8))", "--dry-run"])
    #expect(first.status == 0 && first.stderr.contains("its page 2 is a GeoPDF: name it, '\(path)[page=1]'"), "\(first.stderr)")
  }

  @Test("outside the neatline is transparent by default and kept with --whole-page")
  func frameCut() throws {
    let root = try #require(geoPDFDirectory)
    let path = root + "/terrago_build_grid_12SUE9996786249.pdf"
    let gdal = try #require(try GDALFrame.of(path))
    let zoom = 15
    func opaque(_ extra: [String]) throws -> (inside: Int, outside: Int) {
      let dir = try geoScratch("geopdf-cut-\(extra.count)")
      defer { try? FileManager.default.removeItem(atPath: dir) }
      let run = try runBinary([path, "-o", dir + "/out", "--min-zoom", "\(zoom)", "--max-zoom", "\(zoom)", "--tile-size", "256", "--quiet"] + extra)
      #expect(run.status == 0, "\(run.stderr)")
      var (inside, outside) = (0, 0)
      let world = Double(256 << zoom)
      let margin = 1.5 / world * 360  // a pixel and a half, in degrees of longitude
      for name in try FileManager.default.contentsOfDirectory(atPath: dir + "/out/256") where name.hasSuffix(".png") {
        // L<floor>_<z>_<x>_<y>.png
        let parts = name.dropLast(4).split(separator: "_").compactMap { Int($0) }
        guard parts.count == 3 else { continue }
        let image = try RGBAImage.decode(file: dir + "/out/256/" + name)
        for row in 0..<image.height {
          let v = (Double(parts[2] * 256 + row) + 0.5) / world
          let lat = atan(sinh(.pi * (1 - 2 * v))) * 180 / .pi
          for col in 0..<image.width where image.pixels[4 * (row * image.width + col) + 3] > 0 {
            let lon = (Double(parts[1] * 256 + col) + 0.5) / world * 360 - 180
            let latMargin = margin * cos(lat * .pi / 180)
            if lon < gdal.west - margin || lon > gdal.east + margin || lat < gdal.south - latMargin || lat > gdal.north + latMargin {
              outside += 1
            } else if lon > gdal.west + margin && lon < gdal.east - margin && lat > gdal.south + latMargin && lat < gdal.north - latMargin {
              inside += 1
            }
          }
        }
      }
      return (inside, outside)
    }
    let cut = try opaque([])
    let whole = try opaque(["--whole-page"])
    print("geopdf: opaque pixels inside/outside the neatline: cut \(cut), whole page \(whole)")
    // the frame is drawn on white paper, as GDAL draws it: opaque throughout
    let frameArea = (gdal.east - gdal.west) / 360 * Double(256 << zoom) * (gdal.north - gdal.south) / 360 * Double(256 << zoom) / cos(36 * .pi / 180)
    #expect(Double(cut.inside) > 0.9 * frameArea, "the map inside the frame is opaque: \(cut) of about \(frameArea)")
    #expect(cut.outside == 0, "nothing outside the frame: \(cut)")
    #expect(whole.outside > 10_000, "--whole-page keeps the collar (grid labels, legend): \(whole)")
    #expect(abs(whole.inside - cut.inside) <= cut.inside / 100, "the map itself is the same: \(cut) vs \(whole)")
  }

  @Test("a GeoPDF whose georeferencing cannot be used is refused with one line naming the file", arguments: ["pole", "nocrs", "degenerate"])
  func unusable(kind: String) throws {
    let dir = try geoScratch("geopdf-\(kind)")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let wkt =
      #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]"#
    let points: String
    switch kind {
    case "pole": points = "89 20 95 20 95 21 89 21"
    case "degenerate": points = "10 20 10 20 10 20 10 20"
    default: points = "10 20 11 20 11 21 10 21"
    }
    let gcs = kind == "nocrs" ? "" : "/GCS << /Type /GEOGCS /WKT (\(wkt)) >>"
    let viewport =
      "/VP [<< /Type /Viewport /BBox [50 10 150 90] /Measure << /Type /Measure /Subtype /GEO /Bounds [0 0 0 1 1 1 1 0] /GPTS [\(points)] /LPTS [0 0 0 1 1 1 1 0] \(gcs) >> >>]"
    let path = dir + "/\(kind).pdf"
    try Data(PDFWriter().document(content: Array("0 0 1 rg 0 0 200 100 re f".utf8), page: viewport)).write(to: URL(fileURLWithPath: path))
    let run = try runBinary([path, "-o", dir + "/out", "--dry-run"])
    let errors = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(run.status == 1 && errors.count == 1, "\(run.stderr)")
    #expect(errors.first?.contains(path) == true && errors.first?.contains("GeoPDF") == true, "\(run.stderr)")
    #expect(!run.stderr.contains("pixel space"), "\(run.stderr)")
  }

  @Test("the same viewport, usable, is placed where its points say")
  func usableFixture() throws {
    let dir = try geoScratch("geopdf-good")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let wkt =
      #"GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]]"#
    let viewport =
      "/VP [<< /Type /Viewport /BBox [50 10 150 90] /Measure << /Type /Measure /Subtype /GEO /Bounds [0 0 0 1 1 1 1 0] /GPTS [10 20 11 20 11 21 10 21] /LPTS [0 0 0 1 1 1 1 0] /GCS << /Type /GEOGCS /WKT (\(wkt)) >> >> >>]"
    let path = dir + "/good.pdf"
    try Data(PDFWriter().document(content: Array("0 0 1 rg 0 0 200 100 re f".utf8), page: viewport)).write(to: URL(fileURLWithPath: path))
    let run = try runBinary([path, "-o", dir + "/out", "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let placement = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]).flatMap {
      ($0["placements"] as? [[String: Any]])?.first
    }
    for (key, value) in [("south", 10.0), ("north", 11.0), ("west", 20.0), ("east", 21.0)] {
      #expect(abs((placement?[key] as? Double ?? .nan) - value) < 1e-9, "\(key): \(String(describing: placement))")
    }
  }

  @Test("a frame turned on the page (an LGIDict neatline) is cut along its edges, and its box is the footprint")
  func turnedFrame() throws {
    let dir = try geoScratch("geopdf-turned")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // page points (60,20) (140,30) (130,80) (50,70) from the bottom; the CTM takes a point to 0.01°
    let lgi =
      "/LGIDict << /Type /LGIDict /Version (2.1) /Neatline [60 20 140 30 130 80 50 70] /CTM [0.01 0 0 0.01 20 10] "
      + "/Projection << /Type /Projection /ProjectionType (GEOGRAPHIC) /Datum (WGE) >> >>"
    let path = dir + "/turned.pdf"
    try Data(PDFWriter().document(content: Array("0 0 1 rg 0 0 200 100 re f".utf8), page: lgi)).write(to: URL(fileURLWithPath: path))
    let dry = try runBinary([path, "-o", dir + "/dry", "--dry-run", "--json"])
    let placement = (try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [String: Any]).flatMap {
      ($0["placements"] as? [[String: Any]])?.first
    }
    // GDAL's NEATLINE: POLYGON ((20.6 10.2, 21.4 10.3, 21.3 10.8, 20.5 10.7, …))
    for (key, value) in [("south", 10.2), ("north", 10.8), ("west", 20.5), ("east", 21.4)] {
      #expect(abs((placement?[key] as? Double ?? .nan) - value) < 1e-9, "\(key): \(dry.stderr) \(String(describing: placement))")
    }
    let zoom = 9
    let run = try runBinary([path, "-o", dir + "/out", "--min-zoom", "\(zoom)", "--max-zoom", "\(zoom)", "--tile-size", "256", "--quiet"])
    #expect(run.status == 0, "\(run.stderr)")
    let world = Double(256 << zoom)
    func pixel(_ lon: Double, _ lat: Double) -> (Double, Double) {
      let v = (1 - log(tan(lat * .pi / 180) + 1 / cos(lat * .pi / 180)) / .pi) / 2
      return ((lon + 180) / 360 * world, v * world)
    }
    let corners = [(20.6, 10.2), (21.4, 10.3), (21.3, 10.8), (20.5, 10.7)].map { pixel($0.0, $0.1) }
    var area = 0.0
    for k in 0..<4 {
      let (a, b) = (corners[k], corners[(k + 1) % 4])
      area += a.0 * b.1 - b.0 * a.1
    }
    area = abs(area) / 2
    var opaque = 0.0
    for name in try FileManager.default.contentsOfDirectory(atPath: dir + "/out/256") where name.hasSuffix(".png") {
      let image = try RGBAImage.decode(file: dir + "/out/256/" + name)
      opaque += stride(from: 3, to: image.pixels.count, by: 4).reduce(0.0) { $0 + Double(image.pixels[$1]) / 255 }
    }
    let box = (corners.map(\.0).max()! - corners.map(\.0).min()!) * (corners.map(\.1).max()! - corners.map(\.1).min()!)
    print(String(format: "geopdf: turned frame: %.0f px of alpha, polygon %.0f px, its box %.0f px", opaque, area, box))
    #expect(abs(opaque - area) <= 0.01 * area, "opaque \(opaque) vs the frame's \(area) px (its box: \(box))")
  }

  @Test("a frame in a projected CRS (ISO 32000, UTM 33N) is placed through PROJ where gdaltransform puts its corners")
  func projectedFrame() throws {
    let dir = try geoScratch("geopdf-utm")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let utm =
      #"PROJCS["WGS 84 / UTM zone 33N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],"#
      + #"PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],"#
      + #"PARAMETER["central_meridian",15],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1]]"#
    let viewport =
      "/VP [<< /Type /Viewport /BBox [50 10 150 90] /Measure << /Type /Measure /Subtype /GEO /Bounds [0 0 0 1 1 1 1 0] "
      + "/GPTS [52.50 13.39 52.52 13.39 52.52 13.42 52.50 13.42] /LPTS [0 0 0 1 1 1 1 0] /GCS << /Type /PROJCS /WKT (\(utm)) >> >> >>]"
    let path = dir + "/utm.pdf"
    try Data(PDFWriter().document(content: Array("0 0 1 rg 0 0 200 100 re f".utf8), page: viewport)).write(to: URL(fileURLWithPath: path))
    let run = try runBinary([path, "-o", dir + "/out", "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let placement = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]).flatMap {
      ($0["placements"] as? [[String: Any]])?.first
    }
    #expect(placement?["crs"] as? String == "WGS 84 / UTM zone 33N", "\(String(describing: placement))")
    let gdal = try #require(try GDALFrame.of(path))
    let (w, e) = (placement?["west"] as? Double ?? .nan, placement?["east"] as? Double ?? .nan)
    let (s, n) = (placement?["south"] as? Double ?? .nan, placement?["north"] as? Double ?? .nan)
    let offLon = max(abs(w - gdal.west), abs(e - gdal.east)) / gdal.quarterPixelLon * 0.25
    let offLat = max(abs(s - gdal.south), abs(n - gdal.north)) / gdal.quarterPixelLat * 0.25
    print(String(format: "geopdf: UTM frame: %.4f px (lon), %.4f px (lat) from gdaltransform's corners", offLon, offLat))
    #expect(offLon <= 0.25 && offLat <= 0.25, "\(offLon), \(offLat) GDAL px; tilecut \(String(describing: placement)), GDAL \(gdal)")
  }

  @Test("a PDF's .aux.xml (GDAL's PAM) places its first page as GDAL does; one that cannot be used is named in the refusal")
  func auxiliaryFile() throws {
    let dir = try geoScratch("geopdf-aux")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/plain.pdf"
    try Data(PDFWriter().document(content: Array("0 0 1 rg 0 0 200 100 re f".utf8))).write(to: URL(fileURLWithPath: path))
    func aux(_ srs: String) throws {
      try "<PAMDataset><SRS>\(srs)</SRS><GeoTransform>389749.0, 10.0, 0.0, 5820395.0, 0.0, -10.0</GeoTransform></PAMDataset>"
        .write(toFile: path + ".aux.xml", atomically: true, encoding: .utf8)
    }
    try aux("EPSG:32633")
    let run = try runBinary([path, "-o", dir + "/out", "--dry-run", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    let placement = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]).flatMap {
      ($0["placements"] as? [[String: Any]])?.first
    }
    #expect(placement?["method"] as? String == "aux-xml" && (placement?["sidecars"] as? [String]) == [path + ".aux.xml"])
    // GDAL's corners of the page at its 150 dpi (417 × 208 px of 10 m)
    let corners = try runTool("gdaltransform", ["-t_srs", "EPSG:4326", path], input: "0 0\n417 0\n417 208\n0 208\n")
      .split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
    try #require(corners.count == 4 && corners.allSatisfy { $0.count >= 2 })
    // a quarter of GDAL's 10 m pixel, in degrees of latitude and of longitude
    let latTolerance: Double = 0.25 * 10 / 111_000
    let tolerance: Double = latTolerance / cos(52.5 * .pi / 180)
    let west: Double = corners.map { $0[0] }.min() ?? .nan
    let north: Double = corners.map { $0[1] }.max() ?? .nan
    #expect(
      abs((placement?["west"] as? Double ?? .nan) - west) < tolerance, "\(corners) \(String(describing: placement))")
    #expect(
      abs((placement?["north"] as? Double ?? .nan) - north) < latTolerance,
      "\(corners) \(String(describing: placement))"
    )
    try aux("EPSG:999999")
    let bad = try runBinary([path, "-o", dir + "/out", "--dry-run"])
    let errors = bad.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
    #expect(bad.status == 1 && errors.count == 1 && errors[0].hasPrefix("error: \(path).aux.xml: "), "\(bad.stderr)")
  }
}
