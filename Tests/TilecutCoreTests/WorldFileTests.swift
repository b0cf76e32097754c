import Foundation
import Testing

@testable import TilecutCore

/// ESRI world files: parsing, the centre/corner half pixel, units, and sidecar discovery.
@Suite("World files")
struct WorldFileTests {
  @Test("a 3857 world file names the centre of the top-left pixel; the map uses its corner")
  func mercatorWorldFile() throws {
    // 0.5 m pixels, the top-left pixel centred on London (mercantile.xy(-0.1278, 51.5074))
    let (x, y) = (-14226.630923380362, 6711542.475587636)
    let text = "0.5\n0.0\n0.0\n-0.5\n\(x)\n\(y)\n"
    let t = try WorldFile.parse(text, path: "plan.pgw")
    // the corner is half a pixel up and left of the named centre
    let corner = t.apply(0, 0)
    #expect(abs(corner.x - (x - 0.25)) < 1e-9 && abs(corner.y - (y + 0.25)) < 1e-9)
    let centre = t.apply(0.5, 0.5)
    #expect(centre.x == x && centre.y == y)
    let p = try WorldFile.placement(transform: t, crs: .epsg3857)
    #expect(p.method == .worldFile && p.projection == .webMercator)
    let g = WebMercator.geo(p.world(col: 0.5, row: 0.5))
    #expect(abs(g.latitude - 51.5074) < 1e-9 && abs(g.longitude + 0.1278) < 1e-9)
    let w = p.world(col: 0, row: 0)
    let expected = WebMercator.world(metersX: corner.x, metersY: corner.y)
    #expect(abs(w.u - expected.u) < 1e-15 && abs(w.v - expected.v) < 1e-15)
    // 0.5 Mercator metres: 2·20037508.34 / 0.5 / 256 ≈ 2^18.26 pixels per tile
    #expect(p.nativeZoom(width: 1000, height: 1000) == 18)
  }

  /// (A, D, B, E, C, F) world files, some rotated.
  static let worldFiles: [(Double, Double, Double, Double, Double, Double)] = [
    (0.5, 0, 0, -0.5, -14305.25, 6711542.75), (0.4, 0.3, 0.3, -0.4, 1000, 2000), (2, -0.5, 0.25, -3, -8238310.2, 4970071.6),
  ]

