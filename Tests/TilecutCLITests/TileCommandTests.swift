import ArgumentParser
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// Runs the tile command in-process; returns the exit code it would have.
@discardableResult
func tilecut(_ args: [String]) throws -> Int32 {
  var command = try TilecutCommand.parseAsRoot(args + ["--quiet"])
  do {
    try command.run()
    return 0
  } catch let code as ExitCodeLike {
    return code.code
  }
}

/// ArgumentParser's ExitCode, seen through a protocol the tests can match.
protocol ExitCodeLike: Error { var code: Int32 { get } }
extension ExitCode: ExitCodeLike { var code: Int32 { rawValue } }

func scratch(_ name: String = #function) throws -> String {
  try TestEnvironment.scratchDirectory("cli", for: name)
}

/// path → bytes of every file below a directory.
func snapshot(_ root: String) -> [String: Data] {
  var out: [String: Data] = [:]
  for file in filesBelow(root) { out[file] = FileManager.default.contents(atPath: root + "/" + file) }
  return out
}

@Suite("tile command")
struct TileCommandTests {
  @Test("a second run with the same inputs is a no-op; a changed run replaces the output whole")
  func upToDateAndReplace() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 700, height: 500).writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out"]) == 0)
    let first = snapshot(dir + "/out")
    #expect(first["manifest.json"] != nil && first.count > 10)
    let mtime = try FileManager.default.attributesOfItem(atPath: dir + "/out/manifest.json")[.modificationDate] as? Date
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out"]) == 0)
    let again = try FileManager.default.attributesOfItem(atPath: dir + "/out/manifest.json")[.modificationDate] as? Date
    // nothing is rewritten; the manifest is only touched, so a make rule on it converges
    #expect(snapshot(dir + "/out") == first, "an up-to-date run rewrote the output")
    #expect((again ?? .distantPast) >= (mtime ?? .distantFuture))
    // a smaller source: zoom 2's third column disappears, and no stale tile may remain
    try picture(width: 500, height: 200).writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out"]) == 0)
    let files = Set(filesBelow(dir + "/out"))
    #expect(!files.contains("256/L1_2_2_0.png") && !files.contains("256/L1_2_0_1.png"))
    #expect(files.contains("256/L1_1_1_0.png"))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("tilecut-staging") }
    #expect(leftovers.isEmpty)
  }

  @Test("the manifest's runs equal the files on disk, and two fresh runs are byte-identical whatever --jobs is")
  func manifestMatchesDiskAndDeterministic() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 600, transparentLeft: 300).writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/one", "--jobs", "1"]) == 0)
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/four", "--jobs", "4"]) == 0)
    #expect(snapshot(dir + "/one") == snapshot(dir + "/four"))
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/one/manifest.json")))
    let template = try TileNameTemplate(manifest.name)
    var listed = Set<String>()
    for level in manifest.levels {
      for t in level.tiles { listed.insert(template.path(floor: level.floor, tileSize: level.tileSize, tile: t)) }
    }
    #expect(listed == Set(filesBelow(dir + "/one")).subtracting(["manifest.json"]))
    // the transparent left third has no tile at the deepest zoom
    #expect(!listed.contains("256/L1_2_0_0.png") && listed.contains("256/L1_2_1_0.png"))
  }

  @Test("shards merged equal a single run file for file, manifest included", arguments: [2, 3])
  func shardsMergeToSingleRun(shards: Int) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 520, transparentLeft: 200).writePNG(to: dir + "/a.png")
    try picture(width: 900, height: 520, seed: 2).writePNG(to: dir + "/b.png")
    let inputs = [dir + "/a.png", dir + "/b.png"]
    #expect(try tilecut(inputs + ["-o", dir + "/single"]) == 0)
    var parts: [String] = []
    for k in 1...shards {
      #expect(try tilecut(inputs + ["-o", dir + "/part\(k)", "--shard", "\(k)/\(shards)"]) == 0)
      parts.append(dir + "/part\(k)")
    }
    // each shard holds a share of the tiles, none all of them
    let single = snapshot(dir + "/single")
    for part in parts { #expect(snapshot(part).count < single.count) }
    let merge = try MergeCommand.parse([dir + "/merged"] + parts)
    try merge.run()
    let merged = snapshot(dir + "/merged")
    #expect(merged.count == single.count && merged.count > 60)
    #expect(merged == single)
  }

  @Test("a non-empty directory that tilecut did not make is refused and left alone")
  func refusesForeignDirectory() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 300).writePNG(to: dir + "/a.png")
    try FileManager.default.createDirectory(atPath: dir + "/mine", withIntermediateDirectories: true)
    try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/mine/notes.txt"))
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/mine"]) == 1)
    #expect(snapshot(dir + "/mine") == ["notes.txt": Data("keep".utf8)])
  }

  @Test(
    "--floors N splits a one-page sheet into equal bands; floor k equals band k tiled alone",
    arguments: [("png", "256,512"), ("tif", "256,512"), ("png", "256,768"), ("tif", "256,768")])
  func stackedSheet(format: String, sizes: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var sheet = RGBAImage(width: 300, height: 600)
    for k in 0..<3 { sheet.paste(picture(width: 300, height: 200, seed: k), x: 0, y: 200 * k) }
    // a PNG is read by tilecut's own reader, a TIFF by libvips' sequential loader
    if format == "png" { try sheet.writePNG(to: dir + "/sheet.png") } else { try RGBAImage.writePages([sheet], to: dir + "/sheet.tif") }
    let input = dir + "/sheet." + format
    #expect(try tilecut([input, "--floors", "3", "--first-floor", "-1", "--tile-size", sizes, "-o", dir + "/out"]) == 0)
    let inSheet = snapshot(dir + "/out").filter { $0.key != "manifest.json" }
    for k in 0..<3 {
      try picture(width: 300, height: 200, seed: k).writePNG(to: dir + "/band\(k).png")
      #expect(try tilecut([dir + "/band\(k).png", "--first-floor", "\(k - 1)", "--tile-size", sizes, "-o", dir + "/band\(k)"]) == 0)
      let alone = snapshot(dir + "/band\(k)").filter { $0.key != "manifest.json" }
      let mine = inSheet.filter { $0.key.contains("/L\(k - 1)_") }
      #expect(!alone.isEmpty && Set(alone.keys) == Set(mine.keys), "floor \(k - 1)")
      for (key, bytes) in alone {
        let a = try RGBAImage.decode(bytes: [UInt8](bytes))
        let b = try RGBAImage.decode(bytes: [UInt8](try #require(mine[key])))
        #expect(a == b, "\(key)")
      }
    }
    // 600 does not split into 7 bands
    #expect(try tilecut([input, "--floors", "7", "-o", dir + "/bad"]) == 2)
    #expect(!FileManager.default.fileExists(atPath: dir + "/bad"))
  }

  @Test("--floors N takes the pages of a multi-page TIFF; several inputs make one floor each")
  func pagesAndInputs() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pages = (0..<3).map { picture(width: 280, height: 260, seed: $0) }
    try RGBAImage.writePages(pages, to: dir + "/b.tif")
    #expect(try tilecut([dir + "/b.tif", "--floors", "3", "--first-floor", "0", "-o", dir + "/pages"]) == 0)
    for (k, p) in pages.enumerated() { try p.writePNG(to: dir + "/p\(k).png") }
    #expect(try tilecut([dir + "/p0.png", dir + "/p1.png", dir + "/p2.png", "--first-floor", "0", "-o", dir + "/inputs"]) == 0)
    let a = snapshot(dir + "/pages").filter { $0.key != "manifest.json" }
    let b = snapshot(dir + "/inputs").filter { $0.key != "manifest.json" }
    #expect(a.count == b.count && a.keys.contains("256/L2_1_0_0.png"))
    for (key, bytes) in a {
      let x = try RGBAImage.decode(bytes: [UInt8](bytes))
      let y = try RGBAImage.decode(bytes: [UInt8](try #require(b[key])))
      #expect(x == y, "\(key)")
    }
    #expect(try tilecut([dir + "/b.tif", "--floors", "4", "-o", dir + "/four"]) == 1)
  }

  @Test("--dry-run writes nothing and counts exactly the tiles a real run writes")
  func dryRunAgrees() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 500, transparentLeft: 400).writePNG(to: dir + "/a.png")
    let job = TileJob(
      inputs: [dir + "/a.png"], output: try OutputArguments.parse(["-o", dir + "/out"]).options, pyramid: PyramidOptions(),
      floors: FloorOptions(), placement: PlacementOptions(), encoding: EncodingOptions(), run: RunOptions(), printer: Printer(verbosity: .quiet))
    let plan = try job.plan()
    let ledger = RenderLedger()
    try job.render(plan, encoder: SamplingEncoder(VipsTileEncoder()), writer: NullWriter(), pool: WorkPool(jobs: 2), ledger: ledger)
    let predicted = ledger.outcomes.values.reduce(0) { $0 + $1.tiles.count }
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out", "--dry-run"]) == 0)
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out"]) == 0)
    #expect(predicted == filesBelow(dir + "/out").count - 1)
  }

  @Test("--knockout makes white paper transparent so blank paper cells get no tile")
  func knockout() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var paper = RGBAImage(width: 512, height: 256)
    for i in stride(from: 0, to: paper.pixels.count, by: 4) { paper.pixels.replaceSubrange(i..<i + 4, with: [255, 255, 255, 255]) }
    for y in 100..<110 {
      for x in 300..<400 {
        let i = (y * 512 + x) * 4
        paper.pixels.replaceSubrange(i..<i + 4, with: [0, 0, 0, 255])
      }
    }
    try paper.writePNG(to: dir + "/paper.png")
    #expect(try tilecut([dir + "/paper.png", "--knockout", "white:4", "--tile-size", "256", "-o", dir + "/k"]) == 0)
    let files = Set(filesBelow(dir + "/k"))
    #expect(!files.contains("256/L1_1_0_0.png") && files.contains("256/L1_1_1_0.png"))
    let wall = try RGBAImage.decode(file: dir + "/k/256/L1_1_1_0.png")
    #expect(wall[100, 105].a == 255 && wall[10, 10].a == 0)
    #expect(try tilecut([dir + "/paper.png", "--background", "white", "--tile-size", "256", "-o", dir + "/b"]) == 0)
    #expect(!Set(filesBelow(dir + "/b")).contains("256/L1_1_0_0.png"))
  }

  @Test(
    "bad options exit 1 or 2 and leave no output",
    arguments: [
      ["--tile-size", "300"], ["--min-zoom", "5", "--max-zoom", "3"], ["--max-zoom", "31"], ["--name", "{z}_{x}.png"],
      ["--name", "../{z}_{x}_{y}.png"], ["--png-compression", "12"], ["--shard", "3/2"], ["--floors", "0"],
      ["--format", "webp", "--webp-effort", "7"],
    ])
  func badOptions(extra: [String]) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 100, height: 100).writePNG(to: dir + "/a.png")
    var code: Int32 = 0
    do { code = try tilecut([dir + "/a.png", "-o", dir + "/out"] + extra) } catch { code = 2 }
    #expect(code != 0)
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }
}
