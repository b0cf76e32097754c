import Foundation
import Testing
import Tilecut
import TilecutCore
import TilecutFixtures
import TilecutProject

/// Typed option groups: their text read once, every problem listed, the first as the CLI says it.
@Suite("option values: typed, and every problem at once")
struct OptionProblemsTests {
  @Test("a request lists every problem of every group in the command line's words; validate throws the first")
  func requestProblems() throws {
    var request = TileRequest(inputs: [], output: "unused")
    (request.pyramid.minZoom, request.pyramid.maxZoom) = (5, 2)
    request.encoding.quality = 0
    request.run.shard = .part(index: 3, count: 2)
    request.placement.pixels.bands = [0, 1, 2]
    request.placement.drawingUnits = DrawingUnit(meters: -1, name: "furlong")
    #expect(
      request.problems().map(\.message) == [
        "--min-zoom: 5 is above --max-zoom 2",
        "--bands: '0' is not a band number (they count from 1)",
        "--drawing-units: 'furlong' is not a unit (m, cm, mm, in, ft, yd, km, mi, us-ft, or metres in one unit)",
        OptionNumbers.atLeast("--quality", 1, got: 0),
        "--shard: '3/2' is not K/N with 1 ≤ K ≤ N ≤ \(PlanLimits.maxShards) (e.g. 2/4)",
        "missing input: give an image to tile",
      ])
    let thrown = #expect(throws: Failure.self) { try request.validate() }
    #expect(thrown == Failure.usage("--min-zoom: 5 is above --max-zoom 2"))
    #expect(TileRequest(inputs: ["a.png"]).problems().isEmpty)
  }

  @Test("text is read once into its value, refused in the words validate used to say")
  func parsing() throws {
    #expect(try PyramidOptions.tileSizes(parsing: "512, 256,512") == [.standard, .retina])
    #expect(throws: Failure.usage("--tile-size: '300' is not a supported tile size; use 256, 512, 768 or a list such as 256,512")) {
      try PyramidOptions.tileSizes(parsing: "256,300")
    }
    #expect(try ShardOption(parsing: "2/4") == .part(index: 2, count: 4))
    #expect(try ShardOption(parsing: "env/8") == .environment(count: 8))
    #expect(try ShardOption(parsing: "env") == .environment(count: nil))
    #expect(throws: Failure.usage("--shard: K must be at least 1, got 0")) { try ShardOption(parsing: "0/x") }
    #expect(throws: Failure.usage("--shard: 'env/x' is not env/N with N ≥ 1")) { try ShardOption(parsing: "env/x") }
    #expect(try PixelOptions.bands(parsing: "3, 2,1") == [3, 2, 1])
    #expect(try PixelOptions.scale(parsing: "-10,250.5") == -10...250.5)
    #expect(throws: Failure.usage("--scale takes MIN,MAX with MIN below MAX, got '5,5'")) { try PixelOptions.scale(parsing: "5,5") }
    #expect(
      try LayerPattern.list(parsing: "A-WALL, !A-NOTE*,") == [LayerPattern(pattern: "A-WALL"), LayerPattern(pattern: "A-NOTE*", leftOut: true)])
    #expect(throws: Failure.self) { try LayerPattern.list(parsing: "!,") }
    // the drawing reader matches patterns of up to 510 bytes: a longer one was dropped, and every layer drawn
    let long = String(repeating: "A", count: 511)
    #expect(try LayerPattern.list(parsing: String(long.dropFirst())).count == 1)
    #expect(throws: Failure.usage("--layers: a pattern is at most 510 bytes of UTF-8, and one is 511; shorten it (* matches the rest)")) {
      try LayerPattern.list(parsing: "A-WALL,!" + long)
    }
    #expect(throws: Failure.self) { try LayerPattern.list(parsing: String(repeating: "é", count: 256)) }
    // each layer name is matched against every pattern: 60,000 of them took minutes; at most 1000
    let many = (0...1000).map { "Q\($0)*Z" }
    #expect(try LayerPattern.list(parsing: many.dropLast().joined(separator: ",")).count == 1000)
    #expect(
      throws: Failure.usage(
        "--layers: at most 1000 names or patterns, and 1001 are given; match many layers with one pattern (e.g. 'A-*')")
    ) { try LayerPattern.list(parsing: many.joined(separator: ",")) }
    #expect(try DrawingScale(parsing: "1:100") == DrawingScale(denominator: 100))
    #expect(try DrawingUnit(parsing: "ft").meters == 0.3048)
    // metres in one unit: from an ångström to 10,000 km, 1e-300 refused as 1e300 is
    #expect(try DrawingUnit(parsing: "1e-10").meters == 1e-10)
    for text in ["1e300", "1e-300", "1e-11", "0", "-1", "nan"] {
      #expect(
        throws: Failure.usage("--drawing-units: '\(text)' is not a unit (m, cm, mm, in, ft, yd, km, mi, us-ft, or metres in one unit)")
      ) { try DrawingUnit(parsing: text) }
    }
    // the typed groups are Codable: a request round-trips through JSON
    var pixels = PixelOptions()
    (pixels.bands, pixels.scale, pixels.layers) = ([4, 3, 2], 0...4095, [LayerPattern(pattern: "X", leftOut: true)])
    let decoded = try JSONDecoder().decode(PixelOptions.self, from: JSONEncoder().encode(pixels))
    #expect(decoded.bands == [4, 3, 2] && decoded.scale == 0...4095 && decoded.layers == pixels.layers)
  }

  @Test("a project file's mistakes are reported together, each with file:line:column, the first as before")
  func projectProblems() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try Data("not read".utf8).write(to: URL(fileURLWithPath: dir + "/plan.png"))
    let file = dir + "/tilecut.yml"
    try """
    maxZoom: 40
    quality: 0
    buildings:
      - id: hq
        floors:
          - floor: 1
            source: plan.png
            bands: [0, 1, 2]
          - floor: 2
            source: plan.png
            drawingScale: "1:0"
    """.write(toFile: file, atomically: true, encoding: .utf8)
    let thrown = #expect(throws: Failure.self) { try BuildJob.run(BuildRequest(file: file)) }
    let failure = try #require(thrown)
    #expect(failure.status == 2)
    let lines = [failure.line] + failure.more
    #expect(lines.count == 4)
    #expect(lines[0] == "\(file):1:1: maxZoom: 40 is outside 0...\(PyramidPlanner.maxSupportedZoom)")
    #expect(lines[1] == "\(file):2:1: quality: must be at least 1, got 0")
    #expect(lines[2].hasPrefix("\(file):8:9: bands") && lines[2].contains("'0' is not a band number"))
    #expect(lines[3].hasPrefix("\(file):11:9: drawingScale") && lines[3].contains("is not a scale like 1:100"))

    // two building mistakes the loader's validation finds are listed together too
    try """
    buildings:
      - id: HQ
        floors:
          - floor: 1
            source: plan.png
      - id: annex
        floors:
          - floor: 1
            source: missing.png
    """.write(toFile: file, atomically: true, encoding: .utf8)
    let loaded = #expect(throws: ProjectErrors.self) { try ProjectLoader.load(path: file) }
    #expect(loaded?.errors.map { $0.mark?.line } == [2, 9])
  }
}
