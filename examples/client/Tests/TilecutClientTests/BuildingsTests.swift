import Foundation
import Testing

@testable import TilecutClient

/// A campus manifest's buildings; a plain run's manifest has none and reads as before.
@Suite("buildings")
struct BuildingsTests {
  @Test("a manifest without buildings decodes with none, and every lookup says so")
  func withoutBuildings() throws {
    let f = try Fixture.shared.get()
    #expect(f.manifest.buildings.isEmpty)
    #expect(f.manifest.building("hq") == nil)
    #expect(f.manifest.floors(building: "hq").isEmpty)
    #expect(f.manifest.bounds(building: "hq") == nil)
  }

  @Test("buildings: ids, names, floors, camera bounds per building and per floor")
  func withBuildings() throws {
    let f = try Fixture.shared.get()
    let buildings: [[String: Any]] = [
      [
        "id": "hq", "name": "Headquarters",
        "floors": [
          ["floor": 2, "south": 51.5004, "west": -0.1400, "north": 51.5008, "east": -0.1392, "source": "hq/hq.pdf", "page": 1, "sha256": "aa"],
          ["floor": 1, "south": 51.5005, "west": -0.1399, "north": 51.5007, "east": -0.1393, "source": "hq/hq.pdf", "page": 0, "sha256": "aa"],
        ],
      ],
      [
        "id": "annex",
        "floors": [["floor": 1, "south": 51.5006, "west": -0.1394, "north": 51.5007, "east": -0.1391, "source": "a.png", "sha256": "bb"]],
      ],
    ]
    let m = try f.manifest(replacing: ["buildings": buildings])
    #expect(m.buildings.map(\.id) == ["hq", "annex"])
    #expect(m.building("hq")?.name == "Headquarters" && m.building("annex")?.name == nil)
    #expect(m.floors(building: "hq") == [1, 2])
    #expect(m.floors(building: "annex") == [1])
    let hq = try #require(m.bounds(building: "hq"))
    #expect(hq.south == 51.5004 && hq.west == -0.1400 && hq.north == 51.5008 && hq.east == -0.1392)
    let hq1 = try #require(m.bounds(building: "hq", floor: 1))
    #expect(hq1.floor == 1 && hq1.south == 51.5005 && hq1.east == -0.1393)
    #expect(m.bounds(building: "annex", floor: 2) == nil)
    // what the client does not need (sources, digests) is not required
    #expect(m.hasTile(floor: m.floors[0], zoom: 99, x: 0, y: 0) == false)
  }
}
