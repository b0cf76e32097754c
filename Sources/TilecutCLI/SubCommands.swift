import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// Runs a subcommand body and turns library errors into one line and exit 1.
func reportingErrors(_ body: (Printer) throws -> Int32) throws {
  let printer = Printer()
  do {
    try Vips.start()
    let code = try body(printer)
    if code != 0 { throw ExitCode(code) }
  } catch let error as TilecutError {
    printer.error(error.description)
    throw ExitCode(error.exitCode)
  } catch let error as VipsError {
    printer.error(error.description)
    throw ExitCode(1)
  }
}

/// Reads an output directory's manifest or says why not.
func loadManifest(_ directory: String) throws -> Manifest {
  let path = directory + "/" + Manifest.fileName
  guard let data = FileManager.default.contents(atPath: path) else {
    throw TilecutError.invalidInput(path: path, reason: "no manifest here; is this a tilecut output directory?")
  }
  let manifest: Manifest
  do { manifest = try Manifest.decode(data) } catch {
    throw TilecutError.invalidInput(path: path, reason: "is not a valid tilecut manifest (\(error))")
  }
  guard manifest.format == Manifest.formatName, manifest.version <= Manifest.currentVersion else {
    throw TilecutError.invalidInput(path: path, reason: "has format \(manifest.format) version \(manifest.version), which this tilecut does not read")
  }
  return manifest
}

/// Every file under a directory, as paths relative to it.
func filesBelow(_ root: String) -> [String] {
  guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
  var out: [String] = []
  while let next = walker.nextObject() as? String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: root + "/" + next, isDirectory: &isDirectory), !isDirectory.boolValue {
      out.append(next)
    }
  }
  return out
}

/// `tilecut verify DIR`: the manifest and the files on disk agree.
struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check that an output's files match its manifest.",
    discussion: "Every cell the manifest lists must exist, decode and have the tile size; no other tile file may exist. Exit 0 when all agree, 1 with a list of problems otherwise.")

  @Argument(help: ArgumentHelp("An output directory written by tilecut.", valueName: "dir"))
  var directory: String

  @Option(help: ArgumentHelp("Worker threads for decoding (default: all cores).", valueName: "n"))
  var jobs: Int?

  func run() throws {
    try reportingErrors { printer in
      let manifest = try loadManifest(directory)
      let template = try TileNameTemplate(manifest.name)
      var expected: [(path: String, size: Int)] = []
      for level in manifest.levels {
        for tile in level.tiles {
          expected.append((template.path(floor: level.floor, tileSize: level.tileSize, tile: tile), level.tileSize))
        }
      }
      let problems = Mutex<[String]>([])
      let list = expected
      let root = directory
      let workers = max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount)
      DispatchQueue.concurrentPerform(iterations: workers) { worker in
        var i = worker
        while i < list.count {
          let (path, size) = list[i]
          i += workers
          guard let data = FileManager.default.contents(atPath: root + "/" + path) else {
            problems.withLock { $0.append("missing: \(path)") }
            continue
          }
          do {
            let image = try RGBAImage.decode(bytes: [UInt8](data))
            if image.width != size || image.height != size {
              problems.withLock { $0.append("wrong size: \(path) is \(image.width)×\(image.height), expected \(size)×\(size)") }
            }
          } catch {
            problems.withLock { $0.append("does not decode: \(path)") }
          }
        }
      }
      let listed = Set(expected.map(\.path))
      let own: Set<String> = [Manifest.fileName, "preview.html"]
      for file in filesBelow(directory).sorted() where !listed.contains(file) && !own.contains(file) {
        problems.withLock { $0.append("not in the manifest: \(file)") }
      }
      let found = problems.withLock { $0 }.sorted()
      if found.isEmpty {
        printer.info("ok: \(expected.count) tiles in \(directory) match its manifest")
        return 0
      }
      for p in found { Printer.result(p) }
      printer.error("\(directory): \(found.count) problem\(found.count == 1 ? "" : "s") (listed on stdout)")
      return 1
    }
  }
}

