import Foundation
import Synchronization
import Testing
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCore

/// Device, inode and modification time of every entry below `root`, by path relative
/// to it, but the manifest; and of `root` itself ("") its device and inode (replacing
/// the manifest changes its time).
private func entryStamps(_ root: String) -> [String: [String]] {
  var out: [String: [String]] = [:]
  func stamp(_ path: String) -> [String]? {
    guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
    let parts: [Any?] = [a[.systemNumber], a[.systemFileNumber], (a[.modificationDate] as? Date)?.timeIntervalSince1970]
    return parts.map { part in part.map { "\($0)" } ?? "-" }
  }
  out[""] = stamp(root).map { Array($0.prefix(2)) }
  let names = FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []
  for name in names where name != Manifest.fileName { out[name] = stamp(root + "/" + name) }
  return out
}

/// The folder's entries that are a run's staging (`.tiles.tilecut-staging-…`).
private func stagingLeft(_ dir: String) -> [String] {
  ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.contains(".tilecut-staging") }
}

/// The 900 × 700 rooms plan as floor 1 of an `areaProject` (and the 300 × 200 one as
/// floor 2 with `secondFloor`), built once: the plan (to save again or edit), the
/// project file and the output folder.
private func builtRooms(
  _ dir: String, rotation: Int = 12, secondFloor: Bool = false, extra: String = ""
) throws -> (plan: RGBAImage, file: String, out: String) {
  let plan = roomsPicture(width: 900, height: 700)
  try plan.writePNG(to: dir + "/a.png")
  if secondFloor { try roomsPicture(width: 300, height: 200, step: 40).writePNG(to: dir + "/b.png") }
  let file = try areaProject(dir, rotation: rotation, secondFloor: secondFloor, extra: extra)
  _ = try buildSaying(file)
  return (plan, file, dir + "/tiles")
}

