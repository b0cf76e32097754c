import ArgumentParser
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// Runs a program to completion; its exit status.
func runProgram(_ path: String, _ args: [String], in directory: String) throws -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: path)
  process.arguments = args
  process.currentDirectoryURL = URL(fileURLWithPath: directory)
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  return process.terminationStatus
}

/// Sets a file's modification time `seconds` from now, as `touch` would.
func touch(_ path: String, secondsFromNow seconds: Double = 5) throws {
  try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(seconds)], ofItemAtPath: path)
}

/// A smooth picture with 16 px blocks: a one-pixel misregistration shows.
func blocks(width: Int, height: Int) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let i = (y * width + x) * 4
      let block = ((x / 16) + (y / 16)) % 2 == 0
      image.pixels[i] = UInt8((x * 255) / width)
      image.pixels[i + 1] = block ? 200 : 40
      image.pixels[i + 2] = UInt8((y * 255) / height)
      image.pixels[i + 3] = 255
    }
  }
  return image
}

/// --tile-size 768, --changes, --depfile and --shard env, through the command.
/// The ESRI WKT of EPSG:3857, as ArcGIS writes it in a .prj beside a world file.
let webMercatorESRI =
  #"PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],"#
  + #"PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",0.0],"#
  + #"PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",0.0],PARAMETER["Standard_Parallel_1",0.0],PARAMETER["Auxiliary_Sphere_Type",0.0],UNIT["Meter",1.0]]"#

