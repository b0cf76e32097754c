import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutPMTiles
import TilecutVips

/// Runs a Python script with the `pmtiles` package (PyPI, protomaps' own reader) and
/// returns its JSON answer; `make test-deps` installs it for the `python3` on the path.
private func python(_ script: String, _ args: [String]) throws -> [String: Any] {
  let p = Process()
  p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  p.arguments = ["python3", "-c", script] + args
  let out = Pipe()
  let err = Pipe()
  p.standardOutput = out
  p.standardError = err
  try p.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  let problem = err.fileHandleForReading.readDataToEndOfFile()
  p.waitUntilExit()
  guard p.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
    throw TilecutError.invalidInput(path: "python3", reason: String(decoding: problem, as: UTF8.self))
  }
  return json
}

/// For one archive and the directory store's tiles of the same size: the header, the
/// metadata, how many tiles match the files byte for byte, the distinct contents, and
/// whether the entries are in tile-ID order and clustered; a few tiles are written out.
private let readArchive = """
  import sys, os, json, hashlib
  from pmtiles.reader import Reader, MmapSource, all_tiles
  from pmtiles.tile import deserialize_directory
  path, tiles_dir, size, floor, dump = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
  with open(path, "rb") as f:
      data = f.read()
      f.seek(0)
      src = MmapSource(f)
      r = Reader(src)
      h = r.header()
      meta = r.metadata()
      count, same, digests, zooms, written = 0, 0, set(), {}, 0
      for (z, x, y), b in all_tiles(src):
          count += 1
          zooms[z] = zooms.get(z, 0) + 1
          digests.add(hashlib.sha256(b).hexdigest())
          p = os.path.join(tiles_dir, size, "L%s_%d_%d_%d.png" % (floor, z, x, y))
          if os.path.exists(p) and open(p, "rb").read() == b:
              same += 1
          if written < 3:
              with open(os.path.join(dump, "%d_%d_%d.png" % (z, x, y)), "wb") as o:
                  o.write(b)
              written += 1
      files = sum(1 for n in os.listdir(os.path.join(tiles_dir, size)) if n.startswith("L%s_" % floor))
      last, end, ordered, clustered = -1, 0, True, True
      def walk(off, length):
          global last, end, ordered, clustered
          for e in deserialize_directory(data[off:off + length]):
              if e.run_length == 0:
                  walk(h["leaf_directory_offset"] + e.offset, e.length)
                  continue
              if e.tile_id <= last: ordered = False
              last = e.tile_id + e.run_length - 1
              if e.offset == end: end += e.length
              elif e.offset > end: clustered = False
      walk(h["root_offset"], h["root_length"])
  print(json.dumps({
      "count": count, "same": same, "files": files, "unique": len(digests), "zooms": {str(k): v for k, v in zooms.items()},
      "min_zoom": h["min_zoom"], "max_zoom": h["max_zoom"], "tile_type": h["tile_type"].value, "clustered_flag": h["clustered"],
      "bounds": [h["min_lon_e7"], h["min_lat_e7"], h["max_lon_e7"], h["max_lat_e7"]],
      "addressed": h["addressed_tiles_count"], "contents": h["tile_contents_count"],
      "ordered": ordered, "clustered": clustered, "end": end, "data": h["tile_data_length"],
      "root_end": h["root_offset"] + h["root_length"], "metadata": meta}))
  """

private func loadManifest(_ dir: String) throws -> Manifest {
  try Manifest.decode(try Data(contentsOf: URL(fileURLWithPath: dir + "/manifest.json")))
}

@Suite("PMTiles store (issue 28)", .serialized)
struct PMTilesStoreTests {
  let office = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
    .appendingPathComponent("examples/floorplan/office.png").path
  let bounds = "51.5006,-0.1275,51.5016,-0.1255"