/// Issue 42: a rebuild whose source changed its bytes but not its pixels replaces the
/// manifest alone, and a rebuild's carried tiles are not hashed a second time.
@Suite("build command, tiles kept in place")
struct IncrementalInPlaceTests {
  @Test(
    "a source saved again with the same pixels: the output folder, its folders and every tile file stay the very same; the manifest is a full build's"
  )
  func samePixelsInPlace() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (a, file, out) = try builtRooms(dir, secondFloor: true)
    let before = entryStamps(out)
    let tiles = snapshot(out).filter { $0.key != Manifest.fileName }
    let previousManifest = try #require(FileManager.default.contents(atPath: out + "/" + Manifest.fileName))
    #expect(tiles.count > 20)
    try a.writePNG(to: dir + "/a.png[compression=9]")
    let lines = try buildSaying(file, changes: dir + "/changes.txt")
    #expect(lines.contains("hq floor 1: a new file with the same pixels; its tiles are kept"), "\(lines)")
    let summary = try #require(lines.first { $0.contains("re-rendered") }, "\(lines)")
    #expect(summary.hasPrefix("no pixels changed: 0 of "), "\(summary)")
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).isEmpty)
    // not a new tree of links: the same folder, the same files, untouched
    let after = entryStamps(out)
    #expect(after[""] == before[""])
    #expect(after.keys.sorted() == before.keys.sorted())
    #expect(after.keys.filter { after[$0] != before[$0] }.sorted() == [])
    #expect(snapshot(out).filter { $0.key != Manifest.fileName } == tiles)
    #expect(stagingLeft(dir) == [])
    // the manifest names the new file and is what a full build of it writes
    let kept = try #require(FileManager.default.contents(atPath: out + "/" + Manifest.fileName))
    #expect(kept != previousManifest)
    let keptManifest = try Manifest.decode(kept)
    #expect(keptManifest.contentVersion == (try Manifest.decode(previousManifest)).contentVersion)
    _ = try buildSaying(file)
    #expect(FileManager.default.contents(atPath: out + "/" + Manifest.fileName) == kept, "up to date")
    try BuildJob.run(BuildRequest(file: file, overrides: BuildOverrides(quiet: true, force: true))) { _ in }
    #expect(FileManager.default.contents(atPath: out + "/" + Manifest.fileName) == kept)
  }

  @Test("a tile changed in the previous output (same size) still stops a rebuild of a source saved again; nothing is replaced")
  func tamperedTileRefused() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (a, file, out) = try builtRooms(dir)
    let manifest = try #require(FileManager.default.contents(atPath: out + "/" + Manifest.fileName))
    let name = try #require(filesBelow(out).filter { $0.hasSuffix(".png") }.sorted().last)
    var bytes = try #require(FileManager.default.contents(atPath: out + "/" + name))
    bytes[bytes.count - 20] ^= 0x55
    try bytes.write(to: URL(fileURLWithPath: out + "/" + name))
    try a.writePNG(to: dir + "/a.png[compression=9]")
    var failure: Failure?
    do { _ = try buildSaying(file) } catch { failure = Failure(error) }
    let failed = try #require(failure)
    #expect(failed.line.contains("differ from those tilecut wrote"), "\(failed.line)")
    #expect(FileManager.default.contents(atPath: out + "/" + Manifest.fileName) == manifest)
    #expect(FileManager.default.contents(atPath: out + "/" + name) == bytes)
    #expect(stagingLeft(dir) == [])
  }

  @Test(
    "a user's folder put in place of the output just before the manifest is replaced survives; the moved output keeps its manifest")
  func userFolderAtManifestSwap() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (a, file, out) = try builtRooms(dir)
    let manifest = try #require(FileManager.default.contents(atPath: out + "/" + Manifest.fileName))
    try a.writePNG(to: dir + "/a.png[compression=9]")
    let hooked = Mutex<Int>(0)
    OutputHold.beforeSwap.withLock {
      $0[out] = {
        hooked.withLock { $0 += 1 }
        _ = rename(out, dir + "/moved")
        mkdir(out, 0o755)
        _ = FileManager.default.createFile(atPath: out + "/mine.txt", contents: Data("the user's\n".utf8))
      }
    }
    defer { _ = OutputHold.beforeSwap.withLock { $0.removeValue(forKey: out) } }
    var failure: Failure?
    do { _ = try buildSaying(file) } catch { failure = Failure(error) }
    #expect(hooked.withLock { $0 } == 1)
    let failed = try #require(failure)
    #expect(failed.line.contains("\(out): was replaced during the run"), "\(failed.line)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["mine.txt"])
    #expect(FileManager.default.contents(atPath: dir + "/moved/" + Manifest.fileName) == manifest)
    #expect(stagingLeft(dir) == [])
  }

  @Test("with a preview page the rebuild of a source saved again swaps in a new tree as before: the page and manifest are a full build's")
  func samePixelsWithPreview() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (a, file, out) = try builtRooms(dir, extra: "preview: true")
    let tiles = snapshot(out).filter { $0.key != Manifest.fileName && $0.key != "preview.html" }
    try a.writePNG(to: dir + "/a.png[compression=9]")
    let lines = try buildSaying(file)
    #expect(lines.contains("hq floor 1: a new file with the same pixels; its tiles are kept"), "\(lines)")
    let after = snapshot(out)
    #expect(after.filter { $0.key != Manifest.fileName && $0.key != "preview.html" } == tiles)
    try BuildJob.run(BuildRequest(file: file, overrides: BuildOverrides(quiet: true, force: true))) { _ in }
    let fresh = snapshot(out)
    #expect(fresh[Manifest.fileName] == after[Manifest.fileName])
    #expect(fresh["preview.html"] == after["preview.html"])
  }

  @Test("an edit's rebuild (carried tiles linked, their digests the tile check's) writes the manifest a full build writes")
  func editManifestIsAFullBuilds() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let built = try builtRooms(dir, rotation: 0)
    var a = built.plan
    let (file, out) = (built.file, built.out)
    for y in 300..<320 {
      for x in 400..<430 { a.pixels[(y * a.width + x) * 4] = 200 }
    }
    try a.writePNG(to: dir + "/a.png")
    let lines = try buildSaying(file)
    let (rendered, total) = try rerendered(lines)
    // some tiles carried over, so that their digests are the tile check's
    #expect(rendered > 0 && rendered < total, "\(lines)")
    let incremental = try #require(FileManager.default.contents(atPath: out + "/" + Manifest.fileName))
    try BuildJob.run(BuildRequest(file: file, overrides: BuildOverrides(quiet: true, force: true))) { _ in }
    #expect(FileManager.default.contents(atPath: out + "/" + Manifest.fileName) == incremental)
  }
}
