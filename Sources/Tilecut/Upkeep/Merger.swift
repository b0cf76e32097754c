import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// `tilecut merge OUT SHARD…`: one output from the shards of a `--shard K/N` job.
///
/// Takes every shard 1…N of one job (same sources, options and tool version) and
/// writes the output a single run would have written, replacing the output whole.
public struct Merger: Sendable {
  /// The shard output directories.
  public var shards: [String]
  /// The combined output directory.
  public var output: String

  /// A merge of `shards` into `output`.
  public init(_ shards: [String], into output: String) {
    self.shards = shards
    self.output = output
  }

  /// Checks every shard and writes the combined output.
  ///
  /// - Parameter progress: receives each line a run would print (nil: none).
  /// - Returns: the merged output's manifest and the number of tiles copied.
  /// - Throws: `TilecutError` naming the shard or option at fault; the output is then unchanged.
  @discardableResult
  public func run(progress: (@Sendable (String) -> Void)? = nil) throws -> MergeReport {
    try run(printer: progress.map { Printer(sink: $0) } ?? Printer(verbosity: .silent))
  }

  @discardableResult
  package func run(printer: Printer) throws -> MergeReport {
    guard !shards.isEmpty else { throw TilecutError.invalidOption(option: "shard-dir", reason: "give the shard directories to merge") }
    if let split = try BuildingMerge(shards: shards, output: output) { return try split.run(printer: printer) }
    return try withVips {
      // the output is replaced whole: never the working directory, never holding a shard
      try OptionPaths.check(outputs: [], inputs: shards, outputDirectory: output, outputOption: "out")
      // each shard: a tilecut output holding only what its manifest lists, no links
      let inspected = try shards.map { try StagedOutput.inspectForReading($0, option: "shard-dir") }
      let manifests = inspected.map(\.manifest)
      guard let first = manifests.first, let firstShard = first.shard else {
        throw TilecutError.invalidInput(path: shards[0], reason: "is not a shard (its manifest has no shard part)")
      }
      var seen = Set<Int>()
      for (dir, m) in zip(shards, manifests) {
        guard let s = m.shard else { throw TilecutError.invalidInput(path: dir, reason: "is not a shard (its manifest has no shard part)") }
        if let what = Self.disagreement(first, m) {
          throw TilecutError.invalidInput(path: dir, reason: "is a shard of a different job (\(what) differ from \(shards[0])'s)")
        }
        guard seen.insert(s.index).inserted else { throw TilecutError.invalidInput(path: dir, reason: "repeats shard \(s.index)/\(s.count)") }
      }
      let missing = (1...firstShard.count).filter { !seen.contains($0) }
      guard missing.isEmpty else {
        let shown = missing.prefix(5).map { "\($0)/\(firstShard.count)" }.joined(separator: ", ")
        throw TilecutError.invalidOption(
          option: "shard-dir", reason: "shard\(missing.count == 1 ? "" : "s") \(shown)\(missing.count > 5 ? ", …" : "") missing")
      }
      // the store reads its shards: tiles in its files or tile files
      let driver = StoreCatalogue.driver(for: first.store)
      // what each shard's manifest lists must be what it holds
      for (dir, (m, tally)) in zip(shards, inspected) {
        let held = try driver.heldTiles(ofShard: dir, m, tally: tally)
        for level in m.levels {
          let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
          let have = held[key] ?? 0
          guard have == level.tileCount else {
            throw TilecutError.invalidInput(
              path: dir,
              reason:
                "lists \(level.tileCount) tiles for floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) but holds \(have); run that shard again"
            )
          }
        }
      }
      let template = try TileNameTemplate(first.name)
      let format = first.options["format"] ?? "png"
      let store = driver.makeStore(
        path: output, format: format, template: template, option: "out", digest: { Vips.sha256(of: $0) })
      try store.inspect()
      let cancel = SignalCancellation(printer: printer)
      cancel.start()
      defer { cancel.stop() }
      cancel.attach(store)
      try store.begin()
      var committed = false
      defer { if !committed { store.abort() } }
      var tilesByLevel: [LevelKey: [TileCoordinate]] = [:]
      var bytesByLevel: [LevelKey: Int] = [:]
      var owner: [String: String] = [:]
      var copied = 0
      // every tile is checked against its shard's own manifest as it is copied
      var checks = try zip(shards, manifests).map { try ShardCheck(directory: $0, manifest: $1) }
      for (i, (dir, m)) in zip(shards, manifests).enumerated() {
        try driver.copyShardTiles(dir, m, owners: &owner, checkpoint: { try cancel.checkpoint() }) { data, floor, tileSize, tile, place in
          try checks[i].check(data, floor: floor, tileSize: tileSize, tile: tile, at: place)
          try store.put(data, floor: floor, tileSize: tileSize, tile: tile)
          let key = LevelKey(floor: floor, tileSize: tileSize, zoom: tile.zoom)
          tilesByLevel[key, default: []].append(tile)
          bytesByLevel[key, default: 0] += data.count
          copied += 1
        }
      }
      for check in checks { try check.finish() }
      var merged = first
      merged.shard = nil
      merged.options["shard"] = nil
      merged.fingerprint = firstShard.jobFingerprint
      merged.storeFiles = nil
      merged.storeFileDigests = nil
      merged.tileSets = nil
      merged.levels = first.levels.map { level in
        let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
        let range = TileRange(zoom: level.zoom, xRange: level.xRange[0]...level.xRange[1], yRange: level.yRange[0]...level.yRange[1])
        return Manifest.Level(
          floor: level.floor, tileSize: level.tileSize, range: range, tiles: tilesByLevel[key] ?? [], bytes: bytesByLevel[key] ?? 0)
      }
      try ContentVersion.stamp(&merged, store: store)
      // the preview page belongs to the job: a single run with --preview has one
      var files: [String: [UInt8]] = [:]
      if (first.storeFiles ?? []).contains("preview.html") {
        files["preview.html"] = Array(PreviewPage.html(manifest: merged).utf8)
      }
      try store.finish(manifest: merged, files: files)
      try cancel.committing { try store.commit() }
      committed = true
      let report = MergeReport(output: output, shards: manifests.count, tilesCopied: copied, manifest: merged)
      printer.info(report.summary)
      return report
    }
  }

