import ArgumentParser
import CSQLite
import Foundation
import Synchronization
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the tilecut binary in `directory`; its status and what it printed (through
/// files, so a large stdout cannot block it).
func runIn(_ directory: String, _ args: [String], timeout: Double = 60) throws -> RunResult {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: try tilecutBinary())
  process.arguments = args
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  let base = NSTemporaryDirectory() + "tilecut-runin-\(UUID().uuidString)"
  _ = FileManager.default.createFile(atPath: base + ".err", contents: nil)
  _ = FileManager.default.createFile(atPath: base + ".out", contents: nil)
  defer {
    unlink(base + ".err")
    unlink(base + ".out")
  }
  process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".err"))
  process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: base + ".out"))
  try process.run()
  let deadline = Date().addingTimeInterval(timeout)
  while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
  if process.isRunning {
    process.terminate()
    Issue.record("timed out: \(args)")
  }
  process.waitUntilExit()
  return RunResult(
    status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
    stderr: (try? String(contentsOfFile: base + ".err", encoding: .utf8)) ?? "",
    stdout: (try? String(contentsOfFile: base + ".out", encoding: .utf8)) ?? "")
}

/// The kind of a file, following links: S_IFCHR, S_IFIFO, S_IFREG…
func fileKind(_ path: String) -> mode_t {
  var st = stat()
  return stat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
}

/// A project folder: plan.png with its world file, and a previous output in `out/`.
struct Project {
  let dir: String

  init(_ name: String = #function, preview: Bool = false) throws {
    dir = try scratch(name)
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    try "0.5\n0\n0\n-0.5\n-14000\n6711000\n".write(toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
    try webMercatorESRI.write(toFile: dir + "/plan.prj", atomically: true, encoding: .utf8)
    try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
    let made = try runIn(dir, ["plan.png", "-o", "out", "-q", "--tile-size", "256"] + (preview ? ["--preview"] : []))
    guard made.status == 0 else { throw TilecutError.output(path: dir, reason: "setup failed: \(made.stderr)") }
  }

  /// Every regular file below the project, by content.
  var state: [String: Data] { snapshot(dir) }

  func remove() { try? FileManager.default.removeItem(atPath: dir) }
}

@Suite("only tilecut's own files are touched")
struct OwnershipTests {
  /// Options whose file is refused, and what the line says.
  static let refusals: [([String], String)] = [
    (["--depfile", "plan.png"], "is the input"),
    (["--depfile", "sub/../plan.png"], "is the input"),
    (["--depfile", "link.png"], "is the input"),
    (["--changes", "plan.pgw"], "beside an input"),
    (["--depfile", "plan.prj"], "beside an input"),
    (["--depfile", "plan.wld"], "beside an input"),
    (["--depfile", "PLAN.PNG.aux.xml"], "beside an input"),
    (["--depfile", "out/manifest.json"], "inside out"),
    (["--changes", "out/changes.txt"], "inside out"),
    (["--changes", "./out/../out/x"], "inside out"),
    (["--depfile", "x.d", "--changes", "sub/../x.d"], "same file as --depfile"),
    (["--depfile", "sub"], "is a directory"),
    (["--depfile", "missing/x.d"], "does not exist"),
    (["-o", "."], "working directory"),
    (["-o", "sub/.."], "working directory"),
    (["-o", ".."], "working directory"),
  ]

  @Test(
    "a file an option names is refused before any work: an input, a sidecar, inside the output, another option's file, a directory, a missing folder, the working directory"
  )
  func refusedBeforeWork() throws {
    let project = try Project()
    defer { project.remove() }
    try FileManager.default.createSymbolicLink(atPath: project.dir + "/link.png", withDestinationPath: "plan.png")
    // a changed input: a run that went ahead would replace the output
    try picture(width: 600, height: 400, seed: 7).writePNG(to: project.dir + "/plan.png")
    let before = project.state
    for (extra, says) in Self.refusals {
      let r = try runIn(project.dir, ["plan.png", "-o", "out", "--tile-size", "256"] + extra)
      #expect(r.status == 2, "\(extra): \(r.stderr)")
      #expect(r.stderrLines.count == 1 && r.stderr.contains(says), "\(extra): \(r.stderr)")
      #expect(project.state == before, "\(extra) touched a file")
    }
  }

