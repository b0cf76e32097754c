import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// The mistakes of a GIS user's first hour, each answered with one clear line.
@Suite struct FirstHourTests {
  @Test(
    "peers' spellings get tilecut's in the error, exit 2",
    arguments: [
      (["--zoom", "10-18"], "--min-zoom 10 --max-zoom 18"), (["-z", "10-18"], "--min-zoom 10 --max-zoom 18"),
      (["--zoom=12"], "--min-zoom 12 --max-zoom 12"), (["--processes", "4"], "--jobs 4"), (["--xyz"], "tiles are always XYZ"),
      (["--layout", "google"], "--name"), (["--tilesize", "512"], "--tile-size 512"), (["-r", "lanczos"], "--resampling lanczos3"),
    ])
  func peerSpellings(extra: [String], answer: String) throws {
    let r = try runTool(["plan.png"] + extra)
    #expect(r.status == ExitStatus.usage.rawValue)
    #expect(r.stderrLines.count == 1 && r.stderr.contains(answer), "\(r.stderr)")
  }

  @Test("an output given positionally (gdal2tiles, dzsave) is answered with -o; nothing is written")
  func positionalOutput() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 64, height: 64).writePNG(to: dir + "/plan.png")
    try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
    for target in [dir + "/out/", dir + "/tiles"] {
      let r = try runTool([dir + "/plan.png", target])
      #expect(r.status == ExitStatus.usage.rawValue)
      #expect(r.stderrLines.count == 1 && r.stderr.contains("did you mean -o "), "\(r.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["out", "plan.png"])
  }

  @Test("the placement line names where the plan landed; a swapped --center warns with both readings; --lonlat reads GDAL's order")
  func placementInWords() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 200, height: 100).writePNG(to: dir + "/plan.png")
    let common = [dir + "/plan.png", "--meters-per-pixel", "0.5", "--dry-run"]
    let right = try runTool(common + ["--center", "52.52,13.405"])
    #expect(right.status == 0 && right.stderr.contains("Berlin, Germany") && !right.stderr.contains("warning:"), "\(right.stderr)")
    let swapped = try runTool(common + ["--center", "13.405,52.52"])
    #expect(swapped.status == 0, "\(swapped.stderr)")
    let warning = swapped.stderrLines.first { $0.hasPrefix("warning: --center") } ?? ""
    #expect(warning.contains("at sea") && warning.contains("Berlin, Germany") && warning.contains("--lonlat"), "\(swapped.stderr)")
    let lonLat = try runTool(common + ["--center", "13.405,52.52", "--lonlat"])
    #expect(lonLat.status == 0 && lonLat.stderr.contains("Berlin, Germany") && !lonLat.stderr.contains("warning:"), "\(lonLat.stderr)")
    let strict = try runTool(common + ["--center", "13.405,52.52", "--strict"])
    #expect(strict.status == ExitStatus.usage.rawValue && strict.stderrLines.count == 1, "\(strict.stderr)")
  }

  @Test("--strict refuses an image that nothing placed; without it the note says --strict would")
  func strictRefusesUnplaced() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 64, height: 64).writePNG(to: dir + "/plan.png")
    let refused = try runTool([dir + "/plan.png", "--strict", "-o", dir + "/out"])
    #expect(refused.status == ExitStatus.usage.rawValue && refused.stderrLines.count == 1, "\(refused.stderr)")
    #expect(refused.stderr.contains("no georeference") && refused.stderr.contains("--strict"))
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    let noted = try runTool([dir + "/plan.png", "--dry-run"])
    #expect(noted.status == 0 && noted.stderr.contains("--strict refuses"), "\(noted.stderr)")
  }

  @Test("the manifest says where each floor landed")
  func manifestLocation() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 64, height: 64).writePNG(to: dir + "/plan.png")
    let r = try runTool([dir + "/plan.png", "--center", "48.8566,2.3522", "--meters-per-pixel", "1", "-o", dir + "/out", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    // in Paris: the centre of the gazetteer's Paris, closer than 2.5 km
    #expect(manifest.footprints.first?.location == "in Paris, France", "\(manifest.footprints)")
  }
}
