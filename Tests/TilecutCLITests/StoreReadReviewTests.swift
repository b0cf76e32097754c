import Foundation
import Testing
import TilecutCore
import TilecutPMTiles

@testable import Tilecut
@testable import TilecutCLI

/// What a review of reading a store's tile found: images named like numbers are
/// tiled, and tiles the tool cannot undo the compression of are refused. (The read was
/// `tile STORE Z X Y`; it is `get STORE Z/X/Y` now, and the old form is answered with it.)
@Suite("get STORE Z/X/Y: review")
struct StoreReadReviewTests {
  @Test("tile plan.png 1 2 3: numbers that name files are floors to tile; numbers that do not are answered with get")
  func numbersThatAreFiles() throws {
    #expect(OldTileRead.hint(["plan.png", "1", "2", "3"], exists: { _ in true }) == nil)
    let hint = OldTileRead.hint(["plan.png", "1", "2", "3"], exists: { $0 == "plan.png" })
    #expect(hint?.hasPrefix("use: tilecut get plan.png 1/2/3") == true, "\(hint ?? "nil")")
  }

  @Test("tile plan.png 1 2 3 in a directory holding images named 1, 2 and 3 tiles four floors")
  func numberedImagesAreTiled() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for name in ["plan.png", "1", "2", "3"] {
      try FileManager.default.copyItem(atPath: officePlan, toPath: dir + "/" + name)
    }
    let r = try runTool(
      [], shell: "cd '\(dir)' && TILECUT tile plan.png 1 2 3 --bounds 51.5006,-0.1275,51.5016,-0.1255 --max-zoom 17 -q -o out",
      timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    #expect(manifest.floors.count == 4)
  }

  @Test("an archive of brotli-compressed tiles: get fails with one line instead of printing compressed bytes")
  func brotliTilesRefused() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let tile: [UInt8] = Array("not really brotli".utf8)
    let root = PMTilesGzip.compress(
      PMTilesDirectory.serialize([PMTilesEntry(tileID: 0, offset: 0, length: UInt32(tile.count), runLength: 1)]))
    let metadata = PMTilesGzip.compress(Array("{}".utf8))
    var header = PMTilesHeader()
    header.rootDirectoryOffset = UInt64(PMTilesHeader.size)
    header.rootDirectoryLength = UInt64(root.count)
    header.metadataOffset = header.rootDirectoryOffset + header.rootDirectoryLength
    header.metadataLength = UInt64(metadata.count)
    header.leafDirectoriesOffset = header.metadataOffset + header.metadataLength
    header.tileDataOffset = header.leafDirectoriesOffset
    header.tileDataLength = UInt64(tile.count)
    (header.addressedTiles, header.tileEntries, header.tileContents) = (1, 1, 1)
    header.clustered = true
    header.tileCompression = .brotli
    header.tileType = .png
    let path = dir + "/brotli.pmtiles"
    try Data(header.encoded() + root + metadata + tile).write(to: URL(fileURLWithPath: path))
    #expect(try runTool(["show", path]).status == 0)
    let r = try runTool(["get", path, "0/0/0"])
    #expect(r.status != 0 && r.stdout.isEmpty, "\(r.status) \(r.stdout)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains(path) && lines[0].contains("brotli"), "\(r.stderr)")
  }

  @Test("get on an output whose manifest name has a '..' component: one line naming manifest.json, exit 1 (not --name, exit 2)")
  func hostileManifestName() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let tile = TileCoordinate(zoom: 5, x: 3, y: 10)
    let manifest = Manifest(
      tileSizes: [256], floors: [1], name: "../../ESCAPE/{size}/L{floor}_{z}_{x}_{y}.png",
      levels: [Manifest.Level(floor: 1, tileSize: 256, range: TileRange(zoom: 5, xRange: 3...3, yRange: 10...10), tiles: [tile], bytes: 1)],
      footprints: [], generator: .init(version: "t", libvips: "t"), sources: [], options: [:], fingerprint: "f")
    try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
    try manifest.encoded().write(to: URL(fileURLWithPath: dir + "/out/manifest.json"))
    let r = try runTool(["get", dir + "/out", "5/3/10", "-o", dir + "/t.png"])
    let lines = r.stderr.split(separator: "\n")
    #expect(r.status == 1, "\(r.status) \(r.stderr)")
    #expect(lines.count == 1 && lines[0].contains(dir + "/out/manifest.json: name: '../../ESCAPE/") && !r.stderr.contains("--name"), "\(r.stderr)")
  }
}
