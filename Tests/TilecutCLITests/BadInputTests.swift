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

/// The built `tilecut` executable (TestEnvironment says where it is looked for).
func tilecutBinary() throws -> String {
  guard let found = TestEnvironment.tilecutBinary else {
    throw TilecutError.invalidInput(path: TestEnvironment.binaryCandidates[0], reason: "the tilecut binary was not built")
  }
  return found
}

/// What a run of the real binary did.
struct RunResult {
  var status: Int32
  var signalled: Bool
  var stderr: String
  var stdout: String
  /// With `watchStaging`: whether a staging folder appeared while the run lasted.
  var stagingSeen: Bool? = nil
  var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs a command line with a time limit; `shell` wraps it in /bin/sh -c.
/// `interruptWhenStaging`: sends the signal once the run's staging directory
/// (`.<name>.tilecut-staging-…` beside `<dir>/<name>`) appears, that is once the
/// handlers are installed and rendering has begun, whatever the machine's load.
func runTool(
  _ args: [String], shell: String? = nil, interruptAfter: (Double, Int32)? = nil,
  interruptWhenStaging: (dir: String, name: String, signal: Int32)? = nil, watchStaging: String? = nil,
  timeout: Double = 60
) throws -> RunResult {
  let process = Process()
  let binary = try tilecutBinary()
  if let shell {
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", shell.replacingOccurrences(of: "TILECUT", with: binary)]
  } else {
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = args
  }
  let err = Pipe()
  let out = Pipe()
  process.standardError = err
  process.standardOutput = out
  // the run's end is an event to wait on, not a state to poll
  let ended = DispatchSemaphore(value: 0)
  process.terminationHandler = { _ in ended.signal() }
  try process.run()
  let captured = Mutex<(err: Data, out: Data)>((Data(), Data()))
  let group = DispatchGroup()
  group.enter()
  DispatchQueue.global().async {
    let bytes = err.fileHandleForReading.readDataToEndOfFile()
    captured.withLock { $0.err = bytes }
    group.leave()
  }
  group.enter()
  DispatchQueue.global().async {
    let bytes = out.fileHandleForReading.readDataToEndOfFile()
    captured.withLock { $0.out = bytes }
    group.leave()
  }
  if let (delay, sig) = interruptAfter {
    Thread.sleep(forTimeInterval: delay)
    kill(process.processIdentifier, sig)
  }
  if let (dir, name, sig) = interruptWhenStaging {
    let prefix = "." + name + ".tilecut-staging-"
    let giveUp = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < giveUp {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
      if entries.contains(where: { $0.hasPrefix(prefix) }) { break }
      Thread.sleep(forTimeInterval: 0.005)
    }
    kill(process.processIdentifier, sig)
  }
  let deadline = Date().addingTimeInterval(timeout)
  var stagingSeen = false
  var finished = false
  if let watchStaging {
    // a staging folder is seen only by looking while the run lasts
    while !finished && Date() < deadline {
      if !stagingSeen {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: watchStaging)) ?? []
        stagingSeen = entries.contains { $0.contains(".tilecut-staging-") }
      }
      finished = ended.wait(timeout: .now() + 0.002) == .success
    }
  } else {
    finished = ended.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .success
  }
  if !finished && process.isRunning {
    process.terminate()
    Issue.record("timed out: \(args)")
  }
  process.waitUntilExit()
  group.wait()
  let (errBytes, outBytes) = captured.withLock { ($0.err, $0.out) }
  return RunResult(
    status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
    stderr: String(decoding: errBytes, as: UTF8.self), stdout: String(decoding: outBytes, as: UTF8.self),
    stagingSeen: watchStaging == nil ? nil : stagingSeen)
}

/// A working directory with a good previous output in `out/`.
struct Corpus {
  let dir: String
  let before: [String: Data]

  init(_ name: String = #function) throws {
    dir = try scratch(name)
    try picture(width: 600, height: 400).writePNG(to: dir + "/good.png")
    let made = try runTool([dir + "/good.png", "-o", dir + "/out", "-q"])
    guard made.status == 0 else { throw TilecutError.output(path: dir, reason: "setup failed: \(made.stderr)") }
    before = snapshot(dir + "/out")
  }

  func path(_ name: String) -> String { dir + "/" + name }