  /// What two shards' manifests disagree on, or nil when they are parts of one job.
  static func disagreement(_ a: Manifest, _ b: Manifest) -> String? {
    guard let sa = a.shard, let sb = b.shard else { return "shard parts" }
    if sa.count != sb.count { return "shard counts" }
    if sa.jobFingerprint != sb.jobFingerprint { return "job fingerprints" }
    if a.name != b.name { return "name templates" }
    if a.store != b.store { return "stores" }
    if a.tileSizes != b.tileSizes { return "tile sizes" }
    if a.floors != b.floors { return "floors" }
    if a.generator != b.generator { return "tool versions" }
    var oa = a.options
    var ob = b.options
    oa["shard"] = nil
    ob["shard"] = nil
    if oa != ob { return "options" }
    if a.sources.map(\.floor) != b.sources.map(\.floor)
      || a.sources.map({ [$0.sha256, String($0.page ?? -1)] }) != b.sources.map({ [$0.sha256, String($0.page ?? -1)] })
    {
      return "sources"
    }
    let keys = { (m: Manifest) in m.levels.map { LevelKey(floor: $0.floor, tileSize: $0.tileSize, zoom: $0.zoom) } }
    let ranges = { (m: Manifest) in m.levels.map { $0.xRange + $0.yRange } }
    if keys(a) != keys(b) || ranges(a) != ranges(b) { return "levels" }
    return nil
  }
}

/// What ``Merger/run(progress:)`` wrote.
public struct MergeReport: Sendable {
  /// The combined output directory.
  public var output: String
  /// How many shards were merged.
  public var shards: Int
  /// How many tiles were copied.
  public var tilesCopied: Int
  /// The combined output's manifest (for a build with `{building}` in the name: the
  /// first building's; every building's is in `buildingManifests`).
  public var manifest: Manifest
  /// For a build with `{building}` in the name: each building's merged manifest by id.
  public var buildingManifests: [String: Manifest]?

  /// The line `tilecut merge` prints.
  public var summary: String { "merged \(shards) shards: \(tilesCopied) tiles → \(output)" }
}
