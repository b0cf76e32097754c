import ArgumentParser
import CProj
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// A scratch directory for one test.
func geoScratch(_ name: String = #function) throws -> String {
  try TestEnvironment.scratchDirectory("geo", for: name)
}

/// A smooth-but-busy RGB test picture (gradients and a coarse checker), so that
/// misplacement by a pixel shows and bilinear interpolation stays close to exact.
func geoPicture(width: Int, height: Int) -> [UInt8] {
  var out = [UInt8](repeating: 0, count: width * height * 3)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 3
      out[i] = UInt8((x * 255) / max(width - 1, 1))
      out[i + 1] = UInt8((y * 255) / max(height - 1, 1))
      out[i + 2] = ((x / 32 + y / 32) % 2 == 0) ? 40 : 200
    }
  }
  return out
}

/// Runs the tilecut command in-process; its exit status (errors print on stderr).
func runTilecut(_ args: [String]) throws -> Int32 {
  var command = try TilecutCommand.parseAsRoot(args + ["--quiet"])
  do {
    try command.run()
    return 0
  } catch let code as ExitCode {
    return code.rawValue
  }
}

/// What a run of the built binary printed and returned.
struct ToolRun {
  var status: Int32
  var stderr: String
  var stdout: String
}

/// Runs the built tilecut binary (errors and notes are checked as a user sees them).
func runBinary(_ args: [String]) throws -> ToolRun {
  guard let binary = TestEnvironment.tilecutBinary else {
    throw TilecutError.invalidInput(path: TestEnvironment.binaryCandidates[0], reason: "the tilecut binary was not built")
  }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: binary)
  process.arguments = args
  let dir = NSTemporaryDirectory() + "tilecut-geo-run-\(UUID().uuidString.prefix(8))"
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: dir) }
  _ = FileManager.default.createFile(atPath: dir + "/err", contents: nil)
  _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
  let err = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/err"))
  let out = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/out"))
  process.standardError = err
  process.standardOutput = out
  try process.run()
  process.waitUntilExit()
  try err.close()
  try out.close()
  let stderr = String(decoding: FileManager.default.contents(atPath: dir + "/err") ?? Data(), as: UTF8.self)
  let stdout = String(decoding: FileManager.default.contents(atPath: dir + "/out") ?? Data(), as: UTF8.self)
  return ToolRun(status: process.terminationStatus, stderr: stderr, stdout: stdout)
}

/// One georeferenced fixture: a picture, how its pixels map to a CRS, and the GeoKeys.
struct GeoFixture: Sendable, CustomStringConvertible {
  var name: String
  var width: Int
  var height: Int
  /// The CRS PROJ should read from the keys (for the reference reprojection).
  var crs: String
  /// pixel corner → CRS, GDAL geotransform order
  var geotransform: [Double]
  var shortKeys: [(GeoTIFFWriter.Key, Int)]
  var doubleKeys: [(GeoTIFFWriter.Key, Double)] = []
  var useMatrix = false
  var pixelIsPoint = false
  /// Write five control points (tie points without a scale) instead; `misplace` moves
  /// the last one by that many CRS units.
  var useControlPoints = false
  var misplace = 0.0

  var description: String { name }

  /// Writes the fixture through libgeotiff.
  func write(to path: String) throws {
    let g = geotransform
    var keys = shortKeys
    var tiepoint: [Double]? = nil
    var scale: [Double]? = nil
    var matrix: [Double]? = nil
    var origin = (g[0], g[3])
    if pixelIsPoint {
      // the tie point then names the centre of pixel (0, 0)
      origin = (g[0] + 0.5 * g[1] + 0.5 * g[2], g[3] + 0.5 * g[4] + 0.5 * g[5])
      keys.append((.rasterType, 2))
    } else {
      keys.append((.rasterType, 1))
    }
    if useControlPoints {
      var points: [Double] = []
      for (k, (px, py)) in [
        (0.0, 0.0), (Double(width), 0), (Double(width), Double(height)), (0, Double(height)), (Double(width) / 3, Double(height) / 2),
      ].enumerated() {
        let x = g[0] + g[1] * px + g[2] * py + (k == 4 ? misplace : 0)
        let y = g[3] + g[4] * px + g[5] * py
        points += [px, py, 0, x, y, 0]
      }
      tiepoint = points
    } else if useMatrix {
      matrix = [g[1], g[2], 0, origin.0, g[4], g[5], 0, origin.1, 0, 0, 0, 0, 0, 0, 0, 1]
    } else {
      tiepoint = [0, 0, 0, origin.0, origin.1, 0]
      scale = [g[1], -g[5], 0]
    }
    var rgb = geoPicture(width: width, height: height)
    rgb.append(contentsOf: [UInt8](repeating: 0, count: 4))
    try GeoTIFFWriter.write(
      path: path, width: width, height: height, bands: 3, pixels: rgb, tiepoint: tiepoint, scale: scale, matrix: matrix,
      shortKeys: keys, doubleKeys: doubleKeys)
  }