  @Test("pixel (i, j) of the file's index grid is the GDAL point (i + ½, j + ½)", arguments: worldFiles)
  func halfPixel(a: Double, d: Double, b: Double, e: Double, c: Double, f: Double) throws {
    let t = try WorldFile.parse([a, d, b, e, c, f].map { "\($0)" }.joined(separator: "\n"), path: "x.tfw")
    for (i, j) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (17.0, 42.0), (999.0, 499.0)] {
      // the world file's own formula, on pixel indices
      let x = a * i + b * j + c
      let y = d * i + e * j + f
      let p = t.apply(i + 0.5, j + 0.5)
      #expect(abs(p.x - x) < 1e-6 && abs(p.y - y) < 1e-6)
    }
    // and the corner (0, 0) is C − ½A − ½B, F − ½D − ½E
    let corner = t.apply(0, 0)
    #expect(abs(corner.x - (c - 0.5 * a - 0.5 * b)) < 1e-9 && abs(corner.y - (f - 0.5 * d - 0.5 * e)) < 1e-9)
  }

  @Test("a rotated 3857 world file composes with the metres → (u, v) map")
  func rotatedMercator() throws {
    let t = try WorldFile.parse("0.4\n0.3\n0.3\n-0.4\n1000\n2000\n", path: "r.pgw")
    let p = try WorldFile.placement(transform: t, crs: .epsg3857)
    for (col, row) in [(0.0, 0.0), (100.0, 0.0), (37.5, 80.25)] {
      let m = t.apply(col, row)
      let want = WebMercator.world(metersX: m.x, metersY: m.y)
      let got = p.world(col: col, row: row)
      #expect(abs(got.u - want.u) < 1e-15 && abs(got.v - want.v) < 1e-15)
    }
  }

  @Test("a degrees world file gives a lon/lat placement")
  func degreesWorldFile() throws {
    let t = try WorldFile.parse("0.001\n0\n0\n-0.001\n10.0005\n50.9995\n", path: "m.wld")
    let p = try WorldFile.placement(transform: t, crs: .epsg4326)
    #expect(p.projection == .lonLat && p.method == .worldFile)
    let nw = p.transform.apply(0, 0)
    #expect(abs(nw.x - 10) < 1e-12 && abs(nw.y - 51) < 1e-12)
    let se = p.transform.apply(1000, 1000)
    #expect(abs(se.x - 11) < 1e-12 && abs(se.y - 50) < 1e-12)
    let g = WebMercator.geo(p.world(col: 0, row: 0))
    #expect(abs(g.longitude - 10) < 1e-12 && abs(g.latitude - 51) < 1e-9)
  }

  @Test("CRLF line ends, spaces, exponents and trailing blank lines are fine")
  func lenient() throws {
    let t = try WorldFile.parse("  5.0E-1\r\n0\r\n0\r\n-0.5 \r\n\t100.25\r\n200.75\r\n\r\n", path: "w.pgw")
    #expect(t == TilecutCore.AffineTransform(a: 0.5, b: 0, c: 100, d: 0, e: -0.5, f: 201))
  }

  @Test(
    "malformed world files are refused, naming the path",
    arguments: [
      ("1\n2\n3", "found 3 lines"), ("1\n0\n0\n-1\n0\n0\n7", "found 7 lines"), ("", "found 0 lines"),
      ("1\n0\n0\n-1\nx\n0", "'x' is not a number"), ("1\n0\n0\n-1\nnan\n0", "is not a number"),
      ("0\n0\n0\n0\n1\n1", "zero"), ("1\n2\n2\n4\n0\n0", "zero"),
    ])
  func malformed(text: String, mentions: String) {
    do {
      _ = try WorldFile.parse(text, path: "bad.pgw")
      Issue.record("accepted \(text)")
    } catch {
      #expect("\(error)".hasPrefix("bad.pgw: ") && "\(error)".contains(mentions), "\(error)")
      #expect(error as? TilecutError != nil)
    }
  }

  @Test(
    "sidecar names follow the image's extension",
    arguments: [
      ("/x/plan.png", ["/x/plan.pgw", "/x/plan.PGW", "/x/plan.pngw", "/x/plan.PNGW", "/x/plan.wld", "/x/plan.WLD"]),
      ("a.tif", ["a.tfw", "a.TFW", "a.tifw", "a.TIFW", "a.wld", "a.WLD"]),
      ("a.tiff", ["a.tfw", "a.TFW", "a.tiffw", "a.TIFFW", "a.wld", "a.WLD"]),
      ("a.jpg", ["a.jgw", "a.JGW", "a.jpgw", "a.JPGW", "a.wld", "a.WLD"]),
      ("a.jpeg", ["a.jgw", "a.JGW", "a.jpegw", "a.JPEGW", "a.wld", "a.WLD"]),
      ("a.gif", ["a.gfw", "a.GFW", "a.gifw", "a.GIFW", "a.wld", "a.WLD"]),
      ("a.webp", ["a.wpw", "a.WPW", "a.webpw", "a.WEBPW", "a.wld", "a.WLD"]),
      ("Plan.PNG", ["Plan.pgw", "Plan.PGW", "Plan.pngw", "Plan.PNGW", "Plan.wld", "Plan.WLD"]),
      ("dir.v2/plan", ["dir.v2/plan.wld", "dir.v2/plan.WLD"]),
      (
        "my.site.plan.png",
        ["my.site.plan.pgw", "my.site.plan.PGW", "my.site.plan.pngw", "my.site.plan.PNGW", "my.site.plan.wld", "my.site.plan.WLD"]
      ),
    ])
  func sidecars(image: String, expected: [String]) {
    #expect(WorldFile.sidecarCandidates(for: image) == expected)
  }

  @Test("findSidecar picks the first candidate that exists, ignoring case and directories")
  func findSidecar() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tilecut-worldfile-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let image = dir + "/plan.png"
    let write = { (name: String) in try Data("1\n0\n0\n-1\n0\n0\n".utf8).write(to: URL(fileURLWithPath: dir + "/" + name)) }
    try write("plan.png")
    #expect(WorldFile.findSidecar(for: image) == nil)
    try FileManager.default.createDirectory(atPath: dir + "/plan.pgw", withIntermediateDirectories: true)
    #expect(WorldFile.findSidecar(for: image) == nil)  // a directory is not a world file
    try write("plan.wld")
    #expect(WorldFile.findSidecar(for: image) == dir + "/plan.wld")
    try write("plan.pngw")
    #expect(WorldFile.findSidecar(for: image) == dir + "/plan.pngw")
    try write("Site.Pgw")
    #expect(WorldFile.findSidecar(for: dir + "/Site.png") == dir + "/Site.Pgw")
  }
}
