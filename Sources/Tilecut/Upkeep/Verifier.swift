import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// `tilecut verify DIR`: checks that an output's files match its manifest.
///
/// Every cell the manifest lists must exist, decode and have the tile size; no other
/// tile file may exist. An archive store's output is checked by its store, file by file.
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
      var all = VerifyReport(directory: directory, tilesChecked: 0, problems: [])
      all.buildings = index.buildings.count
      for building in index.buildings {
        let one = try Verifier(directory + "/" + building.id, jobs: jobs).run()
        all.tilesChecked += one.tilesChecked
        if let files = one.storeFiles { all.storeFiles = (files.kind, (all.storeFiles?.count ?? 0) + files.count) }
        all.problems += one.problems.map { "\(building.id): \($0)" }
      }
      return all
    }
    return try withVips {
      let manifest = try loadManifest(directory)
      if let driver = StoreCatalogue.archive(for: manifest.store) { return try verifyArchives(manifest, driver) }
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
      return VerifyReport(directory: directory, tilesChecked: expected.count, problems: found)
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

  /// An archive store's output: its files checked by the store, every level with tiles
  /// in a tile set, every store file as the manifest's digests say, nothing else in the directory.
  func verifyArchives(_ manifest: Manifest, _ driver: any ArchiveStoreDriver) throws -> VerifyReport {
    let changed = changedStoreFiles(manifest)
    var problems = archiveOutputStrays(manifest) + storeFileChanges(manifest, changed: changed)
    var tileSetMissing = false
    for level in manifest.levels where level.tileCount > 0 {
      if !(manifest.tileSets ?? []).contains(where: { $0.floor == level.floor && $0.tileSize == level.tileSize }) {
        problems.append("missing: no tile set for floor \(level.floor), \(level.tileSize) px")
        tileSetMissing = true
      }
    }
    let context = StoreVerification(
      directory: directory, changedFiles: changed, tileSetMissing: tileSetMissing, problemsPerArchive: Self.problemsPerArchive,
      decode: { bytes in
        let image = try RGBAImage.decode(bytes: bytes)
        return (image.width, image.height)
      }, digest: { Vips.sha256(of: $0) }, contentVersion: { manifest, digest in try? ContentVersion.of(manifest, digest: digest) })
    let found = try driver.verify(manifest, context)
    var report = VerifyReport(directory: directory, tilesChecked: found.tilesChecked, problems: (problems + found.problems).sorted())
    report.storeFiles = (driver.kind, (manifest.tileSets ?? []).count)
    return report
  }
}

extension Verifier {
  /// Problems `verify` lists for one archive before it stops reading it.
  static let problemsPerArchive = 20
}

/// What ``Verifier/run()`` found.
public struct VerifyReport: Sendable, Equatable {
  /// The output directory checked.
  public var directory: String
  /// The tiles the manifest lists (all of them were looked at).
  public var tilesChecked: Int
  /// For an archive store's output, its kind and how many files it has; nil for a directory of tiles.
  public var storeFiles: (kind: StoreKind, count: Int)?
  /// One line per problem ("missing: …", "wrong size: …"), sorted; empty when the output is intact.
  public var problems: [String]
  /// For a root of per-building pyramids (`{building}` in the name), how many buildings
  /// were checked; nil for a single output.
  public var buildings: Int?

  public init(directory: String, tilesChecked: Int, problems: [String]) {
    self.directory = directory
    self.tilesChecked = tilesChecked
    self.problems = problems
  }

  public static func == (a: VerifyReport, b: VerifyReport) -> Bool {
    (a.directory, a.tilesChecked, a.problems, a.buildings) == (b.directory, b.tilesChecked, b.problems, b.buildings)
      && a.storeFiles?.kind == b.storeFiles?.kind && a.storeFiles?.count == b.storeFiles?.count
  }

  /// The count of the store's files, when the output is of `kind`.
  public func storeFileCount(_ kind: StoreKind) -> Int? { storeFiles?.kind == kind ? storeFiles?.count : nil }

  /// True when the files match the manifest.
  public var isIntact: Bool { problems.isEmpty }

  /// The one line `tilecut verify` prints: "ok: …" or the count of problems.
  public var summary: String {
    guard problems.isEmpty else {
      return "\(directory): \(problems.count) problem\(problems.count == 1 ? "" : "s") (listed on stdout)"
    }
    let noun = StoreCatalogue.archive(for: storeFiles?.kind)?.filesNoun
    if let buildings {
      let files = storeFiles.map { " (\($0.count) \(noun ?? ""))" } ?? ""
      return "ok: \(tilesChecked) tiles\(files) in the \(buildings) building\(buildings == 1 ? "" : "s") of \(directory) match their manifests"
    }
    if let files = storeFiles { return "ok: \(tilesChecked) tiles in \(files.count) \(noun ?? "") of \(directory) match its manifest" }
    return "ok: \(tilesChecked) tiles in \(directory) match its manifest"
  }
}
