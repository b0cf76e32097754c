import Foundation
import Testing
import TilecutCore
import TilecutFixtures

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 37 (the third attack): nothing read that the user did not name, no file's bytes
/// repeated in a line, no world file believed when damaged, no control character or
/// megabyte value printed as it is.
@Suite("Reading hardened: sidecar links, secrets, damaged world files, escaped lines", .serialized)
struct ReadHardeningTests {
  /// A folder with plan.png (60 × 40) and its world file, and a folder beside it (outside)
  /// holding a fake secret.
  struct Folder {
    let dir: String
    let outside: String
    static let secret = "hunter2SECRET"
    static let environment = "PATH=/usr/bin\0AWS_SECRET_ACCESS_KEY=\(secret)\0DATA_FILE=/etc/x\0TOKEN=abc\0"

    init(_ name: String = #function) throws {
      dir = try scratch(name)
      outside = dir + "-outside"
      try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
      try picture(width: 60, height: 40).writePNG(to: dir + "/plan.png")
      try "0.5\n0\n0\n-0.5\n-14000\n6711000\n".write(toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
      try Self.environment.write(toFile: outside + "/env", atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { dir + "/" + name }

    func link(_ name: String, to target: String) throws {
      unlink(path(name))
      try FileManager.default.createSymbolicLink(atPath: path(name), withDestinationPath: target)
    }

    func remove() {
      try? FileManager.default.removeItem(atPath: dir)
      try? FileManager.default.removeItem(atPath: outside)
    }
  }

  /// `tilecut ARGS` in `dir` through the shell, with `CI_SECRET_FOR_TEST` in its environment.
  func withSecret(_ dir: String, _ args: [String]) throws -> RunResult {
    let quoted = ([try tilecutBinary()] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    return try runTool([], shell: "cd '\(dir)' && CI_SECRET_FOR_TEST=\(Folder.secret) " + quoted.joined(separator: " "))
  }

  @Test("a .prj, --source-crs or a project's sourceCrs that holds or links to secrets: refused, no byte of it in the line")
  func secretsNeverQuoted() throws {
    let f = try Folder()
    defer { f.remove() }
    func expectRefused(_ r: RunResult, status: Int32, naming: String, sourceLocation: SourceLocation = #_sourceLocation) {
      #expect(r.status == status && r.stderrLines.count == 1, "\(r.stderr)", sourceLocation: sourceLocation)
      #expect(r.stderr.hasPrefix("error: ") && r.stderr.contains(naming), "\(r.stderr)", sourceLocation: sourceLocation)
      for leak in [Folder.secret, "AWS_SECRET", "TOKEN=", "PATH="] {
        #expect(!r.stderr.contains(leak) && !r.stdout.contains(leak), "\(leak) leaked: \(r.stderr)", sourceLocation: sourceLocation)
      }
    }
    // a .prj beside the plan: a link out of the folder, a copy of the secrets, a link to the environment
    try f.link("plan.prj", to: f.outside + "/env")
    expectRefused(try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run"]), status: 1, naming: "plan.prj")
    unlink(f.path("plan.prj"))
    try Folder.environment.write(toFile: f.path("plan.prj"), atomically: true, encoding: .utf8)
    expectRefused(try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run"]), status: 1, naming: "plan.prj")
    try "AWS_SECRET=\(Folder.secret) hello".write(toFile: f.path("plan.prj"), atomically: true, encoding: .utf8)
    let text = try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run"])
    expectRefused(text, status: 1, naming: "plan.prj")
    #expect(text.stderr.contains("is not WKT or a PROJ string"), "\(text.stderr)")
    try f.link("plan.prj", to: "/proc/self/environ")
    expectRefused(try withSecret(f.dir, ["plan.png", "-o", "out", "--dry-run"]), status: 1, naming: "plan.prj")
    unlink(f.path("plan.prj"))
    // --source-crs naming the environment, a link to it, or a file of secrets
    try f.link("crs.wkt", to: "/proc/self/environ")
    for crs in ["/proc/self/environ", "crs.wkt", f.outside + "/env"] {
      expectRefused(try withSecret(f.dir, ["plan.png", "-o", "out", "--dry-run", "--source-crs", crs]), status: 2, naming: "--source-crs")
    }
    // a project file's sourceCrs
    let project = """
      output: t
      maxZoom: 18
      tileSizes: [256]
      buildings:
        - id: hq
          floors:
            - floor: 1
              source: plan.png
              sourceCrs: \(f.outside)/env
      """
    try project.write(toFile: f.path("tilecut.yml"), atomically: true, encoding: .utf8)
    let built = try runIn(f.dir, ["build", "tilecut.yml", "--dry-run"])
    #expect(built.status != 0 && built.stderrLines.count == 1, "\(built.stderr)")
    #expect(!built.stderr.contains(Folder.secret) && !built.stderr.contains("AWS_SECRET"), "\(built.stderr)")
  }

  @Test("a source in /proc or /sys, a link to one, or a project's: named as the kernel's file, never opened, no byte of it in the line")
  func kernelFileSources() throws {
    let f = try Folder()
    defer { f.remove() }
    try f.link("env.png", to: "/proc/self/environ")
    let proc = "is a file of the kernel's /proc file system, which tilecut does not read; give an image file"
    var cases = [("/proc/self/environ", proc), ("env.png", proc)]
    // a /sys file states a page's size, not 0
    if let sys = ["/sys/devices/system/cpu/online", "/sys/kernel/mm/transparent_hugepage/enabled"].first(where: { fileKind($0) == S_IFREG }) {
      cases.append((sys, "is a file of the kernel's /sys file system, which tilecut does not read; give an image file"))
    }
    for (input, says) in cases {
      let r = try withSecret(f.dir, [input, "-o", "out", "--dry-run"])
      #expect(r.status == 1 && r.stderrLines == ["error: \(input): \(says)"], "\(r.stderr)")
      #expect(!r.stderr.contains(Folder.secret) && !r.stderr.contains("PATH="), "\(r.stderr)")
    }
    let project = "output: t\nbuildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: /proc/self/environ\n"
    try project.write(toFile: f.path("tilecut.yml"), atomically: true, encoding: .utf8)
    let built = try withSecret(f.dir, ["build", "tilecut.yml", "--dry-run"])
    #expect(built.status == 1 && built.stderrLines.count == 1 && built.stderr.contains("/proc/self/environ: \(proc)"), "\(built.stderr)")
    #expect(!built.stderr.contains(Folder.secret), "\(built.stderr)")
    // not opened: refused by its name and kind
    let strace = "/usr/bin/strace"
    try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is a test package (make test-deps)")
    let trace = f.path("trace.txt")
    let binary = try tilecutBinary()
    _ = try runTool([], shell: "cd '\(f.dir)' && \(strace) -f -qq -e trace=openat,open -o '\(trace)' '\(binary)' env.png -o out --dry-run -q")
    let opened = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("environ") || $0.contains("env.png") }
    #expect(opened.isEmpty, "opened \(opened)")
  }

  @Test("a sidecar that links out of the input's folder is refused naming it, and never opened (strace)")
  func sidecarLinksNeverOpened() throws {
    let strace = "/usr/bin/strace"
    try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is a test package (make test-deps)")
    let f = try Folder()
    defer { f.remove() }
    try GeoTIFFWriter.write(
      path: f.path("g.tif"), width: 64, height: 64, bands: 3, pixels: [UInt8](repeating: 90, count: 64 * 64 * 3),
      tiepoint: [0, 0, 0, -14000, 6_711_000, 0], scale: [0.5, 0.5, 0], shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3857)])
    let binary = try tilecutBinary()
    func traced(_ input: String) throws -> (RunResult, [Substring]) {
      let trace = f.path("trace.txt")
      let r = try runTool(
        [],
        shell:
          "cd '\(f.dir)' && \(strace) -f -qq -e trace=openat,open,stat,newfstatat -o '\(trace)' '\(binary)' '\(input)' -o out --dry-run -q")
      let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
      unlink(trace)
      return (r, lines.filter { $0.contains(f.outside) && ($0.contains("open(") || $0.contains("openat(")) })
    }
    // the GeoTIFF driver's sidecars, GDAL's PAM and overviews, a world file
    for name in ["g.IMD", "g.RPB", "g.xml", "g.aux", "g.tif.msk", "g.tif.ovr", "g_RPC.TXT", "g.tif.aux.xml", "g.tfw"] {
      try "x\n".write(toFile: f.outside + "/" + name, atomically: true, encoding: .utf8)
      try f.link(name, to: f.outside + "/" + name)
      let (r, opened) = try traced("g.tif")
      #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains(name + ":"), "\(name): \(r.stderr)")
      #expect(r.stderr.contains("leads out of the input's folder"), "\(name): \(r.stderr)")
      #expect(opened.isEmpty, "\(name): opened \(opened)")
      unlink(f.path(name))
    }
    // a name GDAL reads that is not named after the input (Landsat's scene_MTL.txt beside
    // scene_B1.TIF) is not given to GDAL at all: the run places the image, nothing outside opened
    try FileManager.default.copyItem(atPath: f.path("g.tif"), toPath: f.path("scene_B1.TIF"))
    try "GROUP = L1_METADATA_FILE\nEND_GROUP = L1_METADATA_FILE\nEND\n".write(
      toFile: f.outside + "/scene_MTL.txt", atomically: true, encoding: .utf8)
    try f.link("scene_MTL.txt", to: f.outside + "/scene_MTL.txt")
    let (r, opened) = try traced("scene_B1.TIF")
    #expect(r.status == 0, "\(r.stderr)")
    #expect(opened.isEmpty, "opened \(opened)")
    // and links into /proc are refused like links out
    try f.link("g.IMD", to: "/proc/self/environ")
    let proc = try withSecret(f.dir, ["g.tif", "-o", "out", "--dry-run"])
    #expect(proc.status == 1 && proc.stderr.contains("g.IMD:") && proc.stderr.contains("/proc"), "\(proc.stderr)")
    #expect(!proc.stderr.contains(Folder.secret))
  }

  @Test(
    "a damaged world file beside the input is refused by tilecut's parser, naming it, even where GDAL reads it",
    arguments: [
      "hello\n0\n0\n-0.5\n-14000\n6711000", "0.1abc\n0\n0\n-0.5\n-14000\n6711000", "nan\n0\n0\n-0.5\n-14000\n6711000",
      "0.5\n0\n0\n-inf\n-14000\n6711000", "1e308\n0\n0\n-1e308\n-14000\n6711000", "1\n2\n2\n4\n-14000\n6711000",
      "1e-12\n0\n0\n-1e-12\n-14000\n6711000", "0\n0\n0\n0\n-14000\n6711000",
    ])
  func damagedWorldFile(text: String) throws {
    let f = try Folder()
    defer { f.remove() }
    try webMercatorESRI.write(toFile: f.path("plan.prj"), atomically: true, encoding: .utf8)
    try (text + "\n").write(toFile: f.path("plan.pgw"), atomically: true, encoding: .utf8)
    let r = try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run"])
    // exit 1 (the file's fault, not an option's), one line, the world file named first
    #expect(r.status == 1 && r.stderrLines.count == 1, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("error: plan.pgw: ") || r.stderr.hasPrefix("error: \(f.dir)/plan.pgw: "), "\(r.stderr)")
    #expect(!r.stderr.contains("--world-file"), "\(r.stderr)")
    // a world file found beside the input is described, not quoted
    #expect(!r.stderr.contains("'hello'") && !r.stderr.contains("'0.1abc'"), "\(r.stderr)")
  }

  @Test("a world file that placed the image is named in the placement line, not the .aux.xml beside it")
  func placedByWorldFile() throws {
    let f = try Folder()
    defer { f.remove() }
    let aux = "<PAMDataset><SRS>EPSG:3857</SRS><GeoTransform>-15000, 1, 0, 6712000, 0, -1</GeoTransform></PAMDataset>"
    try aux.write(toFile: f.path("plan.png.aux.xml"), atomically: true, encoding: .utf8)
    let r = try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run"])
    #expect(r.status == 0, "\(r.stderr)")
    // GDAL's PNG driver takes the world file's numbers: 0.5 m pixels (0.311 m on the ground at 51.5° N)
    #expect(r.stderr.contains("placed by world-file") && r.stderr.contains("0.311 m per source pixel"), "\(r.stderr)")
  }

  @Test("control characters in a file name or a CRS's name come out escaped, on stderr and in every line")
  func controlCharactersEscaped() throws {
    let f = try Folder()
    defer { f.remove() }
    let odd = "x\u{1B}]0;pwned\u{07}\u{202E}.png"
    try FileManager.default.copyItem(atPath: f.path("plan.png"), toPath: f.path(odd))
    let named = try runIn(f.dir, [odd, "-o", "out", "--dry-run"])
    #expect(named.status == 0, "\(named.stderr)")
    #expect(named.stderr.contains("x\\u{1b}]0;pwned\\u{7}\\u{202e}.png has no georeference"), "\(named.stderr)")
    let evil = webMercatorESRI.replacingOccurrences(of: "WGS_1984_Web_Mercator_Auxiliary_Sphere", with: "Evil\u{1B}]52;c;aGk=\u{07}\u{9B}2J")
    try evil.write(toFile: f.path("plan.prj"), atomically: true, encoding: .utf8)
    let crs = try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run"])
    #expect(crs.status == 0, "\(crs.stderr)")
    #expect(crs.stderr.contains("CRS Evil\\u{1b}]52;c;aGk=\\u{7}\\u{9b}2J"), "\(crs.stderr)")
    for r in [named, crs] {
      let raw = (r.stderr + r.stdout).unicodeScalars.filter { $0 != "\n" && Quote.isEscaped($0) }
      #expect(raw.isEmpty, "raw control characters: \(raw.map(\.value))")
    }
  }

  @Test("an error quotes at most ~100 characters of a value, escaped: a huge --name or project key, a newline in --basemap")
  func valuesQuotedShort() throws {
    let f = try Folder()
    defer { f.remove() }
    let name = try runIn(f.dir, ["plan.png", "-o", "out", "--dry-run", "--name", String(repeating: "n", count: 100_000) + "{x}{y}"])
    #expect(name.status == 2 && name.stderrLines.count == 1 && name.stderr.count < 400, "\(name.stderr.prefix(500))")
    #expect(name.stderr.contains("…") && name.stderr.contains("{z}"), "\(name.stderr.prefix(500))")
    // a megabyte key (a YAML complex key) is neither repeated nor compared letter by letter with every key
    let key = String(repeating: "k", count: 1_000_000)
    let project = "output: t\nmaxZoom: 18\n? \(key)\n: 1\nbuildings:\n  - id: hq\n    floors:\n      - floor: 1\n        source: plan.png\n"
    try project.write(toFile: f.path("tilecut.yml"), atomically: true, encoding: .utf8)
    let unknown = try runIn(f.dir, ["build", "tilecut.yml", "--dry-run"], timeout: 60)
    #expect(unknown.status == 2 && unknown.stderrLines.count == 1 && unknown.stderr.contains("unknown key"), "\(unknown.stderr.prefix(300))")
    #expect(unknown.stderr.count < 1000, "\(unknown.stderr.count) characters")
    // a newline in the URL no longer cuts the line before its reason
    let basemap = try runIn(f.dir, ["georef", "plan.png", "--basemap", "https://x/{z}/{x}/{y}.png\nevil", "-o", "p.html"])
    #expect(basemap.status == 2 && basemap.stderrLines.count == 1, "\(basemap.stderr)")
    #expect(basemap.stderr.contains("png\\nevil") && basemap.stderr.contains("percent-encode"), "\(basemap.stderr)")
  }

  @Test("libvips' modules: a HEIF plan opens only the HEIF one, a PNG plan none; ImageMagick never (strace)")
  func onlyAllowedModulesLoaded() throws {
    let strace = "/usr/bin/strace"
    try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is a test package (make test-deps)")
    let f = try Folder()
    defer { f.remove() }
    // an AVIF (HEIF) plan, written by libvips' own heifsave in this process
    try picture(width: 60, height: 40).writePNG(to: f.path("plan.avif") + "[lossless]")
    let binary = try tilecutBinary()
    func traced(_ input: String) throws -> (RunResult, [Substring]) {
      let trace = f.path("trace.txt")
      let r = try runTool(
        [],
        shell: "cd '\(f.dir)' && \(strace) -f -qq -e trace=openat,open -o '\(trace)' '\(binary)' \(input) -o out -q --force "
          + "--center 51.5,-0.12 --meters-per-pixel 0.5")
      let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { !$0.contains("ENOENT") }
      unlink(trace)
      return (r, lines)
    }
    let unwanted = ["vips-magick", "libMagick", "vips-openslide", "libopenslide", "vips-jxl"]
    let (heif, heifOpened) = try traced("plan.avif")
    #expect(heif.status == 0, "\(heif.stderr)")
    #expect(FileManager.default.fileExists(atPath: f.path("out/manifest.json")))
    for name in unwanted {
      #expect(!heifOpened.contains { $0.contains(name) }, "\(name) opened: \(heifOpened.filter { $0.contains(name) })")
    }
    #expect(heifOpened.contains { $0.contains("vips-heif") || $0.contains("libheif") }, "the HEIF module was not opened")
    // a PNG plan needs no module at all
    let (png, pngOpened) = try traced("plan.png")
    #expect(png.status == 0, "\(png.stderr)")
    for name in unwanted + ["vips-heif", "libheif", "vips-poppler"] {
      #expect(!pngOpened.contains { $0.contains(name) }, "\(name) opened: \(pngOpened.filter { $0.contains(name) })")
    }
  }

  @Test("a sidecar GDAL reads whole (.aux.xml, .IMD, .RPB, _RPC.TXT) past 256 KB is refused naming it and its size, before GDAL reads it")
  func sidecarsSized() throws {
    // CPU: 5 dry runs of a 64² GeoTIFF, 1.6 s with the harness; the sidecars are sparse (no bytes on disk)
    let f = try Folder()
    defer { f.remove() }
    try GeoTIFFWriter.write(
      path: f.path("g.tif"), width: 64, height: 64, bands: 3, pixels: [UInt8](repeating: 90, count: 64 * 64 * 3),
      tiepoint: [0, 0, 0, -14000, 6_711_000, 0], scale: [0.5, 0.5, 0], shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3857)])
    let heads = [
      "g.tif.aux.xml": "<PAMDataset>\n", "g.IMD": "BEGIN_GROUP = IMAGE_1\n", "g.RPB": "satId = \"X\";\n", "g_RPC.TXT": "LINE_OFF: 1\n",
    ]
    for (name, head) in heads.sorted(by: { $0.key < $1.key }) {
      // 0.18.0 let GDAL read them: 3 GB of memory for a 3 GB .aux.xml under --max-memory 128
      try head.write(toFile: f.path(name), atomically: true, encoding: .utf8)
      #expect(truncate(f.path(name), (256 << 10) + 1) == 0)
      let r = try runIn(f.dir, ["g.tif", "-o", "out", "--dry-run", "--max-memory", "128"])
      #expect(r.status == 1 && r.stderrLines.count == 1, "\(name): \(r.stderr)")
      #expect(r.stderr.contains("\(name): is \((256 << 10) + 1) bytes, more than 256 KB"), "\(name): \(r.stderr)")
      #expect(r.stderr.contains("remove it or move it away"), "\(name): \(r.stderr)")
      unlink(f.path(name))
    }
    // one of 256 KB is read as before, and big files GDAL does not read whole (a PDF, ArcGIS's
    // g.tif.xml with its lineage) are not refused
    try "<PAMDataset>\n".write(toFile: f.path("g.tif.aux.xml"), atomically: true, encoding: .utf8)
    #expect(truncate(f.path("g.tif.aux.xml"), 256 << 10) == 0)
    for name in ["g.pdf", "g.tif.xml"] {
      try "<metadata>".write(toFile: f.path(name), atomically: true, encoding: .utf8)
      #expect(truncate(f.path(name), 64 << 20) == 0)
    }
    let fine = try runIn(f.dir, ["g.tif", "-o", "out", "--dry-run"])
    #expect(fine.status == 0, "\(fine.stderr)")
  }