  @Test("devices, FIFOs and links to them are written in place, never replaced; /dev/full fails before the swap")
  func devicesInPlace() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    #expect(try runIn(dir, ["plan.png", "-o", "out", "--force", "-q", "--changes", "/dev/null", "--depfile", "/dev/null"]).status == 0)
    #expect(fileKind("/dev/null") == S_IFCHR)
    // a FIFO, and a link to it: the reader gets the rule, the FIFO stays a FIFO
    #expect(mkfifo(dir + "/pipe", 0o644) == 0)
    try FileManager.default.createSymbolicLink(atPath: dir + "/pipe-link", withDestinationPath: "pipe")
    for name in ["pipe", "pipe-link"] {
      let received = Mutex<Data>(Data())
      let reader = Thread {
        if let h = FileHandle(forReadingAtPath: dir + "/pipe") { received.withLock { $0 = h.readDataToEndOfFile() } }
      }
      reader.start()
      #expect(try runIn(dir, ["plan.png", "-o", "out", "-q", "--depfile", name]).status == 0)
      let deadline = Date().addingTimeInterval(10)
      while received.withLock({ $0.isEmpty }) && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
      #expect(String(decoding: received.withLock { $0 }, as: UTF8.self).hasPrefix("out/manifest.json: plan.png"))
      #expect(fileKind(dir + "/pipe") == S_IFIFO)
    }
    var lst = stat()
    #expect(lstat(dir + "/pipe-link", &lst) == 0 && (lst.st_mode & S_IFMT) == S_IFLNK)
    // /dev/full: one line, and the previous output stays although the input changed
    try picture(width: 600, height: 400, seed: 9).writePNG(to: dir + "/plan.png")
    let before = snapshot(dir + "/out")
    let full = try runIn(dir, ["plan.png", "-o", "out", "--depfile", "/dev/full"])
    #expect(full.status == 1 && full.stderrLines.count == 1 && full.stderr.contains("No space left"), "\(full.stderr)")
    #expect(snapshot(dir + "/out") == before)
    #expect(fileKind("/dev/full") == S_IFCHR)
    // a link to a regular file: the file is replaced, the link stays a link
    try "old".write(toFile: dir + "/rule.d", atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(atPath: dir + "/rule-link.d", withDestinationPath: "rule.d")
    #expect(try runIn(dir, ["plan.png", "-o", "out", "-q", "--depfile", "rule-link.d"]).status == 0)
    #expect(try String(contentsOfFile: dir + "/rule.d", encoding: .utf8).hasPrefix("out/manifest.json: plan.png"))
    #expect(lstat(dir + "/rule-link.d", &lst) == 0 && (lst.st_mode & S_IFMT) == S_IFLNK)
  }

  /// Names with every character GNU make treats specially.
  static let makeNames = [
    "a b.png", "a#b.png", "a$b.png", "a$(x).png", "a:b.png", "a=b.png", "a|b.png", "a\\b.png", "a%b.png", "a*b.png", "a?b.png",
    "a[b].png", "~ab.png", "a\\ b.png", "a\\#b.png", "a,b'\"c.png", "a&b<c>{d}.png", "é ü.png",
  ]

  @Test("GNU make reads each escaped name as the file: up to date untouched, out of date touched or deleted")
  func makeReadsEscapedNames() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // make's default goal skips a target holding '%': that one is named on the command
    // line, where '=' would be an assignment, so the other (the default goal) holds it
    let targets: [(name: String, goal: [String])] = [("t%:#$x", ["t%:#$x"]), ("t= :#$x|", [])]
    for (i, name) in Self.makeNames.enumerated() {
      for (j, target) in targets.enumerated() {
        let folder = dir + "/\(i)-\(j)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "x".write(toFile: folder + "/" + name, atomically: false, encoding: .utf8)
        try touch(folder + "/" + name, secondsFromNow: -3600)
        try "y".write(toFile: folder + "/" + target.name, atomically: false, encoding: .utf8)
        let rule = try DependencyFile.text(target: target.name, dependencies: [name])
        try rule.write(toFile: folder + "/dep.d", atomically: true, encoding: .utf8)
        // as a user's Makefile has it: the rule's recipe, and the depfile included
        let recipe = try DependencyFile.escape(target.name, asTarget: true) + ":\n\tfalse\n"
        try ("include dep.d\n" + recipe).write(toFile: folder + "/Makefile", atomically: true, encoding: .utf8)
        func question() throws -> Int32 { try runProgram("/usr/bin/make", ["-q"] + target.goal, in: folder) }
        #expect(try question() == 0, "untouched \(name): \(rule)")
        try touch(folder + "/" + name, secondsFromNow: 5)
        #expect(try question() == 1, "touched \(name): \(rule)")
        try touch(folder + "/" + name, secondsFromNow: -3600)
        #expect(try question() == 0, "untouched again \(name)")
        try FileManager.default.removeItem(atPath: folder + "/" + name)
        #expect(try question() == 1, "deleted \(name): \(rule)")
      }
    }
  }

