import Dispatch
import Foundation
import Synchronization
import Testing
import TilecutCore
import TilecutFixtures
import TilecutProject

@testable import Tilecut
@testable import TilecutCLI

#if canImport(Glibc)
  import Glibc
#endif

/// A small seeded generator, so a failing vector can be reproduced from the seed in the message.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Numbers people and programs get wrong: limits, overflow edges, non-numbers.
let hostileNumbers = [
  "0", "1", "-1", "2", "3", "7", "22", "29", "30", "31", "32", "62", "63", "64", "-9223372036854775808", "9223372036854775807",
  "9223372036854775808", "99999999999999", "4294967296", "1e308", "-1e308", "6e307", "nan", "inf", "-inf", "1e-320", "0.5",
  "-0.0", "1.7976931348623157e308", "", " 1", "0x10", "1_000", "2147483647", "-2147483649",
]

/// One random command line: mostly hostile option values, some real small runs.
func hostileArguments(_ rng: inout SplitMix, input: String, output: String) -> [String] {
  func number() -> String { hostileNumbers.randomElement(using: &rng) ?? "0" }
  func pair() -> String { "\(number()),\(number())" }
  func quad() -> String { "\(number()),\(number()),\(number()),\(number())" }
  func pick(_ list: [String]) -> String { list.randomElement(using: &rng) ?? "" }
  func option() -> [String] {
    switch Int.random(in: 0..<23, using: &rng) {
    case 0: return ["--jobs", number()]
    case 1: return ["--floors", number()]
    case 2: return ["--first-floor", number()]
    case 3: return ["--min-zoom", number()]
    case 4: return ["--max-zoom", number()]
    case 5: return ["--max-tiles", number()]
    case 6: return ["--png-compression", number()]
    case 7: return ["--quality", number()]
    case 8: return ["--max-pixels", number()]
    case 9: return ["--center", pair(), "--meters-per-pixel", number(), "--rotation", number()]
    case 10: return ["--center", "51.5,-0.12", "--meters-per-pixel", number()]
    case 11: return ["--center", "51.5,-0.12", "--meters-per-pixel", "0.5", "--rotation", number()]
    case 12: return ["--bounds", quad()]
    case 13: return ["--bounds", "51.5,-0.13,51.51,\(number())"]
    case 14: return ["--gcp", "0,0,\(pair())", "--gcp", "\(pair()),51.5,-0.1"]
    case 15: return ["--tile-size", pick(["256", "512", "256,512", "768", "1024", "0", "-256", "256,256,256", number()])]
    case 16: return ["--shard", "\(number())/\(number())"]
    case 17:
      return [
        "--name",
        pick([
          "{z}{x}{y}.png", "L{floor}_{z}_{x}{y}", "../{z}_{x}_{y}", "{size}/{z}_{x}_{y}.png", "{z}/{x}/{y}", "{{z}}", "{z",
          "{floor}{size}_{z}_{x}_{y}",
        ]),
      ]
    case 18: return ["--background", "#ffffff:\(number())"]
    case 19: return ["--knockout", "white:\(number())"]
    case 20: return ["--format", pick(["png", "webp", "jpeg", "gif", ""])]
    case 21: return ["--stack", pick(["vertical", "horizontal", "diagonal"])]
    default: return ["--world-file-crs", number()]
    }
  }
  var args = [input, "-o", output, "-q"]
  for _ in 0..<Int.random(in: 1...4, using: &rng) { args += option() }
  // one vector in ten really renders; the rest plan only, so the suite stays quick
  if Int.random(in: 0..<10, using: &rng) == 0 && !args.contains("--max-tiles") {
    args += ["--max-tiles", "200", "--force"]
  } else {
    args.append("--dry-run")
  }
  return args
}