/// `tilecut merge OUT SHARD…`: one output from the shards of a `--shard K/N` job.
struct MergeCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "merge",
    abstract: "Combine the outputs of --shard runs into one.",
    discussion: "Takes every shard 1…N of one job (same sources, options and tool version) and writes the output a single run would have written, replacing OUT whole.")

  @Argument(help: ArgumentHelp("The combined output directory.", valueName: "out"))
  var output: String

  @Argument(help: ArgumentHelp("The shard output directories.", valueName: "shard-dir"))
  var shards: [String] = []

  func validate() throws {
    if shards.isEmpty { throw ValidationError("give the shard directories to merge") }
  }

  func run() throws {
    try reportingErrors { printer in
      let manifests = try shards.map { try loadManifest($0) }
      guard let first = manifests.first, let firstShard = first.shard else {
        throw TilecutError.invalidInput(path: shards[0], reason: "is not a shard (its manifest has no shard part)")
      }
      var seen = Set<Int>()
      for (dir, m) in zip(shards, manifests) {
        guard let s = m.shard else { throw TilecutError.invalidInput(path: dir, reason: "is not a shard (its manifest has no shard part)") }
        guard s.count == firstShard.count, s.jobFingerprint == firstShard.jobFingerprint else {
          throw TilecutError.invalidInput(path: dir, reason: "is a shard of a different job (sources, options or tool version differ)")
        }
        guard seen.insert(s.index).inserted else { throw TilecutError.invalidInput(path: dir, reason: "repeats shard \(s.index)/\(s.count)") }
      }
      let missing = (1...firstShard.count).filter { !seen.contains($0) }
      guard missing.isEmpty else {
        throw TilecutError.invalidOption(option: "shard-dir", reason: "shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(firstShard.count)" }.joined(separator: ", ")) missing")
      }
      let out = OutputDirectory(path: output)
      try out.checkReplaceable(option: "out")
      out.removeAbandonedStaging()
      let staging = try out.makeStaging()
      var committed = false
      defer { if !committed { OutputDirectory.abandon(staging: staging) } }
      let template = try TileNameTemplate(first.name)
      let writer = DirectoryTileWriter(root: staging)
      var tilesByLevel: [LevelKey: [TileCoordinate]] = [:]
      var copied = 0
      for (dir, m) in zip(shards, manifests) {
        for level in m.levels {
          let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
          for tile in level.tiles {
            let path = template.path(floor: level.floor, tileSize: level.tileSize, tile: tile)
            guard let data = FileManager.default.contents(atPath: dir + "/" + path) else {
              throw TilecutError.invalidInput(path: dir + "/" + path, reason: "is listed in the shard's manifest but missing")
            }
            try writer.write([UInt8](data), to: path)
            tilesByLevel[key, default: []].append(tile)
            copied += 1
          }
        }
      }
      var merged = first
      merged.shard = nil
      merged.options["shard"] = nil
      merged.fingerprint = firstShard.jobFingerprint
      merged.levels = first.levels.map { level in
        let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
        let range = TileRange(zoom: level.zoom, xRange: level.xRange[0]...level.xRange[1], yRange: level.yRange[0]...level.yRange[1])
        return Manifest.Level(floor: level.floor, tileSize: level.tileSize, range: range, tiles: tilesByLevel[key] ?? [])
      }
      merged.contentVersion = try ContentVersion.of(merged, root: staging)
      do {
        try merged.encoded().write(to: URL(fileURLWithPath: staging + "/" + Manifest.fileName))
      } catch {
        throw TilecutError.output(path: staging, reason: "cannot write the manifest (\(error.localizedDescription))")
      }
      try out.commit(staging: staging) { exchangePaths($0, $1) }
      committed = true
      printer.info("merged \(manifests.count) shards: \(copied) tiles → \(output)")
      return 0
    }
  }
}

/// `tilecut preview DIR --zoom Z -o sheet.png`: one zoom of one floor as a single image.
struct PreviewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "preview",
    abstract: "Stitch one zoom level of one floor into a single PNG.",
    discussion: "Cells without a tile stay transparent (or grey with --grid). Handy as a CI artifact.")

  @Argument(help: ArgumentHelp("An output directory written by tilecut.", valueName: "dir"))
  var directory: String

  @Option(help: ArgumentHelp("The zoom to stitch.", valueName: "z"))
  var zoom: Int

  @Option(help: ArgumentHelp("The floor (default: the first in the manifest).", valueName: "k"))
  var floor: Int?

  @Option(help: ArgumentHelp("The tile size to stitch (default: the smallest in the manifest).", valueName: "px"))
  var tileSize: Int?

  @Option(name: [.short, .long], help: ArgumentHelp("The PNG to write.", valueName: "file"))
  var output: String = "sheet.png"

  @Flag(help: "Draw tile borders and shade cells that have no tile.")
  var grid = false

  @Option(help: ArgumentHelp("Refuse sheets larger than this many pixels on a side.", valueName: "px"))
  var maxSide: Int = 16384

  func run() throws {
    try reportingErrors { printer in
      let manifest = try loadManifest(directory)
      let floor = self.floor ?? manifest.floors.first ?? 1
      let size = tileSize ?? manifest.tileSizes.min() ?? 256
      guard let level = manifest.level(floor: floor, tileSize: size, zoom: zoom) else {
        let zooms = manifest.levels.filter { $0.floor == floor && $0.tileSize == size }.map(\.zoom)
        throw TilecutError.invalidOption(
          option: "--zoom", reason: "no level for floor \(floor), \(size) px, zoom \(zoom) (zooms: \(zooms.map(String.init).joined(separator: ", ")))")
      }
      let columns = level.xRange[1] - level.xRange[0] + 1
      let rows = level.yRange[1] - level.yRange[0] + 1
      guard columns * size <= maxSide, rows * size <= maxSide else {
        throw TilecutError.invalidOption(option: "--zoom", reason: "the sheet would be \(columns * size)×\(rows * size) px, over --max-side \(maxSide); pick a lower zoom")
      }
      let template = try TileNameTemplate(manifest.name)
      var sheet = RGBAImage(width: columns * size, height: rows * size)
      for y in level.yRange[0]...level.yRange[1] {
        for x in level.xRange[0]...level.xRange[1] {
          let px = (x - level.xRange[0]) * size
          let py = (y - level.yRange[0]) * size
          if level.hasTile(x: x, y: y) {
            let path = directory + "/" + template.path(floor: floor, tileSize: size, tile: TileCoordinate(zoom: zoom, x: x, y: y))
            sheet.paste(try RGBAImage.decode(file: path), x: px, y: py)
          } else if grid {
            var shade = RGBAImage(width: size, height: size)
            for i in 0..<(size * size) {
              let hatch = ((i % size) + (i / size)) % 16 < 2
              shade.pixels.replaceSubrange(4 * i..<4 * i + 4, with: hatch ? [150, 150, 150, 255] : [225, 225, 225, 255])
            }
            sheet.paste(shade, x: px, y: py)
          }
          if grid {
            for i in 0..<size {
              for (gx, gy) in [(px + i, py), (px, py + i)] {
                let o = (gy * sheet.width + gx) * 4
                sheet.pixels.replaceSubrange(o..<o + 4, with: [255, 64, 64, 255])
              }
            }
          }
        }
      }
      try sheet.writePNG(to: output)
      printer.info("wrote \(output): floor \(floor), \(size) px, zoom \(zoom), \(columns)×\(rows) cells")
      return 0
    }
  }
}
