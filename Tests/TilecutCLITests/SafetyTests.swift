import ArgumentParser
import Foundation
import Testing
import TilecutCore
import TilecutDirectoryStore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

#if canImport(Glibc)
  import Glibc
#endif

/// A heavy SVG: thousands of blurred curves make librsvg slow at any zoom.
func heavySVG(elements: Int = 3000) -> String {
  var rng = SystemRandomNumberGenerator()
  var body = ""
  for _ in 0..<elements {
    let n = (0..<8).map { _ in Int.random(in: 0...600, using: &rng) }
    body +=
      "<path d=\"M\(n[0]) \(n[1]) C \(n[2]) \(n[3]) \(n[4]) \(n[5]) \(n[6]) \(n[7])\" stroke=\"#3366aa\" stroke-width=\"3\" fill=\"none\" filter=\"url(#b)\"/>"
  }
  let head =
    #"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><defs><filter id="b"><feGaussianBlur stdDeviation="4"/></filter></defs>"#
  return head + body + "</svg>"
}

func write(_ text: String, to path: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }

@Suite("safety for unattended pipelines (issue 13)", .serialized)
struct SafetyTests {
  // MARK: 1. ownership

  @Test("a folder that is not tilecut's is refused before rendering, naming the first foreign path")
  func foreignFolders() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    // a web app's folder with its own manifest.json
    try FileManager.default.createDirectory(atPath: c.path("web"), withIntermediateDirectories: true)
    try write(#"{"name": "my app", "start_url": "/"}"#, to: c.path("web/manifest.json"))
    try write("<html></html>", to: c.path("web/index.html"))
    let web = snapshot(c.path("web"))
    c.expectClean(try runTool([c.path("good.png"), "-o", c.path("web")]), status: 1, mentions: "web/index.html")
    #expect(snapshot(c.path("web")) == web)
    // a file a user put into an earlier output
    try write("master plan", to: c.path("out/256/plan-copy.pdf"))
    let r = try runTool([c.path("good.png"), "-o", c.path("out"), "--force"])
    #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("out/256/plan-copy.pdf"), "\(r.stderr)")
    #expect(FileManager.default.contents(atPath: c.path("out/256/plan-copy.pdf")) == Data("master plan".utf8))
    // a symbolic link inside an output is not tilecut's either
    try FileManager.default.removeItem(atPath: c.path("out/256/plan-copy.pdf"))
    try FileManager.default.createSymbolicLink(atPath: c.path("out/link"), withDestinationPath: c.path("good.png"))
    let l = try runTool([c.path("good.png"), "-o", c.path("out"), "--force"])
    #expect(l.status == 1 && l.stderr.contains("out/link"), "\(l.stderr)")
    try FileManager.default.removeItem(atPath: c.path("out/link"))
    // its own output is replaced as before
    let again = try runTool([c.path("good.png"), "-o", c.path("out"), "--force", "-q"])
    #expect(again.status == 0, "\(again.stderr)")
  }

  @Test("the swap replaces only the directory that was inspected; a new one that appears is never deleted")
  func exchangeChecksIdentity() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let template = try TileNameTemplate("{z}_{x}_{y}.png")
    func manifest() -> Manifest {
      Manifest(
        tileSizes: [256], floors: [1], name: template.pattern,
        levels: [
          Manifest.Level(
            floor: 1, tileSize: 256, range: TileRange(zoom: 0, xRange: 0...0, yRange: 0...0), tiles: [TileCoordinate(zoom: 0, x: 0, y: 0)])
        ],
        footprints: [], generator: .init(version: "t", libvips: "t"), sources: [], options: [:], fingerprint: "f")
    }
    // nothing at -o when the run starts; someone creates it meanwhile: publish refuses, theirs stays
    let out = dir + "/out"
    let store = DirectoryTileStore(path: out, template: template)
    try store.inspect()
    try store.begin()
    try store.put([1, 2, 3], floor: 1, tileSize: 256, tile: TileCoordinate(zoom: 0, x: 0, y: 0))
    try store.finish(manifest: manifest(), files: [:])
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
    try write("theirs", to: out + "/theirs.txt")
    #expect(throws: TilecutError.self) { try store.commit() }
    store.abort()
    #expect(FileManager.default.contents(atPath: out + "/theirs.txt") == Data("theirs".utf8))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["out"])
    try FileManager.default.removeItem(atPath: out)

