import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

#if canImport(Glibc)
  import Glibc
#endif

/// Runs Tests/browser/drive.py (headless Chromium over the DevTools protocol) on a job;
/// returns its pages' measurements.
func driveBrowser(_ job: [String: Any], in dir: String) throws -> (pages: [[String: Any]], served: [[Int]]) {
  let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("browser/drive.py").path
  let jobPath = dir + "/job.json"
  try JSONSerialization.data(withJSONObject: job).write(to: URL(fileURLWithPath: jobPath))
  let process = Process()
  // Debian's python3 is the one with GDAL's osr (python3-gdal)
  process.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") ? "/usr/bin/python3" : "python3")
  process.arguments = [script, jobPath]
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  let errors = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
    throw TilecutError.invalidInput(path: script, reason: "failed: " + String(decoding: errors, as: UTF8.self))
  }
  return (object["pages"] as? [[String: Any]] ?? [], object["served"] as? [[Int]] ?? [])
}

/// A loopback TCP port nothing listens on (the test's base map server takes it).
func freePort() throws -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  defer { close(fd) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = 0
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
  }
  guard bound else { throw TilecutError.invalidOption(option: "port", reason: "no free loopback port") }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// Points [[x, y]] as arrays of doubles.
private func points(_ value: Any?) -> [[Double]] {
  (value as? [[Any]] ?? []).map { $0.compactMap { ($0 as? NSNumber)?.doubleValue } }
}

private func number(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? .nan }

@Suite("pages in a browser", .serialized)
struct BrowserTests {
  /// A plan placed by four control points (one a pixel and a half off, so it has a residual).
  static let gcp = ["10,15,52.5162,13.3781", "390,20,52.51615,13.3801", "385,280,52.51535,13.38005", "15,275,52.5154,13.37815"]

  func placedOutput(_ dir: String, basemap: String?) throws -> String {
    try picture(width: 400, height: 300, seed: 2).writePNG(to: dir + "/plan.png")
    let out = dir + "/out-\(UUID().uuidString.prefix(6))"
    var args = [dir + "/plan.png", "--tile-size", "256", "--max-zoom", "19", "-o", out, "--preview"] + Self.gcp.flatMap { ["--gcp", $0] }
    if let basemap { args += ["--preview-basemap", basemap, "--preview-attribution", "test tiles"] }
    #expect(try tilecut(args) == 0)
    return out
  }