/// A manifest with one to three damaging edits: hostile numbers, wrong types, keys gone.
func mutate(_ manifest: Any, _ rng: inout SplitMix) -> Any {
  func hostileValue() -> Any {
    let choices: [Any] = [
      Int.max, Int.min, -1, 0, 31, 62, 1 << 40, 1_099_511_627_776, 1e300, -1e300, Double.pi, "12", NSNull(), [Any](), [String: Any](),
      [[0, 0, 1 << 40]], [[Int.max, Int.min, 0]], [0, 1, 2, 3], "../../../etc/passwd", "{z}{x}{y}", "/abs/{z}_{x}_{y}.png", true,
    ]
    return choices.randomElement(using: &rng) ?? 0
  }
  // every path to a leaf or container
  func paths(_ v: Any, _ prefix: [Any]) -> [[Any]] {
    var out: [[Any]] = [prefix]
    if let d = v as? [String: Any] {
      for (k, c) in d { out += paths(c, prefix + [k]) }
    } else if let a = v as? [Any] {
      for (i, c) in a.enumerated() { out += paths(c, prefix + [i]) }
    }
    return out
  }
  func set(_ v: Any, _ path: ArraySlice<Any>, _ value: Any?) -> Any {
    guard let head = path.first else { return value ?? NSNull() }
    if var d = v as? [String: Any], let k = head as? String {
      if path.count == 1 && value == nil { d[k] = nil } else { d[k] = set(d[k] ?? NSNull(), path.dropFirst(), value) }
      return d
    }
    if var a = v as? [Any], let i = head as? Int, i < a.count {
      if path.count == 1 && value == nil { a.remove(at: i) } else { a[i] = set(a[i], path.dropFirst(), value) }
      return a
    }
    return v
  }
  var result = manifest
  for _ in 0..<Int.random(in: 1...3, using: &rng) {
    let all = paths(result, []).filter { !$0.isEmpty }
    guard let path = all.randomElement(using: &rng) else { break }
    switch Int.random(in: 0..<10, using: &rng) {
    case 0: result = set(result, path[...], nil)
    case 1:
      // a level that claims a huge grid
      if var d = result as? [String: Any], var levels = d["levels"] as? [Any] {
        levels.append([
          "floor": 1, "tileSize": 256, "zoom": [5, 30, 62, -1].randomElement(using: &rng) ?? 5,
          "xRange": [0, [1_099_511_627_776, 31, 1 << 30].randomElement(using: &rng) ?? 0], "yRange": [0, 1 << 29],
          "rows": [[0, 0, 1 << 29]], "tileCount": 1 << 29,
        ])
        d["levels"] = levels
        result = d
      }
    default: result = set(result, path[...], hostileValue())
    }
  }
  return result
}