  @Test(
    "office.png as PMTiles and as a directory: the same tiles, read by Python; header as the manifest says; up to date; a flipped byte fails verify")
  func officeAgainstDirectory() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let common = [office, "--bounds", bounds, "-q", "--floors", "1", "--max-zoom", "20"]
    let d = try runTool(common + ["-o", dir + "/tiles"], timeout: 300)
    let p = try runTool(common + ["-o", dir + "/pm", "--store", "pmtiles"], timeout: 300)
    #expect(d.status == 0 && p.status == 0, "\(d.stderr)\(p.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/pm").sorted() == ["L1_256.pmtiles", "L1_512.pmtiles", "manifest.json"])
    let manifest = try loadManifest(dir + "/pm")
    #expect(manifest.store == .pmtiles)
    #expect(manifest.tileSets?.map(\.file) == ["L1_256.pmtiles", "L1_512.pmtiles"])
    #expect(manifest.storeFiles == ["L1_256.pmtiles", "L1_512.pmtiles"])
    let footprint = try #require(manifest.footprints.first)
    for size in [256, 512] {
      let dump = dir + "/dump\(size)"
      try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
      let r = try python(readArchive, [dir + "/pm/L1_\(size).pmtiles", dir + "/tiles", "\(size)", "1", dump])
      let levels = manifest.levels.filter { $0.tileSize == size }
      let count = r["count"] as? Int ?? -1
      #expect(count == levels.reduce(0) { $0 + $1.tileCount } && count > 0)
      #expect(r["same"] as? Int == count && r["files"] as? Int == count, "\(size) px: \(r["same"] ?? "") of \(count) equal")
      for level in levels {
        #expect((r["zooms"] as? [String: Int])?["\(level.zoom)"] ?? 0 == level.tileCount, "zoom \(level.zoom)")
      }
      #expect(r["min_zoom"] as? Int == levels.map(\.zoom).min() && r["max_zoom"] as? Int == levels.map(\.zoom).max())
      #expect(r["tile_type"] as? Int == 2)
      let e7 = { (v: Double) in Int((v * 1e7).rounded()) }
      #expect(r["bounds"] as? [Int] == [e7(footprint.west), e7(footprint.south), e7(footprint.east), e7(footprint.north)])
      #expect(r["addressed"] as? Int == count)
      #expect(r["contents"] as? Int == r["unique"] as? Int)
      #expect(r["ordered"] as? Bool == true && r["clustered"] as? Bool == true && r["clustered_flag"] as? Bool == true)
      #expect(r["end"] as? Int == r["data"] as? Int)
      #expect((r["root_end"] as? Int ?? .max) <= 16384)
      let meta = r["metadata"] as? [String: Any]
      let facts = meta?["tilecut"] as? [String: Any]
      #expect(facts?["floor"] as? Int == 1 && facts?["tileSize"] as? Int == size)
      #expect(facts?["contentVersion"] as? String == manifest.contentVersion)
      #expect((facts?["levels"] as? [Any])?.count == levels.count)
      // a few tiles decode as images, pixel for pixel the directory store's
      for name in try FileManager.default.contentsOfDirectory(atPath: dump) {
        let ours = try RGBAImage.decode(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dump + "/" + name))))
        let file = dir + "/tiles/\(size)/L1_" + name
        let theirs = try RGBAImage.decode(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(ours.width == size && ours.pixels == theirs.pixels, "\(name)")
      }
    }
    let verified = try runTool(["verify", dir + "/pm"])
    #expect(verified.status == 0 && verified.stderr.contains("in 2 PMTiles archives"), "\(verified.stderr)")

    // a second identical run does nothing
    let before = snapshot(dir + "/pm")
    let again = try runTool(common + ["-o", dir + "/pm", "--store", "pmtiles", "--changes", dir + "/changes.txt"], timeout: 300)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(snapshot(dir + "/pm") == before)
    #expect(try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).isEmpty)

    // one flipped byte anywhere in an archive: verify fails, naming it
    let archive = try Data(contentsOf: URL(fileURLWithPath: dir + "/pm/L1_256.pmtiles"))
    let header = try PMTilesHeader(decoding: Array(archive.prefix(PMTilesHeader.size)))
    let spots = [
      10, Int(header.rootDirectoryOffset) + 12, Int(header.metadataOffset) + 20, Int(header.tileDataOffset) + 100, archive.count - 1,
    ]
    for spot in spots {
      var damaged = archive
      damaged[spot] ^= 0x10
      try damaged.write(to: URL(fileURLWithPath: dir + "/pm/L1_256.pmtiles"))
      let v = try runTool(["verify", dir + "/pm"])
      #expect(v.status == 1, "byte \(spot)")
      #expect(v.stdout.split(separator: "\n").contains { $0.contains("L1_256.pmtiles") }, "byte \(spot): \(v.stdout)")
    }
    try archive.write(to: URL(fileURLWithPath: dir + "/pm/L1_256.pmtiles"))
    #expect(try runTool(["verify", dir + "/pm"]).status == 0)
  }

  @Test("PMTiles shards merge into the single run's archives, byte for byte")
  func shardsMerge() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 600, height: 800).writePNG(to: dir + "/sheet.png")
    let common = [dir + "/sheet.png", "--floors", "2", "--bounds", bounds, "--store", "pmtiles", "-q"]
    #expect(try runTool(common + ["-o", dir + "/single"]).status == 0)
    for k in 1...3 { #expect(try runTool(common + ["-o", dir + "/part\(k)", "--shard", "\(k)/3"]).status == 0) }
    let merged = try runTool(["merge", dir + "/merged", dir + "/part1", dir + "/part2", dir + "/part3"])
    #expect(merged.status == 0, "\(merged.stderr)")
    for name in ["L1_256", "L1_512", "L2_256", "L2_512"] {
      let a = FileManager.default.contents(atPath: dir + "/single/\(name).pmtiles")
      #expect(a != nil && a == FileManager.default.contents(atPath: dir + "/merged/\(name).pmtiles"), "\(name)")
    }
    let a = try loadManifest(dir + "/single")
    let b = try loadManifest(dir + "/merged")
    #expect(a.levels.map(\.rows) == b.levels.map(\.rows))
    #expect(a.tileSets == b.tileSets && a.contentVersion == b.contentVersion)
    #expect(try runTool(["verify", dir + "/merged"]).status == 0)
  }

  @Test("the same tiles make the same archives whatever --jobs is; --preview is refused")
  func reproducible() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 900, height: 700).writePNG(to: dir + "/plan.png")
    for jobs in [1, 3] {
      #expect(try runTool([dir + "/plan.png", "-o", dir + "/j\(jobs)", "--store", "pmtiles", "-q", "--jobs", "\(jobs)"]).status == 0)
    }
    for name in ["L1_256.pmtiles", "L1_512.pmtiles", "manifest.json"] {
      let one = FileManager.default.contents(atPath: dir + "/j1/" + name)
      #expect(one != nil && one == FileManager.default.contents(atPath: dir + "/j3/" + name), "\(name)")
    }
    let preview = try runTool([dir + "/plan.png", "-o", dir + "/pv", "--store", "pmtiles", "--preview"])
    #expect(preview.status != 0 && preview.stderr.contains("--preview"), "\(preview.stderr)")
  }

  @Test("tilecut build: the project file's store key and --store pmtiles, with a depfile; a second build is up to date")
  func build() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let campus = URL(fileURLWithPath: TestEnvironment.repositoryRoot)
      .appendingPathComponent("examples/campus").path
    try FileManager.default.copyItem(atPath: campus, toPath: dir + "/campus")
    let file = dir + "/campus/tilecut.yml"
    let text = try String(contentsOfFile: file, encoding: .utf8)
    try text.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 19").replacingOccurrences(of: "preview: true", with: "store: pmtiles")
      .write(toFile: file, atomically: true, encoding: .utf8)
    let first = try runTool(["build", file, "--depfile", dir + "/tiles.d", "-q"], timeout: 300)
    #expect(first.status == 0, "\(first.stderr)")
    let out = dir + "/campus/tiles"
    let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(files == ["L1_256.pmtiles", "L1_512.pmtiles", "L2_256.pmtiles", "L2_512.pmtiles", "manifest.json"])
    #expect(try loadManifest(out).store == .pmtiles)
    let depfile = try String(contentsOfFile: dir + "/tiles.d", encoding: .utf8)
    #expect(depfile.contains("manifest.json:") && depfile.contains("hq.pdf") && depfile.contains("ground.png"))
    let before = snapshot(out)
    let again = try runTool(["build", file, "--depfile", dir + "/tiles.d"], timeout: 300)
    #expect(again.status == 0 && again.stderr.contains("up to date"), "\(again.stderr)")
    #expect(snapshot(out) == before)
    #expect(try runTool(["verify", out]).status == 0)
    // the command line's --store overrides the file's, and leaves out its preview
    try text.replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 19").write(toFile: file, atomically: true, encoding: .utf8)
    let overridden = try runTool(["build", file, "-o", dir + "/over", "--store", "pmtiles", "-q"], timeout: 300)
    #expect(overridden.status == 0, "\(overridden.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/over").sorted() == files)
  }

  @Test("a solid plan: its equal tiles are one content and runs of them one entry; an interrupted run leaves nothing behind")
  func solidAndInterrupted() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    var solid = RGBAImage(width: 1600, height: 1200)
    for i in stride(from: 0, to: solid.pixels.count, by: 4) { solid.pixels.replaceSubrange(i..<i + 4, with: [200, 180, 90, 255]) }
    try solid.writePNG(to: dir + "/solid.png")
    let common = [dir + "/solid.png", "--bounds", bounds, "-q", "--tile-size", "256"]
    #expect(try runTool(common + ["-o", dir + "/tiles"]).status == 0)
    #expect(try runTool(common + ["-o", dir + "/pm", "--store", "pmtiles"]).status == 0)
    let dump = dir + "/dump"
    try FileManager.default.createDirectory(atPath: dump, withIntermediateDirectories: true)
    let r = try python(readArchive, [dir + "/pm/L1_256.pmtiles", dir + "/tiles", "256", "1", dump])
    let count = r["count"] as? Int ?? 0
    #expect(count > 20 && r["same"] as? Int == count)
    // edge tiles are partly transparent; the inside ones are all the same tile
    #expect((r["unique"] as? Int ?? .max) < count / 2 && r["contents"] as? Int == r["unique"] as? Int)
    let archive = try Data(contentsOf: URL(fileURLWithPath: dir + "/pm/L1_256.pmtiles"))
    let header = try PMTilesHeader(decoding: Array(archive.prefix(PMTilesHeader.size)))
    #expect(header.addressedTiles == UInt64(count) && header.tileEntries < header.addressedTiles)
    #expect(try runTool(["verify", dir + "/pm"]).status == 0)

    let before = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    let stopped = try runTool(
      [office, "--bounds", bounds, "-q", "-o", dir + "/cut", "--store", "pmtiles"], interruptWhenStaging: (dir, "cut", SIGINT), timeout: 300)
    #expect(stopped.status != 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == before)
  }
}
