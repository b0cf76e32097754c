import Foundation
import TilecutCore

/// A tile store opened for reading: an output directory (its manifest names the
/// store), a single file of an archive store, or an http(s) URL of one the store reads
/// over HTTP. What `tilecut show` and `tilecut get STORE Z/X/Y` read.
public final class StoreReader {
  /// What the location holds.
  public typealias Kind = StoreKind

  /// The answer for one cell.
  public typealias Cell = StoreCell

  /// One floor at one tile size, and where its tiles are.
  public struct TileSet {
    public var floor: Int?
    public var tileSize: Int?
    /// The file or URL of the set, nil for tile files named by the manifest's template.
    public var file: String?
    /// The set's file opened by its store, nil for tile files (read by the store, `StoreDriver.outputTile`).
    var reader: (any StoreFileReader)?
  }

  public let location: String
  public let kind: Kind
  /// The output's manifest, when the location is an output directory.
  public let manifest: Manifest?
  public private(set) var tileSets: [TileSet]

  /// True for a location that is a store to read (`tilecut get`) rather than an image to tile: a URL, a
  /// file of an archive store, or a directory holding a manifest.
  public static func looksLikeStore(_ location: String) -> Bool {
    let lower = location.lowercased()
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return true }
    if StoreCatalogue.driver(forFile: location) != nil { return true }
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) && isDirectory.boolValue
      && (FileManager.default.fileExists(atPath: location + "/" + Manifest.fileName)
        || FileManager.default.fileExists(atPath: location + "/" + BuildingIndex.fileName))
  }

  public init(_ location: String) throws {
    self.location = location
    let lower = location.lowercased()
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
      guard let url = URL(string: location) else { throw TilecutError.invalidInput(path: location, reason: "is not a URL") }
      for driver in StoreCatalogue.drivers {
        guard let reader = try driver.openURL(url, name: location) else { continue }
        (kind, manifest) = (driver.kind, nil)
        tileSets = [TileSet(file: location, reader: reader)]
        return
      }
      throw TilecutError.invalidInput(path: location, reason: "is a URL of no store tilecut reads over HTTP")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: location, isDirectory: &isDirectory) else {
      throw TilecutError.invalidInput(path: location, reason: "no such file or directory")
    }
    if !isDirectory.boolValue {
      guard let driver = StoreCatalogue.driver(forFile: lower) else {
        throw TilecutError.invalidInput(
          path: location, reason: "is not a store: give an output directory, \(StoreCatalogue.storeFilesPhrase)")
      }
      (kind, manifest) = (driver.kind, nil)
      tileSets = [TileSet(file: location, reader: try driver.openFile(path: location, name: location))]
      return
    }
    let manifestPath = location + "/" + Manifest.fileName
    let read: [UInt8]?
    do { read = try SmallFile.read(manifestPath, maxBytes: 256 << 20) } catch .tooLarge {
      throw TilecutError.invalidInput(path: manifestPath, reason: "is larger than any tilecut manifest")
    } catch { read = nil }
    guard let data = read.map({ Data($0) }) else {
      if let index = try BuildingIndex.load(location), let first = index.buildings.first {
        let ids = index.buildings.map(\.id).joined(separator: ", ")
        throw TilecutError.invalidInput(
          path: location, reason: "holds one output per building (\(ids)): give one, e.g. \(location)/\(first.id)")
      }
      throw TilecutError.invalidInput(path: location, reason: "has no manifest.json: give a directory tilecut wrote, or a store file")
    }
    let manifest = try Self.decodeManifest(data, path: manifestPath)
    self.manifest = manifest
    if let sets = manifest.tileSets, !sets.isEmpty, let fallback = StoreCatalogue.drivers.first {
      // each file read by the store its extension names (the first store's otherwise);
      // the output's kind is the one store of them all, else the first store's
      let drivers = sets.map { StoreCatalogue.driver(forFile: $0.file) ?? fallback }
      let kinds = Set(drivers.map(\.kind))
      kind = kinds.count == 1 ? drivers[0].kind : fallback.kind
      tileSets = try zip(sets, drivers).map { set, driver in
        let path = location + "/" + set.file
        return TileSet(
          floor: set.floor.number, tileSize: set.tileSize, file: set.file, reader: try driver.openFile(path: path, name: set.file))
      }
    } else {
      kind = StoreCatalogue.driver(for: nil).kind
      tileSets = manifest.floors.flatMap { floor in manifest.tileSizes.map { TileSet(floor: floor.number, tileSize: $0) } }
    }
  }

  /// A manifest, read whatever its `store` names: a store this build does not know
  /// (one a newer tilecut writes) is told by its `tileSets` files instead.
  static func decodeManifest(_ data: Data, path: String) throws -> Manifest {
    guard let parsed = try? JSONSerialization.jsonObject(with: data) else {
      throw TilecutError.invalidInput(path: path, reason: "is not a tilecut manifest (not valid JSON); rebuild the output, or give the store itself")
    }
    do {
      var object = parsed as? [String: Any] ?? [:]
      if let store = object["store"] as? String, Manifest.Store(rawValue: store) == nil {
        object["store"] = nil
        return try Manifest.decode(try JSONSerialization.data(withJSONObject: object), path: path)
      }
      return try Manifest.decode(data, path: path)
    } catch let error as TilecutError {
      throw error
    } catch {
      throw TilecutError.invalidInput(path: path, reason: "is not a tilecut manifest (\(sentence(for: error)))")
    }
  }

  /// The set of `floor` and `tileSize` (each may be omitted where the store has one, or
  /// to take the first floor and the smallest size).
  func tileSet(floor: Int?, tileSize: Int?) throws -> TileSet {
    let floors = Set(tileSets.compactMap(\.floor)).sorted()
    let sizes = Set(tileSets.compactMap(\.tileSize)).sorted()
    if let floor, !floors.isEmpty, !floors.contains(floor) {
      throw TilecutError.invalidOption(
        option: "--floor", reason: "\(location) has no floor \(floor); it has \(floors.map(String.init).joined(separator: ", "))")
    }
    if let tileSize, !sizes.isEmpty, !sizes.contains(tileSize) {
      throw TilecutError.invalidOption(
        option: "--tile-size", reason: "\(location) has no \(tileSize) px tiles; it has \(sizes.map(String.init).joined(separator: ", "))")
    }
    let f = floor ?? floors.first
    let s = tileSize ?? sizes.first
    guard let set = tileSets.first(where: { ($0.floor == nil || $0.floor == f) && ($0.tileSize == nil || $0.tileSize == s) }) else {
      throw TilecutError.invalidInput(path: location, reason: "holds no tile set")
    }
    return set
  }

  /// The tile at z/x/y of a floor and size, or why there is none.
  public func cell(_ tile: TileCoordinate, floor: Int? = nil, tileSize: Int? = nil) throws -> Cell {
    let set = try tileSet(floor: floor, tileSize: tileSize)
    let name = "\(tile.zoom)/\(tile.x)/\(tile.y)"
    guard (0...StoreCell.deepestZoom).contains(tile.zoom), tile.x >= 0, tile.y >= 0, tile.x < 1 << tile.zoom, tile.y < 1 << tile.zoom
    else { return .outside("\(name) is not a tile of the Web-Mercator grid") }
    if let manifest, let f = set.floor.flatMap(Floor.init), let size = set.tileSize {
      return try manifestCell(manifest, set, floor: f, size: size, tile: tile)
    }
    if let reader = set.reader {
      return try reader.cell(tile, name: name) { try read(set, tile) }
    }
    return .outside("\(name) is outside the pyramid")
  }

  func manifestCell(_ manifest: Manifest, _ set: TileSet, floor: Floor, size: Int, tile: TileCoordinate) throws -> Cell {
    let name = "floor \(floor) \(size) px \(tile.zoom)/\(tile.x)/\(tile.y)"
    let serving = manifest.servingTileSize(floor: floor, tileSize: size, zoom: tile.zoom)
    if serving != size {
      return .blank("\(name) has no tile of its own: the manifest says the \(serving) px tile of the same cell serves it (--retina-depth native)")
    }
    let levels = manifest.levels.filter { $0.floor == floor && $0.tileSize == size }
    guard let level = levels.first(where: { $0.zoom == tile.zoom }) else {
      let zooms = levels.map(\.zoom)
      let span = zooms.isEmpty ? "none" : "\(zooms.min() ?? 0)–\(zooms.max() ?? 0)"
      return .outside("\(name) is outside the pyramid (zooms \(span))")
    }
    let xs = level.xRange[0]...max(level.xRange[0], level.xRange[1])
    let ys = level.yRange[0]...max(level.yRange[0], level.yRange[1])
    guard xs.contains(tile.x), ys.contains(tile.y) else {
      return .outside("\(name) is outside the pyramid (zoom \(tile.zoom) covers x \(Self.text(xs)), y \(Self.text(ys)))")
    }
    guard level.hasTile(x: tile.x, y: tile.y) else {
      return .blank("\(name) is inside the footprint's cells but has no tile (blank: the no-tile rule)")
    }
    guard let bytes = try read(set, tile, floor: floor, size: size, manifest: manifest) else {
      throw TilecutError.invalidInput(path: location, reason: "the manifest lists \(name) but the store has no such tile; run tilecut verify")
    }
    return .tile(bytes)
  }

  /// The tile's bytes, nil when the store has none; a stored tile of no bytes is
  /// refused (an empty tile is no tile: no image a map can draw, nor the no-tile rule).
  func read(_ set: TileSet, _ tile: TileCoordinate, floor: Floor? = nil, size: Int? = nil, manifest: Manifest? = nil) throws -> [UInt8]? {
    guard let bytes = try stored(set, tile, floor: floor, size: size, manifest: manifest) else { return nil }
    guard !bytes.isEmpty else {
      var file = set.file.map { $0 == location ? $0 : location + "/" + $0 } ?? location
      if set.file == nil, let manifest, let floor, let size,
        let path = StoreCatalogue.driver(for: kind).outputTilePath(tile, floor: floor, tileSize: size, of: manifest, in: location)
      {
        file = path
      }
      throw StoreCell.emptyTile(tile, at: file)
    }
    return bytes
  }

  func stored(_ set: TileSet, _ tile: TileCoordinate, floor: Floor?, size: Int?, manifest: Manifest?) throws -> [UInt8]? {
    if let reader = set.reader { return try reader.tile(tile) }
    guard let manifest, let floor, let size else { return nil }
    try checkName(of: manifest)
    return try StoreCatalogue.driver(for: kind).outputTile(tile, floor: floor, tileSize: size, of: manifest, in: location)
  }

  /// The manifest's `name` as a template of tile files, refused as a fault of the
  /// manifest file (input, exit 1), not of a `--name` the user did not give.
  func checkName(of manifest: Manifest) throws {
    do {
      _ = try TileNameTemplate(manifest.name, option: "name")
    } catch let error as TilecutError {
      throw TilecutError.invalidInput(
        path: location + "/" + Manifest.fileName,
        reason: "\(error.description); tilecut writes no such name: rebuild the output")
    }
  }

  /// The cells a bounding box touches at `zoom`.
  static func cells(west: Double, south: Double, east: Double, north: Double, zoom: Int) -> (x: ClosedRange<Int>, y: ClosedRange<Int>) {
    StoreCell.cells(west: west, south: south, east: east, north: north, zoom: zoom)
  }

  static func text(_ r: ClosedRange<Int>) -> String { StoreCell.text(r) }
}