/// The binary make test names (TILECUT_TEST_BINARY: linked as the release binary is);
/// else the release binary when it is newer than every source file (it starts three
/// times faster, which is most of a fuzz case), else the debug one the suite built.
func fastestBinary() throws -> String {
  let debug = try tilecutBinary()
  if ProcessInfo.processInfo.environment["TILECUT_TEST_BINARY"] != nil { return debug }
  let root = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
  let release = root.appendingPathComponent(".build/release/tilecut").path
  func modified(_ path: String) -> Date? { (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date }
  guard let built = modified(release) else { return debug }
  let sources = root.appendingPathComponent("Sources").path
  let newest = filesBelow(sources).compactMap { modified(sources + "/" + $0) }.max() ?? .distantFuture
  return built > newest ? release : debug
}

@Suite("hostile numbers never trap (issue 13, item 4)", .serialized)
struct HostileNumbersTests {
  static let hostileOptionCases = [
    ["--jobs", "99999999999999"], ["--jobs", "0"], ["--rotation", "6e307"], ["--rotation", "nan"],
    ["--floors", "2", "--first-floor", "9223372036854775807"],
    ["--floors", "99999999"], ["--min-zoom", "31"], ["--max-pixels", "0"], ["--shard", "1/9223372036854775807"], ["--meters-per-pixel", "inf"],
  ]

  @Test("hostile options are usage errors naming the option", arguments: Self.hostileOptionCases)
  func hostileOptions(extra: [String]) throws {
    // one corpus for the cases (SharedCorpus says why that checks the same)
    let c = try SharedCorpus.take(#function, uses: Self.hostileOptionCases.count)
    defer { SharedCorpus.release(#function) }
    var args = [c.path("good.png"), "-o", c.path("out"), "--force"] + extra
    if extra.contains("--rotation") || extra.contains("--meters-per-pixel") {
      args += ["--center", "51.5,-0.1"] + (extra.contains("--meters-per-pixel") ? [] : ["--meters-per-pixel", "0.1"])
    }
    let r = try runTool(args)
    c.expectClean(r, status: 2, mentions: extra.first { $0.hasPrefix("--") && $0 != "--floors" } ?? extra[0])
  }

  /// Each option that takes a number, given a hexadecimal one (Swift's `Double("0x10")`
  /// is 16, `Double("0x1p3")` is 8), and the line it must be refused with.
  static let hexadecimalCases: [([String], String)] = [
    (["--meters-per-pixel", "0x10"], "error: The value '0x10' is invalid for '--meters-per-pixel <m>'"),
    (["--rotation", "0x10"], "error: The value '0x10' is invalid for '--rotation <deg>'"),
    (["--allow-residual", "0x1p3"], "error: The value '0x1p3' is invalid for '--allow-residual <px>'"),
    (["--nodata", "-0x10"], "error: The value '-0x10' is invalid for '--nodata <v>'"),
    (["--center", "0x1p5,-0.12"], "error: --center: '0x1p5' in '0x1p5,-0.12' is not a number"),
    (["--bounds", "51.5,-0.13,51.51,0x0"], "error: --bounds: '0x0' in '51.5,-0.13,51.51,0x0' is not a number"),
    (["--gcp", "0X10,0,51.5,-0.12"], "error: --gcp: '0X10' in '0X10,0,51.5,-0.12' is not a number"),
    (["--drawing-units", "0x10"], "error: --drawing-units: '0x10' is not a unit (m, cm, mm, in, ft, yd, km, mi, us-ft, or metres in one unit)"),
    (["--drawing-scale", "1:0x10"], "error: --drawing-scale: '1:0x10' is not a scale like 1:100 (one unit of paper is 100 on the ground)"),
    (["--scale", "0x0,0x10"], "error: --scale takes MIN,MAX with MIN below MAX, got '0x0,0x10'"),
  ]

  @Test("every option that takes a number takes it in decimal: 0x10 and 0x1p3 are refused as abc is, exit 2")
  func hexadecimalRefused() throws {
    // the options each needs beside it, so that the number is what is refused
    func arguments(_ option: [String]) -> [String] {
      var args = option
      if ["--meters-per-pixel", "--rotation", "--drawing-scale"].contains(option[0]) { args += ["--center", "51.5,-0.12"] }
      if ["--rotation", "--center"].contains(option[0]) { args += ["--meters-per-pixel", "0.5"] }
      if option[0] == "--gcp" { args += ["--gcp", "30,20,51.49,-0.11"] }
      return args
    }
    // the binary: a usage error, exit 2, one line, nothing written (a number option
    // of the parser's, one of the placement group's, one of the source pixels' group)
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 40, height: 30, seed: 3).writePNG(to: dir + "/tiny.png")
    let binary = try fastestBinary()
    let run = ["--meters-per-pixel", "--center", "--nodata"]
    for (option, line) in Self.hexadecimalCases where run.contains(option[0]) {
      let r = probe(binary, [dir + "/tiny.png", "-o", dir + "/out", "--dry-run"] + arguments(option))
      #expect(r.status == 2 && r.signal == 0 && r.stderr == line + "\n", "\(option): exit \(r.status): \(r.stderr)")
    }
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    // the others in-process, as the command line parses and checks them (a parse of the
    // whole command costs a tenth of a second of CPU in a debug build)
    for (option, line) in Self.hexadecimalCases where !run.contains(option[0]) {
      let refusal: Result<Void, any Error>
      switch option[0] {
      case "--bounds": refusal = Result { _ = try GeoBounds(parsing: option[1]) }
      case "--gcp": refusal = Result { _ = try ControlPoint(parsing: option[1]) }
      default: refusal = Result { _ = try TileCommand.parse(["tiny.png"] + arguments(option)) }
      }
      guard case .failure(let error) = refusal else {
        Issue.record("\(option) was accepted")
        continue
      }
      #expect("error: " + TileCommand.message(for: error) == line, "\(option)")
    }
  }

  @Test("the one reading of an option's number: decimal with a sign, a point and an exponent; nan and inf left to each option")
  func optionNumberReading() {
    for (text, value) in [("16", 16.0), ("-0.5", -0.5), ("+.5", 0.5), ("7.", 7), ("1e-3", 0.001), ("1E+3", 1000), ("-0", 0), ("00012", 12)] {
      #expect(OptionNumber.parse(text) == value, "\(text)")
    }
    // the words each option refuses (or, for --nodata, could take) in its own words
    for text in ["nan", "-NaN", "inf", "-Infinity", "+INF"] { #expect(OptionNumber.parse(text).map { !$0.isFinite } == true, "\(text)") }
    for text in [
      "0x10", "0X10", "-0x10", "0x1p3", "0x.8p1", "nan(0x1)", "snan", " 1", "1 ", "1_000", "", "+", "-", ".", "e5", "1e", "1e+", "1.2.3",
      "١", "1\u{0}", "1,5", "--1", "0b1", "0o7",
    ] {
      #expect(OptionNumber.parse(text) == nil, "\(text) was read as \(String(describing: OptionNumber.parse(text)))")
    }
  }

  /// A project file's number keys given a hexadecimal number, plain or quoted, alone or
  /// in a list, and the line each must be refused with (the command line refuses them too).
  static let projectHexadecimalCases: [(String, String)] = [
    ("metersPerPixel: 0x1p-1", "t.yml:7:25: 'metersPerPixel' must be a number, not '0x1p-1'"),
    ("rotation: \"0x10\"", "t.yml:8:19: 'rotation' must be a number, not '0x10'"),
    ("rotation: 0x1p3", "t.yml:8:19: 'rotation' must be a number, not '0x1p3'"),
    ("allowResidual: 0x10", "t.yml:8:24: 'allowResidual' must be a number, not '0x10'"),
    ("bounds: [51.5, -0.13, 51.51, -0X1]", "t.yml:6:38: 'bounds' must be a number, not '-0X1'"),
  ]

  @Test("a project file's numbers are decimal as the command line's are: 0x10 and 0x1p3 are refused, 12.5 and 1e-3 read")
  func projectHexadecimalRefused() throws {
    // a floor placed by center (or by `line` when that is a placement's key)
    func floor(_ line: String, center: String = "[51.5, -0.12]") -> String {
      let head = "buildings:\n  - id: a\n    floors:\n      - floor: 1\n        source: tiny.png\n"
      if line.hasPrefix("bounds") { return head + "        \(line)\n" }
      if line.hasPrefix("metersPerPixel") { return head + "        center: \(center)\n        \(line)\n" }
      return head + "        center: \(center)\n        metersPerPixel: 0.5\n        \(line)\n"
    }
    for (line, message) in Self.projectHexadecimalCases {
      let text = floor(line)
      let refusal = Result { try ProjectLoader.parse(text, file: "t.yml") }
      guard case .failure(let error as ProjectError) = refusal else {
        Issue.record("\(line) was not refused as a ProjectError: \(refusal)")
        continue
      }
      #expect(error.description == message, "\(line)")
    }
    // in a list, and in the comma-separated text tileSizes also takes
    for (text, message) in [
      (floor("rotation: 1", center: "[0x33, -0.12]"), "t.yml:6:18: 'center' must be a number, not '0x33'"),
      (
        "tileSizes: \"256, 0x200\"\n" + floor("rotation: 1"),
        "t.yml:1:12: 'tileSizes' must be a list of 1 to 3 numbers (or the same as comma-separated text)"
      ),
    ] {
      let refusal = Result { try ProjectLoader.parse(text, file: "t.yml") }
      guard case .failure(let error as ProjectError) = refusal else {
        Issue.record("\(text) was accepted")
        continue
      }
      #expect(error.description == message, "\(text)")
    }
    // YAML's plain integers and floats, and the command line's decimal forms, still read
    let project = try ProjectLoader.parse("tileSizes: \"256, 512\"\n" + floor("rotation: -1.25e1", center: "[+51.5, -.12]"), file: "t.yml")
    let options = project.buildings[0].floors[0]
    #expect(options.option("rotation")?.value == .number(-12.5))
    #expect(options.option("center")?.value == .numbers([51.5, -0.12]))
    #expect(options.option("metersPerPixel")?.value == .number(0.5))
    #expect(project.option("tileSizes")?.value == .numbers([256, 512]))
  }

  @Test("a manifest with numbers off the grid is one line naming the level, in verify, preview, merge and a run")
  func hostileManifest() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let path = c.path("out/manifest.json")
    var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    var levels = try #require(json["levels"] as? [[String: Any]])
    levels[1]["xRange"] = [0, 1_099_511_627_776]
    json["levels"] = levels
    try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
    let before = snapshot(c.path("out"))
    for args in [
      ["verify", c.path("out")], ["preview", c.path("out"), "--zoom", "1", "-o", c.path("sheet.png")], ["merge", c.path("m"), c.path("out")],
      [c.path("good.png"), "-o", c.path("out")],
    ] {
      let r = try runTool(args)
      #expect(!r.signalled && r.status == 1, "\(args[0]): \(r.status) \(r.stderr)")
      #expect(r.stderrLines.count == 1 && r.stderr.contains("manifest.json: level 1: x range 0…1099511627776 is outside zoom"), "\(r.stderr)")
      #expect(snapshot(c.path("out")) == before)
    }
  }

  /// The round of the fuzz's cases: 0 unless `TILECUT_FUZZ_ROUND` gives another whole
  /// number. Round r draws the cases from r·600 (manifests: r·300) on, from the same
  /// generators; a failure names its round and case. One round is under a third of what
  /// one run tried before (2,000 and 1,000 cases, 138 s of CPU, a tenth of make test's);
  /// round 0 is the first of those cases.
  static var fuzzRound: UInt64 {
    ProcessInfo.processInfo.environment["TILECUT_FUZZ_ROUND"].flatMap { UInt64($0) } ?? 0
  }

  @Test("fuzz: 600 argument vectors and 300 mutated manifests (a round): no signal, exit 0/1/2, bounded memory")
  func fuzz() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let binary = try fastestBinary()
    try picture(width: 40, height: 30, seed: 3).writePNG(to: dir + "/tiny.png")
    // the outputs the manifests are mutated in: a whole job with a preview, and its two shards
    let made = [
      probe(binary, [dir + "/tiny.png", "-o", dir + "/base", "-q", "--floors", "2", "--preview"]),
      probe(binary, [dir + "/tiny.png", "-o", dir + "/part1", "-q", "--floors", "2", "--shard", "1/2"]),
      probe(binary, [dir + "/tiny.png", "-o", dir + "/part2", "-q", "--floors", "2", "--shard", "2/2"]),
    ]
    #expect(made.allSatisfy { $0.status == 0 }, "\(made.map(\.stderr))")
    let baseManifest = try Data(contentsOf: URL(fileURLWithPath: dir + "/base/manifest.json"))
    let shardManifest = try Data(contentsOf: URL(fileURLWithPath: dir + "/part1/manifest.json"))

    let argumentCases = 600
    let manifestCases = 300
    let round = Self.fuzzRound
    // case i of round r: the same draws as case i + r·(cases) would have been
    let (argumentBase, manifestBase) = (round &* UInt64(argumentCases), round &* UInt64(manifestCases))
    let workers = 4
    let failures = Mutex<[String]>([])
    let worst = Mutex<(kb: Int, what: String)>((0, ""))
    let limitKB = 1_500_000
    onThreads(workers) { w in
      let home = dir + "/w\(w)"
      try? FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
      func check(_ args: [String], _ r: ProbeResult, _ label: String) {
        var problem: String?
        if r.timedOut {
          problem = "timed out"
        } else if r.signal != 0 {
          problem = "killed by signal \(r.signal)"
        } else if ![0, 1, 2].contains(r.status) {
          problem = "exit \(r.status)"
        } else if r.maxResidentKB > limitKB {
          problem = "peak memory \(r.maxResidentKB) KB"
        } else if r.status != 0 && !r.stderr.hasPrefix("error: ") {
          problem = "no error line"
        }
        worst.withLock { if r.maxResidentKB > $0.kb { $0 = (r.maxResidentKB, label) } }
        if let problem { failures.withLock { $0.append("\(label) \(problem): \(args.joined(separator: " ")) — \(r.stderr.prefix(300))") } }
      }
      var i = w
      while i < argumentCases {
        var rng = SplitMix(state: (argumentBase &+ UInt64(i)) &* 7919 &+ 1)
        let args = hostileArguments(&rng, input: dir + "/tiny.png", output: home + "/out")
        check(args, probe(binary, args, timeout: 60), "round \(round) arguments #\(i)")
        i += workers
      }
      i = w
      while i < manifestCases {
        var rng = SplitMix(state: (manifestBase &+ UInt64(i)) &* 104_729 &+ 17)
        let command = i % 4
        let target = home + "/m"
        try? FileManager.default.removeItem(atPath: target)
        try? FileManager.default.copyItem(atPath: dir + (command == 2 ? "/part1" : "/base"), toPath: target)
        let original = (try? JSONSerialization.jsonObject(with: command == 2 ? shardManifest : baseManifest)) ?? [String: Any]()
        let mutated = mutate(original, &rng)
        if let data = try? JSONSerialization.data(withJSONObject: mutated) {
          try? data.write(to: URL(fileURLWithPath: target + "/manifest.json"))
        }
        let args: [String]
        switch command {
        case 0: args = ["verify", target, "--jobs", "1"]
        case 1: args = ["preview", target, "--zoom", String(Int.random(in: 0...6, using: &rng)), "-o", home + "/sheet.png"]
        case 2: args = ["merge", home + "/merged", target, dir + "/part2"]
        default: args = [dir + "/tiny.png", "-o", target, "-q", "--floors", "2", "--preview"]
        }
        check(args, probe(binary, args, timeout: 60), "round \(round) manifest #\(i)")
        i += workers
      }
    }
    let found = failures.withLock { $0 }
    #expect(found.isEmpty, "\(found.count) failures, first: \(found.prefix(5).joined(separator: "\n"))")
    let peak = worst.withLock { $0 }
    #expect(peak.kb < limitKB, "peak \(peak.kb) KB in \(peak.what)")
  }
}
