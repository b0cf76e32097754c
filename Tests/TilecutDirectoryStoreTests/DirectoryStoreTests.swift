import Foundation
import Testing
import TilecutCore
import TilecutDirectoryStore

/// The directory store alone: its driver's answers, tiles written through the store
/// and read back, and a level's tiles read from a published output, as `preview` reads
/// them. (The command-line suites check the same through runs: SafetyTests,
/// PublishingTests, the preview sheet's suites.)
@Suite("the directory store: one file per tile, read back through its driver")
struct DirectoryStoreTests {
  let dir: String

  init() throws {
    dir = NSTemporaryDirectory() + "directory-store-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  }

  func cleanup() { try? FileManager.default.removeItem(atPath: dir) }

  static let floor = Floor(1)!
  static let tiles = [TileCoordinate(zoom: 1, x: 0, y: 0), TileCoordinate(zoom: 1, x: 1, y: 1)]

  /// A manifest of the two tiles of zoom 1, named `{z}/{x}_{y}.png`.
  static func manifest() -> Manifest {
    let level = Manifest.Level(floor: floor, tileSize: 256, range: TileRange(zoom: 1, xRange: 0...1, yRange: 0...1), tiles: tiles)
    return Manifest(
      tileSizes: [256], floors: [floor], name: "{z}/{x}_{y}.png", levels: [level], footprints: [],
      generator: .init(version: "t", libvips: "t"), sources: [], options: [:], fingerprint: "f")
  }

  /// Publishes the two tiles (bytes [1] and [2]) at `out` through the driver's store.
  func publish(_ out: String) throws -> Manifest {
    let manifest = Self.manifest()
    let store = DirectoryDriver().makeStore(
      path: out, format: "png", template: try TileNameTemplate(manifest.name), option: "--output", digest: { SHA256Digest.hex($0) })
    try store.inspect()
    try store.begin()
    for (i, tile) in Self.tiles.enumerated() {
      try store.put([UInt8(i + 1)], floor: Self.floor, tileSize: 256, tile: tile)
    }
    #expect(try store.stagedTile(floor: Self.floor, tileSize: 256, tile: Self.tiles[1]) == [2])
    let written = try store.finish(manifest: manifest, files: [:])
    try store.commit()
    return written
  }

  @Test("the driver: kind directory, tiles as files, no zoom warning")
  func driverAnswers() {
    let driver = DirectoryDriver()
    #expect(driver.kind == .directory)
    #expect(driver.displayName == "directory")
    #expect(driver.tilesAreFiles)
    #expect(driver.zoomWarning(path: dir, deepestZoom: 31) == nil)
  }

  @Test("tiles put through the store are files named by the template; a level reads them back")
  func levelTilesReadBack() throws {
    defer { cleanup() }
    let out = dir + "/out"
    let manifest = try publish(out)
    #expect(FileManager.default.contents(atPath: out + "/1/0_0.png") == Data([1]))
    #expect(FileManager.default.contents(atPath: out + "/1/1_1.png") == Data([2]))
    let tiles = try DirectoryDriver().levelTiles(manifest.levels[0], of: manifest, in: out)
    #expect(tiles == [Self.tiles[0]: [1], Self.tiles[1]: [2]])
  }

  @Test("a listed tile that is missing, or a link, is refused naming its file")
  func levelTilesRefused() throws {
    defer { cleanup() }
    let out = dir + "/out"
    let manifest = try publish(out)
    let path = out + "/1/1_1.png"
    try FileManager.default.removeItem(atPath: path)
    #expect(throws: TilecutError.invalidInput(path: path, reason: "cannot be read (\(String(cString: strerror(ENOENT))))")) {
      try DirectoryDriver().levelTiles(manifest.levels[0], of: manifest, in: out)
    }
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: out + "/1/0_0.png")
    let link = "is a symbolic link or passes through one; tilecut does not follow links out of an output"
    #expect(throws: TilecutError.invalidInput(path: path, reason: link)) {
      try DirectoryDriver().levelTiles(manifest.levels[0], of: manifest, in: out)
    }
  }
}