  /// The run failed cleanly: one `error:` line naming `mentions`, the exit code, the
  /// previous output untouched, and no staging left beside it.
  func expectClean(_ r: RunResult, status: Int32, mentions: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(!r.signalled, "killed by a signal", sourceLocation: sourceLocation)
    #expect(r.status == status, "exit \(r.status): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderrLines.count == 1, "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.hasPrefix("error: "), "stderr: \(r.stderr)", sourceLocation: sourceLocation)
    #expect(r.stderr.lowercased().contains(mentions.lowercased()), "stderr should name \(mentions): \(r.stderr)", sourceLocation: sourceLocation)
    #expect(!r.stderr.contains("Fatal error") && r.stderr.count < 400, sourceLocation: sourceLocation)
    #expect(snapshot(dir + "/out") == before, "the previous output changed", sourceLocation: sourceLocation)
    let debris = (try? FileManager.default.contentsOfDirectory(atPath: dir))?.filter { $0.contains("tilecut-staging") } ?? []
    #expect(debris.isEmpty, "staging left behind: \(debris)", sourceLocation: sourceLocation)
  }

  func cleanup() { try? FileManager.default.removeItem(atPath: dir) }
}

/// Corpora shared by the cases of one parameterized test in a serialized suite, where
/// each case is a run that must be refused without touching the output. Each case
/// asserts (`expectClean`) that the output is still byte for byte the one made, and that
/// nothing was left beside it, so the next case starts from what a fresh corpus holds:
/// the same check, one setup run instead of one per case. The last case removes it.
enum SharedCorpus {
  private static let made = Mutex<[String: (corpus: Corpus, left: Int)]>([:])

  /// The corpus named `name`, made on its first use; `uses` is the number of cases.
  static func take(_ name: String, uses: Int) throws -> Corpus {
    try made.withLock { made in
      if let entry = made[name] { return entry.corpus }
      let corpus = try Corpus(name)
      made[name] = (corpus, uses)
      return corpus
    }
  }

  /// One case is done with `name`'s corpus; after the last, it is removed.
  static func release(_ name: String) {
    made.withLock { made in
      guard let entry = made[name] else { return }
      if entry.left > 1 {
        made[name] = (entry.corpus, entry.left - 1)
      } else {
        entry.corpus.cleanup()
        made[name] = nil
      }
    }
  }
}

/// A PNG of just a signature and an IHDR claiming `width` × `height`, then a token IDAT.
func pngHeader(width: UInt32, height: UInt32) -> Data {
  func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
  func crc(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      c ^= UInt32(b)
      for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }
    return ~c
  }
  func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return be(UInt32(data.count)) + body + be(crc(body))
  }
  var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  bytes += chunk("IHDR", be(width) + be(height) + [8, 6, 0, 0, 0])
  bytes += chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
  bytes += chunk("IEND", [])
  return Data(bytes)
}

@Suite("bad input never loses data", .serialized)
struct BadInputTests {
  static let badValueCases: [([String], String)] = [
    (["--bounds", "51.6,-0.1,51.5,0"], "--bounds"), (["--bounds", "91,0,92,1"], "--bounds"),
    (["--bounds", "151.20,-33.87,151.21,-33.86"], "swap"), (["--min-zoom", "-1"], "--min-zoom"), (["--max-zoom", "31"], "--max-zoom"),
    (["--min-zoom", "6", "--max-zoom", "3"], "--min-zoom"), (["--tile-size", "300"], "--tile-size"),
    (["--name", "L{floor}_{z}_{y}.png"], "--name"), (["--name", "../{z}_{x}_{y}.png"], "--name"), (["--name", "/tmp/{z}_{x}_{y}.png"], "--name"),
    (["--gcp", "0,0,51.5,-0.1"], "--gcp"), (["--gcp", "0,0,51.5,-0.1", "--gcp", "10,10,51.5,-0.1", "--gcp", "20,20,51.5,-0.1"], "--gcp"),
    (["--center", "51.5,-0.1", "--meters-per-pixel", "0"], "--meters-per-pixel"), (["--center", "51.5,-0.1"], "--meters-per-pixel"),
    (["--bounds", "1,2,3,4", "--center", "1,2", "--meters-per-pixel", "1"], "--bounds"), (["--shard", "0/3"], "--shard"),
    (["--jobs", "0"], "--jobs"), (["--bounds", "x,y,z,w"], "--bounds"),
    (["--name", "a\u{1}b/{size}/{z}_{x}_{y}.png"], "control character"),
  ]

