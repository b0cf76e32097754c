import Foundation
import Testing

@testable import TilecutCore

/// Manifests are input: every number is checked against the grid before it sizes anything.
@Suite("manifest validation")
struct ManifestValidationTests {
  static func sample() -> Manifest {
    let range = TileRange(zoom: 5, xRange: 3...6, yRange: 10...11)
    let tiles = [TileCoordinate(zoom: 5, x: 3, y: 10), TileCoordinate(zoom: 5, x: 4, y: 10), TileCoordinate(zoom: 5, x: 6, y: 11)]
    return Manifest(
      tileSizes: [256], floors: [1], name: "{size}/L{floor}_{z}_{x}_{y}.png",
      levels: [Manifest.Level(floor: 1, tileSize: 256, range: range, tiles: tiles, bytes: 300)], footprints: [],
      generator: .init(version: "t", libvips: "t"), sources: [], options: [:], fingerprint: "f")
  }

  @Test("a manifest tilecut wrote passes")
  func good() throws {
    try Self.sample().validate(path: "m.json")
    #expect(Self.sample().totalTiles == 3)
  }

  static let messages = [
    "x range 0…1099511627776 is outside zoom 5's grid", "zoom 62 is outside 0…30", "y range -1…11", "does not match its runs",
    "outside its range", "not sorted", "not 3", "floors", "tile sizes", "appears twice", "side by side", "shard", "store file",
    "served by 256 px does not fit", "is both a level and substituted",
  ]

  static func damage(_ m: inout Manifest, _ which: Int) {
    switch which {
    case 0: m.levels[0].xRange = [0, 1_099_511_627_776]
    case 1: m.levels[0].zoom = 62
    case 2: m.levels[0].yRange = [-1, 11]
    case 3: m.levels[0].tileCount = Int.max
    case 4: m.levels[0].rows = [[10, 0, 1 << 40]]
    case 5: m.levels[0].rows = [[11, 6, 6], [10, 3, 4]]
    case 6: m.levels[0].rows = [[10]]
    case 7: m.floors = []  // a floor out of range cannot be built: `Floor` refuses it when decoded
    case 8: m.tileSizes = [300]
    case 9: m.levels.append(m.levels[0])
    case 10: m.name = "{z}{x}{y}.png"
    case 11: m.shard = Manifest.Shard(index: 3, count: 2, jobFingerprint: "j")
    case 12: m.storeFiles = ["../../etc/passwd"]
    // a level served by a size the manifest lacks, and one that has tiles of its own too
    case 13: m.substitutes = [Manifest.Substitute(floor: 1, tileSize: 512, zoom: 5, servedBy: 256)]
    default:
      m.tileSizes = [256, 512]
      m.levels.append(Manifest.Level(floor: 1, tileSize: 512, range: TileRange(zoom: 5, xRange: 3...6, yRange: 10...11), tiles: []))
      m.substitutes = [Manifest.Substitute(floor: 1, tileSize: 512, zoom: 5, servedBy: 256)]
    }
  }

  @Test("each kind of bad number is named", arguments: 0..<15)
  func bad(which: Int) {
    var m = Self.sample()
    Self.damage(&m, which)
    let message = Self.messages[which]
    do {
      try m.validate(path: "m.json")
      Issue.record("accepted: \(message)")
    } catch let error as TilecutError {
      #expect(error.description.hasPrefix("m.json: ") && error.description.contains(message), "\(error)")
    } catch {
      Issue.record("\(error)")
    }
  }
}
