import Foundation
import Testing

@testable import TilecutCore

/// `StagedOutput` alone, as every store uses it: the output's ownership, its staging
/// beside it, the swap and the abort, without a store or a run around them. (The
/// command-line suites check the same through runs: SafetyTests, SwapRaceTests,
/// OwnershipTests, IncrementalInPlaceTests.)
@Suite("an output's staging, ownership and swap")
struct StagedOutputTests {
  let dir: String

  init() throws {
    dir = NSTemporaryDirectory() + "staged-output-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  }

  func cleanup() { try? FileManager.default.removeItem(atPath: dir) }

  static let tile = TileCoordinate(zoom: 0, x: 0, y: 0)

  /// A manifest of one tile, `0/0_0.png`, and the store files `files`.
  static func manifest(fingerprint: String = "f", files: [String] = []) -> Manifest {
    let level = Manifest.Level(floor: 1, tileSize: 256, range: TileRange(zoom: 0, xRange: 0...0, yRange: 0...0), tiles: [tile])
    var m = Manifest(
      tileSizes: [256], floors: [1], name: "{z}/{x}_{y}.png", levels: [level], footprints: [],
      generator: .init(version: "t", libvips: "t"), sources: [], options: [:], fingerprint: fingerprint)
    m.storeFiles = files.isEmpty ? nil : files
    return m
  }

  /// Publishes an output at `out` holding the tile and the store files (name → bytes).
  @discardableResult
  func publish(_ out: String, tile: [UInt8] = [1], files: [String: [UInt8]] = [:], fingerprint: String = "f") throws -> Manifest {
    let output = StagedOutput(path: out)
    try output.inspect()
    try output.begin()
    try output.write(tile, to: "0/0_0.png")
    let written = try output.finish(manifest: Self.manifest(fingerprint: fingerprint), files: files)
    try output.commit()
    return written
  }

  func entries(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

  func inode(_ path: String) -> UInt64? {
    var st = stat()
    return lstat(path, &st) == 0 ? UInt64(st.st_ino) : nil
  }

  @Test("a commit publishes what was staged, without staging's marker, and leaves nothing beside the output")
  func commitPublishes() throws {
    defer { cleanup() }
    let out = dir + "/out"
    let written = try publish(out, files: ["notes.bin": [7, 7]])
    #expect(entries(dir) == ["out"])
    #expect(entries(out) == ["0", Manifest.fileName, "notes.bin"])
    #expect(FileManager.default.contents(atPath: out + "/0/0_0.png") == Data([1]))
    // the manifest names the store file with the digest of its bytes as written
    #expect(written.storeFiles == ["notes.bin"])
    #expect(written.storeFileDigests == ["notes.bin": SHA256Digest.hex([7, 7])])
    // replaced whole: the second output is a new tree at the same path
    try publish(out, tile: [2])
    #expect(entries(dir) == ["out"])
    #expect(entries(out) == ["0", Manifest.fileName])
    #expect(FileManager.default.contents(atPath: out + "/0/0_0.png") == Data([2]))
  }

  @Test("a file the manifest does not account for, or a store file whose bytes changed, is refused before staging, and kept")
  func foreignRefused() throws {
    defer { cleanup() }
    let out = dir + "/out"
    try publish(out, files: ["notes.bin": [7, 7]])
    // a file of the user's beside the tiles
    try Data("mine".utf8).write(to: URL(fileURLWithPath: out + "/mine.txt"))
    let foreign = #expect(throws: TilecutError.self) { try StagedOutput(path: out).inspect() }
    #expect(foreign?.description.hasPrefix(out + "/mine.txt: is not tilecut's (not listed in") == true, "\(String(describing: foreign))")
    try FileManager.default.removeItem(atPath: out + "/mine.txt")
    // a store file the manifest lists, edited since tilecut wrote it
    try Data([7, 8]).write(to: URL(fileURLWithPath: out + "/notes.bin"))
    let second = StagedOutput(path: out)
    let changed = #expect(throws: TilecutError.self) { try second.begin() }
    #expect(changed?.description.contains("its bytes differ from those tilecut wrote") == true, "\(String(describing: changed))")
    #expect(changed?.description.hasPrefix(out + "/notes.bin: ") == true, "\(String(describing: changed))")
    #expect(second.stagingPath == nil)
    #expect(entries(dir) == ["out"])
    #expect(FileManager.default.contents(atPath: out + "/notes.bin") == Data([7, 8]))
    // put back as tilecut wrote it, the output is tilecut's again
    try Data([7, 7]).write(to: URL(fileURLWithPath: out + "/notes.bin"))
    try StagedOutput(path: out).inspect()
  }

  @Test("the old tree a killed swap left under staging's name is removed by the next run; a look-alike of the user's is kept")
  func interruptedSwapRecovered() throws {
    defer { cleanup() }
    let out = dir + "/out"
    try publish(out)
    let dead: Int32 = 999_997
    guard kill(dead, 0) != 0 else { return }
    // what a run killed after the exchange leaves: the previous tree, marked, under staging's name
    let left = dir + "/.out.tilecut-staging-\(dead)-1"
    try FileManager.default.createDirectory(atPath: left + "/0", withIntermediateDirectories: true)
    try Data([9]).write(to: URL(fileURLWithPath: left + "/0/0_0.png"))
    try Data("tilecut staging\n".utf8).write(to: URL(fileURLWithPath: left + "/.tilecut-staging"))
    // a folder of the user's named the same way, without the marker
    let theirs = dir + "/.out.tilecut-staging-\(dead)-2"
    try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: theirs + "/notes.txt"))
    try publish(out, tile: [3])
    #expect(!FileManager.default.fileExists(atPath: left))
    #expect(FileManager.default.contents(atPath: theirs + "/notes.txt") == Data("mine".utf8))
    #expect(entries(dir) == [".out.tilecut-staging-\(dead)-2", "out"])
    #expect(FileManager.default.contents(atPath: out + "/0/0_0.png") == Data([3]))
  }

