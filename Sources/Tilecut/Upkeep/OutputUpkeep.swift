import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutMBTiles
import TilecutPMTilesStore
import TilecutVips

/// Starts libvips (once per process), then runs `body`.
func withVips<T>(_ body: () throws -> T) throws -> T {
  try Vips.start()
  return try body()
}

/// Reads an output directory's manifest, validated against the tile grid, or says why not.
func loadManifest(_ directory: String) throws -> Manifest {
  let path = directory + "/" + Manifest.fileName
  var st = stat()
  guard lstat(path, &st) == 0 else {
    if let index = try? BuildingIndex.load(directory), let first = index.buildings.first {
      throw TilecutError.invalidInput(
        path: directory,
        reason:
          "holds a pyramid per building (\(index.buildings.map(\.id).joined(separator: ", "))), each with its own manifest: name one, e.g. \(directory)/\(first.id)"
      )
    }
    throw TilecutError.invalidInput(path: path, reason: "no manifest here; is this a tilecut output directory?")
  }
  guard (st.st_mode & S_IFMT) == S_IFREG else { throw TilecutError.invalidInput(path: path, reason: "is not a regular file") }
  guard st.st_size <= 256 << 20 else { throw TilecutError.invalidInput(path: path, reason: "is larger than any tilecut manifest") }
  guard let data = FileManager.default.contents(atPath: path) else {
    throw TilecutError.invalidInput(path: path, reason: "cannot be read")
  }
  let manifest: Manifest
  do { manifest = try Manifest.decode(data, path: path) } catch let error as TilecutError { throw error } catch {
    throw TilecutError.invalidInput(path: path, reason: "is not a valid tilecut manifest (\(decodingProblem(error)))")
  }
  try manifest.validate(path: path)
  return manifest
}

/// A decoding error in a few words.
func decodingProblem(_ error: any Error) -> String {
  switch error {
  case DecodingError.keyNotFound(let key, _): return "no \(key.stringValue)"
  case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c), DecodingError.dataCorrupted(let c):
    let at = c.codingPath.map(\.stringValue).joined(separator: ".")
    return at.isEmpty ? "not JSON" : "bad value at \(at)"
  default: return "not JSON"
  }
}

/// One entry under a directory, found without following symbolic links.
struct TreeEntry {
  var path: String
  var isRegular: Bool
  var isSymlink: Bool
  var bytes: Int
}

/// Every file, link and odd entry under a directory (directories themselves left out),
/// relative to it; symbolic links are listed, never followed.
func entriesBelow(_ root: String, limit: Int = 20_000_000) -> [TreeEntry] {
  var out: [TreeEntry] = []
  func walk(_ relative: String, depth: Int) {
    let dir = relative.isEmpty ? root : root + "/" + relative
    guard depth < 32, let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return }
    for name in names.sorted() where out.count < limit {
      let rel = relative.isEmpty ? name : relative + "/" + name
      var st = stat()
      guard lstat(dir + "/" + name, &st) == 0 else { continue }
      switch st.st_mode & S_IFMT {
      case S_IFDIR: walk(rel, depth: depth + 1)
      case S_IFREG: out.append(TreeEntry(path: rel, isRegular: true, isSymlink: false, bytes: Int(st.st_size)))
      case S_IFLNK: out.append(TreeEntry(path: rel, isRegular: false, isSymlink: true, bytes: 0))
      default: out.append(TreeEntry(path: rel, isRegular: false, isSymlink: false, bytes: 0))
      }
    }
  }
  walk("", depth: 0)
  return out
}

/// Every regular file under a directory, as paths relative to it.
func filesBelow(_ root: String) -> [String] { entriesBelow(root).filter(\.isRegular).map(\.path) }

