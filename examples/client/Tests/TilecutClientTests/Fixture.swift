import Foundation
import Testing

@testable import TilecutClient

/// A real tilecut output, made once per test run by the repository's own binary:
/// the bundled office plan as floors -1 and 0, placed in London, zooms 16–19,
/// 256, 512 and 768 px tiles, paper knocked out (so some cells have no tile).
struct Fixture: Sendable {
  let root: URL
  let output: URL
  let manifestData: Data
  let manifest: TileManifest

  static let bounds = (south: 51.50060, west: -0.12850, north: 51.50160, east: -0.12640)
  static let shared = Result { try Fixture() }

  /// The repository root, from this file's place in it.
  static let repository = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// `$TILECUT`, else the repository's debug or release build.
  static func tilecutBinary() throws -> String {
    if let path = ProcessInfo.processInfo.environment["TILECUT"], !path.isEmpty { return path }
    for config in ["debug", "release"] {
      let path = repository.appendingPathComponent(".build/\(config)/tilecut").path
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    throw FixtureError("no tilecut binary: run `make test` at the repository root, or set TILECUT")
  }

  init() throws {
    root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tilecut-client-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    output = root.appendingPathComponent("out")
    let plan = Self.repository.appendingPathComponent("examples/floorplan/office.png").path
    let b = Self.bounds
    try run(
      try Self.tilecutBinary(),
      [
        plan, plan, "--first-floor", "-1", "-o", output.path, "--bounds", "\(b.south),\(b.west),\(b.north),\(b.east)",
        "--min-zoom", "16", "--max-zoom", "19", "--tile-size", "256,512,768", "--knockout", "white:8", "--quiet",
      ])
    manifestData = try Data(contentsOf: output.appendingPathComponent("manifest.json"))
    manifest = try TileManifest.decode(manifestData)
  }

  /// Every cell of every level's range, with one cell of margin around it.
  func cells() -> [(floor: Int, size: Int, zoom: Int, x: Int, y: Int)] {
    var out: [(Int, Int, Int, Int, Int)] = []
    let json = (try? JSONSerialization.jsonObject(with: manifestData)) as? [String: Any]
    for level in json?["levels"] as? [[String: Any]] ?? [] {
      guard let floor = level["floor"] as? Int, let size = level["tileSize"] as? Int, let zoom = level["zoom"] as? Int,
        let xr = level["xRange"] as? [Int], let yr = level["yRange"] as? [Int]
      else { continue }
      for y in (yr[0] - 1)...(yr[1] + 1) { for x in (xr[0] - 1)...(xr[1] + 1) { out.append((floor, size, zoom, x, y)) } }
    }
    return out
  }

  /// The manifest with some top-level fields replaced, decoded by the client.
  func manifest(replacing fields: [String: Any]) throws -> TileManifest {
    var json = try #require(try JSONSerialization.jsonObject(with: manifestData) as? [String: Any])
    for (key, value) in fields { json[key] = value }
    return try TileManifest.decode(try JSONSerialization.data(withJSONObject: json))
  }
}

/// Why the fixture could not be made.
struct FixtureError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

/// Runs a program; throws with its stderr when it fails. Returns its stdout.
@discardableResult
func run(_ program: String, _ args: [String]) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = args
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  let stdout = out.fileHandleForReading.readDataToEndOfFile()
  let stderr = err.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw FixtureError("\(program) \(args.joined(separator: " ")) failed: \(String(decoding: stderr, as: UTF8.self))")
  }
  return String(decoding: stdout, as: UTF8.self)
}
