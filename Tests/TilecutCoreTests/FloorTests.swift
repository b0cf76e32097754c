import Foundation
import Testing

@testable import TilecutCore

@Suite("Floor: a floor number validated once, a plain JSON integer")
struct FloorTests {
  @Test("the range's edges are floors; one past them is not, and the error names the option", arguments: [-1_000_000, 1_000_000, 0, -1])
  func inRange(number: Int) throws {
    #expect(Floor(number)?.number == number)
    #expect(try Floor(number, option: "--floor").description == String(number))
  }

  @Test("a number outside ±1000000 is refused without a trap", arguments: [-1_000_001, 1_000_001, Int.min, Int.max])
  func outOfRange(number: Int) {
    #expect(Floor(number) == nil)
    #expect(throws: TilecutError.invalidOption(option: "--floor", reason: "\(number) is outside ±1000000")) {
      try Floor(number, option: "--floor")
    }
  }

  @Test("the next floor up or down, nil past the edge and at any offset, never a trap")
  func advanced() throws {
    let basement = try Floor(-1, option: "--floor")
    #expect(basement.advanced(by: 1)?.number == 0 && basement.advanced(by: 2)?.number == 1)
    let top = try Floor(999_999, option: "--floor")
    #expect(top.advanced(by: 1)?.number == 1_000_000)
    #expect(top.advanced(by: 2) == nil)
    #expect(try Floor(1_000_000, option: "--floor").advanced(by: Int.max) == nil)
    #expect(try Floor(-1_000_000, option: "--floor").advanced(by: Int.min) == nil)
    #expect(try Floor(-1_000_000, option: "--floor").advanced(by: -1) == nil)
  }

  @Test("floors sort by number and print as file names print them")
  func orderAndNames() throws {
    let floors = try [2, -3, 0].map { try #require(Floor($0)) }
    #expect(floors.sorted().map(\.number) == [-3, 0, 2])
    let template = try TileNameTemplate("L{floor}_{z}_{x}_{y}.png")
    #expect(template.path(floor: floors[1], tileSize: 256, tile: TileCoordinate(zoom: 3, x: 1, y: 2)) == "L-3_3_1_2.png")
    #expect(template.match("L-3_3_1_2.png")?.floor == floors[1])
    // a name whose floor number tilecut cannot write is not a tile name
    #expect(template.match("L-1000001_3_1_2.png") == nil)
  }

  @Test("JSON: a floor is a plain integer both ways")
  func json() throws {
    let floors = try [-2, 0, 7].map { try #require(Floor($0)) }
    let data = try JSONEncoder().encode(floors)
    #expect(String(decoding: data, as: UTF8.self) == "[-2,0,7]")
    #expect(try JSONDecoder().decode([Floor].self, from: Data("[-2, 0, 7]".utf8)) == floors)
    let key = LevelKey(floor: floors[0], tileSize: 512, zoom: 3)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    #expect(String(decoding: try encoder.encode(key), as: UTF8.self) == #"{"floor":-2,"tileSize":512,"zoom":3}"#)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode([Floor].self, from: Data("[1000001]".utf8)) }
    #expect(throws: DecodingError.self) { try JSONDecoder().decode([Floor].self, from: Data("[1.5]".utf8)) }
  }

  /// A manifest as tilecut wrote it before floors had a type (`Manifest.encoded()` at
  /// f593cdd): basements, the ground floor, a footprint, a source and a substitute.
  static let oldManifest = #"""
    {
      "contentVersion" : "c0",
      "fingerprint" : "f0",
      "floors" : [
        -1,
        0,
        2
      ],
      "footprints" : [
        {
          "east" : 90,
          "floor" : -1,
          "north" : 66.51326044311186,
          "south" : 0,
          "west" : -90
        }
      ],
      "format" : "tilecut-manifest",
      "generator" : {
        "libvips" : "8.14.1",
        "name" : "tilecut",
        "version" : "0.9.0"
      },
      "levels" : [
        {"bytes":120,"floor":-1,"rows":[[0,1,1]],"tileCount":1,"tileSize":256,"xRange":[0,1],"yRange":[0,0],"zoom":1},
        {"bytes":80,"floor":0,"rows":[[0,0,0]],"tileCount":1,"tileSize":512,"xRange":[0,0],"yRange":[0,0],"zoom":0},
        {"bytes":0,"floor":2,"rows":[],"tileCount":0,"tileSize":256,"xRange":[0,0],"yRange":[0,1],"zoom":1}
      ],
      "name" : "{size}/L{floor}_{z}_{x}_{y}.png",
      "options" : {
        "first-floor" : "-1"
      },
      "sources" : [
        {
          "floor" : -1,
          "height" : 200,
          "page" : 0,
          "path" : "plan.pdf",
          "sha256" : "ab",
          "width" : 300
        }
      ],
      "substitutes" : [
        {
          "floor" : 0,
          "servedBy" : 256,
          "tileSize" : 512,
          "zoom" : 1
        }
      ],
      "tileSizes" : [
        256,
        512
      ],
      "version" : 1
    }
    """#

  @Test("a manifest written before Floor reads, validates, and encodes to the same bytes")
  func oldManifestReads() throws {
    let data = Data((Self.oldManifest + "\n").utf8)
    let manifest = try Manifest.decode(data, path: "out/manifest.json")
    try manifest.validate(path: "out/manifest.json")
    #expect(manifest.floors.map(\.number) == [-1, 0, 2])
    #expect(manifest.levels.map(\.floor.number) == [-1, 0, 2])
    #expect(manifest.footprints.first?.floor.number == -1 && manifest.sources.first?.floor.number == -1)
    #expect(manifest.substitutes?.first?.floor.number == 0)
    #expect(try manifest.encoded() == data)
  }

  @Test(
    "a manifest with a floor out of range is one error naming the file and where",
    arguments: [
      ("\"floors\" : [\n    -1,", "\"floors\" : [\n    -1000001,", "floors.0 is -1000001"),
      ("{\"bytes\":0,\"floor\":2,", "{\"bytes\":0,\"floor\":9223372036854775807,", "levels.2.floor is 9223372036854775807"),
      ("\"floor\" : 0,", "\"floor\" : 1000001,", "substitutes.0.floor is 1000001"),
    ])
  func outOfRangeManifest(old: String, new: String, place: String) throws {
    #expect(Self.oldManifest.contains(old))
    let data = Data(Self.oldManifest.replacingOccurrences(of: old, with: new).utf8)
    #expect(
      throws: TilecutError.invalidInput(path: "out/manifest.json", reason: "floors must be numbers within ±1000000; \(place)")
    ) { try Manifest.decode(data, path: "out/manifest.json") }
    // without a file to name, the same refusal is a decoding error
    #expect(throws: DecodingError.self) { try Manifest.decode(data) }
  }
}