  @Test("abort drops staging and leaves the output as it was; a second abort is harmless, a late write is cancelled")
  func abortDrops() throws {
    defer { cleanup() }
    let out = dir + "/out"
    try publish(out)
    let output = StagedOutput(path: out)
    try output.begin()
    let staging = try #require(output.stagingPath)
    #expect(staging.hasPrefix(dir + "/.out.tilecut-staging-\(getpid())-"))
    try output.write([5], to: "0/0_0.png")
    output.abort()
    output.abort()
    #expect(output.stagingPath == nil)
    #expect(entries(dir) == ["out"])
    #expect(FileManager.default.contents(atPath: out + "/0/0_0.png") == Data([1]))
    #expect(throws: TilecutError.cancelled) { try output.write([6], to: "0/0_0.png") }
    #expect(throws: TilecutError.self) { try output.commit() }
    #expect(entries(dir) == ["out"])
  }

  @Test("tiles kept in place: the commit replaces the manifest alone, in the very directory, its tiles the same files")
  func keptTilesReplaceManifestOnly() throws {
    defer { cleanup() }
    let out = dir + "/out"
    try publish(out)
    let (directory, tileFile) = (inode(out), inode(out + "/0/0_0.png"))
    let output = StagedOutput(path: out)
    try output.begin()
    #expect(output.keepTiles())
    #expect(output.keepsTiles)
    try output.finish(manifest: Self.manifest(fingerprint: "g"), files: [:])
    try output.commit()
    #expect(inode(out) == directory && inode(out + "/0/0_0.png") == tileFile)
    #expect(entries(dir) == ["out"])
    #expect(entries(out) == ["0", Manifest.fileName])
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: out + "/" + Manifest.fileName)), path: out)
    #expect(manifest.fingerprint == "g")
    // an output holding a store file besides its tiles is staged whole, as before
    try publish(out, files: ["notes.bin": [1]])
    let whole = StagedOutput(path: out)
    try whole.begin()
    #expect(!whole.keepTiles())
    whole.abort()
  }
}
