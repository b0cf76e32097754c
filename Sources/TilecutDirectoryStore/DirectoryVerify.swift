import Dispatch
import Foundation
import Synchronization
import TilecutCore

extension DirectoryDriver {
  /// A directory output: every cell the manifest lists a file that decodes at the tile
  /// size and holds the bytes the manifest records; no other file beside the manifest,
  /// the preview page and the store files it names; no links.
  public func verifyOutput(_ manifest: Manifest, _ context: StoreVerification) throws -> (
    problems: [String], tilesChecked: Int, storeFiles: Int?
  ) {
    let directory = context.directory
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
    let workers = context.workers
    let (decode, digestOf) = (context.decode, context.digest)
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
        let digest = digestOf(bytes)
        digests.withLock { $0[index] = digest }
        guard !bytes.isEmpty else {
          problems.withLock { $0.append("empty tile: \(path) (0 bytes: an empty tile is no tile)") }
          continue
        }
        do {
          let image = try decode(bytes)
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
    for problem in context.changedFileProblems { problems.withLock { $0.append(problem) } }
    let changed = Self.changedTiles(
      manifest, in: directory, list.map { ($0.path, $0.size, $0.floor, $0.tile) }, digests: digests.withLock { $0 }, sizes: regular)
    for problem in changed { problems.withLock { $0.append(problem) } }
    return (problems.withLock { $0 }, expected.count, nil)
  }

  /// Tiles whose bytes are not those the manifest records, by the check `merge` makes
  /// of a shard (`ShardCheck`): a shard's manifest has each tile's digest, so the tile
  /// is named; another output's only its content version over them all, so the line
  /// names the levels whose byte totals differ, or the output. `digests`: each listed
  /// tile's SHA-256, nil where it was missing (then only the missing line is given).
  static func changedTiles(
    _ manifest: Manifest, in directory: String, _ tiles: [(path: String, size: Int, floor: Floor, tile: TileCoordinate)], digests: [String?],
    sizes: [String: Int]
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
}