  @Test("preview.html: the base map, each floor's outline and the control points lie where the manifest says, within 1 px")
  func previewOverBasemap() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let port = try freePort()
    let out = try placedOutput(dir, basemap: "http://127.0.0.1:\(port)/{z}/{x}/{y}.png")
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: out + "/manifest.json")))
    let placed = try #require(manifest.placements?.first)
    #expect(placed.controlPoints?.count == 4)
    #expect((placed.rmsPixels ?? 0) > 0.1)
    let centre = try #require(manifest.footprints.first)
    var pages: [[String: Any]] = []
    for zoom in [17, 19] {
      pages.append([
        "kind": "preview", "url": "file://" + out + "/preview.html",
        "view": ["zoom": zoom, "lat": (centre.south + centre.north) / 2 + 0.00003, "lon": (centre.west + centre.east) / 2 - 0.00007],
      ])
    }
    let (results, served) = try driveBrowser(["port": port, "width": 1100, "height": 760, "pages": pages], in: dir)
    #expect(results.count == 2)
    #expect(!served.isEmpty)
    for page in results {
      #expect(page["basemap"] as? String == "ok")
      #expect(page["problems"] as? [String] == [])
      #expect(page["attribution"] as? String == "test tiles")
      #expect((page["graticuleLines"] as? Int) == 0)
      #expect((page["tileImages"] as? Int ?? 0) > 0)
      // base tiles: loaded, at their grid place
      let base = page["base"] as? [[String: Any]] ?? []
      let expectedBase = page["expectedBase"] as? [[String: Any]] ?? []
      #expect(base.count > 1 && base.count == expectedBase.count)
      for (b, e) in zip(base, expectedBase) {
        #expect(b["loaded"] as? Bool == true)
        #expect(abs(number(b["left"]) - number(e["left"])) <= 1 && abs(number(b["top"]) - number(e["top"])) <= 1)
        #expect(abs(number(b["width"]) - number(e["width"])) <= 0.01)
      }
      // the outline, point by point
      let outlines = page["outlines"] as? [[String: Any]] ?? []
      let expected = page["expectedOutlines"] as? [[String: Any]] ?? []
      #expect(outlines.count == 1 && expected.count == 1)
      let drawn = points(outlines.first?["points"])
      let wanted = points(expected.first?["points"])
      #expect(drawn.count == 4 * Manifest.PlacedFloor.sideSteps && drawn.count == wanted.count)
      for (d, w) in zip(drawn, wanted) { #expect(hypot(d[0] - w[0], d[1] - w[1]) <= 1, "\(d) vs \(w)") }
      // the control points, with their residual values
      let gcps = page["gcps"] as? [[String: Any]] ?? []
      let wantedGcps = page["expectedGcps"] as? [[String: Any]] ?? []
      #expect(gcps.count == 4 && wantedGcps.count == 4)
      for (g, w) in zip(gcps, wantedGcps) {
        #expect(hypot(number(g["x"]) - number(w["x"]), number(g["y"]) - number(w["y"])) <= 1)
        #expect((g["text"] as? String ?? "").contains(String(format: "%.2f px", number(w["residualPixels"]))))
      }
      // the readout under the pointer at the view's centre: within a screen pixel (and the 6 decimals shown)
      let readout = (page["readout"] as? String ?? "").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
      let place = points([page["readoutPlace"] as Any]).first ?? []
      let zoom = ((page["view"] as? [String: Any])?["zoom"] as? Int) ?? 0
      let degreesPerPixel = 360 / (256 * pow(2, Double(zoom))) + 1e-6
      #expect(readout.count == 2 && place.count == 2)
      if readout.count == 2 && place.count == 2 {
        #expect(abs(readout[0] - place[0]) < degreesPerPixel && abs(readout[1] - place[1]) < degreesPerPixel, "\(readout) vs \(place)")
      }
    }
  }

  @Test("offline, the pages draw a graticule with degree labels and log no errors")
  func offline() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // the browser resolves no host but the loopback one: OpenStreetMap is unreachable
    let unreachable = try placedOutput(dir, basemap: PreviewBasemap.openStreetMap)
    let none = try placedOutput(dir, basemap: nil)
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/georef.html"]) == 0)
    let view: [String: Any] = ["zoom": 19, "lat": 52.5158, "lon": 13.3791]
    let (results, served) = try driveBrowser(
      [
        "width": 1000, "height": 700,
        "pages": [
          ["kind": "preview", "url": "file://" + unreachable + "/preview.html", "view": view, "settle": 1.0],
          ["kind": "preview", "url": "file://" + none + "/preview.html", "view": view],
          ["kind": "georef", "url": "file://" + dir + "/georef.html"],
        ],
      ], in: dir)
    #expect(served.isEmpty)
    #expect(results.count == 3)
    for (i, page) in results.enumerated() {
      #expect((page["graticuleLines"] as? Int ?? 0) >= 2)
      #expect(page["basemap"] as? String == (i == 0 ? "failed" : "none"))
    }
    let labels = results[0]["graticuleLabels"] as? [String] ?? []
    #expect(labels.contains { $0.hasSuffix("°N") } && labels.contains { $0.hasSuffix("°E") })
    // the unreachable base map: one probe tile fails (the browser logs the failed load), nothing else
    let problems = results[0]["problems"] as? [String] ?? []
    #expect(problems.count <= 1 && problems.allSatisfy { $0.hasPrefix("log (network)") }, "\(problems)")
    #expect(results[1]["problems"] as? [String] == [])
    #expect(results[2]["problems"] as? [String] == [])
  }

  @Test("georef.html: its fit equals tilecut's, and pairs clicked on it give --gcp arguments that reproduce a hidden placement within a source pixel")
  func georefPage() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // a real plan drawing: the second page of the bundled building.pdf, 800 × 600 pt (its pixels at scale 1)
    let root = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
    let plan = root.appendingPathComponent("examples/floorplan/building.pdf").path + "[page=1]"
    let (width, height) = (800, 600)
    // the hidden placement: 5 cm per pixel, turned 17° clockwise
    let hidden = try Georeference.center(
      GeoPoint(latitude: 52.5159, longitude: 13.379), metersPerPixel: 0.05, rotationDegrees: 17, width: width, height: height)
    func place(_ col: Double, _ row: Double) -> [Double] {
      let g = WebMercator.geo(hidden.world(col: col, row: row))
      return [col, row, g.latitude, g.longitude]
    }
    let pairs = [place(60.5, 40.25), place(760, 70.75), place(780.5, 560), place(45.25, 575.5)]
    // three sets of numbers for the two fits: 2 points, 3 points, 5 with noise
    let noisy = pairs + [[450, 300.5, place(450, 300)[2] + 3e-6, place(450, 300)[3] - 2e-6]]
    let fitSets = [Array(pairs.prefix(2)), Array(pairs.prefix(3)), noisy]
    let initial = ["10.5,20,52.5161,13.3785", "800,500.25,52.51575,13.37925"]
    #expect(try tilecut(["georef", plan, "-o", dir + "/start.html"] + initial.flatMap { ["--gcp", $0] }) == 0)
    #expect(try tilecut(["georef", plan, "-o", dir + "/georef.html"]) == 0)
    let (results, _) = try driveBrowser(
      [
        "width": 1300, "height": 820,
        "pages": [
          [
            "kind": "georef", "url": "file://" + dir + "/start.html",
            "fitPoints": fitSets.map { set in set.map { ["col": $0[0], "row": $0[1], "lat": $0[2], "lon": $0[3]] } },
          ],
          // the plan at 4 screen px per source pixel (zoom 2 is 1:1 for 800 px), the map at zoom 23
          [
            "kind": "georef", "url": "file://" + dir + "/georef.html", "pairs": pairs, "planZoom": 4, "mapZoom": 23, "dragFirst": true,
            "extraPair": true,
          ],
        ],
      ], in: dir)
    #expect(results.count == 2)
    guard results.count == 2 else { return }
    // opened with --gcp: those points
    #expect(results[0]["initial"] as? [String] == initial.map { "--gcp " + $0 })
    // the page's fit is tilecut's, coefficient for coefficient
    let fits = results[0]["fits"] as? [[String: Any]] ?? []
    #expect(fits.count == fitSets.count)
    for (fit, set) in zip(fits, fitSets) {
      let points = set.map { ControlPoint(col: $0[0], row: $0[1], point: GeoPoint(latitude: $0[2], longitude: $0[3])) }
      let (swift, report) = try Georeference.fit(points, width: width, height: height)
      let t = swift.transform
      let linear = max(abs(t.a), abs(t.b), abs(t.d), abs(t.e))
      for (key, value, scale) in [
        ("a", t.a, linear), ("b", t.b, linear), ("d", t.d, linear), ("e", t.e, linear), ("c", t.c, abs(t.c)), ("f", t.f, abs(t.f)),
      ] {
        #expect(abs(number(fit[key]) - value) <= 1e-9 * scale, "\(set.count) points: \(key) \(number(fit[key])) vs \(value)")
      }
      #expect(abs(number(fit["rmsPixels"]) - report.rmsPixels) <= 1e-6)
      #expect(abs(number(fit["rmsMeters"]) - report.rmsMeters) <= 1e-6)
    }
    // clicked: a point dragged into place, a stray pair deleted
    let clicked = results[1]
    #expect(clicked["beforeDelete"] as? Int == 2)
    #expect((clicked["points"] as? [Any])?.count == 4)
    #expect((clicked["fitText"] as? String ?? "").hasPrefix("affine from 4 points"))
    #expect((clicked["placedLevel"] as? String ?? "") != "")
    #expect(clicked["problems"] as? [String] == [])
    let arguments = clicked["arguments"] as? [String] ?? []
    #expect(arguments.count == 4)
    #expect((clicked["yaml"] as? String ?? "").hasPrefix("gcp:\n  - ["))
    // given to tilecut, they place the plan where the hidden placement does
    let gcpArgs = arguments.flatMap { $0.split(separator: " ", maxSplits: 1).map(String.init) }
    #expect(try tilecut([plan, "--tile-size", "256", "--max-zoom", "18", "-o", dir + "/placed"] + gcpArgs) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/placed/manifest.json")))
    let outline = try #require(manifest.placements?.first?.outline)
    let wanted = Manifest.PlacedFloor(floor: Floor(1), placement: hidden, mapping: nil, width: width, height: height).outline
    #expect(outline.count == wanted.count)
    let pixelsPerUnit = hidden.sourcePixelsPerWorldUnit(width: width, height: height)
    for (got, want) in zip(outline, wanted) {
      let a = WebMercator.world(GeoPoint(latitude: got[0], longitude: got[1]))
      let b = WebMercator.world(GeoPoint(latitude: want[0], longitude: want[1]))
      #expect(hypot(a.u - b.u, a.v - b.v) * pixelsPerUnit <= 1, "\(got) vs \(want)")
    }
  }
}