  @Test("unreadable inputs: missing, a directory, empty, truncated, not an image")
  func unreadableInputs() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    c.expectClean(try runTool([c.path("missing.png"), "-o", c.path("out")]), status: 1, mentions: "missing.png")
    try FileManager.default.createDirectory(atPath: c.path("adir.png"), withIntermediateDirectories: true)
    c.expectClean(try runTool([c.path("adir.png"), "-o", c.path("out")]), status: 1, mentions: "adir.png")
    #expect(FileManager.default.createFile(atPath: c.path("empty.png"), contents: Data()))
    c.expectClean(try runTool([c.path("empty.png"), "-o", c.path("out")]), status: 1, mentions: "empty.png")
    try Data("this is not an image\n".utf8).write(to: URL(fileURLWithPath: c.path("text.png")))
    c.expectClean(try runTool([c.path("text.png"), "-o", c.path("out")]), status: 1, mentions: "text.png")
    // truncated files: a big enough picture that the cut falls in the pixel data
    try picture(width: 900, height: 700, seed: 2).writePNG(to: c.path("whole.png"))
    try picture(width: 900, height: 700, seed: 2).writePNG(to: c.path("whole.jpg"))
    for name in ["whole.png", "whole.jpg"] {
      let data = try Data(contentsOf: URL(fileURLWithPath: c.path(name)))
      let cut = "cut-" + name
      try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: c.path(cut)))
      c.expectClean(try runTool([c.path(cut), "-o", c.path("out")]), status: 1, mentions: cut)
    }
  }

  @Test("a header claiming 1,000,000 × 1,000,000 pixels is refused without reading it")
  func hugeHeader() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try pngHeader(width: 1_000_000, height: 1_000_000).write(to: URL(fileURLWithPath: c.path("huge.png")))
    let r = try runTool([c.path("huge.png"), "-o", c.path("out")])
    c.expectClean(r, status: 1, mentions: "--max-pixels")
  }

  @Test("unusual but valid sources convert to sRGB RGBA: 1×1, 16-bit, grey + alpha, CMYK JPEG")
  func unusualSources() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 1, height: 1).writePNG(to: c.path("one.png"))
    var r = try runTool([c.path("one.png"), "-o", c.path("one"), "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: c.path("one/256/L1_0_0_0.png")))
    let image = picture(width: 300, height: 200, seed: 1, transparentLeft: 0)
    // the left 256 columns transparent: no tile there in any variant that has alpha
    var holed = image
    for y in 0..<200 { for x in 0..<256 { holed.pixels[(y * 300 + x) * 4 + 3] = 0 } }
    try holed.write(to: c.path("deep.png"), as: .rgba16)
    try holed.write(to: c.path("grey.png"), as: .greyAlpha)
    try image.write(to: c.path("cmyk.jpg"), as: .cmykJPEG)
    for (name, hasAlpha) in [("deep.png", true), ("grey.png", true), ("cmyk.jpg", false)] {
      let out = c.path("o-" + name)
      r = try runTool([c.path(name), "-o", out, "--tile-size", "256", "-q"])
      #expect(r.status == 0, "\(name): \(r.stderr)")
      let right = try RGBAImage.decode(file: out + "/256/L1_1_1_0.png")
      #expect(right.width == 256 && right[10, 10].a == 255, "\(name)")
      #expect(FileManager.default.fileExists(atPath: out + "/256/L1_1_0_0.png") == !hasAlpha, "\(name)")
      if name == "deep.png" {
        // 16 bits scale back to the same 8-bit colour
        let want = image[266, 10]
        let got = right[10, 10]
        #expect(abs(Int(got.r) - Int(want.r)) <= 1 && abs(Int(got.g) - Int(want.g)) <= 1, "\(got) vs \(want)")
      }
      if name == "grey.png" {
        let got = right[10, 10]
        #expect(got.r == got.g && got.g == got.b && abs(Int(got.g) - Int(image[266, 10].g)) <= 1)
      }
      if name == "cmyk.jpg" {
        // through a CMYK profile and back: close, not exact (an inverted CMYK would be ~200 off)
        let got = right[10, 10]
        let want = image[266, 10]
        #expect(abs(Int(got.r) - Int(want.r)) < 80 && abs(Int(got.g) - Int(want.g)) < 80 && abs(Int(got.b) - Int(want.b)) < 80, "\(got) vs \(want)")
      }
    }
  }

  @Test(
    "bad option values are usage errors naming the option", arguments: Self.badValueCases)
  func badValues(extra: [String], mentions: String) throws {
    // one corpus for the cases (SharedCorpus says why that checks the same)
    let c = try SharedCorpus.take(#function, uses: Self.badValueCases.count)
    defer { SharedCorpus.release(#function) }
    c.expectClean(try runTool([c.path("good.png"), "-o", c.path("out"), "--force"] + extra), status: 2, mentions: mentions)
  }

  @Test("outputs that cannot be used: an existing file, a place no one can write")
  func badOutputs() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try Data("x".utf8).write(to: URL(fileURLWithPath: c.path("file.txt")))
    c.expectClean(try runTool([c.path("good.png"), "-o", c.path("file.txt")]), status: 2, mentions: "file.txt")
    // even root cannot create directories in /proc
    c.expectClean(try runTool([c.path("good.png"), "-o", "/proc/tilecut-out"]), status: 1, mentions: "/proc")
  }

  @Test("a full disk mid-run leaves the previous output and no debris")
  func diskFull() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 2000, height: 1500, seed: 5).writePNG(to: c.path("big.png"))
    // ulimit -f counts 512-byte blocks: 1 KB per file is less than most tiles need
    let r = try runTool([], shell: "ulimit -f 2; trap '' XFSZ; exec TILECUT '\(c.path("big.png"))' -o '\(c.path("out"))' --force")
    c.expectClean(r, status: 1, mentions: "cannot write")
  }

  @Test("SIGINT and SIGTERM mid-run: exit 130/143, previous output intact", arguments: [SIGINT, SIGTERM])
  func interrupted(signal: Int32) throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 4096, height: 4096, seed: 4).writePNG(to: c.path("slow.png"))
    let r = try runTool([c.path("slow.png"), "-o", c.path("out"), "--force"], interruptWhenStaging: (c.dir, "out", signal))
    c.expectClean(r, status: 128 + signal, mentions: "interrupted")
  }

  @Test("--no-vector refuses documents")
  func noVector() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="50" height="50"/></svg>"#
    try Data(svg.utf8).write(to: URL(fileURLWithPath: c.path("plan.svg")))
    c.expectClean(try runTool([c.path("plan.svg"), "-o", c.path("out"), "--no-vector"]), status: 1, mentions: "plan.svg")
    let ok = try runTool([c.path("plan.svg"), "-o", c.path("svg-out"), "-q"])
    #expect(ok.status == 0, "\(ok.stderr)")
  }

  @Test("an SVG cannot read files outside its own directory")
  func svgCannotEscape() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try FileManager.default.createDirectory(atPath: c.path("inner"), withIntermediateDirectories: true)
    // an image beside the corpus, outside inner/: a solid red square
    var red = RGBAImage(width: 64, height: 64)
    for i in stride(from: 0, to: red.pixels.count, by: 4) { red.pixels.replaceSubrange(i..<i + 4, with: [255, 0, 0, 255]) }
    try red.writePNG(to: c.path("secret.png"))
    let svg =
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="64" height="64"><image width="64" height="64" xlink:href="../secret.png"/></svg>"#
    try Data(svg.utf8).write(to: URL(fileURLWithPath: c.path("inner/plan.svg")))
    let r = try runTool([c.path("inner/plan.svg"), "-o", c.path("svg-out"), "-q"])
    #expect(r.status == 0 || r.status == 1)
    #expect(!r.signalled)
    if r.status == 0 {
      let files = filesBelow(c.path("svg-out")).filter { $0.hasSuffix(".png") }
      for f in files {
        let tile = try RGBAImage.decode(file: c.path("svg-out/") + f)
        var sawRed = false
        for i in stride(from: 0, to: tile.pixels.count, by: 4) where tile.pixels[i] == 255 && tile.pixels[i + 1] == 0 && tile.pixels[i + 3] == 255 {
          sawRed = true
        }
        #expect(!sawRed, "the SVG drew a file from outside its directory")
      }
    }
  }
}