@Suite("apps and pipelines")
struct PublishingTests {
  @Test("768 px tiles shrunk 3× match the 256 px tiles of the same run, cell for cell")
  func tripleDensity() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try blocks(width: 1000, height: 700).writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out", "--tile-size", "256,512,768"]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    #expect(manifest.tileSizes == [256, 512, 768])
    var compared = 0
    for zoom in 0...2 {
      let small = try #require(manifest.level(floor: 1, tileSize: 256, zoom: zoom))
      let large = try #require(manifest.level(floor: 1, tileSize: 768, zoom: zoom))
      #expect(small.rows == large.rows && small.xRange == large.xRange && small.yRange == large.yRange)
      for tile in small.tiles {
        let a = try RGBAImage.decode(file: dir + "/out/256/L1_\(zoom)_\(tile.x)_\(tile.y).png")
        let b = try RGBAImage.decode(file: dir + "/out/768/L1_\(zoom)_\(tile.x)_\(tile.y).png")
        #expect(a.width == 256 && b.width == 768 && b.height == 768)
        // 3×3 box average of the 768 tile, premultiplied, against the 256 tile
        var total = 0
        var far = 0
        for y in 0..<256 {
          for x in 0..<256 {
            var sum = [0, 0, 0, 0]
            for dy in 0..<3 {
              for dx in 0..<3 {
                let j = ((3 * y + dy) * 768 + 3 * x + dx) * 4
                let alpha = Int(b.pixels[j + 3])
                for c in 0..<3 { sum[c] += Int(b.pixels[j + c]) * alpha }
                sum[3] += alpha
              }
            }
            let i = (y * 256 + x) * 4
            let alpha = sum[3] / 9
            for c in 0..<4 {
              let shrunk = c == 3 ? alpha : (sum[3] == 0 ? 0 : sum[c] / sum[3])
              let d = abs(shrunk - Int(a.pixels[i + c]))
              total += d
              if d > 48 { far += 1 }
            }
          }
        }
        let mean = Double(total) / Double(256 * 256 * 4)
        #expect(mean < 3, "zoom \(zoom) tile \(tile.x),\(tile.y): mean difference \(mean)")
        #expect(far < 256 * 256 * 4 / 100, "zoom \(zoom) tile \(tile.x),\(tile.y): \(far) channels off by more than 48")
        compared += 1
      }
    }
    #expect(compared == 1 + 4 + 12)
  }

  @Test("--changes after editing one corner names exactly the tiles that corner touches; contentVersion follows")
  func changeList() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var image = blocks(width: 1000, height: 700)
    try image.writePNG(to: dir + "/a.png")
    let args = [dir + "/a.png", "-o", dir + "/out", "--changes", dir + "/changes.txt"]
    #expect(try tilecut(args) == 0)
    let first = try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8)
    let files = filesBelow(dir + "/out").filter { $0.hasSuffix(".png") }
    #expect(first.split(separator: "\n").map(String.init).sorted() == files.map { "A\t" + $0 }.sorted())
    let version1 = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json"))).contentVersion

    // the same inputs again: up to date, nothing changed
    #expect(try tilecut(args) == 0)
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).isEmpty)

    // paint the bottom-right corner, source columns 700..<1000 and rows 450..<700
    let (x0, x1, y0, y1) = (700, 1000, 450, 700)
    for y in y0..<y1 {
      for x in x0..<x1 { image.pixels.replaceSubrange(((y * 1000 + x) * 4)..<((y * 1000 + x) * 4 + 4), with: [255, 0, 0, 255]) }
    }
    try image.writePNG(to: dir + "/a.png")
    #expect(try tilecut(args) == 0)
    let lines = try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).split(separator: "\n").map(String.init)
    // the source is native at zoom 2 (1024 px); a T px tile at zoom z has 256·2^z·T/256 px per world
    var expected: [String] = []
    for size in [256, 512] {
      for zoom in 0...2 {
        let scale = Double(size) / 256 * pow(2, Double(zoom - 2))
        let xs = Int(Double(x0) * scale) / size...(Int((Double(x1) * scale).rounded(.up)) - 1) / size
        let ys = Int(Double(y0) * scale) / size...(Int((Double(y1) * scale).rounded(.up)) - 1) / size
        for y in ys { for x in xs { expected.append("M\t\(size)/L1_\(zoom)_\(x)_\(y).png") } }
      }
    }
    #expect(lines.sorted() == expected.sorted())
    #expect(lines.count == 14)
    let version2 = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json"))).contentVersion
    #expect(version1 != nil && version2 != nil && version1 != version2)
  }

  @Test("a change list that cannot be written stops the run before the commit: the previous output stays")
  func changeListUnwritable() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 400).writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out"]) == 0)
    let before = snapshot(dir + "/out")
    try picture(width: 600, height: 400, seed: 3).writePNG(to: dir + "/a.png")
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out", "--changes", dir + "/missing/changes.txt"]) == 2)
    #expect(snapshot(dir + "/out") == before)
    // the next run lists the changes it could not list before
    #expect(try tilecut([dir + "/a.png", "-o", dir + "/out", "--changes", dir + "/changes.txt"]) == 0)
    let lines = try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).split(separator: "\n")
    #expect(lines.count == before.count - 1 && lines.allSatisfy { $0.hasPrefix("M\t") })
  }

  @Test("--depfile: make -q is true after a run and false after touching the input, world file or .prj")
  func makeDependencies() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 400).writePNG(to: dir + "/my plan.png")
    // north-up, 0.5 m pixels, near Greenwich
    try "0.5\n0\n0\n-0.5\n-14000\n6711000\n".write(toFile: dir + "/my plan.pgw", atomically: true, encoding: .utf8)
    try webMercatorESRI.write(toFile: dir + "/my plan.prj", atomically: true, encoding: .utf8)
    try """
    out/manifest.json: my\\ plan.png
    \tfalse
    -include out.d

    """.write(toFile: dir + "/Makefile", atomically: true, encoding: .utf8)
    #expect(try runProgram("/usr/bin/make", ["-q", "out/manifest.json"], in: dir) == 1)
    #expect(try tilecut([dir + "/my plan.png", "-o", dir + "/out", "--tile-size", "256", "--depfile", dir + "/out.d"]) == 0)
    let rule = try String(contentsOfFile: dir + "/out.d", encoding: .utf8)
    let escaped = dir.replacingOccurrences(of: " ", with: "\\ ")
    #expect(rule.hasPrefix("\(escaped)/out/manifest.json: \(escaped)/my\\ plan.png \(escaped)/my\\ plan.prj \(escaped)/my\\ plan.pgw\n"))
    // make runs in dir, the depfile names absolute paths: rewrite the target as make sees it
    try rule.replacingOccurrences(of: "\(escaped)/out/manifest.json:", with: "out/manifest.json:")
      .write(toFile: dir + "/out.d", atomically: true, encoding: .utf8)
    #expect(try runProgram("/usr/bin/make", ["-q", "out/manifest.json"], in: dir) == 0)
    for sidecar in ["my plan.png", "my plan.pgw", "my plan.prj"] {
      try touch(dir + "/" + sidecar)
      #expect(try runProgram("/usr/bin/make", ["-q", "out/manifest.json"], in: dir) == 1, "after touching \(sidecar)")
      try touch(dir + "/" + sidecar, secondsFromNow: -3600)
      #expect(try runProgram("/usr/bin/make", ["-q", "out/manifest.json"], in: dir) == 0)
    }
    // a deleted sidecar asks for a rebuild instead of stopping make with "no rule" (status 2)
    try FileManager.default.removeItem(atPath: dir + "/my plan.prj")
    #expect(try runProgram("/usr/bin/make", ["-q", "out/manifest.json"], in: dir) == 1)
  }

  @Test("examples/make/Makefile: make -q is false before a run and after touching the plan or its world file, true after a run")
  func exampleMakefile() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let makefile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("examples/make/Makefile").path
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    try "0.5\n0\n0\n-0.5\n-14000\n6711000\n".write(toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
    try webMercatorESRI.write(toFile: dir + "/plan.prj", atomically: true, encoding: .utf8)
    let make = ["-q", "-f", makefile, "PLAN=\(dir)/plan.png", "OUT=\(dir)/tiles", "TILECUT=false"]
    #expect(try runProgram("/usr/bin/make", make, in: dir) == 1)
    // the Makefile's recipe, run in-process
    #expect(
      try tilecut([
        dir + "/plan.png", "-o", dir + "/tiles", "--knockout", "white:8", "--tile-size", "256,512,768", "--depfile", dir + "/tiles.d",
        "--changes", dir + "/tiles.changes",
      ]) == 0)
    #expect(try runProgram("/usr/bin/make", make, in: dir) == 0)
    for input in ["plan.png", "plan.pgw", "plan.prj"] {
      try touch(dir + "/" + input)
      #expect(try runProgram("/usr/bin/make", make, in: dir) == 1, "after touching \(input)")
      try touch(dir + "/" + input, secondsFromNow: -3600)
    }
    #expect(try runProgram("/usr/bin/make", make, in: dir) == 0)
  }

  @Test("make escaping: spaces, #, $ and colons")
  func escaping() throws {
    #expect(try DependencyFile.escape("a b#c$d:e") == "a\\ b\\#c$$d\\:e")
    #expect(DependencyFile.projection(beside: "dir.v2/plan.png") == "dir.v2/plan.prj")
    #expect(DependencyFile.projection(beside: "dir.v2/plan") == "dir.v2/plan.prj")
  }

  @Test(
    "--shard env from Kubernetes Indexed Jobs and AWS Batch array jobs",
    arguments: [
      ("env", ["JOB_COMPLETION_INDEX": "2", "TILECUT_SHARD_COUNT": "4"], 3, 4),
      ("env/5", ["JOB_COMPLETION_INDEX": "0"], 1, 5),
      ("env", ["AWS_BATCH_JOB_ARRAY_INDEX": "9", "AWS_BATCH_JOB_ARRAY_SIZE": "10"], 10, 10),
      ("env/3", ["AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "10"], 2, 3),
    ])
  func shardFromEnvironment(spec: String, environment: [String: String], index: Int, count: Int) throws {
    let shard = try ShardEnvironment.selector(spec: spec, environment: environment)
    #expect(shard.index == index && shard.count == count)
  }

  @Test(
    "--shard env refuses a missing or inconsistent environment",
    arguments: [
      ("env", [:]),
      ("env", ["JOB_COMPLETION_INDEX": "1"]),
      ("env/2", ["JOB_COMPLETION_INDEX": "2"]),
      ("env", ["AWS_BATCH_JOB_ARRAY_INDEX": "x", "AWS_BATCH_JOB_ARRAY_SIZE": "4"]),
      ("env/0", ["JOB_COMPLETION_INDEX": "0"]),
    ] as [(String, [String: String])])
  func shardEnvironmentErrors(spec: String, environment: [String: String]) {
    #expect(throws: Failure.self) { try ShardEnvironment.selector(spec: spec, environment: environment) }
  }
}
