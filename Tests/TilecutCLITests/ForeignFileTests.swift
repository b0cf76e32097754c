import Foundation
import Testing
@testable import TilecutCore

#if canImport(Glibc)
  import Glibc
#endif

/// Files tilecut did not write stay as they are (falls of the third hostile run, attack3/falls.sh).
@Suite("what tilecut did not write is never replaced or read: descriptor names, CRSs that read files, links out of a store")
struct ForeignFileTests {
  /// Runs `tilecut ARGS` through the shell in `directory`, with `redirections` (`< notes.txt`).
  func shell(_ directory: String, _ args: [String], _ redirections: String) throws -> Int32 {
    let quoted = ([try tilecutBinary()] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    return try runProgram("/bin/sh", ["-c", quoted.joined(separator: " ") + " " + redirections + " 2>/dev/null"], in: directory)
  }

  @Test("a descriptor's name that leads to a user's file (/dev/stdin < notes, //dev/stdout >> log) never replaces it")
  func descriptorNamesKeepFiles() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    try "precious notes\n".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
    for option in ["--depfile", "--changes"] {
      // fd 0 named as a descriptor is read-only: writing it fails (exit 1); /dev/stdin, a link
      // through /proc to the file, is refused (exit 2)
      for (name, expected) in [("/dev/stdin", 2), ("/proc/thread-self/fd/0", 1), ("/proc/self/fd/0", 1)] as [(String, Int32)] {
        let status = try shell(dir, ["plan.png", "-o", "out", "-q", "--force", option, name], "< notes.txt")
        #expect(status == expected, "\(option) \(name)")
        #expect(try String(contentsOfFile: dir + "/notes.txt", encoding: .utf8) == "precious notes\n", "\(option) \(name)")
      }
    }
    // stdout's other spellings are stdout: appended where the log stands, not a new file
    try "my log\n".write(toFile: dir + "/log.txt", atomically: true, encoding: .utf8)
    var before = stat()
    #expect(stat(dir + "/log.txt", &before) == 0)
    for name in ["//dev/stdout", "/dev/./stdout", "/dev/../dev/stdout"] {
      #expect(try shell(dir, ["plan.png", "-o", "out", "-q", "--force", "--depfile", name], ">> log.txt") == 0, "\(name)")
    }
    var after = stat()
    #expect(stat(dir + "/log.txt", &after) == 0 && after.st_ino == before.st_ino)
    let log = try String(contentsOfFile: dir + "/log.txt", encoding: .utf8)
    #expect(log.hasPrefix("my log\nout/manifest.json: plan.png"), "\(log)")
    // a link of the user's to /dev/stdout is stdout too, never a rename over the log
    try FileManager.default.createSymbolicLink(atPath: dir + "/out.d", withDestinationPath: "/dev/stdout")
    #expect(try shell(dir, ["plan.png", "-o", "out", "-q", "--force", "--depfile", "out.d"], ">> log.txt") == 2)
    #expect(stat(dir + "/log.txt", &after) == 0 && after.st_ino == before.st_ino)
    // /dev/fd/N names only a descriptor the caller opened: fd 4, 5, … are tilecut's own
    // (its signal pipe, its copy of stderr), refused before any work
    for name in ["/dev/fd/4", "/proc/self/fd/5", "/dev/fd/9"] {
      #expect(try shell(dir, ["plan.png", "-o", "out", "-q", "--force", "--changes", name], "") == 2, "\(name)")
    }
    #expect(try shell(dir, ["plan.png", "-o", "fresh", "-q", "--changes", "/dev/fd/3"], "3> changes.txt") == 0)
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).contains("A\t"))
    // a plain file, a file through a link and /dev/shm stay ordinary files
    #expect(OptionFile.passesThroughProc(dir + "/notes.txt") == false)
    #expect(OptionFile.passesThroughProc("/dev/shm/tilecut-attack3.d") == false)
    #expect(OptionFile.passesThroughProc("/dev/stdin") && OptionFile.passesThroughProc("/dev/fd/1"))
    #expect(OptionFile.lexicallyNormal("//dev/./fd/../stdout") == "/dev/stdout")
  }

  @Test("a CRS that makes PROJ read a file (+init=, a grid by path) is refused in a .prj, an .aux.xml and --source-crs")
  func crsThatReadsFiles() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    #expect(mkfifo(dir + "/epsg", 0o600) == 0)
    // a FIFO behind +init= hung for ever; a grid by path opened whatever it names
    for crs in ["+proj=pipeline +step +init=\(dir)/epsg:3857", "+proj=longlat +ellps=WGS84 +nadgrids=/dev/zero +type=crs"] {
      try crs.write(toFile: dir + "/plan.prj", atomically: true, encoding: .utf8)
      let beside = try runIn(dir, ["plan.png", "-o", "out2", "-q", "--dry-run"])
      #expect(beside.status == 1 && beside.stderrLines.count == 1, "\(beside.stderr)")
      #expect(beside.stderr.contains("plan.prj"), "\(beside.stderr)")
      try webMercatorESRI.write(toFile: dir + "/plan.prj", atomically: true, encoding: .utf8)
      let given = try runIn(dir, ["plan.png", "-o", "out2", "-q", "--dry-run", "--source-crs", crs])
      #expect(given.status == 2 && given.stderrLines.count == 1 && given.stderr.contains("--source-crs"), "\(given.stderr)")
    }
    // and in GDAL's .aux.xml
    let aux = "<PAMDataset><SRS>+proj=merc +init=\(dir)/epsg:3857</SRS></PAMDataset>"
    try aux.write(toFile: dir + "/plan.png.aux.xml", atomically: true, encoding: .utf8)
    let pam = try runIn(dir, ["plan.png", "-o", "out2", "-q", "--dry-run"])
    #expect(pam.status == 1 && pam.stderr.contains("plan.png.aux.xml") && pam.stderr.contains("+init="), "\(pam.stderr)")
    try FileManager.default.removeItem(atPath: dir + "/plan.png.aux.xml")
    // a grid PROJ has installed, named bare, and a plain .prj still place
    #expect(CRSText.unsafeReason("+proj=longlat +ellps=clrk66 +nadgrids=@conus,@null +type=crs") == nil)
    #expect(try runIn(dir, ["plan.png", "-o", "out2", "-q", "--dry-run"]).status == 0)
  }

  @Test("tilecut get reads only regular files inside the store: a tile made a link to a file outside is refused, not printed")
  func tileReadsOnlyStoreFiles() throws {
    let project = try Project()
    defer { project.remove() }
    let dir = project.dir
    let tiles = try FileManager.default.contentsOfDirectory(atPath: dir + "/out/256").filter { $0.hasSuffix(".png") }.sorted()
    let name = try #require(tiles.first)
    // L1_Z_X_Y.png
    let zxy = name.dropLast(4).split(separator: "_").dropFirst().map(String.init)
    let good = try runIn(dir, ["get", "out", zxy.joined(separator: "/"), "--tile-size", "256"])
    #expect(good.status == 0 && good.stderr.isEmpty, "\(good.stderr)")
    try "secret\n".write(toFile: dir + "/secret.txt", atomically: true, encoding: .utf8)
    try FileManager.default.removeItem(atPath: dir + "/out/256/" + name)
    try FileManager.default.createSymbolicLink(atPath: dir + "/out/256/" + name, withDestinationPath: dir + "/secret.txt")
    let linked = try runIn(dir, ["get", "out", zxy.joined(separator: "/"), "--tile-size", "256"])
    #expect(linked.status == 1 && linked.stderrLines.count == 1 && linked.stderr.contains("not a regular file"), "\(linked.stderr)")
    #expect(!linked.stdout.contains("secret"))
    // a manifest that is not JSON says so, in one line
    try "not json".write(toFile: dir + "/out/manifest.json", atomically: true, encoding: .utf8)
    let broken = try runIn(dir, ["show", "out"])
    #expect(broken.status == 1 && broken.stderr.contains("not valid JSON") && broken.stderrLines.count == 1, "\(broken.stderr)")
  }
}
