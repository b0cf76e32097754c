import Foundation
import Testing
import TilecutCore
import TilecutFixtures

#if canImport(Glibc)
  import Glibc
#endif

/// Odd inputs each refused on one `error:` line (issue 29's second hostile run).
@Suite("odd inputs refused on one clear line: sidecar FIFOs, negative numbers, names that break lines, unknown EPSG codes", .serialized)
struct OddInputRefusalTests {
  @Test("a FIFO named as an input's sidecar (world file, .aux.xml, GDAL's .ovr, _RPC.TXT) refuses the input at once, never read")
  func sidecarFIFOs() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 300, height: 200).writePNG(to: c.path("plan.png"))
    try GeoTIFFWriter.write(
      path: c.path("g.tif"), width: 64, height: 64, bands: 3, pixels: [UInt8](repeating: 90, count: 64 * 64 * 3),
      tiepoint: [0, 0, 0, -14000, 6_711_000, 0], scale: [0.5, 0.5, 0],
      shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3857)])
    for (input, sidecar) in [
      ("plan.png", "plan.pgw"), ("plan.png", "PLAN.WLD"), ("plan.png", "plan.png.aux.xml"), ("plan.png", "plan.prj"),
      ("g.tif", "g.tif.ovr"), ("g.tif", "g_RPC.TXT"), ("g.tif", "g.IMD"),
    ] {
      #expect(mkfifo(c.path(sidecar), 0o644) == 0)
      defer { unlink(c.path(sidecar)) }
      // a hang would end at the time limit, killed by a signal
      let r = try runTool([c.path(input), "-o", c.path("out"), "--max-zoom", "19"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(sidecar) beside it is a FIFO")
      var st = stat()
      #expect(lstat(c.path(sidecar), &st) == 0 && st.st_mode & S_IFMT == S_IFIFO, "\(sidecar) is still the FIFO it was")
    }
  }

  @Test("a negative number for --max-memory, --webp-effort, --tile-size or --gcp-order says what it must be, not 'Missing value'")
  func negativeNumbers() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    for (option, value, says) in [
      ("--max-memory", "-5", "--max-memory: must be at least 1"), ("--webp-effort", "-1", "--webp-effort: must be at least 0"),
      ("--tile-size", "-256", "--tile-size"), ("--gcp-order", "-1", "--gcp-order is 1, 2 or 3"),
    ] {
      let r = try runTool([c.path("good.png"), "-o", c.path("out"), option, value])
      #expect(r.status != 0 && !r.stderr.contains("Missing value"), "\(option): \(r.stderr)")
      #expect(r.stderr.contains(says), "\(option): \(r.stderr)")
    }
  }

  @Test("a file name holding a newline is refused on one stderr line, the newline shown as \\n")
  func newlineInName() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let odd = c.path("a\nb.png")
    try FileManager.default.copyItem(atPath: c.path("good.png"), toPath: odd)
    let r = try runTool([odd, "-o", c.path("out"), "--depfile", c.path("out.d")])
    #expect(r.status != 0)
    c.expectClean(r, status: r.status, mentions: "a\\nb.png")
  }

  @Test("GeoKeys naming an EPSG code PROJ does not know: the placement says which code, not 'no CRS'")
  func unknownEPSG() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try GeoTIFFWriter.write(
      path: c.path("unknown.tif"), width: 4, height: 4, bands: 3, pixels: [UInt8](repeating: 9, count: 48),
      tiepoint: [0, 0, 0, 500_000, 5_700_000, 0], scale: [1, 1, 0],
      shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 32799)])
    let r = try runTool([c.path("unknown.tif"), "-o", c.path("out")])
    c.expectClean(r, status: 1, mentions: "EPSG:32799")
    #expect(r.stderr.contains("--source-crs"))
  }
}