  @Test("names make cannot express are refused with one line", arguments: ["a;b.png", "a\nb.png", "a\tb.png", "ab\\", "lib(member)"])
  func makeRefuses(name: String) {
    #expect(throws: TilecutError.self) { try DependencyFile.text(target: "out/manifest.json", dependencies: [name]) }
  }

  @Test("a real run: a hostile source name converges under make; one make cannot name is refused before any work")
  func hostileSourceName() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    let name = "we$ird =name%#.png"
    try FileManager.default.copyItem(atPath: dir + "/plan.png", toPath: dir + "/" + name)
    #expect(try runIn(dir, [name, "-o", "w", "-q", "--tile-size", "256", "--depfile", "w.d"]).status == 0)
    try "w/manifest.json:\n\tfalse\n-include w.d\n".write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
    #expect(try runProgram("/usr/bin/make", ["-q", "w/manifest.json"], in: dir) == 0)
    try touch(dir + "/" + name)
    #expect(try runProgram("/usr/bin/make", ["-q", "w/manifest.json"], in: dir) == 1)
    try FileManager.default.copyItem(atPath: dir + "/plan.png", toPath: dir + "/a;b.png")
    let r = try runIn(dir, ["a;b.png", "-o", "w2", "--depfile", "w2.d"])
    #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains("make cannot name"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/w2") && !FileManager.default.fileExists(atPath: dir + "/w2.d"))
  }

  @Test("store files carry digests: an edited preview.html or a listed file of the user's stops the run, and is kept")
  func storeFileDigests() throws {
    let project = try Project(preview: true)
    defer { project.remove() }
    let dir = project.dir
    let manifestPath = dir + "/out/manifest.json"
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: manifestPath)))
    let page = try #require(FileManager.default.contents(atPath: dir + "/out/preview.html"))
    #expect(manifest.storeFileDigests?["preview.html"] == Vips.sha256(of: [UInt8](page)))
    #expect(try runIn(dir, ["plan.png", "-o", "out", "-q", "--tile-size", "256", "--preview", "--force"]).status == 0)
    // the user edits the page: it is theirs now
    try (String(decoding: page, as: UTF8.self) + "<!-- mine -->").write(toFile: dir + "/out/preview.html", atomically: true, encoding: .utf8)
    let edited = project.state
    let r = try runIn(dir, ["plan.png", "-o", "out", "--tile-size", "256", "--preview", "--force"])
    #expect(r.status == 1 && r.stderr.contains("preview.html") && r.stderr.contains("differ"), "\(r.stderr)")
    #expect(project.state == edited)
    let verify = try runIn(dir, ["verify", "out"])
    #expect(verify.status == 1 && verify.stdout.contains("changed: preview.html"), "\(verify.stdout)")
    // an edited manifest that lists a file of the user's, with or without digests
    try FileManager.default.removeItem(atPath: dir + "/out/preview.html")
    try Data(page).write(to: URL(fileURLWithPath: dir + "/out/preview.html"))
    for withDigests in [true, false] {
      var m = try Manifest.decode(try #require(FileManager.default.contents(atPath: manifestPath)))
      m.storeFiles = (m.storeFiles ?? []) + ["index.html"]
      if !withDigests { m.storeFileDigests = nil }
      try m.encoded().write(to: URL(fileURLWithPath: manifestPath))
      try "the user's".write(toFile: dir + "/out/index.html", atomically: true, encoding: .utf8)
      let listed = project.state
      let run = try runIn(dir, ["plan.png", "-o", "out", "--tile-size", "256", "--preview", "--force"])
      #expect(run.status == 1 && run.stderr.contains("index.html"), "\(run.stderr)")
      #expect(project.state == listed)
    }
    // a manifest of an earlier version (no digests) still owns its own preview page
    try FileManager.default.removeItem(atPath: dir + "/out/index.html")
    #expect(try runIn(dir, ["plan.png", "-o", "out", "-q", "--tile-size", "256", "--preview", "--force"]).status == 0)
  }

  @Test(
    "a tile changed since tilecut wrote it is the user's: a run that would replace it stops and keeps it, naming its level (another size by the level's bytes, the same size by its digest, whatever other levels miss); a deleted tile is made again"
  )
  func changedTileKept() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let template = try TileNameTemplate(manifest.name)
    let level = try #require(manifest.levels.last { $0.tileCount >= 2 })
    let tiles = level.tiles
    let first = dir + "/out/" + template.path(floor: level.floor, tileSize: level.tileSize, tile: tiles[0])
    let second = dir + "/out/" + template.path(floor: level.floor, tileSize: level.tileSize, tile: tiles[1])
    let original = try #require(FileManager.default.contents(atPath: first))
    // a changed option replaces the output; so does --force with the same options
    let reruns = [["--max-zoom", "\(level.zoom - 1)"], ["--force"]]
    func expectRefused(_ says: String, _ note: String) throws {
      let before = project.state
      for extra in reruns {
        let r = try runIn(dir, ["plan.png", "-o", "out", "--tile-size", "256"] + extra)
        #expect(r.status == 1 && r.stderrLines.count == 1, "\(note) \(extra): \(r.stderr)")
        #expect(r.stderr.contains(says) && r.stderr.contains("differ from those tilecut wrote"), "\(note) \(extra): \(r.stderr)")
        #expect(project.state == before, "\(note) \(extra): a file changed")
      }
    }
    // another size: the level is named
    try Data(original + [0]).write(to: URL(fileURLWithPath: first))
    try expectRefused("zoom \(level.zoom)", "a byte added")
    // the same size: only the content version over every tile's bytes tells
    var flipped = [UInt8](original)
    flipped[flipped.count / 2] ^= 0x20
    try Data(flipped).write(to: URL(fileURLWithPath: first))
    try expectRefused("zoom \(level.zoom)", "a byte flipped")
    // the same size, and a tile of another level deleted: the changed level is still checked
    let elsewhere = try #require(manifest.levels.first { $0.tileCount >= 1 && $0 != level })
    let gone = dir + "/out/" + template.path(floor: elsewhere.floor, tileSize: elsewhere.tileSize, tile: elsewhere.tiles[0])
    let goneBytes = try #require(FileManager.default.contents(atPath: gone))
    try FileManager.default.removeItem(atPath: gone)
    try expectRefused("zoom \(level.zoom)", "a byte flipped, another level missing a tile")
    try goneBytes.write(to: URL(fileURLWithPath: gone))
    // two tiles swapped: sizes and total as before
    let other = try #require(FileManager.default.contents(atPath: second))
    try original.write(to: URL(fileURLWithPath: second))
    try other.write(to: URL(fileURLWithPath: first))
    try expectRefused("zoom \(level.zoom)", "two tiles swapped")
    // the same options are up to date only by counts and totals: nothing is replaced, nothing touched
    let before = project.state
    let same = try runIn(dir, ["plan.png", "-o", "out", "--tile-size", "256"])
    #expect(same.status == 0 && same.stderr.contains("up to date") && project.state == before, "\(same.stderr)")
    // the changed tile deleted: the level cannot be checked, and is made again, right
    try FileManager.default.removeItem(atPath: first)
    try other.write(to: URL(fileURLWithPath: second))
    let again = try runIn(dir, ["plan.png", "-o", "out", "-q", "--tile-size", "256", "--force"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(FileManager.default.contents(atPath: first) == original)
    #expect(try runIn(dir, ["verify", "out"]).status == 0)
  }

  @Test("merge refuses a shard with one tile swapped for another valid tile, naming it; MBTiles shards too")
  func mergeChecksTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 1200, height: 900).writePNG(to: dir + "/plan.png")
    for store in ["directory", "mbtiles"] {
      for k in 1...2 {
        let r = try runIn(dir, ["plan.png", "-o", "\(store)\(k)", "-q", "--tile-size", "256", "--store", store, "--shard", "\(k)/2"])
        #expect(r.status == 0, "\(r.stderr)")
      }
      #expect(try runIn(dir, ["merge", "\(store)-ok", "\(store)1", "\(store)2"]).status == 0)
    }
    // the merged output is replaced whole: never the working directory
    let here = try runIn(dir + "/directory1", ["merge", ".", "../directory1", "../directory2"])
    #expect(here.status == 2 && here.stderr.contains("working directory"), "\(here.stderr)")
    // two tiles of shard 1 at one zoom: the first gets the second's bytes
    let shard = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/directory1/manifest.json")))
    let level = try #require(shard.levels.first { $0.tileCount >= 2 })
    let template = try TileNameTemplate(shard.name)
    let paths = level.tiles.prefix(2).map { template.path(floor: level.floor, tileSize: level.tileSize, tile: $0) }
    try FileManager.default.removeItem(atPath: dir + "/directory1/" + paths[0])
    try FileManager.default.copyItem(atPath: dir + "/directory1/" + paths[1], toPath: dir + "/directory1/" + paths[0])
    let r = try runIn(dir, ["merge", "merged", "directory1", "directory2"])
    #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(paths[0]), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/merged"))
    // the same in an MBTiles shard: one row's bytes replaced by another row's
    let file = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/mbtiles1").first { $0.hasSuffix(".mbtiles") })
    var db: OpaquePointer?
    #expect(sqlite3_open(dir + "/mbtiles1/" + file, &db) == SQLITE_OK)
    // the tiles view reads map → images: point one cell at another cell's image
    let sql = """
      UPDATE map SET tile_id = (SELECT tile_id FROM map WHERE tile_id != (SELECT tile_id FROM map ORDER BY rowid LIMIT 1) LIMIT 1)
      WHERE rowid = (SELECT min(rowid) FROM map)
      """
    #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK)
    #expect(sqlite3_changes(db) == 1)
    sqlite3_close(db)
    let m = try runIn(dir, ["merge", "merged-mb", "mbtiles1", "mbtiles2"])
    #expect(m.status == 1 && m.stderrLines.count == 1 && m.stderr.contains(file), "\(m.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/merged-mb"))
  }

  @Test("verify refuses a tile swapped for another valid tile: a shard's by name, another output's by its level")
  func verifyChecksTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 1200, height: 900).writePNG(to: dir + "/plan.png")
    #expect(try runIn(dir, ["plan.png", "-o", "out", "-q", "--tile-size", "256", "--max-zoom", "3"]).status == 0)
    #expect(try runIn(dir, ["plan.png", "-o", "s1", "-q", "--tile-size", "256", "--max-zoom", "3", "--shard", "1/2"]).status == 0)
    for name in ["out", "s1"] { #expect(try runIn(dir, ["verify", name]).status == 0, "\(name)") }
    // out: a zoom 1 tile gets the bytes of a zoom 3 tile (both valid 256 px PNGs)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let template = try TileNameTemplate(manifest.name)
    func path(_ m: Manifest, zoom: Int, index: Int = 0) throws -> String {
      let level = try #require(m.levels.first { $0.zoom == zoom && $0.tileCount > index })
      return template.path(floor: level.floor, tileSize: level.tileSize, tile: level.tiles[index])
    }
    let swapped = try path(manifest, zoom: 1)
    try FileManager.default.removeItem(atPath: dir + "/out/" + swapped)
    try FileManager.default.copyItem(atPath: dir + "/out/" + (try path(manifest, zoom: 3)), toPath: dir + "/out/" + swapped)
    let r = try runIn(dir, ["verify", "out"])
    #expect(r.status == 1 && r.stderrLines.count == 1, "\(r.stderr)")
    #expect(r.stdout.contains("changed: a tile of floor 1, 256 px, zoom 1"), "\(r.stdout)")
    // a shard records each tile's digest: the tile is named
    let shard = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/s1/manifest.json")))
    let level = try #require(shard.levels.first { $0.tileCount >= 2 })
    let first = template.path(floor: level.floor, tileSize: level.tileSize, tile: level.tiles[0])
    let second = template.path(floor: level.floor, tileSize: level.tileSize, tile: level.tiles[1])
    try FileManager.default.removeItem(atPath: dir + "/s1/" + first)
    try FileManager.default.copyItem(atPath: dir + "/s1/" + second, toPath: dir + "/s1/" + first)
    let s = try runIn(dir, ["verify", "s1"])
    #expect(s.status == 1 && s.stdout == "changed: \(first) (its bytes are not those the manifest records)\n", "\(s.stdout)")
  }

  @Test("merge refuses an output that is a shard, inside one or holding one, before any work", arguments: ["p1", "p1/sub", "./p2/"])
  func mergeIntoShard(output: String) throws {
    let dir = try scratch("mergeIntoShard-\(output.filter(\.isLetter))")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    for k in 1...2 { #expect(try runIn(dir, ["plan.png", "-o", "p\(k)", "-q", "--shard", "\(k)/2"]).status == 0) }
    let before = snapshot(dir)
    let r = try runIn(dir, ["merge", output, "p1", "p2"])
    #expect(r.status == 2 && r.stderrLines.count == 1, "\(r.stderr)")
    #expect(r.stderr.contains("the input"), "\(r.stderr)")
    #expect(snapshot(dir) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["p1", "p2", "plan.png"])
  }

  @Test("preview -o: never a file of the user's (unless --force), its own sheet again, never inside DIR, /dev/null in place")
  func previewOutput() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    try "my notes".write(toFile: dir + "/notes.png", atomically: true, encoding: .utf8)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let zooms = manifest.levels.map(\.zoom)
    let (low, high) = (String(try #require(zooms.min())), String(try #require(zooms.max())))
    let r = try runIn(dir, ["preview", "out", "--zoom", low, "-o", "notes.png"])
    #expect(r.status == 2 && r.stderrLines.count == 1 && r.stderr.contains("not a sheet tilecut wrote"), "\(r.stderr)")
    #expect(try String(contentsOfFile: dir + "/notes.png", encoding: .utf8) == "my notes")
    // a sheet tilecut wrote is its own: written again, at another zoom
    #expect(try runIn(dir, ["preview", "out", "--zoom", low, "-o", "sheet.png"]).status == 0)
    let first = try #require(FileManager.default.contents(atPath: dir + "/sheet.png"))
    #expect(try runIn(dir, ["preview", "out", "--zoom", high, "-o", "sheet.png"]).status == 0)
    let second = try #require(FileManager.default.contents(atPath: dir + "/sheet.png"))
    #expect(first != second && PreviewSheet.isSheet([UInt8](second)))
    #expect(try RGBAImage.decode(file: dir + "/sheet.png").width >= 256)
    let inside = try runIn(dir, ["preview", "out", "--zoom", low, "-o", "out/sheet.png"])
    #expect(inside.status == 2 && inside.stderr.contains("inside out"), "\(inside.stderr)")
    #expect(try runIn(dir, ["verify", "out"]).status == 0)
    #expect(try runIn(dir, ["preview", "out", "--zoom", low, "-o", "notes.png", "--force"]).status == 0)
    #expect(try RGBAImage.decode(file: dir + "/notes.png").width >= 256)
    #expect(try runIn(dir, ["preview", "out", "--zoom", low, "-o", "/dev/null"]).status == 0)
    #expect(fileKind("/dev/null") == S_IFCHR)
  }

  @Test("get -o: never the store it reads (an archive file, a folder's manifest or tile), one line naming -o, nothing written")
  func getOutputIsNotTheStore() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    #expect(try runIn(dir, ["plan.png", "-o", "pm", "-q", "--tile-size", "256", "--store", "pmtiles"]).status == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let level = try #require(manifest.levels.first { !$0.tiles.isEmpty })
    let tile = level.tiles[0]
    let at = "\(level.zoom)/\(tile.x)/\(tile.y)"
    let archive = try #require(try FileManager.default.contentsOfDirectory(atPath: dir + "/pm").first { $0.hasSuffix(".pmtiles") })
    let tileFile = "out/256/L1_\(level.zoom)_\(tile.x)_\(tile.y).png"
    #expect(FileManager.default.fileExists(atPath: dir + "/" + tileFile))
    let before = project.state
    for (store, output, says) in [
      ("pm/\(archive)", "pm/\(archive)", "is the input pm/\(archive)"), ("pm/\(archive)", "pm/./\(archive)", "is the input"),
      ("out", "out/manifest.json", "inside the input out"), ("out", tileFile, "inside the input out"),
      // the output holding the store read: its manifest
      ("pm/\(archive)", "pm/manifest.json", "is inside pm, a tilecut output"),
    ] {
      let r = try runIn(dir, ["get", store, at, "-o", output])
      #expect(r.status == 2 && r.stderrLines.count == 1, "\(output): \(r.stderr)")
      #expect(r.stderr.contains("--output: '\(output)'") && r.stderr.contains(says), "\(output): \(r.stderr)")
      #expect(project.state == before, "get -o \(output) touched a file")
    }
    let changes = try runIn(dir, ["pm/\(archive)", "-o", "again", "-q", "--changes", "pm/manifest.json"])
    #expect(changes.status == 2 && changes.stderr.contains("--changes: 'pm/manifest.json' is inside pm"), "\(changes.stderr)")
    #expect(project.state == before, "--changes pm/manifest.json touched a file")
    // beside the store: written
    #expect(try runIn(dir, ["get", "pm/\(archive)", at, "-o", "t.png"]).status == 0)
    #expect(FileManager.default.contents(atPath: dir + "/t.png") == FileManager.default.contents(atPath: dir + "/" + tileFile))
  }

  /// Each case (options added to `run`, the option refused, words its line says) refused
  /// with exit 2 in one line, nothing in `dir` touched.
  func expectRefusals(in dir: String, run: [String], _ cases: [(extra: [String], option: String, says: String)]) throws {
    let before = snapshot(dir)
    for (extra, option, says) in cases {
      let r = try runIn(dir, run + extra)
      #expect(r.status == 2 && r.stderrLines.count == 1, "\(extra): \(r.stderr)")
      #expect(r.stderr.contains("\(option): ") && r.stderr.contains(says), "\(extra): \(r.stderr)")
      #expect(snapshot(dir) == before, "\(extra) touched a file")
    }
  }

  @Test("an IMDF venue: --depfile, --changes and -o never its files nor the --venue-style file; the depfile lists them")
  func venueFilesAreInputs() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    _ = try writeVenue(dir)
    try FileManager.default.createDirectory(atPath: dir + "/styles", withIntermediateDirectories: true)
    try Data(##"{"unit.room": {"fill": "#ffeecc"}}"##.utf8).write(to: URL(fileURLWithPath: dir + "/styles/style.json"))
    let run = ["venue", "--venue-style", "styles/style.json", "--min-zoom", "19", "--max-zoom", "19", "--tile-size", "256"]
    try expectRefusals(
      in: dir, run: run,
      [
        (["-o", "out", "--depfile", "styles/style.json"], "--depfile", "is the input styles/style.json"),
        (["-o", "out", "--changes", "styles/./style.json"], "--changes", "is the input styles/style.json"),
        (["-o", "out", "--changes", "venue/unit.geojson"], "--changes", "inside the input venue"),
        (["-o", "out", "--changes", "venue/manifest.json"], "--changes", "inside the input venue"),
        (["-o", "out", "--depfile", "venue/kiosk.geojson"], "--depfile", "inside the input venue"),
        (["-o", "styles"], "--output", "holds the input styles/style.json"),
      ])
    // the depfile names every file read: an edit to unit.geojson or the style is seen by make
    let r = try runIn(dir, run + ["-o", "out", "-q", "--depfile", "venue.d"])
    #expect(r.status == 0, "\(r.stderr)")
    let rule = try String(contentsOfFile: dir + "/venue.d", encoding: .utf8)
    let first = rule.split(separator: "\n").first.map(String.init) ?? ""
    #expect(first == "out/manifest.json: venue venue/manifest.json venue/level.geojson venue/unit.geojson styles/style.json", "\(rule)")
  }

  @Test("an SVG's referenced image is a file the run reads: never an option's file nor in the output; the depfile lists it")
  func svgReferencesAreInputs() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try FileManager.default.createDirectory(atPath: dir + "/art", withIntermediateDirectories: true)
    try picture(width: 60, height: 40).writePNG(to: dir + "/art/logo.png")
    let svg =
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="#fff"/>"##
      + #"<image href="art/logo.png" x="10" y="10" width="200" height="100"/></svg>"#
    try Data(svg.utf8).write(to: URL(fileURLWithPath: dir + "/plan.svg"))
    let run = ["plan.svg", "--bounds", "51.5,-0.12,51.501,-0.118", "--max-zoom", "17", "--tile-size", "256"]
    try expectRefusals(
      in: dir, run: run,
      [
        (["-o", "out", "--depfile", "art/logo.png"], "--depfile", "is the input art/logo.png"),
        (["-o", "out", "--changes", "art/./logo.png"], "--changes", "is the input art/logo.png"),
        (["-o", "art"], "--output", "holds the input art/logo.png"),
      ])
    let r = try runIn(dir, run + ["-o", "out", "-q", "--depfile", "plan.d"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try String(contentsOfFile: dir + "/plan.d", encoding: .utf8).hasPrefix("out/manifest.json: plan.svg art/logo.png\n"))
  }

  @Test("a project: a source 'out[floor=1]' is the output's input; a venue's files and venueStyle are inputs and depfile lines")
  func projectSelectorSources() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    try "output: out\nbuildings: [{id: hq, floors: [{floor: 1, source: \"out[floor=1]\"}]}]\n".write(
      toFile: dir + "/p.yml", atomically: true, encoding: .utf8)
    let before = project.state
    let r = try runIn(dir, ["build", "p.yml", "-q"])
    #expect(r.status == 2 && r.stderrLines.count == 1, "\(r.stderr)")
    #expect(r.stderr.contains("--output: 'out' is the input out"), "\(r.stderr)")
    #expect(project.state == before)
    // a venue's floor: its files and its style are read, so never written, and listed for make
    _ = try writeVenue(dir)
    try Data(##"{"unit.room": {"fill": "#ffeecc"}}"##.utf8).write(to: URL(fileURLWithPath: dir + "/style.json"))
    let floor = "{floor: 0, source: \"venue[floor=0]\", venueStyle: style.json}"
    try "output: v\nminZoom: 19\nmaxZoom: 19\ntileSizes: [256]\nbuildings: [{id: hq, floors: [\(floor)]}]\n".write(
      toFile: dir + "/v.yml", atomically: true, encoding: .utf8)
    let state = project.state
    for (option, path, says) in [
      ("--depfile", "style.json", "is the input style.json"), ("--changes", "venue/unit.geojson", "inside the input venue"),
    ] {
      let refused = try runIn(dir, ["build", "v.yml", option, path])
      #expect(refused.status == 2 && refused.stderrLines.count == 1, "\(path): \(refused.stderr)")
      #expect(refused.stderr.contains("\(option): '\(path)'") && refused.stderr.contains(says), "\(path): \(refused.stderr)")
      #expect(project.state == state, "\(option) \(path) touched a file")
    }
    #expect(try runIn(dir, ["build", "v.yml", "-q", "--depfile", "v.d"]).status == 0)
    let rule = try String(contentsOfFile: dir + "/v.d", encoding: .utf8)
    #expect(
      rule.hasPrefix("v/manifest.json: v.yml venue venue/manifest.json venue/level.geojson venue/unit.geojson style.json\n"), "\(rule)")
  }

  @Test("a tile of an earlier output that is a symbolic link is said to be one (tilecut writes none), though it is listed; nothing changes")
  func symlinkedTile() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    let tile = try #require(filesBelow(dir + "/out").filter { $0.hasSuffix(".png") }.sorted().first)
    // the tile's own bytes, moved beside the output, and the tile a link to them
    try FileManager.default.moveItem(atPath: dir + "/out/" + tile, toPath: dir + "/kept.png")
    try FileManager.default.createSymbolicLink(atPath: dir + "/out/" + tile, withDestinationPath: dir + "/kept.png")
    let before = project.state
    let run = try runIn(dir, ["plan.png", "-o", "out", "--tile-size", "256", "--force"])
    #expect(
      run.status == 1
        && run.stderrLines == [
          "error: out/\(tile): is not tilecut's (a symbolic link, which tilecut never writes); tilecut replaces only outputs it wrote: move it away or choose another output directory"
        ], "\(run.stderr)")
    // read by merge, it is not read
    let read = try runIn(dir, ["merge", "merged", "out"])
    #expect(
      read.status == 1 && read.stderrLines == ["error: out/\(tile): is a symbolic link, which tilecut never writes; it will not be read"],
      "\(read.stderr)")
    var st = stat()
    #expect(project.state == before && lstat(dir + "/out/" + tile, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK)
  }

  @Test("a job that writes no tile fails saying why, unless --allow-empty")
  func emptyJob() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var white = RGBAImage(width: 300, height: 200)
    for i in 0..<(300 * 200 * 4) { white.pixels[i] = 255 }
    try white.writePNG(to: dir + "/white.png")
    let r = try runIn(dir, ["white.png", "-o", "out", "--knockout", "white:8"])
    #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("--allow-empty"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try runIn(dir, ["white.png", "-o", "out", "--knockout", "white:8", "--allow-empty", "-q"]).status == 0)
    #expect(FileManager.default.fileExists(atPath: dir + "/out/manifest.json"))
  }

  @Test(
    "negative numbers say 'must be at least', not 'Missing value'",
    arguments: [
      ["--floors", "-1"], ["--shard", "-1/4"], ["--shard", "2/-4"], ["--allow-residual", "-3"], ["--jobs", "-2"], ["--max-tiles", "-5"],
      ["--max-pixels", "-1"], ["--quality", "-1"], ["--png-compression", "-1"], ["--min-zoom", "-1"], ["--max-zoom", "-1"],
    ])
  func negativeNumbers(args: [String]) {
    do {
      var command = try TilecutCommand.parseAsRoot(["plan.png"] + args)
      try command.validate()
      Issue.record("\(args) was accepted")
    } catch {
      let message = TilecutCommand.message(for: error)
      #expect(message.contains("must be at least") && message.contains(args[0]), "\(args): \(message)")
    }
  }

  @Test("SHA-256 (Nettle) equals coreutils' sha256sum at block boundaries: one-shot, streamed in odd pieces, from a file")
  func sha256() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for count in [0, 1, 55, 56, 63, 64, 65, 119, 128, 1000, 70_000, 3 << 20] {
      let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7 &+ $0 >> 9) }
      let file = dir + "/\(count).bin"
      try Data(bytes).write(to: URL(fileURLWithPath: file))
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
      process.arguments = [file]
      let out = Pipe()
      process.standardOutput = out
      try process.run()
      let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      let want = String(printed.prefix(64))
      #expect(want.count == 64 && SHA256Digest.hex(bytes) == want, "\(count) bytes")
      let fromFile = try Vips.sha256(ofFile: file)
      #expect(Vips.sha256(of: bytes) == want && fromFile == want && SHA256Digest.hex(ofFile: file) == want)
      var streamed = SHA256Digest()
      var at = 0
      var piece = 1
      while at < count {
        let end = min(count, at + piece)
        bytes[at..<end].withUnsafeBytes { streamed.update($0) }
        at = end
        piece = piece * 3 + 1
      }
      #expect(streamed.finish() == want, "\(count) bytes in pieces")
    }
    #expect(SHA256Digest.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }
}
