import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutMBTiles
import TilecutPMTilesStore
import TilecutVips

/// `tilecut verify DIR`: checks that an output's files match its manifest.
///
/// Every cell the manifest lists must exist, decode and have the tile size; no other
/// tile file may exist. An MBTiles output is checked row by row, a PMTiles one entry by entry.
public struct Verifier: Sendable {
  /// The output directory written by tilecut.
  public var directory: String
  /// Worker threads for decoding (nil: all cores).
  public var jobs: Int?

  /// A check of the output in `directory`.
  public init(_ directory: String, jobs: Int? = nil) {
    self.directory = directory
    self.jobs = jobs
  }

  /// Reads the manifest and checks every file against it.
  ///
  /// - Returns: what was checked and every problem found (none: the output is intact).
  /// - Throws: `TilecutError` when the directory has no readable, valid manifest.
  public func run() throws -> VerifyReport {
    // a root of per-building pyramids: each building's output checked against its own manifest
    if !FileManager.default.fileExists(atPath: directory + "/" + Manifest.fileName), let index = try BuildingIndex.load(directory) {
      var all = VerifyReport(directory: directory, tilesChecked: 0, mbtilesFiles: nil, problems: [])
      all.buildings = index.buildings.count
      for building in index.buildings {
        let one = try Verifier(directory + "/" + building.id, jobs: jobs).run()
        all.tilesChecked += one.tilesChecked
        if let files = one.mbtilesFiles { all.mbtilesFiles = (all.mbtilesFiles ?? 0) + files }
        if let files = one.pmtilesFiles { all.pmtilesFiles = (all.pmtilesFiles ?? 0) + files }
        all.problems += one.problems.map { "\(building.id): \($0)" }
      }
      return all
    }
    return try withVips {
      let manifest = try loadManifest(directory)
      if manifest.store == .mbtiles { return try verifyMBTiles(manifest) }
      if manifest.store == .pmtiles { return try verifyPMTiles(manifest) }
      let template = try TileNameTemplate(manifest.name)
      let entries = entriesBelow(directory)
      let regular = Dictionary(entries.filter(\.isRegular).map { ($0.path, $0.bytes) }, uniquingKeysWith: { a, _ in a })
      let problems = Mutex<[String]>([])
      // a manifest that lists more tiles than there are files cannot match: say so
      // without walking billions of cells
      let listedCount = manifest.totalTiles
      if listedCount > regular.count {
        problems.withLock { $0.append("missing: the manifest lists \(listedCount) tiles, the directory holds \(regular.count) files") }
      }
      var expected: [(path: String, size: Int, floor: Floor, tile: TileCoordinate)] = []
      if listedCount <= regular.count {
        for level in manifest.levels {
          for tile in level.tiles {
            expected.append((template.path(floor: level.floor, tileSize: level.tileSize, tile: tile), level.tileSize, level.floor, tile))
          }
        }
      }
      let list = expected
      let root = directory
      let workers = max(1, min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, PlanLimits.maxJobs))
      // each tile's SHA-256, checked below against what the manifest records
      let digests = Mutex<[String?]>(Array(repeating: nil, count: list.count))
      DispatchQueue.concurrentPerform(iterations: workers) { worker in
        var i = worker
        while i < list.count {
          let (path, size, _, _) = list[i]
          let index = i
          i += workers
          guard regular[path] != nil, let bytes = try? readInside(root, path) else {
            problems.withLock { $0.append("missing: \(path)") }
            continue
          }
          let digest = Vips.sha256(of: bytes)
          digests.withLock { $0[index] = digest }
          guard !bytes.isEmpty else {
            problems.withLock { $0.append("empty tile: \(path) (0 bytes: an empty tile is no tile)") }
            continue
          }
          do {
            let image = try RGBAImage.decode(bytes: bytes)
            if image.width != size || image.height != size {
              problems.withLock { $0.append("wrong size: \(path) is \(image.width)×\(image.height), expected \(size)×\(size)") }
            }
          } catch {
            problems.withLock { $0.append("does not decode: \(path)") }
          }
        }
      }
      let listed = Set(expected.map(\.path))
      let own = Set([Manifest.fileName, "preview.html"] + (manifest.storeFiles ?? []))
      for entry in entries {
        if entry.isSymlink {
          problems.withLock { $0.append("symbolic link: \(entry.path)") }
        } else if !entry.isRegular {
          problems.withLock { $0.append("not a regular file: \(entry.path)") }
        } else if !listed.contains(entry.path) && !own.contains(entry.path) && listedCount <= regular.count {
          problems.withLock { $0.append("not in the manifest: \(entry.path)") }
        }
      }
      for file in manifest.storeFiles ?? [] where regular[file] == nil {
        problems.withLock { $0.append("missing: \(file)") }
      }
      for problem in storeFileChanges(manifest) { problems.withLock { $0.append(problem) } }
      let changed = changedTiles(manifest, list.map { ($0.path, $0.size, $0.floor, $0.tile) }, digests: digests.withLock { $0 }, sizes: regular)
      for problem in changed { problems.withLock { $0.append(problem) } }
      let found = problems.withLock { $0 }.sorted()
      return VerifyReport(directory: directory, tilesChecked: expected.count, mbtilesFiles: nil, problems: found)
    }
  }
}

