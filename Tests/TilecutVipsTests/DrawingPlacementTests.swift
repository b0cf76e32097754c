import Foundation
import Testing
import TilecutFixtures

@testable import TilecutCore
@testable import TilecutVips

/// A CAD drawing under an affine placement is drawn by cairo straight on each level's
/// grid (`LevelRecipe.draw`), turned as the placement turns it, with no resampling.
@Suite(
  "DXF drawn on a level's grid through its placement", .serialized,
  .enabled(if: dxfCorpus != nil && ezdxfAvailable, "the shared DXF corpus, or python3 with ezdxf and matplotlib, is missing"))
struct DrawingPlacementTests {
  /// The floor plan placed at zoom 19, about `across` level pixels across, turned by
  /// `degrees` (clockwise on the map, as a `--gcp` fit of a turned drawing is), and the
  /// plan's only level.
  func placedPlan(_ path: String, degrees: Double, across: Double) throws -> (plan: FloorPlan, level: DensityLevel, frame: DrawingFrame) {
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 31)
    let frame = try #require(header.drawing)
    var source = SourceDescription(path: path, width: header.width, height: header.height, isVector: true)
    source.drawing = frame
    let zoom = 19
    let levelPerSource = across / Double(max(header.width, header.height))
    let unit = levelPerSource / (256 * pow(2, Double(zoom)))
    let t = Double.pi * degrees / 180
    let rotate = TilecutCore.AffineTransform(a: cos(t), b: -sin(t), c: 0, d: sin(t), e: cos(t), f: 0)
    let transform = TilecutCore.AffineTransform.translation(0.3001, 0.4002).concatenating(after: rotate).concatenating(after: .scale(unit, unit))
    let plan = try PyramidPlanner.plan(
      floor: 1, source: source, placement: Placement(method: .gcp, transform: transform),
      request: PlanRequest(minZoom: zoom, maxZoom: zoom, tileSizes: [256]))
    let level = try #require(plan.levels.first)
    return (plan, level, frame)
  }

  /// Every row of a level as its strips are read.
  func read(_ source: any LevelPixelSource, _ level: DensityLevel) throws -> RGBAImage {
    let width = level.region.width
    var pixels = [UInt8](repeating: 0, count: width * level.region.height * 4)
    for strip in level.strips {
      try pixels.withUnsafeMutableBufferPointer { try source.read(top: strip.top, count: strip.count, into: $0.baseAddress! + strip.top * width * 4) }
    }
    return RGBAImage(width: width, height: level.region.height, pixels: pixels)
  }

  /// The plan drawn on the level's grid, against ezdxf's drawing of the same model space
  /// turned by the same angle over the same pixels (its frame worked out here from the
  /// placement and the drawing's frame, not from tilecut's map), and against the drawing
  /// rendered in source pixels and resampled onto the grid (the path of a CRS warp).
  @Test(
    "a drawing placed turned is drawn on the level's grid as ezdxf draws it turned, with no shift",
    arguments: [0.0, 30.0, -118.0])
  func turnedAsEzdxfDrawsIt(degrees: Double) throws {
    let path = (dxfCorpus ?? "") + "/bjnortier_floorplan.dxf"
    let (plan, level, frame) = try placedPlan(path, degrees: degrees, across: 940)
    guard case .draw = level.recipe else {
      Issue.record("a drawing under an affine placement is drawn on the grid, not \(level.recipe)")
      return
    }
    let drawn = try read(LevelPipeline.open(plan: plan, level: level, format: .dxf), level)
    let dir = try temporaryDirectory()
    let keep = ProcessInfo.processInfo.environment["TILECUT_KEEP_DXF_RENDERS"] == "1"
    defer { if !keep { try? FileManager.default.removeItem(atPath: dir) } }
    try drawn.writePNG(to: dir + "/tilecut.png")

    // drawing point → level pixel, from the placement: (x, y) → frame pixel → (u, v) → level
    let world = level.worldPixels
    func levelPixel(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
      let p = frame.pixel(x: x, y: y)
      let uv = plan.placement.transform.apply(p.column, p.row)
      return (uv.x * world - Double(level.region.x), uv.y * world - Double(level.region.y))
    }
    let origin = levelPixel(0, 0)
    let east = levelPixel(1, 0)
    let unitsPerPixel = 1 / hypot(east.x - origin.x, east.y - origin.y)
    // the turn on the map (clockwise, y down) is a turn the other way in the drawing (y up)
    if keep { print("renderings of the plan turned \(degrees)°: \(dir)") }
    let compared = try EzdxfRunner.run(
      script: inkCompareScript,
      [
        "--turn", "\(-degrees)", path, "\(-origin.x * unitsPerPixel)", "\(origin.y * unitsPerPixel)", "\(unitsPerPixel)",
        dir + "/tilecut.png",
      ] + (keep ? [dir + "/ezdxf.png"] : []))
    try #require(compared.status == 0, "the ezdxf comparison failed")
    let result = try JSONDecoder().decode(InkComparison.self, from: compared.stdout)
    print(
      "plan turned \(degrees)°: recall \(result.recall), precision \(result.precision), text recall \(result.textRecall), shift \(result.shift) (\(result.subpixelShift ?? []))"
    )
    // DrawingCorpusTests' thresholds for this plan, north up in source pixels
    #expect(result.recall >= 0.95, "recall \(result.recall)")
    #expect(result.precision >= 0.9, "precision \(result.precision)")
    #expect(result.textRecall >= 0.95, "text recall \(result.textRecall)")
    #expect(result.shift == [0, 0], "shifted by \(result.shift)")
    let fine = try #require(result.subpixelShift)
    #expect(fine.count == 2 && fine.allSatisfy { abs($0) <= 0.25 }, "shifted by \(fine) px")

    // the same level rendered in source pixels and resampled (the path of a CRS warp)
    var resampledLevel = level
    resampledLevel.recipe = try PyramidPlanner.directRecipe(plan, level: level, mapping: nil)
    guard case .resample = resampledLevel.recipe else {
      Issue.record("the resampled path is \(resampledLevel.recipe)")
      return
    }
    let resampled = try read(LevelPipeline.open(plan: plan, level: resampledLevel, format: .dxf), resampledLevel)
    if keep { try resampled.writePNG(to: dir + "/resampled.png") }
    var (inkA, inkB) = (0, 0)
    for i in stride(from: 3, to: drawn.pixels.count, by: 4) {
      inkA += Int(drawn.pixels[i])
      inkB += Int(resampled.pixels[i])
    }
    // the same strokes: as much ink within a few percent (the resample spreads ink, it keeps
    // its sum); their place is checked against ezdxf's above
    #expect(abs(Double(inkA) / Double(max(inkB, 1)) - 1) < 0.1, "ink \(inkA) drawn, \(inkB) resampled")
  }

  @Test("drawings under an affine placement are planned to be drawn on the grid; a lon/lat one is resampled")
  func recipes() throws {
    let path = (dxfCorpus ?? "") + "/qcad_bath_plan.dxf"
    let (plan, _, _) = try placedPlan(path, degrees: 12, across: 600)
    #expect(plan.levels.allSatisfy { $0.recipe.kind == .draw })
    var lonLat = plan.placement
    lonLat.projection = .lonLat
    lonLat.transform = .init(a: 1e-6, b: 0, c: 5, d: 0, e: -1e-6, f: 52)
    let resampled = try PyramidPlanner.plan(
      floor: 1, source: plan.source, placement: lonLat, request: PlanRequest(minZoom: 18, maxZoom: 19, tileSizes: [256]))
    #expect(resampled.levels.allSatisfy { $0.recipe.kind == .resample })
  }
}