    // a tilecut output that is replaced by another directory during the run survives
    let first = DirectoryTileStore(path: out, template: template)
    try first.inspect()
    try first.begin()
    try first.put([1], floor: 1, tileSize: 256, tile: TileCoordinate(zoom: 0, x: 0, y: 0))
    try first.finish(manifest: manifest(), files: [:])
    try first.commit()
    let second = DirectoryTileStore(path: out, template: template)
    try second.inspect()
    try second.begin()
    try second.put([2], floor: 1, tileSize: 256, tile: TileCoordinate(zoom: 0, x: 0, y: 0))
    try second.finish(manifest: manifest(), files: [:])
    // swap in an identical-looking but different directory
    try FileManager.default.moveItem(atPath: out, toPath: dir + "/moved")
    try FileManager.default.copyItem(atPath: dir + "/moved", toPath: out)
    let before = snapshot(out)
    #expect(throws: TilecutError.self) { try second.commit() }
    second.abort()
    #expect(snapshot(out) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["moved", "out"])
  }

  @Test("staging is removed wherever the output's folder was moved during the run, and the error names the output")
  func stagingFollowsMovedParent() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let template = try TileNameTemplate("{z}/{x}_{y}.png")
    let tile = TileCoordinate(zoom: 0, x: 0, y: 0)
    let manifest = Manifest(
      tileSizes: [256], floors: [1], name: template.pattern,
      levels: [Manifest.Level(floor: 1, tileSize: 256, range: TileRange(zoom: 0, xRange: 0...0, yRange: 0...0), tiles: [tile])],
      footprints: [], generator: .init(version: "t", libvips: "t"), sources: [], options: [:], fingerprint: "f")
    // a tile written after the move, a commit after it, each with and without a previous output
    for (moment, previous) in [("write", false), ("commit", false), ("write", true), ("commit", true)] {
      let par = dir + "/par"
      try FileManager.default.createDirectory(atPath: par, withIntermediateDirectories: true)
      let out = par + "/out"
      if previous {
        let first = DirectoryTileStore(path: out, template: template)
        try first.begin()
        try first.put([1], floor: 1, tileSize: 256, tile: tile)
        try first.finish(manifest: manifest, files: [:])
        try first.commit()
      }
      let before = snapshot(out)
      let store = DirectoryTileStore(path: out, template: template)
      try store.inspect()
      try store.begin()
      if moment == "commit" {
        try store.put([2], floor: 1, tileSize: 256, tile: tile)
        try store.finish(manifest: manifest, files: [:])
      }
      try FileManager.default.moveItem(atPath: par, toPath: dir + "/moved")
      do {
        if moment == "write" {
          try store.put([2], floor: 1, tileSize: 256, tile: tile)
        } else {
          try store.commit()
        }
        Issue.record("\(moment): no error")
      } catch {
        let line = "\(error)"
        #expect(line.hasPrefix(out + ":") && !line.contains(".tilecut-staging"), "\(moment): \(line)")
      }
      store.abort()
      let left = try FileManager.default.contentsOfDirectory(atPath: dir + "/moved")
      #expect(left == (previous ? ["out"] : []), "\(moment), previous \(previous): \(left)")
      #expect(snapshot(dir + "/moved/out") == before)
      try FileManager.default.removeItem(atPath: dir + "/moved")
    }
  }

  @Test("files and folders of the user's named like staging are left alone; only tilecut's abandoned staging is removed")
  func stagingLookalikes() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let dead: Int32 = 999_999
    guard kill(dead, 0) != 0 else { return }
    // beside the output: a file, a folder and a link named like staging of a dead run
    try write("mine", to: c.path(".out.tilecut-staging-\(dead)-1"))
    try FileManager.default.createDirectory(atPath: c.path(".out.tilecut-staging-\(dead)-2"), withIntermediateDirectories: false)
    try write("mine too", to: c.path(".out.tilecut-staging-\(dead)-2/notes.txt"))
    try FileManager.default.createSymbolicLink(atPath: c.path(".out.tilecut-staging-\(dead)-3"), withDestinationPath: c.path("good.png"))
    // and tilecut's own staging of a run that was killed: a folder with its marker
    let abandoned = c.path(".out.tilecut-staging-\(dead)-4")
    try FileManager.default.createDirectory(atPath: abandoned + "/256", withIntermediateDirectories: true)
    try write("tilecut staging\n", to: abandoned + "/.tilecut-staging")
    // inside the output: a file of the user's named like in-place staging stops the run
    try write("mine", to: c.path("out/.tilecut-staging-\(dead)-1"))
    let before = snapshot(c.dir)
    let r = try runTool([c.path("good.png"), "-o", c.path("out"), "--force"])
    #expect(r.status == 1 && r.stderrLines.count == 1 && r.stderr.contains("out/.tilecut-staging-\(dead)-1"), "\(r.stderr)")
    let theirs = { (files: [String: Data]) in files.filter { !$0.key.hasPrefix(".out.tilecut-staging-\(dead)-4") } }
    #expect(theirs(snapshot(c.dir)) == theirs(before))
    try FileManager.default.removeItem(atPath: c.path("out/.tilecut-staging-\(dead)-1"))
    let again = try runTool([c.path("good.png"), "-o", c.path("out"), "--force", "-q"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(FileManager.default.contents(atPath: c.path(".out.tilecut-staging-\(dead)-1")) == Data("mine".utf8))
    #expect(FileManager.default.contents(atPath: c.path(".out.tilecut-staging-\(dead)-2/notes.txt")) == Data("mine too".utf8))
    #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: c.path(".out.tilecut-staging-\(dead)-3"))) == c.path("good.png"))
    #expect(!FileManager.default.fileExists(atPath: abandoned))
    // the output holds no marker of its staging
    #expect(!FileManager.default.fileExists(atPath: c.path("out/.tilecut-staging")))
  }

  @Test("staging whose marker another run holds locked is left alone, even when that run's process is not visible (another PID namespace)")
  func lockedStagingKept() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let unseen: Int32 = 999_998
    guard kill(unseen, 0) != 0 else { return }
    let live = c.path(".out.tilecut-staging-\(unseen)-1")
    try FileManager.default.createDirectory(atPath: live + "/256", withIntermediateDirectories: true)
    try write("tilecut staging\n", to: live + "/.tilecut-staging")
    try write("a tile being written", to: live + "/256/tile.png")
    // this test process stands for the other run: it holds the marker's lock
    let marker = open(live + "/.tilecut-staging", O_RDONLY)
    #expect(marker >= 0 && flock(marker, LOCK_EX | LOCK_NB) == 0)
    let r = try runTool([c.path("good.png"), "-o", c.path("out"), "--force", "-q"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(FileManager.default.contents(atPath: live + "/256/tile.png") == Data("a tile being written".utf8))
    // once the other run is gone (its lock with it), the staging is abandoned and removed
    close(marker)
    let again = try runTool([c.path("good.png"), "-o", c.path("out"), "--force", "-q"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(!FileManager.default.fileExists(atPath: live))
  }

  @Test("an output that is a mount point is staged on its own file system and replaced")
  func mountPointOutput() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let mnt = c.path("cache")
    try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
    let mounted = try runTool([], shell: "mount -t tmpfs -o size=64m tilecut-test '\(mnt)'")
    #expect(mounted.status == 0, "this test mounts a tmpfs and needs root: \(mounted.stderr)")
    guard mounted.status == 0 else { return }
    defer { _ = try? runTool([], shell: "umount '\(mnt)'") }
    let a = try runTool([c.path("good.png"), "-o", mnt, "-q"])
    #expect(a.status == 0, "\(a.stderr)")
    #expect(FileManager.default.fileExists(atPath: mnt + "/256/L1_0_0_0.png"))
    // a second, different job replaces the first on the same mount
    try picture(width: 300, height: 200, seed: 7).writePNG(to: c.path("small.png"))
    let b = try runTool([c.path("small.png"), "-o", mnt, "-q", "--tile-size", "256"])
    #expect(b.status == 0, "\(b.stderr)")
    #expect(!FileManager.default.fileExists(atPath: mnt + "/512"))
    let v = try runTool(["verify", mnt])
    #expect(v.status == 0, "\(v.stdout) \(v.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: mnt).allSatisfy { !$0.contains("staging") })
  }

  // MARK: 2. loaders

  @Test("a padded SVG is rendered by librsvg, PostScript and MVG are refused, and no program is ever started")
  func noOtherPrograms() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let comment = "<!--" + String(repeating: "padding ", count: 1024) + "-->"
    let declaration: String = #"<?xml version="1.0" encoding="UTF-8"?>"#
    let doctype: String = #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">"#
    let root: String = ##"<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="#ff0000"/></svg>"##
    let padded: String = declaration + "\n" + comment + doctype + "\n" + root
    try write(padded, to: c.path("padded.svg"))
    try write("%!PS-Adobe-3.0\n/Times-Roman findfont 12 scalefont setfont 72 72 moveto (x) show showpage\n", to: c.path("plan.ps"))
    try write("push graphic-context\nviewbox 0 0 64 64\nfill red\nrectangle 0 0 32 32\npop graphic-context\n", to: c.path("plan.mvg"))
    let binary = try tilecutBinary()
    for (name, status, mentions) in [("padded.svg", Int32(0), ""), ("plan.ps", 1, "PostScript"), ("plan.mvg", 1, "MVG")] {
      let trace = c.path(name + ".trace")
      let r = try runTool(
        [], shell: "strace -f -qq -e trace=execve,fork,vfork -o '\(trace)' '\(binary)' '\(c.path(name))' -o '\(c.path("o-" + name))' -q")
      #expect(r.status == status, "\(name): \(r.stderr)")
      if !mentions.isEmpty { #expect(r.stderr.contains(mentions) && r.stderrLines.count == 1, "\(name): \(r.stderr)") }
      let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
      let execs = lines.filter { $0.contains("execve(") }
      #expect(execs.count == 1, "\(name) started programs: \(execs)")
      #expect(!lines.contains { $0.contains("fork(") }, "\(name) forked")
    }
    let red = try RGBAImage.decode(file: c.path("o-padded.svg/256/L1_0_0_0.png"))
    #expect(red[100, 100].r > 240 && red[100, 100].g < 15 && red[100, 100].a == 255)
  }

  @Test("the format comes from the bytes: a PNG named .svg is a PNG; XML that is not SVG is refused", arguments: [0, 100, 70_000])
  func sniffing(padding: Int) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 8, height: 8).writePNG(to: dir + "/a.png")
    try FileManager.default.moveItem(atPath: dir + "/a.png", toPath: dir + "/a.svg")
    #expect(try SourceFormat.detect(path: dir + "/a.svg") == .png)
    let pad = "<!--" + String(repeating: "-", count: padding) + " -- > --->"
    try write(
      "\u{FEFF}  <?xml version=\"1.0\"?><?pi x?>" + pad + "<!DOCTYPE svg [<!ENTITY x \"]>\">]><svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"/>",
      to: dir + "/b.xml")
    #expect(try SourceFormat.detect(path: dir + "/b.xml") == .svg)
    try write(pad + "<html><svg/></html>", to: dir + "/c.svg")
    #expect(throws: TilecutError.self) { try SourceFormat.detect(path: dir + "/c.svg") }
  }

  // MARK: 3. resources

  @Test("a FIFO, a device, a symlink to a FIFO are refused at once")
  func nonRegularInputs() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    #expect(mkfifo(c.path("pipe.png"), 0o644) == 0)
    try FileManager.default.createSymbolicLink(atPath: c.path("link.png"), withDestinationPath: c.path("pipe.png"))
    // a FIFO opened for reading would block until a writer came: none does, so the
    // refusal (exit 1, not the timeout's kill) is the proof that it was never opened
    for input in [c.path("pipe.png"), c.path("link.png"), "/dev/zero"] {
      let r = try runTool([input, "-o", c.path("out"), "--force"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "regular file")
      #expect(!r.signalled)
    }
  }

  @Test("--max-pixels bounds the raster a document would be rendered to, before rendering")
  func documentRasterBound() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try write(
      ##"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400"><rect width="600" height="400" fill="#00f"/></svg>"##,
      to: c.path("plan.svg"))
    // 600×400 on a ~150 m box at zoom 25: tens of thousands of pixels a side
    let placed = ["--bounds", "51.5000,-0.1000,51.5009,-0.0978", "--max-zoom", "25"]
    // refused before rendering: no staging folder is ever made (the first thing a
    // render does), watched for while the run lasts
    let r = try runTool([c.path("plan.svg"), "-o", c.path("out"), "--force"] + placed, watchStaging: c.dir)
    c.expectClean(r, status: 1, mentions: "pixels")
    #expect(r.stderr.contains("zoom 25") && r.stderr.contains("--max-zoom") && r.stderr.contains("--max-pixels"), "\(r.stderr)")
    #expect(r.stagingSeen == false)
    let small = try runTool([c.path("plan.svg"), "-o", c.path("out"), "--force", "--max-pixels", "1000"])
    c.expectClean(small, status: 1, mentions: "--max-pixels 1000")
  }

  // MARK: 5. interrupts

  @Test("SIGINT/SIGTERM inside a long SVG render: the run stops, staging removed", arguments: [SIGINT, SIGTERM])
  func interruptDocument(signal: Int32) throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try write(heavySVG(), to: c.path("heavy.svg"))
    // the signal goes once the staging folder exists, that is inside the render (the
    // whole render takes far longer than the time limit); the tool gives up waiting for
    // the renderer after 0.5 s and exits 128 + signal on its own, within the limit
    let r = try runTool(
      [c.path("heavy.svg"), "-o", c.path("out"), "--force", "--max-zoom", "7", "-q"],
      interruptWhenStaging: (c.dir, "out", signal), timeout: 20)
    #expect(!r.signalled && r.status == 128 + signal, "\(r.status) \(r.stderr)")
    #expect(r.stderr.contains("interrupted"))
    #expect(snapshot(c.path("out")) == c.before)
    let debris = try FileManager.default.contentsOfDirectory(atPath: c.dir).filter { $0.contains("staging") }
    #expect(debris.isEmpty, "\(debris)")
  }

  // MARK: 6. up to date

  @Test("up to date means the output is still there; an up-to-date run touches the manifest so make converges")
  func honestUpToDate() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try FileManager.default.removeItem(atPath: c.path("out/512"))
    let r = try runTool([c.path("good.png"), "-o", c.path("out")])
    #expect(r.status == 0 && !r.stderr.contains("up to date"), "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: c.path("out/512/L1_0_0_0.png")))
    // a tile whose bytes changed (same count) is noticed too: it is the user's now, so
    // the run that would replace it stops and keeps it (issue 29); deleted, it is made again
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: c.path("out/256/L1_0_0_0.png")))
    let r2 = try runTool([c.path("good.png"), "-o", c.path("out")])
    #expect(r2.status == 1 && !r2.stderr.contains("up to date") && r2.stderr.contains("differ from those tilecut wrote"), "\(r2.stderr)")
    #expect(FileManager.default.contents(atPath: c.path("out/256/L1_0_0_0.png")) == Data([1, 2, 3]))
    try FileManager.default.removeItem(atPath: c.path("out/256/L1_0_0_0.png"))
    let r3 = try runTool([c.path("good.png"), "-o", c.path("out")])
    #expect(r3.status == 0 && !r3.stderr.contains("up to date"), "\(r3.stderr)")
    #expect(try RGBAImage.decode(file: c.path("out/256/L1_0_0_0.png")).width == 256)

    // a real make rule: after touching the source, one run, then nothing to do
    let binary = try tilecutBinary()
    try write(
      "\(c.path("out"))/manifest.json: \(c.path("good.png"))\n\t'\(binary)' '\(c.path("good.png"))' -o '\(c.path("out"))' -q\n",
      to: c.path("Makefile"))
    Thread.sleep(forTimeInterval: 0.05)
    let touched = try runTool([], shell: "touch '\(c.path("good.png"))' && make -s -C '\(c.dir)' && make -q -C '\(c.dir)'; echo $?")
    #expect(touched.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "make did not converge: \(touched.stdout) \(touched.stderr)")
  }

  @Test("a source that changes during the run does not publish tiles of bytes that were not hashed")
  func sourceChangedDuringRun() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try picture(width: 2048, height: 2048, seed: 6).writePNG(to: c.path("slow.png"))
    let binary = try tilecutBinary()
    let r = try runTool(
      [],
      // touched once the run has hashed its source and begun rendering (its staging exists)
      shell:
        "'\(binary)' '\(c.path("slow.png"))' -o '\(c.path("out"))' --force -q & pid=$!; "
        + "while kill -0 $pid 2>/dev/null && ! ls -a '\(c.dir)' | grep -q '^\\.out\\.tilecut-staging-'; do sleep 0.005; done; "
        + "touch '\(c.path("slow.png"))'; wait $pid",
      timeout: 180)
    c.expectClean(r, status: 1, mentions: "changed")
  }

  // MARK: 7. names

  @Test("a template whose tiles can collide is refused, showing two that would")
  func collidingTemplates() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let r = try runTool([c.path("good.png"), "-o", c.path("out"), "--name", "L{floor}_{z}{x}{y}.png"])
    c.expectClean(r, status: 2, mentions: "--name")
    #expect(r.stderr.contains("would both be"), "\(r.stderr)")
    // the two tiles it names really share a path
    let template = try TileNameTemplate("{size}/L{floor}_{z}_{x}_{y}.png")
    #expect(template.collisionExample(sizes: [256, 512]) == nil)
    for bad in ["{z}{x}_{y}.png", "{z}_{x}1{y}.png", "{size}{z}/{x}_{y}.png"] {
      #expect(throws: TilecutError.self) { try TileNameTemplate(bad) }
    }
    #expect(throws: TilecutError.self) { try TileNameTemplate("{z}_{x}_{y}.png").checkDistinct(sizes: [256, 512], floors: [1]) }
    #expect(throws: TilecutError.self) { try TileNameTemplate("{size}/{z}_{x}_{y}.png").checkDistinct(sizes: [256], floors: [1, 2]) }
    // and names parse back to the tile that made them
    let t = try TileNameTemplate("{size}/L{floor}-{z}-{x}-{y}.png")
    let name = t.match("512/L-3-4-5-6.png")
    #expect(name?.floor == -3 && name?.tileSize == 512 && name?.zoom == 4 && name?.x == 5 && name?.y == 6)
    #expect(t.match("512/L-3-4-05-6.png") == nil && t.match("512/L-3-4-5-6.png.bak") == nil)
  }

  // MARK: 8. merge

  @Test("merge: no symlink out of a shard, shards must agree, preview kept, counts equal the files")
  func mergeSafety() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    for k in 1...2 {
      let r = try runTool([c.path("good.png"), "-o", c.path("part\(k)"), "--shard", "\(k)/2", "--preview", "-q"])
      #expect(r.status == 0, "\(r.stderr)")
    }
    let m = try runTool(["merge", c.path("merged"), c.path("part1"), c.path("part2")])
    #expect(m.status == 0, "\(m.stderr)")
    #expect(FileManager.default.fileExists(atPath: c.path("merged/preview.html")))
    let manifest = try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: c.path("merged/manifest.json"))))
    let tiles = filesBelow(c.path("merged")).filter { $0.hasSuffix(".png") }
    #expect(manifest.totalTiles == tiles.count && tiles.count > 0)
    #expect(try runTool(["verify", c.path("merged")]).status == 0)
    // the single run with the same options is up to date only with its preview there
    try FileManager.default.removeItem(atPath: c.path("merged/preview.html"))
    let single = try runTool([c.path("good.png"), "-o", c.path("merged"), "--preview"])
    #expect(single.status == 0 && !single.stderr.contains("up to date"), "\(single.stderr)")
    #expect(FileManager.default.fileExists(atPath: c.path("merged/preview.html")))

    // a symlink in a shard pointing outside it is never followed
    let victim = try FileManager.default.contentsOfDirectory(atPath: c.path("part1/256")).sorted()[0]
    try FileManager.default.removeItem(atPath: c.path("part1/256/" + victim))
    try FileManager.default.createSymbolicLink(atPath: c.path("part1/256/" + victim), withDestinationPath: c.path("good.png"))
    let before = snapshot(c.path("merged"))
    let linked = try runTool(["merge", c.path("merged"), c.path("part1"), c.path("part2")])
    #expect(linked.status == 1 && linked.stderrLines.count == 1 && linked.stderr.contains(victim), "\(linked.stderr)")
    #expect(snapshot(c.path("merged")) == before)

    // shards of different jobs
    let other = try runTool([c.path("good.png"), "-o", c.path("other2"), "--shard", "2/2", "--preview", "--png-compression", "1", "-q"])
    #expect(other.status == 0)
    try FileManager.default.removeItem(atPath: c.path("part1/256/" + victim))
    let r = try runTool(["merge", c.path("merged"), c.path("part1"), c.path("other2")])
    #expect(r.status == 1 && r.stderr.contains("different job"), "\(r.stderr)")
    #expect(snapshot(c.path("merged")) == before)
  }

  // MARK: errors from elsewhere

  @Test("an error that is not tilecut's own still ends in one sentence and exit 1")
  func foreignErrorsExitOne() throws {
    #expect(throws: ExitCode(1)) {
      try reportingErrors { _ in throw CocoaError(.fileWriteNoPermission) }
    }
    #expect(!sentence(for: CocoaError(.fileWriteNoPermission)).isEmpty)
  }
}
