import Foundation
import TilecutCore
import TilecutVips

/// A tile store given as a source: a file of an archive store (told by its bytes,
/// whatever its name) or a tilecut output (a directory with a manifest, of any store). Its deepest zoom's tiles are read as one raster (`TileMosaic`), placed exactly
/// on their own Web-Mercator cells, and re-tiled like any placed image.
///
/// The tiles are the data. A store file's own `bounds` (the store says whether it has
/// one) is used, as GDAL uses it, only when it is valid (west < east and south < north,
/// inside ±180° and ±85.0511°) and overlaps the tiles: it then clips the raster, edges
/// rounded to the nearest pixel. An invalid one (geotools' east of 180.00000000000003) is
/// ignored. Other files' and a tilecut output's tiles are taken whole (their tiles
/// outside the footprint are transparent).
enum TileStoreSource {
  /// What a tile store given as a source is.
  enum Kind {
    /// A tilecut output: a directory with a manifest, of any store.
    case output
    /// One file of an archive store, read by its driver.
    case file(any ArchiveStoreDriver)
  }

  /// What a path holds, when it is a tile store; nil for anything else.
  static func kind(of path: String) -> Kind? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    if st.st_mode & S_IFMT == S_IFDIR {
      // an IMDF venue's manifest.json is not a tilecut output's
      if IMDFVenue.isVenue(path) || IMDFVenue.isVenueWithoutManifest(path) { return nil }
      return FileManager.default.fileExists(atPath: path + "/" + Manifest.fileName) ? .output : nil
    }
    guard st.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    let head = [UInt8]((try? handle.read(upToCount: 16)) ?? Data())
    return StoreCatalogue.driver(holding: head, file: handle).map { .file($0) }
  }

  /// The header of a tile store given as a source, with its raster registered for the
  /// renderer (`TileMosaics`); nil when `name` is no tile store.
  static func header(of name: InputName, maxPixels: Int, maxMemory: Int) throws -> SourceHeader? {
    let path = name.path
    guard let kind = kind(of: path) else {
      if let floor = name.floor {
        throw TilecutError.invalidInput(
          path: path, reason: "[floor=\(floor)] names a floor of a tilecut output, and this is none (no manifest.json, \(StoreCatalogue.namesPhrase))"
        )
      }
      return nil
    }
    if name.page != nil {
      throw TilecutError.invalidInput(path: path, reason: "is a tile store, which has no pages; give it without [page=N]")
    }
    let mosaic: TileMosaic
    switch kind {
    case .file(let driver):
      try noFloor(name)
      mosaic = try storeFile(path, driver, maxPixels: maxPixels, maxMemory: maxMemory)
    case .output:
      mosaic = try output(path, floor: name.floor, maxPixels: maxPixels, maxMemory: maxMemory)
    }
    TileMosaics.register(mosaic)
    return mosaic.header
  }

  static func noFloor(_ name: InputName) throws {
    guard let floor = name.floor else { return }
    throw TilecutError.invalidInput(
      path: name.path,
      reason: "[floor=\(floor)] names a floor of a tilecut output; an \(StoreCatalogue.namesPhrase) file holds one tile set: give it alone")
  }

  /// The placement of a registered tile store: its cells on the grid, exact.
  static func placement(path: String, floor: Int?) -> Placement? {
    guard let mosaic = TileMosaics.mosaic(path: path, floor: floor) else { return nil }
    return Placement(method: PlacementMethod(rawValue: "tiles"), transform: mosaic.toWorld)
  }

  /// The line that says which tiles a store source was read from.
  static func describe(path: String, floor: Int?) -> String? {
    guard let m = TileMosaics.mosaic(path: path, floor: floor) else { return nil }
    let clip = m.crop.map { " clipped by its bounds to \($0.width) × \($0.height) px" } ?? ""
    return
      "\(path)\(floor.map { " floor \($0)" } ?? ""): re-tiled from zoom \(m.zoom), \(m.tileCount) tiles of \(m.tileSize) px over x \(m.firstColumn)–\(m.firstColumn + m.columns - 1), y \(m.firstRow)–\(m.firstRow + m.rows - 1)\(clip)"
  }

  /// The file whose bytes stand for the store in the manifest's digests: an output's
  /// manifest (which records every tile's digest), else the file itself.
  static func digestPath(_ path: String) -> String {
    guard case .output? = kind(of: path) else { return path }
    return path + "/" + Manifest.fileName
  }

  // MARK: a store's file

  /// The deepest zoom's tiles of a store's file, clipped by its bounds when the store
  /// gives bounds that are valid.
  static func storeFile(_ path: String, _ driver: any ArchiveStoreDriver, maxPixels: Int, maxMemory: Int) throws -> TileMosaic {
    let found = try driver.deepestTiles(path, maxMemory: maxMemory) { overMemory(path, zoom: $0, maxMemory: maxMemory) }
    let zoom = found.zoom
    var tiles: [TileMosaic.Cell: [UInt8]] = [:]
    for (tile, bytes) in found.tiles { tiles[TileMosaic.Cell(x: tile.x, y: tile.y)] = bytes }
    var mosaic = try TileMosaic.make(
      path: path, floor: nil, zoom: zoom, tiles: tiles, maxPixels: maxPixels, maxMemory: maxMemory, name: { "\(zoom)/\($0.x)/\($0.y)" })
    if found.bounds != nil { mosaic.crop = boundsCrop(found.bounds, mosaic) }
    return mosaic
  }

  /// The raster's part inside a valid `bounds` (west,south,east,north), nil when the
  /// bounds are absent, invalid, cover all the tiles or miss them.
  static func boundsCrop(_ bounds: String?, _ m: TileMosaic) -> PixelRect? {
    let b = (bounds ?? "").split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    let limit = 85.0511287798066
    guard b.count == 4, b.allSatisfy(\.isFinite), b[0] >= -180, b[2] <= 180, b[1] >= -limit - 1e-9, b[3] <= limit + 1e-9, b[0] < b[2], b[1] < b[3]
    else { return nil }
    let world = Double(m.tileSize) * pow(2, Double(m.zoom))
    let west = WebMercator.u(longitudeDegrees: b[0]) * world - Double(m.firstColumn * m.tileSize)
    let east = WebMercator.u(longitudeDegrees: b[2]) * world - Double(m.firstColumn * m.tileSize)
    let north = WebMercator.v(latitudeDegrees: min(b[3], limit)) * world - Double(m.firstRow * m.tileSize)
    let south = WebMercator.v(latitudeDegrees: max(b[1], -limit)) * world - Double(m.firstRow * m.tileSize)
    let full = (w: m.columns * m.tileSize, h: m.rows * m.tileSize)
    let x0 = max(0, min(full.w, Int(west.rounded())))
    let x1 = max(0, min(full.w, Int(east.rounded())))
    let y0 = max(0, min(full.h, Int(north.rounded())))
    let y1 = max(0, min(full.h, Int(south.rounded())))
    guard x1 > x0, y1 > y0, (x0, y0, x1, y1) != (0, 0, full.w, full.h) else { return nil }
    return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  static func overMemory(_ path: String, zoom: Int, maxMemory: Int) -> TilecutError {
    TilecutError.invalidInput(
      path: path,
      reason: "its deepest zoom \(zoom) holds more tile bytes than --max-memory \(maxMemory / 1_000_000) MB; raise --max-memory if this is intended")
  }

  // MARK: tilecut output

  /// One floor's tiles of an output: the floor named, or its only one; its deepest
  /// zoom, and of the tile sizes there the smallest.
  static func output(_ path: String, floor: Int?, maxPixels: Int, maxMemory: Int) throws -> TileMosaic {
    let reader = try StoreReader(path)
    guard let manifest = reader.manifest else { throw TilecutError.invalidInput(path: path, reason: "has no manifest.json") }
    let floors = manifest.floors.map(\.number).sorted()
    let list = floors.map(String.init).joined(separator: ", ")
    let number: Int
    if let floor {
      guard floors.contains(floor) else { throw TilecutError.invalidInput(path: path, reason: "has no floor \(floor); it has \(list)") }
      number = floor
    } else if floors.count == 1, let only = floors.first {
      number = only
    } else {
      throw TilecutError.invalidInput(
        path: path, reason: "holds floors \(list): name the one to re-tile, e.g. '\(path)[floor=\(floors.first ?? 0)]'")
    }
    let levels = manifest.levels.filter { $0.floor.number == number && $0.tileCount > 0 }
    // at the deepest zoom the smallest size: a 512 px level at the 256 px level's zoom is
    // most often that level upsampled (the default pyramid), never more detail to take
    guard let level = levels.max(by: { ($0.zoom, -$0.tileSize) < ($1.zoom, -$1.tileSize) }) else {
      throw TilecutError.invalidInput(path: path, reason: "has no tiles for floor \(number)")
    }
    let set = try reader.tileSet(floor: number, tileSize: level.tileSize)
    let tile = { (x: Int, y: Int) in TileCoordinate(zoom: level.zoom, x: x, y: y) }
    var tiles: [TileMosaic.Cell: [UInt8]] = [:]
    var held = 0
    let most = StoreSourceTiles.maxTiles(maxMemory: maxMemory)
    // the tiles its rows list within its ranges, row by row: a widened xRange or yRange
    // (a manifest edited by hand) is no work
    for run in level.rows where run.count == 3 && level.yRange[0] <= run[0] && run[0] <= level.yRange[1] {
      let (y, first, last) = (run[0], max(run[1], level.xRange[0]), min(run[2], level.xRange[1]))
      guard first <= last else { continue }
      for x in first...last where tiles[TileMosaic.Cell(x: x, y: y)] == nil {
        guard tiles.count < most else { throw StoreSourceTiles.tooManyTiles(path, zoom: level.zoom, maxMemory: maxMemory) }
        guard let bytes = try reader.read(set, tile(x, y), floor: level.floor, size: level.tileSize, manifest: manifest) else {
          throw TilecutError.invalidInput(
            path: path,
            reason:
              "its manifest lists floor \(number) \(level.tileSize) px \(level.zoom)/\(x)/\(y) but the store has no such tile; run tilecut verify")
        }
        held += bytes.count
        guard held <= maxMemory else { throw overMemory(path, zoom: level.zoom, maxMemory: maxMemory) }
        tiles[TileMosaic.Cell(x: x, y: y)] = bytes
      }
    }
    return try TileMosaic.make(
      path: path, floor: floor, zoom: level.zoom, tiles: tiles, maxPixels: maxPixels, maxMemory: maxMemory,
      name: { "floor \(number) \(level.tileSize) px \(level.zoom)/\($0.x)/\($0.y)" })
  }
}
