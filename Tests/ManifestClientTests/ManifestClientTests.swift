import Foundation
import Testing
import TilecutCore

/// The example client (a symlink to examples/client/TileManifest.swift) decodes what
/// tilecut writes, so it cannot rot.
@Suite("iOS manifest client")
struct ManifestClientTests {
  func randomManifest(seed: UInt64) throws -> (Manifest, Set<[Int]>) {
    var rng = SplitMix(state: seed)
    var levels: [Manifest.Level] = []
    var cells = Set<[Int]>()
    for floor in [-1, 0, 3] {
      for size in [256, 512] {
        for zoom in 10...12 {
          let range = TileRange(zoom: zoom, xRange: 100...140, yRange: 200...230)
          var tiles: [TileCoordinate] = []
          for y in range.yRange {
            for x in range.xRange where rng.next() % 3 != 0 {
              tiles.append(TileCoordinate(zoom: zoom, x: x, y: y))
              cells.insert([floor, size, zoom, x, y])
            }
          }
          levels.append(Manifest.Level(floor: floor, tileSize: size, range: range, tiles: tiles))
        }
      }
    }
    let m = Manifest(
      tileSizes: [256, 512], floors: [-1, 0, 3], name: TileNameTemplate.defaultPattern, levels: levels, footprints: [],
      generator: .init(version: "test", libvips: "test"), sources: [], options: [:], fingerprint: "x")
    return (m, cells)
  }

  @Test("hasTile equals set membership for every cell in and around the ranges", arguments: [1, 2, 3] as [UInt64])
  func membership(seed: UInt64) throws {
    let (manifest, cells) = try randomManifest(seed: seed)
    let client = try TileManifest.decode(try manifest.encoded())
    #expect(client.floors == [-1, 0, 3])
    for floor in [-1, 0, 1, 3] {
      for size in [256, 512] {
        for zoom in 9...13 {
          for y in 198...232 {
            for x in 98...142 {
              #expect(client.hasTile(floor: floor, zoom: zoom, x: x, y: y, tileSize: size) == cells.contains([floor, size, zoom, x, y]))
            }
          }
        }
      }
    }
  }

  @Test("paths and URLs follow the template; absent cells give nil")
  func urls() throws {
    let (manifest, cells) = try randomManifest(seed: 9)
    let client = try TileManifest.decode(try manifest.encoded())
    let base = try #require(URL(string: "https://cdn.example.com/plans/"))
    let present = try #require(cells.first { $0[0] == -1 && $0[1] == 512 })
    let url = client.tileURL(base: base, floor: -1, zoom: present[2], x: present[3], y: present[4], tileSize: 512)
    #expect(url?.absoluteString == "https://cdn.example.com/plans/512/L-1_\(present[2])_\(present[3])_\(present[4]).png")
    #expect(client.tileURL(base: base, floor: 0, zoom: 5, x: 0, y: 0) == nil)
  }

  @Test("an unknown format or a newer version is refused")
  func refusesUnknown() throws {
    let (manifest, _) = try randomManifest(seed: 4)
    var newer = manifest
    newer.version = 2
    #expect(throws: TileManifest.Failure.unsupported(format: "tilecut-manifest", version: 2)) { try TileManifest.decode(try newer.encoded()) }
    var other = manifest
    other.format = "something-else"
    #expect(throws: TileManifest.Failure.self) { try TileManifest.decode(try other.encoded()) }
  }
}

/// A small deterministic generator.
struct SplitMix {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
