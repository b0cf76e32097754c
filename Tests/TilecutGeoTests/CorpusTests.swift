import Foundation
import Testing
import TilecutFixtures

/// The shared corpus of real georeferenced rasters (`shared/data/geotiff-corpus` beside
/// the repository, see its SOURCES.md), found by walking up from this file; nil when absent.
let corpusDirectory: String? = TestEnvironment.sharedData("geotiff-corpus")

/// The corpus's rasters, by folder and name.
func corpusFiles() -> [String] {
  guard let root = corpusDirectory else { return [] }
  let kinds: Set<String> = ["tif", "png", "gif", "cog"]
  return ["libgeotiff", "rasterio", "wild"].flatMap { folder -> [String] in
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
    return names.filter { kinds.contains(($0 as NSString).pathExtension.lowercased()) }.sorted().map { root + "/" + folder + "/" + $0 }
  }
}

/// Runs a program (gdalinfo, gdaltransform) with `input` on stdin; its stdout.
func runTool(_ tool: String, _ args: [String], input: String = "") throws -> String {
  let dir = NSTemporaryDirectory() + "tilecut-corpus-\(UUID().uuidString.prefix(8))"
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: dir) }
  try input.write(toFile: dir + "/in", atomically: false, encoding: .utf8)
  _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = [tool] + args
  process.standardInput = FileHandle(forReadingAtPath: dir + "/in")
  let out = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/out"))
  process.standardOutput = out
  process.standardError = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  try out.close()
  return String(decoding: FileManager.default.contents(atPath: dir + "/out") ?? Data(), as: UTF8.self)
}

/// A footprint in normalised Web-Mercator (u east, v south, 0…1), latitudes clamped to ±85.0511°.
struct WorldBox {
  var minU, minV, maxU, maxV: Double

  static func v(latitude: Double) -> Double {
    let lat = min(max(latitude, -85.0511287798), 85.0511287798) * .pi / 180
    return (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
  }

  init(minU: Double, minV: Double, maxU: Double, maxV: Double) {
    (self.minU, self.minV, self.maxU, self.maxV) = (minU, minV, maxU, maxV)
  }

  init(south: Double, west: Double, north: Double, east: Double) {
    self.init(minU: (west + 180) / 360, minV: Self.v(latitude: north), maxU: (east + 180) / 360, maxV: Self.v(latitude: south))
  }

  /// The largest distance between matching sides, in world units.
  func distance(to other: WorldBox) -> Double {
    [abs(minU - other.minU), abs(maxU - other.maxU), abs(minV - other.minV), abs(maxV - other.maxV)].max() ?? .infinity
  }
}

/// Where GDAL puts a raster: the box of its edges densified through GDAL's own
/// transformer to EPSG:3857 (the one gdalwarp uses: geotransform or control points, then
/// PROJ), a pole inside the raster extending it to the map's edge; and its pixel size.
/// One python3-gdal process for all files (GDAL's programs take a second each to start).
struct GDALFootprint {
  var box: WorldBox
  var pixel: Double

