import Foundation
import Testing

/// The shared corpus of real georeferenced rasters (`shared/data/geotiff-corpus` beside
/// the repository, see its SOURCES.md), found by walking up from this file; nil when absent.
let corpusDirectory: String? = {
  var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  for _ in 0..<6 {
    dir = dir.deletingLastPathComponent()
    let candidate = dir.appendingPathComponent("shared/data/geotiff-corpus").path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue { return candidate }
  }
  return nil
}()

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

/// Where GDAL puts a raster: the box of its edges densified through gdaltransform (a pole
/// inside the raster extends it to the map's edge), and its pixel size in world units.
struct GDALFootprint {
  var box: WorldBox
  var pixel: Double

  /// nil when GDAL does not place the raster on the Earth (no geotransform nor control
  /// points, or no CRS, or one PROJ cannot take to WGS 84).
  static func of(_ path: String) throws -> GDALFootprint? {
    guard let data = try runTool("gdalinfo", ["-json", path]).data(using: .utf8),
      let info = try JSONSerialization.jsonObject(with: data) as? [String: Any], let size = info["size"] as? [Int], size.count == 2
    else { return nil }
    let gcps = (info["gcps"] as? [String: Any])?["gcpList"] as? [Any] ?? []
    guard info["geoTransform"] != nil || !gcps.isEmpty else { return nil }
    let system = (info["coordinateSystem"] as? [String: Any]) ?? ((info["gcps"] as? [String: Any])?["coordinateSystem"] as? [String: Any])
    let wkt = system?["wkt"] as? String ?? ""
    var srs: [String] = []
    if wkt.isEmpty || wkt.hasPrefix("ENGCRS") {
      // a .prj beside a world file is the CRS for GIS users (GDAL ignores it for PNG and GIF)
      let prj = (path as NSString).deletingPathExtension + ".prj"
      guard FileManager.default.fileExists(atPath: prj) else { return nil }
      srs = ["-s_srs", prj]
    }
    let (w, h) = (Double(size[0]), Double(size[1]))
    let steps = 64
    var pixels: [(Double, Double)] = []
    for i in 0...steps {
      let t = Double(i) / Double(steps)
      pixels += [(t * w, 0), (w, t * h), (w - t * w, h), (0, h - t * h)]
    }
    let input = pixels.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
    let lines = try runTool("gdaltransform", srs + ["-t_srs", "EPSG:4326", "-output_xy", path], input: input).split(separator: "\n")
    let points = lines.map { $0.split(separator: " ").compactMap { Double($0) } }.filter { $0.count == 2 && $0.allSatisfy(\.isFinite) }
    guard points.count == pixels.count else { return nil }
    let us = points.map { ($0[0] + 180) / 360 }
    let vs = points.map { WorldBox.v(latitude: $0[1]) }
    var box = WorldBox(minU: us.min() ?? 0, minV: vs.min() ?? 0, maxU: us.max() ?? 1, maxV: vs.max() ?? 1)
    // a pole inside the raster: the map holds every longitude down (up) to its edge
    let poles = try runTool("gdaltransform", srs + ["-i", "-t_srs", "EPSG:4326", "-output_xy", path], input: "0 90\n0 -90\n")
      .split(separator: "\n").map { $0.split(separator: " ").compactMap { Double($0) } }
    for (k, p) in poles.enumerated() where p.count == 2 && p[0] >= 0 && p[0] <= w && p[1] >= 0 && p[1] <= h {
      (box.minU, box.maxU) = (0, 1)
      if k == 0 { box.minV = 0 } else { box.maxV = 1 }
    }
    // a source pixel in world units: the median step along the edges
    var sizes: [Double] = []
    for i in 0..<(pixels.count - 4) {
      let d = hypot(us[i + 4] - us[i], vs[i + 4] - vs[i])
      let step = hypot(pixels[i + 4].0 - pixels[i].0, pixels[i + 4].1 - pixels[i].1)
      if d.isFinite, d > 0, d < 0.5, step > 0 { sizes.append(d / step) }
    }
    guard !sizes.isEmpty else { return nil }
    return GDALFootprint(box: box, pixel: sizes.sorted()[sizes.count / 2])
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
func corpusOutcome(_ file: String) throws -> CorpusOutcome {
  let gdal = try GDALFootprint.of(file)
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
  @Test("every corpus raster GDAL places is placed within 0.25 source pixel of GDAL's footprint, or refused with one line listed in the README")
  func footprints() async throws {
    let files = corpusFiles()
    #expect(files.count >= 80)
    let readme = (try? String(contentsOfFile: repositoryRoot() + "/README.md", encoding: .utf8)) ?? ""
    var outcomes: [CorpusOutcome] = []
    try await withThrowingTaskGroup(of: CorpusOutcome.self) { group in
      var next = 0
      for _ in 0..<3 where next < files.count {
        let file = files[next]
        group.addTask { try corpusOutcome(file) }
        next += 1
      }
      while let outcome = try await group.next() {
        outcomes.append(outcome)
        if next < files.count {
          let file = files[next]
          group.addTask { try corpusOutcome(file) }
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
        // one clear line naming the file, and the README's table says why
        #expect(refusal.split(separator: "|").count == 1 && refusal.contains(name), "\(outcome)")
        #expect(readme.contains("| \(name) |"), "\(name) is refused but not in the README's corpus table")
      } else if outcome.gdal != nil {
        #expect((outcome.offPixels ?? .infinity) <= 0.25, "\(outcome)")
      } else {
        // GDAL does not put it on the map: neither does tilecut
        #expect(outcome.method == "raster", "\(outcome)")
      }
    }
  }
}

/// The repository's root (two folders above this file's).
func repositoryRoot() -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}
