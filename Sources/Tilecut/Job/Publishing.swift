import Foundation
import TilecutCore
import TilecutVips

/// What a run changed in its output's tiles, for uploading only that to a CDN.
struct ChangeList: Equatable {
  /// One changed tile file: `A`dded, `M`odified or `D`eleted, as `git diff --name-status` says.
  struct Entry: Equatable {
    var status: Character
    var path: String
  }

  var entries: [Entry]

  /// The files that hold `manifest`'s tiles, relative to the directory that holds
  /// it, sorted: one per tile, or the files of an archive store.
  static func tilePaths(of manifest: Manifest) throws -> [String] {
    try StoreCatalogue.driver(for: manifest.store).tileFiles(of: manifest).sorted()
  }

  /// What a store's staged output changes against the output it replaces.
  static func compute(store: any TileStore, manifest: Manifest, previous: Manifest?) throws -> ChangeList {
    guard let staging = store.stagingPath else { throw TilecutError.output(path: store.path, reason: "the store was not begun") }
    // tiles kept in place are the previous output's very files: none modified
    if store.keepsTiles {
      return try compute(manifest: manifest, bytes: { _ in Data() }, previous: previous, previousBytes: { _ in Data() })
    }
    return try compute(staging: staging, manifest: manifest, previousRoot: store.path, previous: previous)
  }

  /// Compares the tiles about to be committed (`staging`, described by `manifest`)
  /// with the output they replace (`previous`, at `previousRoot`), byte for byte.
  /// With no previous output every tile is added.
  static func compute(staging: String, manifest: Manifest, previousRoot: String, previous: Manifest?) throws -> ChangeList {
    try compute(
      manifest: manifest, bytes: { FileManager.default.contents(atPath: staging + "/" + $0) }, previous: previous,
      previousBytes: { FileManager.default.contents(atPath: previousRoot + "/" + $0) })
  }

  /// The same for any store: `bytes` and `previousBytes` read a tile by its path.
  static func compute(
    manifest: Manifest, bytes: (String) throws -> Data?, previous: Manifest?, previousBytes: (String) throws -> Data?
  ) throws -> ChangeList {
    let new = try tilePaths(of: manifest)
    let old = try previous.map { try tilePaths(of: $0) } ?? []
    let oldSet = Set(old)
    let newSet = Set(new)
    var entries: [Entry] = []
    for path in new {
      guard oldSet.contains(path) else {
        entries.append(Entry(status: "A", path: path))
        continue
      }
      let before = try previousBytes(path)
      let after = try bytes(path)
      // a tile the previous manifest lists but whose file is gone counts as modified: upload it
      if before == nil || before != after { entries.append(Entry(status: "M", path: path)) }
    }
    for path in old where !newSet.contains(path) { entries.append(Entry(status: "D", path: path)) }
    entries.sort { $0.path < $1.path }
    return ChangeList(entries: entries)
  }

  /// `A<TAB>path` lines, one per tile, ending with a newline (empty when nothing changed).
  var text: String { entries.map { "\($0.status)\t\($0.path)\n" }.joined() }

  func write(to path: String) throws {
    try OptionFile.write(Array(text.utf8), to: path, what: "the --changes list")
  }
}

/// The manifest's `contentVersion`: a hash over every tile's path and bytes.
package enum ContentVersion {
  /// Sets the manifest's `contentVersion`, each level's `digest` and, on a shard's
  /// manifest, every tile's digest prefix run together per level
  /// (`Manifest.Shard.levelDigests`, which `merge` checks each tile against), from one
  /// digest of each staged tile.
  package static func stamp(_ manifest: inout Manifest, store: any TileStore) throws {
    var index: [LevelKey: Int] = [:]
    for (i, level) in manifest.levels.enumerated() { index[LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)] = i }
    let shard = manifest.shard != nil
    var prefixes = [String](repeating: "", count: manifest.levels.count)
    let content = try manifest.contentDigests(
      hash: SHA256Digest.hex,
      digest: { floor, size, tile in
        let digest = try digest(store, floor: floor, tileSize: size, tile: tile)
        if shard, let i = index[LevelKey(floor: floor, tileSize: size, zoom: tile.zoom)] {
          prefixes[i] += digest.prefix(Manifest.Shard.digestLength)
        }
        return digest
      })
    manifest.contentVersion = content.version
    for i in manifest.levels.indices { manifest.levels[i].digest = content.levels[i] }
    if shard { manifest.shard?.levelDigests = prefixes }
  }

  /// A staged tile's SHA-256: the one taken as it was put, else from its bytes (a tile
  /// carried over by a link, which this run did not hand to the store).
  static func digest(_ store: any TileStore, floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> String {
    try store.stagedDigest(floor: floor, tileSize: tileSize, tile: tile)
      ?? SHA256Digest.hex(try store.stagedTile(floor: floor, tileSize: tileSize, tile: tile))
  }

  /// 16 hex digits of SHA-256 over "path sha256(bytes)" lines in path order (the
  /// path the name template gives, whatever the store), short enough for a `?v=`
  /// query; `digest` gives a tile's SHA-256 (hex) by floor, size and coordinate.
  package static func of(_ manifest: Manifest, digest: (Floor, Int, TileCoordinate) throws -> String) throws -> String {
    try manifest.contentDigests(hash: SHA256Digest.hex, digest: digest).version
  }
}

