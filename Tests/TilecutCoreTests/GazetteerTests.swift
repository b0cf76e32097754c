import Foundation
import Testing

@testable import TilecutCore

@Suite struct GazetteerTests {
  @Test func aPlanInBerlinIsNamedBerlin() throws {
    let here = try #require(Gazetteer.locate(latitude: 52.5200, longitude: 13.4050))
    #expect(here.place == "Berlin")
    #expect(here.country == "Germany")
    #expect(!here.atSea)
    #expect(here.distanceMeters < 2_000)
    #expect(Gazetteer.country(latitude: 52.52, longitude: 13.405) == "Germany")
  }

  @Test func directionAndDistanceReadFromThePlace() throws {
    // 4 km north of the centre of Paris
    let here = try #require(Gazetteer.locate(latitude: 48.89, longitude: 2.3488))
    #expect(here.place == "Paris")
    #expect(here.direction == "N")
    #expect(here.text.hasSuffix(" km N of Paris, France"))
    // Berlin to Paris, great circle: 878 km (published figure; the sphere is within 0.5 %)
    let d = Gazetteer.distanceMeters(52.5244, 13.4105, 48.8534, 2.3488)
    #expect(abs(d - 878_000) < 5_000)
  }

  @Test func theSwappedReadingOfBerlinIsAtSea() throws {
    // lon,lat read as lat,lon: 13.405° N 52.52° E, the Arabian Sea off Yemen
    let swapped = try #require(Gazetteer.locate(latitude: 13.405, longitude: 52.52))
    #expect(swapped.atSea)
    #expect(swapped.text.hasPrefix("at sea, "))
    #expect(Gazetteer.country(latitude: 13.405, longitude: 52.52) == nil)
  }

  /// The byte reader's own decimals against Swift's parser: random decimals of 1 to 15
  /// digits, the point anywhere or nowhere, negative or not, read as the same double
  /// (bit for bit); fields that are not plain decimals are left to the parser.
  @Test func decimalsAreReadAsSwiftReadsThem() {
    func decimal(_ text: String) -> Double? {
      Array(text.utf8).withUnsafeBufferPointer { TSVReader($0).decimal(0..<$0.count) }
    }
    var texts = ["0", "-0", "-0.0", "5.", ".5", "-.5", "007.250", "123456789012345", "0.00000000000001", "9999999.9999"]
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ bound: Int) -> Int {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Int((state >> 33) % UInt64(bound))
    }
    for _ in 0..<20_000 {
      let count = 1 + next(15)
      var digits = (0..<count).map { _ in Character(String(next(10))) }
      let point = next(count + 2)
      if point <= count { digits.insert(".", at: point) }
      texts.append((next(2) == 0 ? "-" : "") + String(digits))
    }
    for text in texts {
      #expect(decimal(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
    }
    for text in ["1e5", "+1", "1.2.3", "-", ".", "1,5", "0x10", "nan", "inf", " 1", "1234567890123456"] {
      #expect(decimal(text) == nil, "\(text)")
    }
  }

  /// The byte reader against Foundation's reading of the same files: every line a place
  /// or a country, with the same names and numbers.
  @Test func everyLineOfTheDataIsRead() throws {
    let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../Sources/CTilecutResources/gazetteer")
    let places = try String(contentsOf: dir.appendingPathComponent("places.tsv"), encoding: .utf8).components(separatedBy: "\n")
      .filter { !$0.isEmpty }.map { $0.components(separatedBy: "\t") }
    #expect(places.count > 5_000)
    #expect(Gazetteer.places.count == places.count)
    for (read, line) in zip(Gazetteer.places, places) {
      #expect(read.name == line[0] && read.country == line[1])
      #expect(read.latitude == Double(line[2]) && read.longitude == Double(line[3]))
    }
    let countries = try String(contentsOf: dir.appendingPathComponent("countries.tsv"), encoding: .utf8).components(separatedBy: "\n")
      .filter { !$0.isEmpty }.map { $0.components(separatedBy: "\t") }
    #expect(countries.count > 170)
    #expect(Gazetteer.countries.map(\.name) == countries.map { $0[0] })
    for (read, line) in zip(Gazetteer.countries, countries) {
      let rings = line[1].components(separatedBy: "|").map { ring in
        ring.components(separatedBy: " ").map { pair in pair.components(separatedBy: ",").compactMap { Double($0) } }
      }
      #expect(read.rings.map(\.count) == rings.map(\.count), "\(read.name)")
      #expect(read.rings.joined().map { [$0.0, $0.1] } == Array(rings.joined()), "\(read.name)")
    }
  }

  @Test func theReaderKeepsEmptyFieldsAndSkipsShortLines() {
    let bytes = Array("Nowhere\t\t1.5\t2.5\nbad line\n\nTown\tLand\t-3\t4e1".utf8)
    let read = Gazetteer.parsePlaces(bytes)
    #expect(read.map(\.name) == ["Nowhere", "Town"])
    #expect(read.map(\.country) == ["", "Land"])
    #expect(read.map(\.latitude) == [1.5, -3] && read.map(\.longitude) == [2.5, 40])
    #expect(Gazetteer.parsePlaces(Array("A\tB\tnan\t1\nC\tD\t1x\t2\n".utf8)).isEmpty)
  }

  @Test func inlandPointsAreOnLandAndOceansAreNot() {
    #expect(Gazetteer.isOnLand(latitude: 40.4168, longitude: -3.7038))  // Madrid
    #expect(Gazetteer.isOnLand(latitude: -33.8688, longitude: 151.2093))  // Sydney, on the coast
    #expect(Gazetteer.isOnLand(latitude: 1.3521, longitude: 103.8198))  // Singapore, no 1:110m outline
    #expect(!Gazetteer.isOnLand(latitude: -30, longitude: -140))  // South Pacific
    #expect(!Gazetteer.isOnLand(latitude: 35, longitude: -40))  // North Atlantic
  }

  @Test("a building in Westminster is in London, not '1.3 km SW of London'")
  func westminsterIsInLondon() throws {
    // Westminster Abbey, and the campus example's headquarters by St James's Park
    for (lat, lon) in [(51.4993, -0.1273), (51.50060, -0.13960)] {
      let here = try #require(Gazetteer.locate(latitude: lat, longitude: lon))
      #expect(here.place == "London" && here.direction == nil, "\(here.text)")
      #expect(here.text == "in London, United Kingdom")
      // the distance is still the great circle from the gazetteer's point for London
      #expect(here.distanceMeters > 900 && here.distanceMeters < Gazetteer.withinMeters)
    }
    // past the place's reach the direction is said again: Greenwich, 9 km ESE of London's point
    let greenwich = try #require(Gazetteer.locate(latitude: 51.4779, longitude: -0.0015))
    #expect(greenwich.direction != nil && greenwich.text.contains(" km "), "\(greenwich.text)")
  }

  @Test func distancesAreWrittenForPeople() {
    #expect(Gazetteer.formatDistance(1_234) == "1.2 km")
    #expect(Gazetteer.formatDistance(1_240_400) == "1,240 km")
    #expect(Gazetteer.formatDistance(12_345_678) == "12,346 km")
  }
}