  static let script = """
    import json, math, os, sys
    from osgeo import gdal, osr
    gdal.UseExceptions()
    S = 20037508.342789244
    out = {}
    for path in sys.stdin.read().split("\\n"):
        if not path: continue
        out[path] = None
        try:
            ds = gdal.Open(path)
            gt = ds.GetGeoTransform(can_return_null=True)
            if gt is None and ds.GetGCPCount() == 0: continue
            srs = ds.GetSpatialRef() if gt is not None else ds.GetGCPSpatialRef()
            options = ["DST_SRS=EPSG:3857"]
            if srs is None or srs.IsLocal():
                # a .prj beside a world file is the CRS for GIS users (GDAL ignores it for PNG and GIF)
                prj = os.path.splitext(path)[0] + ".prj"
                if not os.path.exists(prj): continue
                options.append("SRC_SRS=" + open(prj).read())
            w, h = ds.RasterXSize, ds.RasterYSize
            tr = gdal.Transformer(ds, None, options)
            steps = 64
            pixels = []
            for i in range(steps + 1):
                t = i / steps
                pixels += [(t * w, 0), (w, t * h), (w - t * w, h), (0, h - t * h)]
            us, vs = [], []
            for x, y in pixels:
                ok, p = tr.TransformPoint(0, x, y)
                if not ok or not math.isfinite(p[0]): raise ValueError("edge")
                us.append((p[0] + S) / (2 * S))
                vs.append(min(max((S - p[1]) / (2 * S), 0), 1) if math.isfinite(p[1]) else (0 if p[1] > 0 else 1))
            box = [min(us), min(vs), max(us), max(vs)]
            geo = gdal.Transformer(ds, None, [o.replace("EPSG:3857", "EPSG:4326") for o in options])
            for k, lat in enumerate((90, -90)):
                ok, p = geo.TransformPoint(1, 0, lat)
                if ok and 0 <= p[0] <= w and 0 <= p[1] <= h:
                    box[0], box[2] = 0, 1
                    box[1 if k == 0 else 3] = 0 if k == 0 else 1
            sizes = sorted(math.hypot(us[i + 4] - us[i], vs[i + 4] - vs[i]) / math.hypot(pixels[i + 4][0] - pixels[i][0], pixels[i + 4][1] - pixels[i][1])
                           for i in range(len(pixels) - 4) if 0 < math.hypot(us[i + 4] - us[i], vs[i + 4] - vs[i]) < 0.5)
            if sizes: out[path] = {"box": box, "pixel": sizes[len(sizes) // 2]}
        except Exception:
            pass
    print(json.dumps(out))
    """

  /// GDAL's footprints of `files`; a file is absent where GDAL does not place it on the
  /// Earth (no geotransform nor control points, no CRS, or one PROJ cannot take to Web Mercator).
  static func of(_ files: [String]) throws -> [String: GDALFootprint] {
    let text = try runTool("/usr/bin/python3", ["-c", script], input: files.joined(separator: "\n") + "\n")
    guard let data = text.data(using: .utf8), let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      return [:]
    }
    var out: [String: GDALFootprint] = [:]
    for (file, value) in json {
      guard let entry = value as? [String: Any], let box = entry["box"] as? [Double], box.count == 4, let pixel = entry["pixel"] as? Double
      else { continue }
      out[file] = GDALFootprint(box: WorldBox(minU: box[0], minV: box[1], maxU: box[2], maxV: box[3]), pixel: pixel)
    }
    return out
  }
}

/// How tilecut took one corpus file.
struct CorpusOutcome: CustomStringConvertible {
  var file: String
  var gdal: GDALFootprint?
  var method: String?
  var offPixels: Double?
  var refusal: String?
  var stderr: String

  var description: String {
    let name = file.split(separator: "/").suffix(2).joined(separator: "/")
    if let refusal { return "\(name): refused: \(refusal)" }
    if let offPixels { return String(format: "%@: %@, %.3f px from GDAL", name, method ?? "?", offPixels) }
    return "\(name): \(method ?? "?") (GDAL does not place it)"
  }
}

/// Runs tilecut's placement (a dry run) on a corpus file, compared with GDAL's footprint.
func corpusOutcome(_ file: String, gdal: GDALFootprint?) throws -> CorpusOutcome {
  let out = NSTemporaryDirectory() + "tilecut-corpus-out-\(UUID().uuidString.prefix(8))"
  var run = try runBinary([file, "-o", out, "--dry-run", "--json"])
  if run.status != 0 && run.stderr.contains("--bands R,G,B") {
    // placement is what is compared here; a multispectral file needs its bands chosen
    run = try runBinary([file, "-o", out, "--dry-run", "--json", "--bands", "3,2,1"])
  }
  var outcome = CorpusOutcome(file: file, gdal: gdal, stderr: run.stderr)
  guard run.status == 0 else {
    outcome.refusal = run.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }.joined(separator: " | ")
    return outcome
  }
  guard let data = run.stdout.data(using: .utf8), let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
    let placement = (json["placements"] as? [[String: Any]])?.first
  else { return outcome }
  outcome.method = placement["method"] as? String
  if let gdal, let s = placement["south"] as? Double, let w = placement["west"] as? Double, let n = placement["north"] as? Double,
    let e = placement["east"] as? Double
  {
    outcome.offPixels = WorldBox(south: s, west: w, north: n, east: e).distance(to: gdal.box) / gdal.pixel
  }
  return outcome
}