/// A make dependency file: `<output>/manifest.json: <input> <sidecars…>`.
enum DependencyFile {
  /// Every file a run reads: the inputs (and an IMDF venue folder's files), the files
  /// their placements were read from (world file, `.prj`, `.aux.xml`, a `--source-crs`
  /// WKT file), a `.prj` beside an input or world file, and `sidecars` (those, and a
  /// `--venue-style` file). Only files that exist are listed (make stops on a
  /// prerequisite it cannot make).
  static func dependencies(inputs: [String], placement: PlacementOptions, sidecars: [String] = []) -> [String] {
    var out: [String] = []
    func add(_ path: String) {
      guard !out.contains(path), FileManager.default.fileExists(atPath: path) else { return }
      out.append(path)
    }
    let placedByOption = placement.bounds != nil || !placement.gcp.isEmpty || placement.center != nil
    for input in inputs {
      add(input)
      // an IMDF venue folder: the files read from it (an edit changes no folder's time)
      for file in IMDFVenue.files(inFolder: input) { add(file) }
      add(projection(beside: input))
      guard !placedByOption else { continue }
      if let world = placement.worldFile ?? WorldFile.findSidecar(for: input) {
        add(world)
        add(projection(beside: world))
      }
    }
    for path in sidecars { add(path) }
    return out
  }

  /// `plan.png` → `plan.prj`.
  static func projection(beside path: String) -> String {
    let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    guard let dot = path[slash...].lastIndex(of: ".") else { return path + ".prj" }
    return String(path[..<dot]) + ".prj"
  }

  /// A path as GNU make reads it in a rule: a target (`asTarget`: the rule's own and
  /// the empty rules after it) or a prerequisite. Space, `#`, `:` and the wildcards
  /// `*?[` take a backslash (and the backslashes before them are doubled, as gcc
  /// does), `$` is doubled, `=` becomes `$(firstword =)` (a bare or escaped `=` makes
  /// the line an assignment), `|` and `%` are escaped where make reads them (`|` among
  /// prerequisites, `%` in targets), and a relative `~…` starts with `./`. Names make
  /// cannot express at all are refused: a newline, carriage return, tab or `;`, a
  /// trailing backslash, or `name(member)` (an archive member to make).
  static func escape(_ path: String, asTarget: Bool = false) throws -> String {
    func refuse(_ why: String) -> TilecutError {
      TilecutError.invalidOption(option: "--depfile", reason: "make cannot name '\(path)' (\(why)); rename the file or drop --depfile")
    }
    if path.contains(where: { $0 == "\n" || $0 == "\r" }) { throw refuse("it holds a line break") }
    if path.contains("\t") { throw refuse("it holds a tab") }
    if path.contains(";") { throw refuse("make reads ';' as the start of a recipe") }
    if path.hasSuffix("\\") { throw refuse("it ends in a backslash") }
    if path.hasSuffix(")") && path.contains("(") { throw refuse("make reads 'name(member)' as an archive member") }
    var out = path.hasPrefix("~") ? "./" : ""
    var backslashes = 0
    for c in path {
      if c == "\\" {
        backslashes += 1
        continue
      }
      let quoted: Bool
      switch c {
      case " ", "#", ":", "*", "?", "[": quoted = true
      case "|": quoted = !asTarget
      case "%": quoted = asTarget
      default: quoted = false
      }
      out += String(repeating: "\\", count: quoted ? 2 * backslashes + 1 : backslashes)
      backslashes = 0
      switch c {
      case "$": out += "$$"
      case "=": out += "$(firstword =)"
      default: out.append(c)
      }
    }
    out += String(repeating: "\\", count: backslashes)
    return out
  }

  /// The rule, and an empty rule per prerequisite (gcc's -MP) so that deleting a
  /// sidecar does not stop make with "no rule to make target".
  static func text(target: String, dependencies: [String]) throws -> String {
    var text = try escape(target, asTarget: true) + ":" + dependencies.map { " " + (try escape($0)) }.joined() + "\n"
    for d in dependencies { text += "\n" + (try escape(d, asTarget: true)) + ":\n" }
    return text
  }

  /// The make target a run's depfile names: the output's manifest.
  static func target(output: String) -> String {
    (output.hasSuffix("/") ? String(output.dropLast()) : output) + "/" + Manifest.fileName
  }

}