extension StoreReader {
  /// What `tilecut show` prints: the store as a JSON object (kind, floors, sizes,
  /// zooms, bounds, tile count, each tile set, metadata).
  public func summary() throws -> [String: Any] {
    var sets: [[String: Any]] = []
    for set in tileSets {
      var one: [String: Any] = [:]
      if let floor = set.floor { one["floor"] = floor }
      if let size = set.tileSize { one["tileSize"] = size }
      if let file = set.file { one["file"] = file }
      if let manifest, let floor = set.floor, let size = set.tileSize {
        let levels = manifest.levels.filter { $0.floor.number == floor && $0.tileSize == size }
        one["tiles"] = levels.reduce(0) { $0 + $1.tileCount }
        if let lo = levels.map(\.zoom).min(), let hi = levels.map(\.zoom).max() { one["zooms"] = [lo, hi] }
        if let f = manifest.footprints.first(where: { $0.floor.number == floor }) {
          one["bounds"] = [f.west, f.south, f.east, f.north]
        }
      }
      try set.reader?.describe(into: &one)
      sets.append(one)
    }
    var out: [String: Any] = ["kind": kind.rawValue, "location": location, "tileSets": sets]
    out["floors"] = Set(tileSets.compactMap(\.floor)).sorted()
    out["tileSizes"] = Set(tileSets.compactMap(\.tileSize)).sorted()
    let zooms = sets.compactMap { $0["zooms"] as? [Int] }
    if let lo = zooms.map({ $0[0] }).min(), let hi = zooms.map({ $0[1] }).max() { out["zooms"] = [lo, hi] }
    let bounds = sets.compactMap { $0["bounds"] as? [Double] }.filter { $0.count == 4 }
    if !bounds.isEmpty {
      let union: [Double] = [
        bounds.map { $0[0] }.min() ?? 0, bounds.map { $0[1] }.min() ?? 0, bounds.map { $0[2] }.max() ?? 0, bounds.map { $0[3] }.max() ?? 0,
      ]
      out["bounds"] = union
    }
    out["tileCount"] = sets.reduce(0) { $0 + ($1["tiles"] as? Int ?? 0) }
    if let manifest {
      var meta: [String: Any] = ["name": manifest.name, "generator": "\(manifest.generator.name) \(manifest.generator.version)"]
      if let version = manifest.contentVersion { meta["contentVersion"] = version }
      out["metadata"] = meta
    } else if sets.count == 1 {
      out["metadata"] = sets[0]["metadata"]
    }
    return out
  }