extension Verifier {
  /// Tiles whose bytes are not those the manifest records, by the check `merge` makes
  /// of a shard (`ShardCheck`): a shard's manifest has each tile's digest, so the tile
  /// is named; another output's only its content version over them all, so the line
  /// names the levels whose byte totals differ, or the output. `digests`: each listed
  /// tile's SHA-256, nil where it was missing (then only the missing line is given).
  func changedTiles(
    _ manifest: Manifest, _ tiles: [(path: String, size: Int, floor: Floor, tile: TileCoordinate)], digests: [String?], sizes: [String: Int]
  ) -> [String] {
    guard !tiles.isEmpty, var check = try? ShardCheck(directory: directory, manifest: manifest) else { return [] }
    var problems: [String] = []
    var complete = true
    for (entry, digest) in zip(tiles, digests) {
      guard let digest else {
        complete = false
        continue
      }
      if !check.matches(digest: digest, floor: entry.floor, tileSize: entry.size, tile: entry.tile) {
        problems.append("changed: \(entry.path) (its bytes are not those the manifest records)")
      }
    }
    guard !check.recordsTileDigests, complete, !check.contentVersionMatches() else { return problems }
    let template = try? TileNameTemplate(manifest.name)
    for level in manifest.levels {
      guard let recorded = level.bytes, let template else { continue }
      let total = level.tiles.reduce(0) { $0 + (sizes[template.path(floor: level.floor, tileSize: level.tileSize, tile: $1)] ?? 0) }
      if total != recorded {
        problems.append(
          "changed: a tile of floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) (its tiles hold \(total) bytes, the manifest records \(recorded))"
        )
      }
    }
    if problems.isEmpty {
      problems.append("changed: tiles of \(directory) whose bytes are not those its manifest's content version records")
    }
    return problems
  }

  /// Store files whose bytes are not those the manifest's digests record.
  func changedStoreFiles(_ manifest: Manifest) -> [String] {
    (manifest.storeFileDigests ?? [:]).keys.sorted().filter { file in
      guard let digest = SHA256Digest.hex(ofFile: directory + "/" + file) else { return false }
      return digest != manifest.storeFileDigests?[file]
    }
  }

  /// One line for each store file whose bytes are not those the manifest's digests record.
  func storeFileChanges(_ manifest: Manifest, changed: [String]? = nil) -> [String] {
    (changed ?? changedStoreFiles(manifest)).map { "changed: \($0) (its bytes differ from the digest in the manifest)" }
  }

  /// What an archive output's directory holds beyond the manifest and its store
  /// files: links, non-regular files and files the manifest does not name.
  func archiveOutputStrays(_ manifest: Manifest) -> [String] {
    let own = Set([Manifest.fileName] + (manifest.storeFiles ?? []))
    var problems: [String] = []
    for entry in entriesBelow(directory) {
      if entry.isSymlink {
        problems.append("symbolic link: \(entry.path)")
      } else if !entry.isRegular {
        problems.append("not a regular file: \(entry.path)")
      } else if !own.contains(entry.path) {
        problems.append("not in the manifest: \(entry.path)")
      }
    }
    return problems
  }

