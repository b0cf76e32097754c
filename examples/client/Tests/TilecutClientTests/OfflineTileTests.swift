import Foundation
import Testing

@testable import TilecutClient

#if canImport(SQLite3)
  import SQLite3
#else
  import CTilecutClientSQLite
#endif

/// Python with GDAL's bindings (python3-gdal), for decoding tiles independently of tilecut.
let python = "/usr/bin/python3"

/// Offline reads on a real output: the directory, MBTiles made by GDAL and by mbutil's schema.
@Suite("offline tiles: directory and MBTiles, against a real tilecut output")
struct OfflineTileTests {
  @Test("a directory answers the file's bytes for listed cells and no tile for the rest, without reading them")
  func directory() throws {
    let f = try Fixture.shared.get()
    let copy = f.root.appendingPathComponent("copy-\(UUID().uuidString.prefix(6))")
    try FileManager.default.copyItem(at: f.output, to: copy)
    defer { try? FileManager.default.removeItem(at: copy) }
    let tiles = try OfflineTiles(directory: copy)
    var listed = 0
    for c in f.cells() {
      let answer = tiles.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)
      let path = copy.appendingPathComponent(f.manifest.path(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size))
      if let bytes = FileManager.default.contents(atPath: path.path) {
        #expect(answer == .tile(bytes))
        listed += 1
      } else {
        #expect(answer == .noTile)
      }
    }
    #expect(listed > 20)
    // a file planted in a no-tile cell is never read; a listed file gone is an error, not "no tile"
    let noTile = try #require(f.cells().first { !f.manifest.hasTile(floor: $0.floor, zoom: $0.zoom, x: $0.x, y: $0.y, tileSize: $0.size) })
    let planted = copy.appendingPathComponent(
      f.manifest.path(floor: noTile.floor, zoom: noTile.zoom, x: noTile.x, y: noTile.y, tileSize: noTile.size))
    try Data([1, 2, 3]).write(to: planted)
    #expect(tiles.tile(floor: noTile.floor, zoom: noTile.zoom, x: noTile.x, y: noTile.y, tileSize: noTile.size) == .noTile)
    let level = try #require(f.manifest.levels.first { $0.floor == 0 && $0.tileSize == 768 && $0.zoom == 18 })
    let (y, x) = (level.rows[0][0], level.rows[0][1])
    try FileManager.default.removeItem(at: copy.appendingPathComponent(f.manifest.path(floor: 0, zoom: 18, x: x, y: y, tileSize: 768)))
    guard case .unavailable = tiles.tile(floor: 0, zoom: 18, x: x, y: y, tileSize: 768) else {
      Issue.record("a missing listed tile must be unavailable (nil for Google Maps), not no tile")
      return
    }
  }

  @Test("MBTiles made by GDAL from a tilecut sheet: XYZ reads give tilecut's tiles, pixel for pixel")
  func gdalMBTiles() throws {
    let f = try Fixture.shared.get()
    let dir = f.root.appendingPathComponent("gdal-\(UUID().uuidString.prefix(6))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // zoom 19 of floor -1 stitched by tilecut, georeferenced on its tile range, tiled by GDAL
    let zoom = 19
    let level = try #require(f.manifest.levels.first { $0.floor == -1 && $0.tileSize == 256 && $0.zoom == zoom })
    let xs = Set(level.rows.flatMap { [$0[1], $0[2]] })
    let ys = level.rows.map { $0[0] }
    let json = try #require(try JSONSerialization.jsonObject(with: f.manifestData) as? [String: Any])
    let raw = try #require(
      (json["levels"] as? [[String: Any]])?.first { ($0["floor"] as? Int) == -1 && ($0["tileSize"] as? Int) == 256 && ($0["zoom"] as? Int) == zoom })
    let xr = try #require(raw["xRange"] as? [Int])
    let yr = try #require(raw["yRange"] as? [Int])
    #expect(xs.isSubset(of: Set(xr[0]...xr[1])) && ys.allSatisfy { (yr[0]...yr[1]).contains($0) })
    let sheet = dir.appendingPathComponent("sheet.png").path
    try run(try Fixture.tilecutBinary(), ["preview", f.output.path, "--zoom", "\(zoom)", "--floor=-1", "-o", sheet])
    let origin = 20037508.342789244
    let n = Double(1 << zoom)
    func mx(_ x: Int) -> String { String(format: "%.10f", -origin + Double(x) / n * 2 * origin) }
    func my(_ y: Int) -> String { String(format: "%.10f", origin - Double(y) / n * 2 * origin) }
    let file = dir.appendingPathComponent("plan.mbtiles")
    try run(
      "/usr/bin/gdal_translate",
      [
        "-q", "-of", "MBTILES", "-a_srs", "EPSG:3857", "-a_ullr", mx(xr[0]), my(yr[0]), mx(xr[1] + 1), my(yr[1] + 1), "-co", "TILE_FORMAT=PNG", sheet,
        file.path,
      ])

    let mbtiles = try MBTilesFile(url: file)
    #expect(mbtiles.format == "png" && mbtiles.minZoom == zoom && mbtiles.maxZoom == zoom)
    let bounds = try #require(mbtiles.bounds)
    #expect(
      bounds[0] < Fixture.bounds.west && bounds[2] > Fixture.bounds.east && bounds[1] < Fixture.bounds.south && bounds[3] > Fixture.bounds.north)
    let tiles = OfflineTiles(manifest: f.manifest, store: MBTilesTileStore(files: [.init(floor: -1, tileSize: 256): mbtiles]))
    var pairs: [String] = []
    for y in yr[0]...yr[1] {
      for x in xr[0]...xr[1] {
        switch tiles.tile(floor: -1, zoom: zoom, x: x, y: y, tileSize: 256) {
        case .tile(let data):
          let read = dir.appendingPathComponent("read_\(x)_\(y).png")
          try data.write(to: read)
          pairs += [read.path, f.output.appendingPathComponent(f.manifest.path(floor: -1, zoom: zoom, x: x, y: y)).path]
        case .noTile:
          #expect(!level.rows.contains { $0[0] == y && $0[1] <= x && x <= $0[2] })
        case .unavailable(let reason):
          Issue.record("tile \(x),\(y): \(reason)")
        }
      }
    }
    #expect(pairs.count / 2 == level.rows.reduce(0) { $0 + $1[2] - $1[1] + 1 })
    // decoded by GDAL: the largest channel difference between each pair
    let differences = try run(python, ["-c", Self.compare] + pairs).split(separator: "\n").compactMap { Int($0) }
    #expect(differences.count == pairs.count / 2 && differences.allSatisfy { $0 == 0 }, "differences: \(differences)")
    // the spec's TMS rows: the same tile is not found under its XYZ row
    let flipped = (1 << zoom) - 1 - ys[0]
    #expect(try mbtiles.tile(zoom: zoom, x: level.rows[0][1], y: flipped) == nil)
  }

  @Test("MBTiles in mbutil's map + images schema behind a tiles view: the exact bytes of every tile, floor 0, 512 and 768 px")
  func viewSchema() throws {
    let f = try Fixture.shared.get()
    let dir = f.root.appendingPathComponent("view-\(UUID().uuidString.prefix(6))")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    var urls: [MBTilesTileStore.TileSet: URL] = [:]
    for size in [512, 768] {
      let file = dir.appendingPathComponent("L0_\(size).mbtiles")
      // Python's sqlite3, not this package: the file is made independently of the reader
      try run(python, ["-c", Self.mbutil, f.output.path, f.output.appendingPathComponent("manifest.json").path, "0", "\(size)", file.path])
      urls[.init(floor: 0, tileSize: size)] = file
    }
    let store = try MBTilesTileStore(urls: urls)
    #expect(store.files[.init(floor: 0, tileSize: 768)]?.metadata["name"] == "L0_768")
    let tiles = OfflineTiles(manifest: f.manifest, store: store)
    let directory = try OfflineTiles(directory: f.output)
    // and found through the manifest, as an output of `--store mbtiles` names its files
    let sets: [[String: Any]] = [512, 768].map { ["floor": 0, "tileSize": $0, "file": "L0_\($0).mbtiles"] }
    var json = try #require(try JSONSerialization.jsonObject(with: f.manifestData) as? [String: Any])
    json["store"] = "mbtiles"
    json["tileSets"] = sets
    try JSONSerialization.data(withJSONObject: json).write(to: dir.appendingPathComponent("manifest.json"))
    let bundled = try OfflineTiles(directory: dir)
    var compared = 0
    for c in f.cells() where c.floor == 0 && c.size >= 512 {
      let answer = tiles.tile(floor: 0, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)
      #expect(answer == directory.tile(floor: 0, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size))
      #expect(answer == bundled.tile(floor: 0, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size))
      if case .tile = answer { compared += 1 }
    }
    #expect(compared > 20)
    #expect(throws: TileManifest.Failure.unknownStore("zarr")) { try f.manifest(replacing: ["store": "zarr"]) }
  }

  /// The fixture's job again with `--store mbtiles` (or `store`), into a fresh folder of the fixture's root.
  func mbtilesOutput(_ f: Fixture, named name: String, store: String = "mbtiles") throws -> URL {
    let out = f.root.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(6))")
    let plan = Fixture.repository.appendingPathComponent("examples/floorplan/office.png").path
    let b = Fixture.bounds
    try run(
      try Fixture.tilecutBinary(),
      [
        plan, plan, "--first-floor", "-1", "-o", out.path, "--bounds", "\(b.south),\(b.west),\(b.north),\(b.east)",
        "--min-zoom", "16", "--max-zoom", "19", "--tile-size", "256,512,768", "--knockout", "white:8", "--quiet",
        "--store", store,
      ])
    return out
  }

  @Test(
    "tilecut's own --store mbtiles and --store pmtiles outputs: every cell answers as the directory output does", arguments: ["mbtiles", "pmtiles"])
  func tilecutMBTiles(store: String) throws {
    let f = try Fixture.shared.get()
    let out = try mbtilesOutput(f, named: "mb", store: store)
    defer { try? FileManager.default.removeItem(at: out) }
    let bundled = try OfflineTiles(directory: out)
    #expect(bundled.manifest.store == store)
    let directory = try OfflineTiles(directory: f.output)
    var tiles = 0
    var noTiles = 0
    for c in f.cells() {
      let answer = bundled.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)
      #expect(answer == directory.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size), "\(c)")
      if case .tile = answer { tiles += 1 } else { noTiles += 1 }
    }
    #expect(tiles > 50 && noTiles > 50)
  }

  @Test("OfflineTiles(bundle:): a bundle holding an MBTiles output's files flat, as the build-tool plugin leaves them")
  func bundle() throws {
    let f = try Fixture.shared.get()
    let out = try mbtilesOutput(f, named: "bundle-out")
    // a resource bundle as SwiftPM makes one on Linux: a directory with the files at its top
    let bundleURL = f.root.appendingPathComponent("App_App-\(UUID().uuidString.prefix(6)).resources")
    try FileManager.default.createDirectory(at: bundleURL, withIntermediateDirectories: true)
    defer {
      try? FileManager.default.removeItem(at: out)
      try? FileManager.default.removeItem(at: bundleURL)
    }
    let manifest = try TileManifest(contentsOf: out.appendingPathComponent("manifest.json"))
    #expect(manifest.tileSets.count == 6)
    for file in ["manifest.json"] + manifest.tileSets.map(\.file) {
      try FileManager.default.copyItem(at: out.appendingPathComponent(file), to: bundleURL.appendingPathComponent(file))
    }
    let bundle = try #require(Bundle(url: bundleURL))
    let bundled = try OfflineTiles(bundle: bundle)
    #expect(bundled.manifest.store == "mbtiles")
    let directory = try OfflineTiles(directory: f.output)
    var tiles = 0
    for c in f.cells() {
      let answer = bundled.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size)
      #expect(answer == directory.tile(floor: c.floor, zoom: c.zoom, x: c.x, y: c.y, tileSize: c.size), "\(c)")
      if case .tile = answer { tiles += 1 }
    }
    #expect(tiles > 50)
    // a bundle without the plugin's files: one sentence naming the bundle and what to do
    let empty = f.root.appendingPathComponent("Empty-\(UUID().uuidString.prefix(6)).resources")
    try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: empty) }
    #expect {
      try OfflineTiles(bundle: try #require(Bundle(url: empty)))
    } throws: { error in
      "\(error)".contains("no manifest.json") && "\(error)".contains(empty.lastPathComponent)
    }
  }

  @Test("files that are not MBTiles are refused with the reason")
  func refuses() throws {
    let f = try Fixture.shared.get()
    let empty = f.root.appendingPathComponent("empty-\(UUID().uuidString.prefix(6)).mbtiles")
    var db: OpaquePointer?
    #expect(sqlite3_open(empty.path, &db) == SQLITE_OK)
    #expect(sqlite3_exec(db, "CREATE TABLE metadata (name text, value text)", nil, nil, nil) == SQLITE_OK)
    sqlite3_close(db)
    #expect {
      try MBTilesFile(url: empty)
    } throws: { error in
      guard case MBTilesFile.Failure.notMBTiles(_, let reason) = error else { return false }
      return reason.contains("tiles")
    }
    let text = f.root.appendingPathComponent("not-sqlite.mbtiles")
    try Data("hello".utf8).write(to: text)
    #expect(throws: MBTilesFile.Failure.self) { try MBTilesFile(url: text) }
    #expect(throws: MBTilesFile.Failure.self) { try MBTilesFile(url: f.root.appendingPathComponent("missing.mbtiles")) }
  }

  /// argv: pairs of PNG files; prints the largest RGBA difference of each pair (-1: sizes differ).
  static let compare = """
    import sys
    from osgeo import gdal
    import numpy as np
    gdal.UseExceptions()
    def rgba(path):
        ds = gdal.Open(path)
        if ds.GetRasterBand(1).GetColorTable() is not None:
            ds = gdal.Translate("", ds, format="MEM", rgbExpand="rgba")
        a = ds.ReadAsArray().astype(np.int32)
        if a.ndim == 2: a = a[None]
        if a.shape[0] in (1, 2): a = np.concatenate([a[:1], a[:1], a[:1], a[1:] if a.shape[0] == 2 else np.full_like(a[:1], 255)])
        if a.shape[0] == 3: a = np.concatenate([a, np.full_like(a[:1], 255)])
        return a
    args = sys.argv[1:]
    for i in range(0, len(args), 2):
        a, b = rgba(args[i]), rgba(args[i + 1])
        print(int(np.abs(a - b).max()) if a.shape == b.shape else -1)
    """

  /// argv: output dir, manifest, floor, size, file: one tile set in mbutil's schema.
  static let mbutil = """
    import hashlib, json, sqlite3, sys
    out, manifest, floor, size, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    m = json.load(open(manifest))
    db = sqlite3.connect(path)
    db.executescript('''
      CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
      CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
      CREATE TABLE images (tile_data BLOB, tile_id TEXT);
      CREATE UNIQUE INDEX images_id ON images (tile_id);
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
        map.tile_row AS tile_row, images.tile_data AS tile_data
        FROM map JOIN images ON images.tile_id = map.tile_id;
    ''')
    zooms = []
    for level in m['levels']:
        if level['floor'] != floor or level['tileSize'] != size: continue
        z = level['zoom']; zooms.append(z)
        for y, x0, x1 in level['rows']:
            for x in range(x0, x1 + 1):
                name = m['name'].replace('{floor}', str(floor)).replace('{size}', str(size)).replace('{z}', str(z)).replace('{x}', str(x)).replace('{y}', str(y))
                data = open(out + '/' + name, 'rb').read()
                digest = hashlib.sha256(data).hexdigest()
                db.execute('INSERT OR IGNORE INTO images VALUES (?, ?)', (data, digest))
                db.execute('INSERT INTO map VALUES (?, ?, ?, ?)', (z, x, (1 << z) - 1 - y, digest))
    fp = [f for f in m['footprints'] if f['floor'] == floor][0]
    for k, v in [('name', 'L%d_%d' % (floor, size)), ('format', 'png'), ('type', 'overlay'), ('version', '1.3'),
                 ('bounds', '%f,%f,%f,%f' % (fp['west'], fp['south'], fp['east'], fp['north'])),
                 ('minzoom', str(min(zooms))), ('maxzoom', str(max(zooms)))]:
        db.execute('INSERT INTO metadata VALUES (?, ?)', (k, v))
    db.commit()
    """
}
