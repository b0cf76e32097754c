import Foundation
import Testing
import TilecutCore

@testable import Tilecut

/// The store catalogue answers for every store kind, the directory of tile files
/// included, so that a caller asks it rather than naming a store.
@Suite("the store catalogue: a driver for every store kind")
struct StoreCatalogueTests {
  @Test("each kind has its own driver, a manifest without a store is the directory, and only archive stores read files")
  func everyKind() {
    for kind in StoreKind.allCases { #expect(StoreCatalogue.driver(for: kind).kind == kind) }
    #expect(StoreCatalogue.driver(for: nil).kind == .directory)
    #expect(StoreCatalogue.stores.map(\.kind) == StoreKind.allCases)
    #expect(StoreCatalogue.archive(for: .directory) == nil)
    #expect(StoreCatalogue.archive(for: nil) == nil)
    #expect(StoreCatalogue.archive(for: .mbtiles)?.kind == .mbtiles)
    #expect(StoreCatalogue.archive(for: .pmtiles)?.kind == .pmtiles)
    #expect(StoreCatalogue.drivers.map(\.kind) == [.mbtiles, .pmtiles])
  }

  @Test("a kind lists tile sets in its manifests exactly when its driver keeps no tile files; the default keeps them")
  func tileSetsAgreeWithDrivers() {
    for kind in StoreKind.allCases { #expect(kind.hasTileSets == !StoreCatalogue.driver(for: kind).tilesAreFiles) }
    #expect(StoreCatalogue.driver(for: .default).tilesAreFiles)
    #expect(StoreCatalogue.driver(for: nil).kind == .default)
  }

  @Test("the directory's driver makes a store of tile files named by the template, each tile's digest kept as it is put")
  func directoryStore() throws {
    let dir = NSTemporaryDirectory() + "catalogue-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let template = try TileNameTemplate("{z}/{x}_{y}.png")
    let store = StoreCatalogue.driver(for: .directory).makeStore(
      path: dir + "/out", format: "png", template: template, option: "out", digest: { SHA256Digest.hex($0) })
    let floor = try Floor(1, option: "--floor")
    let tile = TileCoordinate(zoom: 0, x: 0, y: 0)
    try store.begin()
    defer { store.abort() }
    try store.put([1, 2], floor: floor, tileSize: 256, tile: tile)
    let staging = try #require(store.stagingPath)
    #expect(FileManager.default.contents(atPath: staging + "/0/0_0.png") == Data([1, 2]))
    #expect(store.stagedDigest(floor: floor, tileSize: 256, tile: tile) == SHA256Digest.hex([1, 2]))
  }
}
