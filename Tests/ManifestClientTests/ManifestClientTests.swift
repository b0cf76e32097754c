import Foundation
import Testing
import TilecutCore

/// The example iOS client (TileManifest.swift here is a symlink to
/// examples/client/TileManifest.swift) must decode what tilecut writes, so it cannot rot.
@Suite("iOS manifest client")
struct ManifestClientTests {
  static let floors = [-2, -1, 0, 3]

  /// A manifest with random ranges and random tile sets per floor, tile size and zoom,
  /// and the set of [floor, size, zoom, x, y] cells it lists.
  func randomManifest(seed: UInt64) throws -> (Manifest, Set<[Int]>) {
    var rng = SplitMix(state: seed)
    var levels: [Manifest.Level] = []
    var cells = Set<[Int]>()
    for floor in Self.floors {
      for size in [256, 512] {
        for zoom in 10...12 {
          let x0 = Int(rng.next() % 50) + 100
          let y0 = Int(rng.next() % 50) + 200
          let range = TileRange(zoom: zoom, xRange: x0...(x0 + Int(rng.next() % 30)), yRange: y0...(y0 + Int(rng.next() % 20)))
          // densities from empty to full, so runs are long, short and absent
          let keep = rng.next() % 5
          var tiles: [TileCoordinate] = []
          for y in range.yRange {
            for x in range.xRange where rng.next() % 4 < keep {
              tiles.append(TileCoordinate(zoom: zoom, x: x, y: y))
              cells.insert([floor, size, zoom, x, y])
            }
          }
          levels.append(Manifest.Level(floor: floor, tileSize: size, range: range, tiles: tiles.shuffled(using: &rng)))
        }
      }
    }
    let manifest = Manifest(
      tileSizes: [256, 512], floors: Self.floors, name: TileNameTemplate.defaultPattern, levels: levels, footprints: [],
      generator: .init(version: "test", libvips: "test"), sources: [], options: [:], fingerprint: "x")
    return (manifest, cells)
  }

  @Test("hasTile equals set membership for every cell in and around the ranges", arguments: [1, 2, 3, 4] as [UInt64])
  func membership(seed: UInt64) throws {
    let (manifest, cells) = try randomManifest(seed: seed)
    let client = try TileManifest.decode(try manifest.encoded())
    #expect(client.floors == Self.floors && client.tileSizes == [256, 512])
    var checked = 0
    var wrong: [[Int]] = []
    for floor in Self.floors + [1] {
      for size in [128, 256, 512] {
        for zoom in 9...13 {
          for y in 197...272 {
            for x in 97...182 {
              checked += 1
              if client.hasTile(floor: floor, zoom: zoom, x: x, y: y, tileSize: size) != cells.contains([floor, size, zoom, x, y]) {
                wrong.append([floor, size, zoom, x, y])
              }
            }
          }
        }
      }
    }
    #expect(checked > 400_000 && !cells.isEmpty)
    let firstWrong = Array(wrong.prefix(5))
    #expect(wrong.count == 0, "first wrong cells [floor, size, z, x, y]: \(firstWrong)")
  }

  @Test("paths and URLs follow the template; absent cells give nil")
  func urls() throws {
    let (manifest, cells) = try randomManifest(seed: 9)
    let client = try TileManifest.decode(try manifest.encoded())
    let base = try #require(URL(string: "https://cdn.example.com/plans/"))
    let present = try #require(cells.filter { $0[0] == -1 && $0[1] == 512 }.min { $0.lexicographicallyPrecedes($1) })
    let (z, x, y) = (present[2], present[3], present[4])
    #expect(client.path(floor: -1, zoom: z, x: x, y: y, tileSize: 512) == "512/L-1_\(z)_\(x)_\(y).png")
    let url = client.tileURL(base: base, floor: -1, zoom: z, x: x, y: y, tileSize: 512)
    #expect(url?.absoluteString == "https://cdn.example.com/plans/512/L-1_\(z)_\(x)_\(y).png")
    #expect(client.tileURL(base: base, floor: 0, zoom: 5, x: 0, y: 0) == nil)
    #expect(client.tileURL(base: base, floor: 7, zoom: z, x: x, y: y, tileSize: 512) == nil)
  }

  @Test("a custom name template is honoured")
  func customTemplate() throws {
    var (manifest, _) = try randomManifest(seed: 5)
    manifest.name = "tiles/{floor}/{size}/{z}/{x}/{y}.webp"
    let client = try TileManifest.decode(try manifest.encoded())
    #expect(client.path(floor: -2, zoom: 17, x: 3, y: 4, tileSize: 256) == "tiles/-2/256/17/3/4.webp")
  }

  @Test("an unknown format, a newer version or a malformed run is refused with a clear error")
  func refusesUnknown() throws {
    let (manifest, _) = try randomManifest(seed: 4)
    var newer = manifest
    newer.version = Manifest.currentVersion + 1
    #expect(throws: TileManifest.Failure.unsupportedVersion(2, supported: 1)) { try TileManifest.decode(try newer.encoded()) }
    #expect(TileManifest.Failure.unsupportedVersion(2, supported: 1).description.contains("newer"))
    var other = manifest
    other.format = "something-else"
    #expect(throws: TileManifest.Failure.unknownFormat("something-else")) { try TileManifest.decode(try other.encoded()) }
    #expect(TileManifest.Failure.unknownFormat("x").description.contains("not a tilecut manifest"))
    var broken = manifest
    broken.levels[0].rows = [[1, 2]]
    #expect(throws: DecodingError.self) { try TileManifest.decode(try broken.encoded()) }
    #expect(throws: DecodingError.self) { try TileManifest.decode(Data("{\"levels\": []}".utf8)) }
  }
}

/// A small deterministic generator.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
