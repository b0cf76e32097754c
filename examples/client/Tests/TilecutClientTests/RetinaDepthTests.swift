import Foundation
import Testing

@testable import TilecutClient

/// A `--retina-depth native` output, made by the repository's tilecut: at the native
/// zoom the 512 px tiles are not written and the 256 px ones serve them.
@Suite("retina depth native, against a real tilecut output")
struct RetinaDepthTests {
  /// The office plan tiled 256 + 512 with --retina-depth native into a fresh directory.
  static func output() throws -> (root: URL, manifest: TileManifest) {
    let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tilecut-client-native-\(UUID().uuidString.prefix(8))")
    let plan = Fixture.repository.appendingPathComponent("examples/floorplan/office.png").path
    try run(
      try Fixture.tilecutBinary(),
      [plan, "-o", root.path, "--tile-size", "256,512", "--retina-depth", "native", "--knockout", "white:8", "--quiet"])
    return (root, try TileManifest(contentsOf: root.appendingPathComponent("manifest.json")))
  }

  @Test("the deepest zoom's 512 px URL is the 256 px tile's; shallower zooms keep their own 512 px tiles")
  func urlsAndOfflineBytes() throws {
    let (root, m) = try Self.output()
    defer { try? FileManager.default.removeItem(at: root) }
    let deepest = try #require(m.zoomRange(floor: 1, tileSize: 256)).upperBound
    #expect(m.substitutes.map(\.zoom) == [deepest])
    #expect(m.servingTileSize(floor: 1, zoom: deepest, tileSize: 512) == 256)
    #expect(m.servingTileSize(floor: 1, zoom: deepest - 1, tileSize: 512) == 512)
    // a retina layer still spans every zoom
    #expect(m.zoomRange(floor: 1, tileSize: 512) == m.zoomRange(floor: 1, tileSize: 256))
    let base = try #require(URL(string: "https://cdn.example.com/plans"))
    let offline = OfflineTiles(manifest: m, store: DirectoryTileStore(root: root, manifest: m))
    var served = 0
    for x in 0..<(1 << deepest) {
      for y in 0..<(1 << deepest) {
        let small = m.tileURL(base: base, floor: 1, zoom: deepest, x: x, y: y, tileSize: 256)
        let retina = m.tileURL(base: base, floor: 1, zoom: deepest, x: x, y: y, tileSize: 512)
        #expect(retina == small)
        #expect(m.hasTile(floor: 1, zoom: deepest, x: x, y: y, tileSize: 512) == m.hasTile(floor: 1, zoom: deepest, x: x, y: y, tileSize: 256))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(m.path(floor: 1, zoom: deepest, x: x, y: y, tileSize: 512)).path))
        let answer = offline.tile(floor: 1, zoom: deepest, x: x, y: y, tileSize: 512)
        #expect(answer == offline.tile(floor: 1, zoom: deepest, x: x, y: y, tileSize: 256))
        if small != nil {
          #expect(small?.path.hasSuffix(m.path(floor: 1, zoom: deepest, x: x, y: y, tileSize: 256)) == true)
          if case .tile = answer { served += 1 }
        }
      }
    }
    #expect(served > 0)
    // one zoom up, the 512 px tiles are their own files
    let up = deepest - 1
    let own = (0..<(1 << up)).flatMap { x in (0..<(1 << up)).map { (x, $0) } }.filter {
      m.hasTile(floor: 1, zoom: up, x: $0.0, y: $0.1, tileSize: 512)
    }
    #expect(!own.isEmpty)
    for (x, y) in own {
      let url = m.tileURL(base: base, floor: 1, zoom: up, x: x, y: y, tileSize: 512)
      #expect(url?.path.hasSuffix(m.path(floor: 1, zoom: up, x: x, y: y, tileSize: 512)) == true)
    }
  }

  @Test("a substitute served by a size no smaller than its own is refused")
  func malformedSubstitute() throws {
    let f = try Fixture.shared.get()
    #expect(throws: DecodingError.self) {
      try f.manifest(replacing: ["substitutes": [["floor": 0, "tileSize": 512, "zoom": 19, "servedBy": 768]]])
    }
  }
}
