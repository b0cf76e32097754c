import Foundation
import Testing

@testable import TilecutClient

/// The manifest reader on a real output: facts, membership, URLs, cache versions, refusals.
@Suite("manifest reader, against a real tilecut output")
struct ManifestTests {
  @Test("floors, tile sizes, zoom ranges, footprints and content version")
  func facts() throws {
    let f = try Fixture.shared.get()
    let m = f.manifest
    #expect(m.floors == [-1, 0])
    #expect(m.tileSizes == [256, 512, 768])
    for floor in m.floors {
      #expect(m.zoomRange(floor: floor) == 16...19)
      #expect(m.zoomRange(floor: floor, tileSize: 768) == 16...19)
      let box = try #require(m.bounds(floor: floor))
      #expect(abs(box.south - Fixture.bounds.south) < 1e-9 && abs(box.north - Fixture.bounds.north) < 1e-9)
      #expect(abs(box.west - Fixture.bounds.west) < 1e-9 && abs(box.east - Fixture.bounds.east) < 1e-9)
    }
    #expect(m.zoomRange(floor: 7) == nil && m.bounds(floor: 7) == nil)
    let version = try #require(m.contentVersion)
    #expect(version.count == 16 && version.allSatisfy(\.isHexDigit))
  }

  @Test("tile size for a screen scale: 1× 256, 2× 512, 3× 768 when present, else 512")
  func screenScale() throws {
    let f = try Fixture.shared.get()
    #expect([1.0, 2.0, 3.0].map(f.manifest.tileSize(forScreenScale:)) == [256, 512, 768])
    let retina = try f.manifest(replacing: ["tileSizes": [256, 512]])
    #expect([1.0, 2.0, 3.0].map(retina.tileSize(forScreenScale:)) == [256, 512, 512])
    let only512 = try f.manifest(replacing: ["tileSizes": [512]])
    #expect([1.0, 2.0, 3.0].map(only512.tileSize(forScreenScale:)) == [512, 512, 512])
    let only256 = try f.manifest(replacing: ["tileSizes": [256]])
    #expect([1.0, 2.0, 3.0].map(only256.tileSize(forScreenScale:)) == [256, 256, 256])
  }

  @Test("hasTile is true exactly for the files tilecut wrote, in and around every range")
  func membership() throws {
    let f = try Fixture.shared.get()
    var checked = 0
    var present = 0
    var wrong: [String] = []
    for c in f.cells() {
      let path = f.output.appendingPathComponent(f.manifest.path(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)).path
      let exists = FileManager.default.fileExists(atPath: path)
      if f.manifest.hasTile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size) != exists { wrong.append(path) }
      checked += 1
      if exists { present += 1 }
    }
    #expect(wrong.isEmpty, "disagree: \(wrong.prefix(5))")
    #expect(present > 20 && present < checked)
    // and no file on disk escaped the walk
    let files = FileManager.default.enumerator(atPath: f.output.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") } ?? []
    #expect(files.count == present)
  }

  @Test("URLs keep the base's path with or without a trailing slash, and its query; no tile, no URL")
  func urls() throws {
    let m = try Fixture.shared.get().manifest
    let level = try #require(m.levels.first { $0.floor == -1 && $0.tileSize == 512 && $0.zoom == 19 })
    let run = try #require(level.rows.first)
    let (y, x) = (run[0], run[1])
    let expected = "https://cdn.example.com/plans/v2/512/L-1_19_\(x)_\(y).png"
    for base in ["https://cdn.example.com/plans/v2", "https://cdn.example.com/plans/v2/"] {
      let url = m.tileURL(base: try #require(URL(string: base)), floor: -1, zoom: 19, x: x, y: y, tileSize: 512)
      #expect(url?.absoluteString == expected)
    }
    let signed = try #require(URL(string: "https://cdn.example.com/plans?token=abc"))
    let versioned = m.tileURL(base: signed, floor: -1, zoom: 19, x: x, y: y, tileSize: 512, versioned: true)
    #expect(versioned?.absoluteString == "https://cdn.example.com/plans/512/L-1_19_\(x)_\(y).png?token=abc&v=\(m.contentVersion ?? "")")
    let root = try #require(URL(string: "https://cdn.example.com"))
    #expect(m.tileURL(base: root, floor: 0, zoom: 19, x: x, y: y, tileSize: 768)?.absoluteString == "https://cdn.example.com/768/L0_19_\(x)_\(y).png")
    // outside the footprint, another floor, a size that was not made
    #expect(m.tileURL(base: root, floor: -1, zoom: 19, x: x - 5, y: y, tileSize: 512) == nil)
    #expect(m.tileURL(base: root, floor: 3, zoom: 19, x: x, y: y, tileSize: 512) == nil)
    #expect(m.tileURL(base: root, floor: -1, zoom: 19, x: x, y: y, tileSize: 1024) == nil)
    #expect(TileURL.make(base: root, path: "a b/c#d.png")?.absoluteString == "https://cdn.example.com/a%20b/c%23d.png")
  }

  @Test("a layer clears its tile cache exactly when the content version changes")
  func cacheVersion() throws {
    let f = try Fixture.shared.get()
    var version = TileCacheVersion(f.manifest)
    #expect(version.accept(f.manifest) == false)
    #expect(version.accept(try f.manifest(replacing: ["contentVersion": "0123456789abcdef"])) == true)
    #expect(version.current == "0123456789abcdef")
    #expect(version.accept(try f.manifest(replacing: ["contentVersion": "0123456789abcdef"])) == false)
    #expect(version.accept(f.manifest) == true)
  }

  @Test("an unknown format, a newer version or a malformed run is refused with a clear error")
  func refusesUnknown() throws {
    let f = try Fixture.shared.get()
    #expect(throws: TileManifest.Failure.unsupportedVersion(2, supported: 1)) { try f.manifest(replacing: ["version": 2]) }
    #expect(TileManifest.Failure.unsupportedVersion(2, supported: 1).description.contains("newer"))
    #expect(throws: TileManifest.Failure.unknownFormat("something-else")) { try f.manifest(replacing: ["format": "something-else"]) }
    #expect(TileManifest.Failure.unknownFormat("x").description.contains("not a tilecut manifest"))
    let broken: [[String: Any]] = [["floor": 1, "tileSize": 256, "zoom": 3, "rows": [[1, 2]]]]
    #expect(throws: DecodingError.self) { try f.manifest(replacing: ["levels": broken]) }
    #expect(throws: DecodingError.self) { try TileManifest.decode(Data("{\"levels\": []}".utf8)) }
  }
}