/// Reads a file inside `root` without following a symbolic link at any step, so a
/// link planted in a shard can never lead outside it.
func readInside(_ root: String, _ relative: String, limit: Int = 64 << 20) throws -> [UInt8] {
  let fail = { (why: String) in TilecutError.invalidInput(path: root + "/" + relative, reason: why) }
  var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
  guard fd >= 0 else { throw fail("cannot be read (\(String(cString: strerror(errno))))") }
  let parts = relative.split(separator: "/").map(String.init)
  for (i, part) in parts.enumerated() {
    guard part != "..", part != "." else {
      close(fd)
      throw fail("is outside its directory")
    }
    let last = i == parts.count - 1
    let next = openat(fd, part, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | (last ? 0 : O_DIRECTORY))
    let e = errno
    close(fd)
    guard next >= 0 else {
      throw fail(
        e == ELOOP || e == ENOTDIR
          ? "is a symbolic link or passes through one; tilecut does not follow links out of an output"
          : "cannot be read (\(String(cString: strerror(e))))")
    }
    fd = next
  }
  defer { close(fd) }
  var st = stat()
  guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw fail("is not a regular file") }
  guard Int(st.st_size) <= limit else { throw fail("is larger than any tile") }
  var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
  var done = 0
  while done < bytes.count {
    let n = bytes.withUnsafeMutableBytes { raw -> Int in
      guard let base = raw.baseAddress else { return 0 }
      return read(fd, base + done, raw.count - done)
    }
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else { break }
    done += n
  }
  guard done == bytes.count else { throw fail("changed while it was read") }
  return bytes
}

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
      let inspected = try shards.map { try DirectoryTileStore.inspectForReading($0, option: "shard-dir") }
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
      let isMBTiles = first.store == .mbtiles
      let isPMTiles = first.store == .pmtiles
      let inFiles = isMBTiles || isPMTiles
      // a tile-set file's tiles: XYZ coordinate, bytes, and where it is for an error
      func forEachStored(_ file: String, _ body: (TileCoordinate?, [UInt8], String) throws -> Void) throws {
        if isPMTiles {
          try forEachPMTilesTile(file) { tile, data in try body(tile, data, "tile \(tile)") }
        } else {
          try MBTilesReader(path: file).forEachRow { row in
            try body(row.tile, row.data, "a row (zoom \(row.zoom), column \(row.column), row \(row.row))")
          }
        }
      }
      // what each shard's manifest lists must be what it holds
      for (dir, (m, tally)) in zip(shards, inspected) {
        var rows: [LevelKey: Int] = [:]
        for set in m.tileSets ?? [] where inFiles {
          let file = dir + "/" + set.file
          for (zoom, count) in try isPMTiles ? pmtilesZoomCounts(file) : MBTilesReader(path: file).rowCounts() {
            rows[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: zoom)] = count.count
          }
        }
        for level in m.levels {
          let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
          let have = inFiles ? rows[key] ?? 0 : tally[key]?.count ?? 0
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
      let store: any TileStore
      if isPMTiles {
        store = PMTilesTileStore(path: output, format: format, option: "out", digest: { Vips.sha256(of: $0) })
      } else if isMBTiles {
        store = MBTilesTileStore(path: output, format: format, option: "out", digest: { Vips.sha256(of: $0) })
      } else {
        store = DirectoryTileStore(path: output, template: template, option: "out")
      }
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
      for (i, (dir, m)) in zip(shards, manifests).enumerated() where inFiles {
        var levels: [LevelKey: Manifest.Level] = [:]
        for level in m.levels { levels[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] = level }
        for set in m.tileSets ?? [] {
          try forEachStored(dir + "/" + set.file) { found, data, what in
            guard let tile = found, let level = levels[LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: tile.zoom)],
              level.hasTile(x: tile.x, y: tile.y)
            else {
              throw TilecutError.invalidInput(
                path: dir + "/" + set.file, reason: "has \(what) its manifest does not list; run that shard again")
            }
            let key = LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: tile.zoom)
            let name = "\(set.file) \(tile)"
            if let other = owner[name] {
              throw TilecutError.invalidInput(path: dir, reason: "holds \(name), which \(other) holds too; shards of one job never overlap")
            }
            owner[name] = dir
            try checks[i].check(data, floor: set.floor, tileSize: set.tileSize, tile: tile, at: "\(dir)/\(set.file) tile \(tile)")
            try store.put(data, floor: set.floor, tileSize: set.tileSize, tile: tile)
            tilesByLevel[key, default: []].append(tile)
            bytesByLevel[key, default: 0] += data.count
            copied += 1
          }
        }
      }
      for (i, (dir, m)) in zip(shards, manifests).enumerated() where !inFiles {
        for level in m.levels {
          let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
          for tile in level.tiles {
            let path = template.path(floor: level.floor, tileSize: level.tileSize, tile: tile)
            if let other = owner[path] {
              throw TilecutError.invalidInput(path: dir, reason: "lists \(path), which \(other) lists too; shards of one job never overlap")
            }
            owner[path] = dir
            try cancel.checkpoint()
            let data = try readInside(dir, path)
            try checks[i].check(data, floor: level.floor, tileSize: level.tileSize, tile: tile, at: dir + "/" + path)
            try store.put(data, floor: level.floor, tileSize: level.tileSize, tile: tile)
            tilesByLevel[key, default: []].append(tile)
            bytesByLevel[key, default: 0] += data.count
            copied += 1
          }
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

/// `tilecut preview DIR --zoom Z -o sheet.png`: one zoom of one floor stitched into a
/// single PNG; cells without a tile stay transparent (or grey with `grid`).
public struct PreviewSheetRequest: Sendable {
  /// The output directory written by tilecut.
  public var directory: String
  /// The zoom to stitch.
  public var zoom: Int
  /// The floor (nil: the first in the manifest).
  public var floor: Int?
  /// The tile size to stitch (nil: the smallest in the manifest).
  public var tileSize: Int?
  /// The PNG to write: a new file, or a sheet an earlier preview wrote (any other file only with `force`); not inside the directory.
  public var output: String
  /// Overwrite `output` even when it is not a sheet tilecut wrote.
  public var force = false
  /// Draw tile borders and shade cells that have no tile.
  public var grid = false
  /// Refuse sheets larger than this many pixels on a side.
  public var maxSide = 16384

  /// A sheet of `zoom` of the output in `directory`, written to `output`.
  public init(_ directory: String, zoom: Int, output: String = "sheet.png") {
    self.directory = directory
    self.zoom = zoom
    self.output = output
  }

  /// Stitches the sheet and writes it.
  ///
  /// - Returns: what the sheet shows.
  /// - Throws: `TilecutError` naming the option or file at fault; nothing is written then.
  @discardableResult
  public func run() throws -> PreviewSheetReport {
    if !(0...PlanLimits.maxZoom).contains(zoom) {
      throw TilecutError.invalidOption(option: "--zoom", reason: "\(zoom) is outside 0...\(PlanLimits.maxZoom)")
    }
    if !(1...32768).contains(maxSide) { throw TilecutError.invalidOption(option: "--max-side", reason: "\(maxSide) is outside 1...32768") }
    return try withVips {
      try checkOutput()
      let manifest = try loadManifest(directory)
      guard let floor = try self.floor.map({ try Floor($0, option: "--floor") }) ?? manifest.floors.first else {
        throw TilecutError.invalidInput(path: directory + "/" + Manifest.fileName, reason: "names no floor")
      }
      let size = tileSize ?? manifest.tileSizes.min() ?? 256
      let served = manifest.servingTileSize(floor: floor, tileSize: size, zoom: zoom)
      guard served == size else {
        throw TilecutError.invalidOption(
          option: "--tile-size",
          reason:
            "floor \(floor) has no \(size) px tiles at zoom \(zoom): the \(served) px tiles serve them (--retina-depth native); preview --tile-size \(served)"
        )
      }
      guard let level = manifest.level(floor: floor, tileSize: size, zoom: zoom) else {
        let zooms = manifest.levels.filter { $0.floor == floor && $0.tileSize == size }.map(\.zoom)
        throw TilecutError.invalidOption(
          option: "--zoom", reason: "no level for floor \(floor), \(size) px, zoom \(zoom) (zooms: \(zooms.map(String.init).joined(separator: ", ")))"
        )
      }
      // validated: ranges inside 2^30 and sizes up to 4096, so these products fit
      let columns = level.xRange[1] - level.xRange[0] + 1
      let rows = level.yRange[1] - level.yRange[0] + 1
      guard columns * size <= maxSide, rows * size <= maxSide else {
        throw TilecutError.invalidOption(
          option: "--zoom", reason: "the sheet would be \(columns * size)×\(rows * size) px, over --max-side \(maxSide); pick a lower zoom")
      }
      let template = try TileNameTemplate(manifest.name)
      // every listed tile must be there before the sheet is allocated
      var tiles: [TileCoordinate: [UInt8]] = [:]
      if manifest.store == .pmtiles {
        guard let set = manifest.tileSets?.first(where: { $0.floor == floor && $0.tileSize == size }) else {
          throw TilecutError.invalidInput(path: directory, reason: "its manifest names no PMTiles archive for floor \(floor), \(size) px")
        }
        var st = stat()
        guard lstat(directory + "/" + set.file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
          throw TilecutError.invalidInput(path: directory + "/" + set.file, reason: "is missing or not a regular file")
        }
        try forEachPMTilesTile(directory + "/" + set.file) { tile, data in
          if tile.zoom == zoom, level.hasTile(x: tile.x, y: tile.y) { tiles[tile] = data }
        }
        if let tile = level.tiles.first(where: { tiles[$0] == nil }) {
          throw TilecutError.invalidInput(path: directory + "/" + set.file, reason: "has no entry for tile \(tile), which the manifest lists")
        }
      } else if manifest.store == .mbtiles {
        guard let set = manifest.tileSets?.first(where: { $0.floor == floor && $0.tileSize == size }) else {
          throw TilecutError.invalidInput(path: directory, reason: "its manifest names no MBTiles file for floor \(floor), \(size) px")
        }
        var st = stat()
        guard lstat(directory + "/" + set.file, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
          throw TilecutError.invalidInput(path: directory + "/" + set.file, reason: "is missing or not a regular file")
        }
        let reader = try MBTilesReader(path: directory + "/" + set.file)
        for tile in level.tiles {
          guard let bytes = try reader.tile(tile) else {
            throw TilecutError.invalidInput(path: directory + "/" + set.file, reason: "has no row for tile \(tile), which the manifest lists")
          }
          tiles[tile] = bytes
        }
      } else {
        for tile in level.tiles {
          let path = template.path(floor: floor, tileSize: size, tile: tile)
          tiles[tile] = try readInside(directory, path)
        }
      }
      var sheet = RGBAImage(width: columns * size, height: rows * size)
      for y in level.yRange[0]...level.yRange[1] {
        for x in level.xRange[0]...level.xRange[1] {
          let px = (x - level.xRange[0]) * size
          let py = (y - level.yRange[0]) * size
          if let bytes = tiles[TileCoordinate(zoom: zoom, x: x, y: y)] {
            let path = template.path(floor: floor, tileSize: size, tile: TileCoordinate(zoom: zoom, x: x, y: y))
            let image: RGBAImage
            do { image = try RGBAImage.decode(bytes: bytes) } catch {
              throw TilecutError.invalidInput(path: directory + "/" + path, reason: "does not decode as an image")
            }
            guard image.width == size, image.height == size else {
              throw TilecutError.invalidInput(path: directory + "/" + path, reason: "is \(image.width)×\(image.height), not \(size)×\(size)")
            }
            sheet.paste(image, x: px, y: py)
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
      try OptionFile.write(try PreviewSheet.png(sheet), to: output, what: "the sheet")
      return PreviewSheetReport(output: output, floor: floor, tileSize: size, zoom: zoom, columns: columns, rows: rows)
    }
  }
}

/// What ``PreviewSheetRequest/run()`` wrote.
public struct PreviewSheetReport: Sendable, Equatable {
  /// The PNG written.
  public var output: String
  /// The floor, tile size and zoom stitched.
  public var floor: Floor
  public var tileSize: Int
  public var zoom: Int
  /// The sheet's size in cells.
  public var columns: Int
  public var rows: Int

  /// The line `tilecut preview` prints.
  public var summary: String { "wrote \(output): floor \(floor), \(tileSize) px, zoom \(zoom), \(columns)×\(rows) cells" }
}

extension PreviewSheetRequest {
  /// The sheet's file, before any tile is read: writable, not inside the output it
  /// stitches, and either new or a sheet tilecut wrote (a file of the user's only
  /// with --force).
  func checkOutput() throws {
    try OptionPaths.check(outputs: [("--output", output)], inputs: [], outputDirectory: nil, directories: [directory])
    var st = stat()
    guard !force, stat(output, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return }
    let handle = FileHandle(forReadingAtPath: output)
    defer { try? handle?.close() }
    let head = (try? handle?.read(upToCount: 128)).flatMap { $0 }.map { [UInt8]($0) } ?? []
    guard !PreviewSheet.isSheet(head) else { return }
    throw TilecutError.invalidOption(
      option: "--output",
      reason: "'\(output)' exists and is not a sheet tilecut wrote; tilecut overwrites only its own files: name another file, or add --force")
  }
}