  /// An MBTiles output: every tile set present, every listed cell a row that decodes
  /// at the tile size, no row the manifest does not list, nothing else in the directory.
  func verifyMBTiles(_ manifest: Manifest) throws -> VerifyReport {
    let changed = changedStoreFiles(manifest)
    var problems = archiveOutputStrays(manifest) + storeFileChanges(manifest, changed: changed)
    var checked = 0
    for set in manifest.tileSets ?? [] {
      let path = directory + "/" + set.file
      var st = stat()
      guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
        problems.append("missing: \(set.file)")
        continue
      }
      // not the file tilecut wrote: that one line says it all, its rows are not read
      if changed.contains(set.file) { continue }
      var levels: [Int: Manifest.Level] = [:]
      for level in manifest.levels where level.floor == set.floor && level.tileSize == set.tileSize { levels[level.zoom] = level }
      var seen = Set<TileCoordinate>()
      // a damaged archive can have millions of bad rows: the first few say what it is
      var found = 0
      func note(_ problem: String) throws {
        found += 1
        problems.append(problem)
        if found >= Self.problemsPerArchive { throw StopReading() }
      }
      do {
        let reader = try MBTilesReader(path: path)
        try reader.forEachRow { row in
          let at = "\(set.file) row zoom \(row.zoom), column \(row.column), row \(row.row)"
          guard let tile = row.tile else { return try note("outside the grid: \(at)") }
          guard let level = levels[tile.zoom], level.hasTile(x: tile.x, y: tile.y) else {
            return try note("extra row: \(at) (tile \(tile)), not in the manifest")
          }
          guard seen.insert(tile).inserted else { return try note("duplicate row: \(at)") }
          guard !row.data.isEmpty else { return try note("empty tile: \(at) (tile \(tile)): 0 bytes, an empty tile is no tile") }
          do {
            let image = try RGBAImage.decode(bytes: row.data)
            if image.width != set.tileSize || image.height != set.tileSize {
              try note("wrong size: \(at) is \(image.width)×\(image.height), expected \(set.tileSize)×\(set.tileSize)")
            }
          } catch is StopReading {
            throw StopReading()
          } catch {
            try note("does not decode: \(at) (tile \(tile))")
          }
          checked += 1
        }
      } catch is StopReading {
        problems.append("stopped: \(set.file) after its first \(Self.problemsPerArchive) problems; the rest of it was not read")
        continue
      } catch let error as TilecutError {
        problems.append("unreadable: \(error.description)")
        continue
      }
      var missing = 0
      for level in levels.values.sorted(by: { $0.zoom < $1.zoom }) {
        for tile in level.tiles where !seen.contains(tile) {
          missing += 1
          if found + missing <= Self.problemsPerArchive {
            problems.append("missing row: \(set.file) tile \(tile) (TMS row \(mbtilesRow(for: tile)))")
          }
        }
      }
      if found + missing > Self.problemsPerArchive {
        problems.append("missing row: \(set.file) lacks \(found + missing - Self.problemsPerArchive) more rows the manifest lists")
      }
    }
    for level in manifest.levels where level.tileCount > 0 {
      if !(manifest.tileSets ?? []).contains(where: { $0.floor == level.floor && $0.tileSize == level.tileSize }) {
        problems.append("missing: no tile set for floor \(level.floor), \(level.tileSize) px")
      }
    }
    return VerifyReport(directory: directory, tilesChecked: checked, mbtilesFiles: (manifest.tileSets ?? []).count, problems: problems.sorted())
  }
}

extension Verifier {
  /// Problems `verify` lists for one archive before it stops reading it.
  static let problemsPerArchive = 20
}

/// Ends the reading of an archive that has shown enough problems.
private struct StopReading: Error {}

/// What ``Verifier/run()`` found.
public struct VerifyReport: Sendable, Equatable {
  /// The output directory checked.
  public var directory: String
  /// The tiles the manifest lists (all of them were looked at).
  public var tilesChecked: Int
  /// For an MBTiles output, how many MBTiles files it has; nil for a directory of tiles.
  public var mbtilesFiles: Int?
  /// For a PMTiles output, how many archives it has; nil otherwise.
  public var pmtilesFiles: Int?
  /// One line per problem ("missing: …", "wrong size: …"), sorted; empty when the output is intact.
  public var problems: [String]
  /// For a root of per-building pyramids (`{building}` in the name), how many buildings
  /// were checked; nil for a single output.
  public var buildings: Int?

  /// True when the files match the manifest.
  public var isIntact: Bool { problems.isEmpty }

  /// The one line `tilecut verify` prints: "ok: …" or the count of problems.
  public var summary: String {
    guard problems.isEmpty else {
      return "\(directory): \(problems.count) problem\(problems.count == 1 ? "" : "s") (listed on stdout)"
    }
    if let buildings {
      let files = mbtilesFiles.map { " (\($0) MBTiles files)" } ?? pmtilesFiles.map { " (\($0) PMTiles archives)" } ?? ""
      return "ok: \(tilesChecked) tiles\(files) in the \(buildings) building\(buildings == 1 ? "" : "s") of \(directory) match their manifests"
    }
    if let files = mbtilesFiles { return "ok: \(tilesChecked) tiles in \(files) MBTiles files of \(directory) match its manifest" }
    if let files = pmtilesFiles { return "ok: \(tilesChecked) tiles in \(files) PMTiles archives of \(directory) match its manifest" }
    return "ok: \(tilesChecked) tiles in \(directory) match its manifest"
  }
}
