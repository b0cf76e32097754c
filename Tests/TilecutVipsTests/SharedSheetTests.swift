import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

@Suite("a stacked sheet read once")
struct SharedSheetTests {
  /// Tiles the bands of `path` (three floors stacked top to bottom) one after the
  /// other through one shared reader, as the CLI does, into `out`.
  func tileSheet(_ path: String, bandHeight: Int, sizes: [Int], into out: String) throws -> SharedSheet {
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30)
    let sources = (0..<3).map { k in
      SourceDescription(
        path: path, crop: PixelRect(x: 0, y: k * bandHeight, width: header.width, height: bandHeight), width: header.width,
        height: bandHeight)
    }
    let groups = SharedSheet.groups(of: sources)
    #expect(groups.count == 1 && groups[0].floors == [0, 1, 2])
    let sheet = try #require(groups[0].sheet)
    let pool = WorkPool(jobs: 2)
    let template = try TileNameTemplate(TileNameTemplate.defaultPattern)
    let zoom = PyramidPlanner.rasterMaxZoom(width: header.width, height: bandHeight)
    for k in groups[0].floors {
      let plan = try PyramidPlanner.plan(
        floor: try #require(Floor(k)), source: sources[k], placement: .raster(nativeZoom: zoom), request: PlanRequest(maxZoom: zoom, tileSizes: sizes)
      )
      let builder = PyramidBuilder(
        plan: plan, settings: RenderSettings(), encoder: VipsTileEncoder(),
        writer: DirectoryTileWriter(root: out, template: template), pool: pool, ledger: RenderLedger(),
        openSource: { try LevelPipeline.open(plan: plan, level: $0, format: header.format, sheet: sheet) })
      try builder.build()
    }
    try pool.drain()
    return sheet
  }

  @Test("the sheet's loader is opened once, every band reads from it, and each floor equals its band tiled alone", arguments: ["png", "tif"])
  func openedOnce(format: String) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // gradients down the whole sheet: every band differs from the others
    let sheet = testImage(width: 420, height: 900)
    let path = dir + "/sheet." + format
    if format == "png" { try sheet.writePNG(to: path) } else { try RGBAImage.writePages([sheet], to: path) }
    let shared = try tileSheet(path, bandHeight: 300, sizes: [256, 512], into: dir + "/out")
    #expect(shared.opens == 1)
    #expect(shared.sharedFloors == [0, 1, 2])
    for k in 0..<3 {
      try sheet.crop(x: 0, y: 300 * k, width: 420, height: 300).writePNG(to: dir + "/band\(k).png")
      let (_, ledger) = try tile(dir + "/band\(k).png", into: dir + "/alone\(k)", sizes: [256, 512])
      for (key, outcome) in ledger.outcomes {
        for t in outcome.tiles {
          let name = "\(key.tileSize)/L%d_\(t.zoom)_\(t.x)_\(t.y).png"
          let alone = try RGBAImage.decode(file: dir + "/alone\(k)/" + name.replacingOccurrences(of: "%d", with: "1"))
          let inSheet = try RGBAImage.decode(file: dir + "/out/" + name.replacingOccurrences(of: "%d", with: "\(k)"))
          #expect(difference(alone, inSheet) == 0, "floor \(k) \(name)")
        }
      }
    }
  }

  @Test("a floor with a second direct level (the @3x chain) reads it from its own loader, and still gets its band")
  func secondLevelReopens() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try RGBAImage.writePages([testImage(width: 300, height: 600)], to: dir + "/sheet.tif")
    let shared = try tileSheet(dir + "/sheet.tif", bandHeight: 200, sizes: [256, 768], into: dir + "/out")
    #expect(shared.opens == 1 && shared.sharedFloors == [0, 1, 2])
    let files = (try? FileManager.default.subpathsOfDirectory(atPath: dir + "/out")) ?? []
    for k in 0..<3 {
      #expect(files.contains("768/L\(k)_0_0_0.png") && files.contains("256/L\(k)_0_0_0.png"), "floor \(k)")
    }
  }

  @Test("only bands stacked top to bottom of one page share a reader")
  func grouping() {
    func band(_ path: String, x: Int, y: Int, page: Int? = nil) -> SourceDescription {
      SourceDescription(path: path, page: page, crop: PixelRect(x: x, y: y, width: 10, height: 10), width: 10, height: 10)
    }
    // given out of order: the group reads them top to bottom
    let vertical = SharedSheet.groups(of: [band("a.png", x: 0, y: 20), band("a.png", x: 0, y: 0), band("a.png", x: 0, y: 10)])
    #expect(vertical.count == 1 && vertical[0].floors == [1, 2, 0] && vertical[0].sheet != nil)
    let horizontal = SharedSheet.groups(of: [band("a.png", x: 0, y: 0), band("a.png", x: 10, y: 0), band("a.png", x: 20, y: 0)])
    #expect(horizontal.count == 3 && horizontal.allSatisfy { $0.sheet == nil })
    let files = SharedSheet.groups(of: [
      SourceDescription(path: "a.png", width: 10, height: 10), SourceDescription(path: "b.png", width: 10, height: 10),
    ])
    #expect(files.count == 2 && files.allSatisfy { $0.sheet == nil })
  }
}