  static let utm = GeoFixture(
    name: "UTM 33N, tie point + scale", width: 300, height: 200, crs: "EPSG:32633",
    geotransform: [390000, 0.6, 0, 5_820_000, 0, -0.6], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)])
  static let utmPoint = GeoFixture(
    name: "UTM 33N, PixelIsPoint", width: 300, height: 200, crs: "EPSG:32633",
    geotransform: [390000, 0.6, 0, 5_820_000, 0, -0.6], shortKeys: [(.modelType, 1), (.projectedCSType, 32633)],
    pixelIsPoint: true)
  static let statePlaneFeet = GeoFixture(
    name: "NY Long Island, US survey feet", width: 300, height: 240, crs: "EPSG:2263",
    geotransform: [985000, 2.0, 0, 215000, 0, -2.0], shortKeys: [(.modelType, 1), (.projectedCSType, 2263)])
  static let rotated = GeoFixture(
    name: "UTM 33N, rotated ModelTransformation", width: 260, height: 200, crs: "EPSG:32633",
    geotransform: [390000, 0.6 * cos(0.35), 0.6 * sin(0.35), 5_820_000, 0.6 * sin(0.35), -0.6 * cos(0.35)],
    shortKeys: [(.modelType, 1), (.projectedCSType, 32633)], useMatrix: true)
  static let controlPoints = GeoFixture(
    name: "UTM 33N, rotated, five control points", width: 260, height: 200, crs: "EPSG:32633",
    geotransform: [390000, 0.6 * cos(0.35), 0.6 * sin(0.35), 5_820_000, 0.6 * sin(0.35), -0.6 * cos(0.35)],
    shortKeys: [(.modelType, 1), (.projectedCSType, 32633)], useControlPoints: true)
  /// Lambert conformal conic with no EPSG code: projection parameters in the keys.
  static let userDefined = GeoFixture(
    name: "user-defined Lambert conformal conic", width: 280, height: 220,
    crs: "+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +x_0=0 +y_0=0 +datum=WGS84 +units=m +type=crs",
    geotransform: [10000, 1.5, 0, 20000, 0, -1.5],
    shortKeys: [
      (.modelType, 1), (.projectedCSType, 32767), (.projection, 32767), (.projCoordTrans, 8), (.geographicType, 4326),
      (.projLinearUnits, 9001),
    ],
    doubleKeys: [
      (.projStdParallel1, 33), (.projStdParallel2, 45), (.projFalseOriginLat, 39), (.projFalseOriginLong, -96),
      (.projFalseOriginEasting, 0), (.projFalseOriginNorthing, 0),
    ])
}

/// Reprojects by hand, pixel by pixel, through PROJ: for a tile pixel's centre,
/// EPSG:3857 → the fixture's CRS → its pixel, then bilinear in the fixture's RGB.
struct Reference {
  let fixture: GeoFixture
  let pixels: [UInt8]
  let context: OpaquePointer
  let transform: OpaquePointer

  init(_ fixture: GeoFixture) throws {
    self.fixture = fixture
    pixels = geoPicture(width: fixture.width, height: fixture.height)
    guard let ctx = proj_context_create() else { throw TilecutError.invalidOption(option: "proj", reason: "no context") }
    guard let raw = proj_create_crs_to_crs(ctx, "EPSG:3857", fixture.crs, nil),
      let norm = proj_normalize_for_visualization(ctx, raw)
    else { throw TilecutError.invalidOption(option: "proj", reason: "no transformation to \(fixture.crs)") }
    proj_destroy(raw)
    context = ctx
    transform = norm
  }

  func close() {
    proj_destroy(transform)
    proj_context_destroy(context)
  }

  /// The source pixel position (continuous) under a world point, or nil.
  func sourcePosition(u: Double, v: Double) -> (Double, Double)? {
    let s = WebMercator.originShift
    let c = proj_trans(transform, PJ_FWD, proj_coord(u * 2 * s - s, s - v * 2 * s, 0, 0))
    let (x, y) = (c.v.0, c.v.1)
    guard x.isFinite, y.isFinite, abs(x) < 1e20 else { return nil }
    let g = fixture.geotransform
    let det = g[1] * g[5] - g[2] * g[4]
    let dx = x - g[0]
    let dy = y - g[3]
    return ((g[5] * dx - g[2] * dy) / det, (-g[4] * dx + g[1] * dy) / det)
  }

  /// Bilinear RGB at a continuous position, nil within `margin` px of the edge.
  func sample(_ p: (Double, Double), margin: Double = 1.5) -> [Double]? {
    let (cx, cy) = p
    guard cx > margin, cy > margin, cx < Double(fixture.width) - margin, cy < Double(fixture.height) - margin else { return nil }
    let x = cx - 0.5
    let y = cy - 0.5
    let x0 = Int(x.rounded(.down))
    let y0 = Int(y.rounded(.down))
    let fx = x - Double(x0)
    let fy = y - Double(y0)
    var out = [0.0, 0.0, 0.0]
    for (dx, dy, w) in [(0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)), (0, 1, (1 - fx) * fy), (1, 1, fx * fy)] {
      let i = ((y0 + dy) * fixture.width + x0 + dx) * 3
      for k in 0..<3 { out[k] += w * Double(pixels[i + k]) }
    }
    return out
  }
}
