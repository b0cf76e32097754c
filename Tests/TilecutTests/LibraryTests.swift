import Foundation
import Synchronization
import Testing
import Tilecut
import TilecutCore
import TilecutFixtures
import TilecutVips

/// Every command driven through the library's public API, without the binary.
@Suite("library: tile, verify, preview, merge from Swift")
struct LibraryTests {
  @Test("a plan tiled by TileJob verifies, previews as a sheet and merges from shards; mistakes are typed failures")
  func wholeJobs() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 500, transparentLeft: 400).writePNG(to: dir + "/a.png")

    let lines = LineBox()
    let request = TileRequest(inputs: [dir + "/a.png"], output: dir + "/out")
    let result = try TileJob(request).run(progress: { lines.append($0) })
    let manifest = try #require(result.manifest)
    #expect(manifest.totalTiles > 0)
    #expect(lines.all.contains { $0.hasPrefix("done: ") })
    let level = try #require(manifest.levels.first { $0.tileSize == 256 && $0.tileCount > 0 })
    let tile = try #require(level.tiles.first)
    let name = try TileNameTemplate(manifest.name).path(floor: level.floor, tileSize: 256, tile: tile)
    let image = try RGBAImage.decode(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/out/" + name))))
    #expect(image.width == 256 && image.height == 256)

    let intact = try Verifier(dir + "/out").run()
    #expect(intact.isIntact && intact.tilesChecked == manifest.totalTiles)

    var sheet = PreviewSheetRequest(dir + "/out", zoom: level.zoom, output: dir + "/sheet.png")
    sheet.floor = level.floor.number
    let drawn = try sheet.run()
    let sheetImage = try RGBAImage.decode(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/sheet.png"))))
    #expect(sheetImage.width == drawn.columns * 256 && sheetImage.height == drawn.rows * 256)

    for k in 1...2 {
      var part = TileRequest(inputs: [dir + "/a.png"], output: dir + "/part\(k)")
      part.run.shard = .part(index: k, count: 2)
      try TileJob(part).run()
    }
    let merged = try Merger([dir + "/part1", dir + "/part2"], into: dir + "/merged").run()
    #expect(merged.tilesCopied == manifest.totalTiles)
    #expect(merged.manifest.contentVersion == manifest.contentVersion)
    #expect(try Verifier(dir + "/merged").run().isIntact)

    try FileManager.default.removeItem(atPath: dir + "/out/" + name)
    let damaged = try Verifier(dir + "/out").run()
    #expect(damaged.problems == ["missing: \(name)"])

    let missing = TileRequest(inputs: [dir + "/none.png"], output: dir + "/x")
    let notFound = #expect(throws: (any Error).self) { try TileJob(missing).run() }
    #expect(Failure(try #require(notFound)).status == 1)
    var backwards = TileRequest(inputs: [dir + "/a.png"], output: dir + "/y")
    (backwards.pyramid.minZoom, backwards.pyramid.maxZoom) = (5, 2)
    let usage = #expect(throws: Failure.self) { try TileJob(backwards).run() }
    #expect(usage?.status == 2 && usage?.line.hasPrefix("--min-zoom") == true)
    #expect(!FileManager.default.fileExists(atPath: dir + "/y"))
    let noShards = #expect(throws: TilecutError.self) { try Merger([], into: dir + "/z").run() }
    #expect(noShards.map { Failure($0).status } == 2)
  }
}

/// Lines a run hands to its progress callback.
final class LineBox: Sendable {
  private let lines = Mutex<[String]>([])
  func append(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}