@Suite("GDAL corpus", .serialized, .enabled(if: corpusDirectory != nil, "the shared corpus ../shared/data/geotiff-corpus is absent"))
struct CorpusTests {
  @Test("every corpus raster GDAL places is placed within 0.25 source pixel of GDAL's footprint, or refused with one line in Placement.md")
  func footprints() async throws {
    let files = corpusFiles()
    #expect(files.count >= 80)
    let readme = (try? String(contentsOfFile: repositoryRoot() + "/Sources/Tilecut/Tilecut.docc/Placement.md", encoding: .utf8)) ?? ""
    let reference = try GDALFootprint.of(files)
    #expect(reference.count >= 60, "python3-gdal gave \(reference.count) footprints")
    var outcomes: [CorpusOutcome] = []
    try await withThrowingTaskGroup(of: CorpusOutcome.self) { group in
      var next = 0
      for _ in 0..<3 where next < files.count {
        let file = files[next]
        group.addTask { try corpusOutcome(file, gdal: reference[file]) }
        next += 1
      }
      while let outcome = try await group.next() {
        outcomes.append(outcome)
        if next < files.count {
          let file = files[next]
          group.addTask { try corpusOutcome(file, gdal: reference[file]) }
          next += 1
        }
      }
    }
    outcomes.sort { $0.file < $1.file }
    let placedByGDAL = outcomes.filter { $0.gdal != nil }
    let asGDAL = placedByGDAL.filter { ($0.offPixels ?? .infinity) <= 0.25 }
    print("corpus: \(asGDAL.count) of \(placedByGDAL.count) placed as GDAL places them (\(outcomes.count) files)")
    for outcome in outcomes { print("corpus: \(outcome)") }
    for outcome in outcomes {
      let name = (outcome.file as NSString).lastPathComponent
      if let refusal = outcome.refusal {
        // one clear line naming the file, and the placement guide's table says why
        #expect(refusal.split(separator: "|").count == 1 && refusal.contains(name), "\(outcome)")
        #expect(readme.contains("| \(name) |"), "\(name) is refused but not in Placement.md's corpus table")
      } else if outcome.gdal != nil {
        #expect((outcome.offPixels ?? .infinity) <= 0.25, "\(outcome)")
      } else {
        // GDAL does not put it on the map: neither does tilecut
        #expect(outcome.method == "raster", "\(outcome)")
      }
    }
  }
}

/// The repository's root.
func repositoryRoot() -> String { TestEnvironment.repositoryRoot }

@Suite("GDAL corpus pixels", .enabled(if: corpusDirectory != nil, "the shared corpus ../shared/data/geotiff-corpus is absent"))
struct CorpusPixelTests {
  /// A user-defined projection on NAD27 (PCI) and a NAD27 UTM scene (SPOT): the datum
  /// shift GDAL applies must be in the tiles. Tiled at the zoom nearest 1:1 and compared
  /// with gdalwarp -t_srs EPSG:3857 -r bilinear by bench/gdalwarp_compare.py.
  @Test("tiles match gdalwarp's at the zoom nearest 1:1 (≥ 35 dB)", arguments: [("wild/pci_eg_lcc-27.tif", 11), ("wild/spot_UTM2GTIF.tif", 14)])
  func againstGDALWarp(file: String, zoom: Int) throws {
    let root = try #require(corpusDirectory)
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let source = root + "/" + file
    let run = try runBinary([
      source, "-o", dir + "/out", "--min-zoom", "\(zoom)", "--max-zoom", "\(zoom)", "--tile-size", "256", "--quiet",
    ])
    #expect(run.status == 0, "\(run.stderr)")
    let report = try runTool("/usr/bin/python3", [repositoryRoot() + "/bench/gdalwarp_compare.py", source, dir + "/out", "\(zoom)"])
    // "z11: 9 tiles, max abs …, min PSNR 41.3 dB, alpha mismatches (px) 19 of 237065 opaque"
    let line = try #require(report.split(separator: "\n").first { $0.hasPrefix("z\(zoom):") }, "\(report)")
    let psnr = line.components(separatedBy: "min PSNR ").last?.split(separator: " ").first.flatMap { Double($0) }
    #expect((psnr ?? 0) >= 35, "\(file): \(line)")
  }
}