  /// The tile `words` name: `Z/X/Y` or `Z X Y`, integers; nil when they name none.
  public static func coordinate(_ words: [String]) -> TileCoordinate? {
    let parts = words.count == 1 ? words[0].split(separator: "/", omittingEmptySubsequences: false).map(String.init) : words
    guard parts.count == 3, let z = Int(parts[0]), let x = Int(parts[1]), let y = Int(parts[2]) else { return nil }
    return TileCoordinate(zoom: z, x: x, y: y)
  }

  /// The summary as `show --json` prints it: one object, keys sorted.
  public static func json(_ summary: [String: Any]) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: summary, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
    return String(decoding: data, as: UTF8.self)
  }

  /// The summary as lines for a person.
  public static func text(_ summary: [String: Any]) -> String {
    func join(_ v: Any?) -> String { (v as? [Any])?.map { "\($0)" }.joined(separator: ", ") ?? "-" }
    var lines = ["\(summary["location"] ?? ""): \(summary["kind"] ?? "") store"]
    if let floors = summary["floors"] as? [Int], !floors.isEmpty { lines.append("floors: \(join(floors))") }
    if let sizes = summary["tileSizes"] as? [Int], !sizes.isEmpty { lines.append("tile sizes: \(join(sizes)) px") }
    if let z = summary["zooms"] as? [Int] { lines.append("zooms: \(z[0])–\(z[1])") }
    if let b = summary["bounds"] as? [Double] {
      lines.append(String(format: "bounds: W %.6f S %.6f E %.6f N %.6f", b[0], b[1], b[2], b[3]))
    }
    lines.append("tiles: \(summary["tileCount"] ?? 0)")
    for set in summary["tileSets"] as? [[String: Any]] ?? [] {
      var parts: [String] = []
      if let f = set["floor"] { parts.append("floor \(f)") }
      if let s = set["tileSize"] { parts.append("\(s) px") }
      if let file = set["file"] { parts.append("\(file)") }
      if let format = set["format"] { parts.append("\(format)") }
      if let z = set["zooms"] as? [Int] { parts.append("z\(z[0])–\(z[1])") }
      if let t = set["tiles"] { parts.append("\(t) tiles") }
      lines.append("  " + parts.joined(separator: ", "))
    }
    if let meta = summary["metadata"],
      let data = try? JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys, .withoutEscapingSlashes])
    {
      lines.append("metadata: " + String(decoding: data, as: UTF8.self))
    }
    return lines.joined(separator: "\n")
  }
}
