import Foundation
import Testing
import TilecutPMTiles

@testable import TilecutClient

#if canImport(Glibc)
  import Glibc
#endif

/// The repository's Tests/scripts/pmtiles-fixture.py: archives by the Python pmtiles writer
/// (an independent implementation of the spec) and a loopback server honouring Range.
let pmtilesFixture = Fixture.repository.appendingPathComponent("Tests/scripts/pmtiles-fixture.py").path

/// The fixture output as a `--store pmtiles` output: one Python-written archive per
/// floor and tile size (small leaf directories, so leaves are read), and the manifest
/// naming them in `tileSets`.
func pmtilesOutput(_ f: Fixture) throws -> URL {
  let out = f.root.appendingPathComponent("pm-\(UUID().uuidString.prefix(6))")
  try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
  var sets: [[String: Any]] = []
  for floor in [-1, 0] {
    for size in [256, 512, 768] {
      let file = "L\(floor)_\(size).pmtiles"
      try run(
        "/usr/bin/env",
        [
          "python3", pmtilesFixture, "write", f.output.path, out.appendingPathComponent(file).path, "--floor", "\(floor)", "--size", "\(size)",
          "--leaf", "16",
        ])
      sets.append(["floor": floor, "tileSize": size, "file": file])
    }
  }
  var json = try #require(try JSONSerialization.jsonObject(with: f.manifestData) as? [String: Any])
  json["store"] = "pmtiles"
  json["tileSets"] = sets
  try JSONSerialization.data(withJSONObject: json).write(to: out.appendingPathComponent("manifest.json"))
  return out
}

@Suite("PMTiles: a bundled archive and one over HTTP answer as the directory output")
struct PMTilesTests {
  @Test("OfflineTiles(directory:) on a PMTiles output: every cell answers as the directory output does")
  func bundled() throws {
    let f = try Fixture.shared.get()
    let out = try pmtilesOutput(f)
    defer { try? FileManager.default.removeItem(at: out) }
    let pm = try OfflineTiles(directory: out)
    #expect(pm.store is PMTilesTileStore)
    let directory = try OfflineTiles(directory: f.output)
    var (tiles, noTiles) = (0, 0)
    for c in f.cells() {
      let answer = pm.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)
      #expect(answer == directory.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size), "\(c)")
      if case .tile = answer { tiles += 1 } else { noTiles += 1 }
    }
    #expect(tiles > 50 && noTiles > 50)
  }

  @Test("a PMTiles source over HTTP (the manifest and archives on a server honouring Range): the same answers")
  func remote() throws {
    let f = try Fixture.shared.get()
    let out = try pmtilesOutput(f)
    defer { try? FileManager.default.removeItem(at: out) }
    let server = Process()
    server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    server.arguments = ["python3", pmtilesFixture, "serve", out.path]
    let pipe = Pipe()
    server.standardOutput = pipe
    try server.run()
    defer {
      kill(server.processIdentifier, SIGKILL)
      server.waitUntilExit()
    }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let more = pipe.fileHandleForReading.availableData
      if more.isEmpty { break }
      line += more
    }
    let port = try #require(Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
    let base = try #require(URL(string: "http://127.0.0.1:\(port)/"))
    let manifest = try TileManifest.decode(try Data(contentsOf: out.appendingPathComponent("manifest.json")))
    let source = try FloorPlanTileSource.pmtiles(manifest: manifest, base: base)
    guard case .offline(let remote) = source else {
      Issue.record("a PMTiles source reads through OfflineTiles")
      return
    }
    let directory = try OfflineTiles(directory: f.output)
    var tiles = 0
    for c in f.cells() where c.zoom >= 18 {
      let answer = remote.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)
      #expect(answer == directory.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size), "\(c)")
      if case .tile = answer { tiles += 1 }
    }
    #expect(tiles > 20)
    // a manifest that lists no archives is not a PMTiles output
    #expect(throws: TileUnavailable.self) { try OfflineTiles(manifest: f.manifest, pmtilesBase: base) }
  }
}