  @Test("an SVG's reference outside its folder (absolute, .., /proc, a link out) is refused unopened and never listed; inside ones tile")
  func svgReferencesOutside() throws {
    // CPU: 8 refused runs and one of a 100² SVG to zoom 1 under strace, 1.9 s with the harness
    let strace = "/usr/bin/strace"
    try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is a test package (make test-deps)")
    let f = try Folder()
    defer { f.remove() }
    let out = f.outside
    let up = "../" + URL(fileURLWithPath: out).lastPathComponent
    try picture(width: 20, height: 20).writePNG(to: out + "/secret.png")
    for name in ["secret.css", "secret.svg", "secret.txt", "secret.ttf"] {
      try "rect { fill: red } \(Folder.secret)".write(toFile: out + "/" + name, atomically: true, encoding: .utf8)
    }
    try f.link("link.png", to: out + "/secret.png")
    let open =
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" width="100" height="100">"#
    let cases: [(prolog: String, body: String)] = [
      (#"<?xml-stylesheet type="text/css" href="\#(out)/secret.css"?>"#, ""),
      ("", #"<image width="5" height="5" href="\#(out)/secret.png"/>"#),
      ("", #"<image width="5" height="5" xlink:href="\#(up)/secret.png"/>"#),
      ("", #"<style>@import url("/proc/self/environ");</style>"#),
      ("", #"<use href="\#(up)/secret.svg#a"/>"#),
      ("", #"<style>@font-face { font-family: x; src: url(\#(out)/secret.ttf) }</style>"#),
      ("", #"<text><xi:include href="\#(up)/secret.txt" parse="text"/></text>"#),
      ("", #"<image width="5" height="5" href="link.png"/>"#),
    ]
    let binary = try tilecutBinary()
    for (i, c) in cases.enumerated() {
      try (c.prolog + open + c.body + "<rect width=\"5\" height=\"5\"/></svg>").write(toFile: f.path("s\(i).svg"), atomically: true, encoding: .utf8)
      let trace = f.path("trace.txt")
      let r = try runTool(
        [],
        shell:
          "cd '\(f.dir)' && CI_SECRET_FOR_TEST=\(Folder.secret) \(strace) -f -qq -e trace=openat,open -o '\(trace)' '\(binary)' s\(i).svg -o out --depfile s\(i).d -q"
      )
      let opened = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
        $0.contains(out) || $0.contains("environ")
      }
      unlink(trace)
      #expect(r.status == 1 && r.stderrLines.count == 1, "s\(i): \(r.stderr)")
      #expect(r.stderr.contains("s\(i).svg: refers to '") && r.stderr.contains("outside its folder"), "s\(i): \(r.stderr)")
      #expect(!r.stderr.contains(Folder.secret) && !r.stderr.contains("rect {"), "s\(i): \(r.stderr)")
      #expect(opened.isEmpty, "s\(i): opened \(opened)")
      #expect(!FileManager.default.fileExists(atPath: f.path("s\(i).d")), "s\(i): a depfile was written")
    }
    // references inside the folder, also through sub/.. and an absolute path: drawn and listed
    try FileManager.default.createDirectory(atPath: f.path("sub"), withIntermediateDirectories: true)
    try picture(width: 20, height: 20).writePNG(to: f.path("sub/photo.png"))
    try "rect { stroke: green }".write(toFile: f.path("sub/plain.css"), atomically: true, encoding: .utf8)
    let inside =
      open
      + #"<style>@import "sub/../sub/plain.css";</style><image href="sub/photo.png" width="20" height="20"/><image href="\#(f.dir)/plan.png" width="6" height="4"/><rect width="5" height="5"/></svg>"#
    try inside.write(toFile: f.path("inside.svg"), atomically: true, encoding: .utf8)
    let made = try runIn(f.dir, ["inside.svg", "-o", "inside-out", "--max-zoom", "1", "-q", "--depfile", "inside.d"])
    #expect(made.status == 0, "\(made.stderr)")
    let dep = (try? String(contentsOfFile: f.path("inside.d"), encoding: .utf8)) ?? ""
    #expect(dep.contains("sub/photo.png") && dep.contains("plain.css") && dep.contains("plan.png"), "\(dep)")
  }
}
