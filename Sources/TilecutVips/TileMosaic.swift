import CVips
import CVipsShim
import Foundation
import TilecutCore

/// The tiles of one zoom of a tile store (an MBTiles file, a PMTiles archive, a tilecut
/// output) as one raster: the cell (x, y) of the grid at `zoom` is the block of pixels
/// at ((x − firstColumn)·T, (y − firstRow)·T), a cell with no tile is transparent.
/// The tiles stay compressed in memory; libvips decodes each one when its pixels are
/// first read (arrayjoin of tiles loaded from memory by their own loaders).
public struct TileMosaic: Sendable {
  /// A cell of the grid at `zoom` (XYZ: y grows south).
  public struct Cell: Hashable, Sendable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
      self.x = x
      self.y = y
    }
  }

  /// The store as the user named it: what refusals name.
  public var path: String
  /// The floor of a tilecut output that was read (`[floor=K]`), nil for a store file.
  public var floor: Int?
  public var zoom: Int
  /// Pixels per tile side (every tile has it).
  public var tileSize: Int
  public var firstColumn: Int
  public var firstRow: Int
  public var columns: Int
  public var rows: Int
  /// The first tile's format (PNG, JPEG or WebP; a store may mix them).
  public var format: SourceFormat
  /// The part of the tile range's raster that is the source (a valid MBTiles `bounds`),
  /// nil for all of it.
  public var crop: PixelRect?
  var tiles: [Cell: [UInt8]]

  public var tileCount: Int { tiles.count }
  /// What the planner reads of a source: one page of the raster's size.
  public var header: SourceHeader { SourceHeader(path: path, width: width, height: height, pages: 1, isVector: false, format: format) }
  /// The source raster's size: the crop's, else the whole tile range's.
  public var width: Int { crop?.width ?? columns * tileSize }
  public var height: Int { crop?.height ?? rows * tileSize }

  /// Source pixel → normalised Web-Mercator (u, v), exact: the world at `zoom` is
  /// T·2^zoom pixels wide, and the raster starts at the tile range's (or crop's) corner.
  public var toWorld: TilecutCore.AffineTransform {
    let world = Double(tileSize) * pow(2, Double(zoom))
    let left = Double(firstColumn * tileSize + (crop?.x ?? 0))
    let top = Double(firstRow * tileSize + (crop?.y ?? 0))
    return TilecutCore.AffineTransform(a: 1 / world, b: 0, c: left / world, d: 0, e: 1 / world, f: top / world)
  }

  /// Checks every tile (an allow-listed image format by its bytes, one size for all,
  /// a JPEG's whole scan) and that the raster fits the budgets: `maxPixels` for the
  /// tile range's raster, `maxMemory` for the tiles held compressed plus decoded.
  /// `name(cell)` names a tile for a refusal ("z/x/y", or a file of a directory store).
  public static func make(
    path: String, floor: Int?, zoom: Int, tiles: [Cell: [UInt8]], maxPixels: Int, maxMemory: Int, name: (Cell) -> String
  ) throws -> TileMosaic {
    try Vips.start()
    guard let firstColumn = tiles.keys.map(\.x).min(), let lastColumn = tiles.keys.map(\.x).max(),
      let firstRow = tiles.keys.map(\.y).min(), let lastRow = tiles.keys.map(\.y).max()
    else { throw TilecutError.invalidInput(path: path, reason: "has no tiles at its deepest zoom \(zoom)") }
    var tileSize = 0
    var first: SourceFormat?
    var compressed = 0
    // in grid order, so that the first refusal is the same on every run
    for cell in tiles.keys.sorted(by: { ($0.y, $0.x) < ($1.y, $1.x) }) {
      let bytes = tiles[cell] ?? []
      compressed += bytes.count
      let format = try tileFormat(bytes, path: path, tile: name(cell))
      let size = try bytes.withUnsafeBytes { raw in
        let header = try VipsImageHandle.make("read \(name(cell))") { out in tc_load_tile_copy(format.loader, raw.baseAddress, raw.count, &out) }
        return (header.width, header.height)
      }
      if tileSize == 0 {
        tileSize = size.0
        first = format
      }
      guard size.0 == tileSize, size.1 == tileSize, tileSize >= 1 else {
        throw TilecutError.invalidInput(
          path: path, reason: "holds a tile of \(size.0) × \(size.1) pixels at \(name(cell)), not \(tileSize) × \(tileSize) as its other tiles")
      }
    }
    let columns = lastColumn - firstColumn + 1
    let rows = lastRow - firstRow + 1
    let (width, wide) = columns.multipliedReportingOverflow(by: tileSize)
    let (height, high) = rows.multipliedReportingOverflow(by: tileSize)
    let (area, over) = width.multipliedReportingOverflow(by: height)
    if wide || high || over || area > maxPixels {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "its deepest zoom \(zoom) spans \(columns) × \(rows) tiles of \(tileSize) px, a raster of \(width) × \(height) pixels, more than --max-pixels \(maxPixels); raise --max-pixels if this is intended"
      )
    }
    // the decoded tiles stay with the joined image until it is released: all of them
    let decoded = area.multipliedReportingOverflow(by: 4)
    if decoded.overflow || decoded.partialValue + compressed > maxMemory {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "its deepest zoom \(zoom) is \(width) × \(height) pixels; decoded with its tiles (\(DecodeBudget.megabytes(UInt64(compressed)))) that is more than --max-memory \(maxMemory / 1_000_000) MB; raise --max-memory if this is intended"
      )
    }
    return TileMosaic(
      path: path, floor: floor, zoom: zoom, tileSize: tileSize, firstColumn: firstColumn, firstRow: firstRow, columns: columns, rows: rows,
      format: first ?? .png, crop: nil, tiles: tiles)
  }

  /// The format of one tile's bytes: PNG, JPEG or WebP, or a refusal naming what it is.
  static func tileFormat(_ bytes: [UInt8], path: String, tile: String) throws -> SourceFormat {
    let head = Array(bytes.prefix(4096))
    if let format = SourceFormat.magic(head), [.png, .jpeg, .webp].contains(format) {
      _ = try SourceFormat.available(format, path: path)
      if format == .jpeg {
        var message = [CChar](repeating: 0, count: 512)
        if tc_verify_jpeg_buffer(bytes, bytes.count, &message, message.count) != 0 {
          let said = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
          throw TilecutError.invalidInput(path: path, reason: "holds a damaged JPEG tile at \(tile) (\(said))")
        }
      }
      return format
    }
    let what =
      SourceFormat.magic(head).map { $0.rawValue.uppercased() }
      ?? (SourceFormat.starts(head, [0x1F, 0x8B]) ? "gzip-compressed (a vector tile?)" : SourceFormat.otherFormat(head))
    throw TilecutError.invalidInput(
      path: path, reason: "holds a tile at \(tile) that is \(what), not a PNG, JPEG or WebP image; tilecut re-tiles raster tiles only")
  }

  /// The raster as sRGB RGBA8: each tile converted, the cells joined, the crop cut.
  func image() throws -> VipsImageHandle {
    let blank = try VipsImageHandle.make("a blank tile") { out in tc_blank_rgba(Int32(tileSize), Int32(tileSize), &out) }
    var handles: [VipsImageHandle] = []
    handles.reserveCapacity(columns * rows)
    for row in 0..<rows {
      for column in 0..<columns {
        let cell = Cell(x: firstColumn + column, y: firstRow + row)
        guard let bytes = tiles[cell] else {
          handles.append(blank)
          continue
        }
        // checked whole in `make`; here only which loader
        guard let format = SourceFormat.magic(Array(bytes.prefix(64))) else {
          throw TilecutError.invalidInput(path: path, reason: "holds a tile at \(zoom)/\(cell.x)/\(cell.y) that is not a PNG, JPEG or WebP image")
        }
        let tile = try bytes.withUnsafeBytes { raw in
          try VipsImageHandle.make("read \(path) \(zoom)/\(cell.x)/\(cell.y)") { out in
            tc_load_tile_copy(format.loader, raw.baseAddress, raw.count, &out)
          }
        }
        handles.append(try tile.map("convert \(path) \(zoom)/\(cell.x)/\(cell.y) to sRGB") { tc_to_srgba($0, &$1) })
      }
    }
    var pointers: [UnsafeMutablePointer<VipsImage>?] = handles.map(\.pointer)
    let count = Int32(pointers.count)
    let joined = try withExtendedLifetime(handles) {
      try VipsImageHandle.make("join the tiles of \(path)") { out in
        pointers.withUnsafeMutableBufferPointer { tc_arrayjoin($0.baseAddress, count, Int32(columns), &out) }
      }
    }
    guard let crop else { return joined }
    return try joined.map("crop \(path) to its bounds") { tc_crop($0, &$1, Int32(crop.x), Int32(crop.y), Int32(crop.width), Int32(crop.height)) }
  }
}

/// The tile stores being read as sources in this process, by location and floor: what
/// `SourceImage.pixels` renders for a `SourceDescription` naming one.
public enum TileMosaics {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var registered: [String: TileMosaic] = [:]

  static func key(_ path: String, _ floor: Int?) -> String { floor.map { "\(path)\u{0}\($0)" } ?? path }

  public static func register(_ mosaic: TileMosaic) {
    lock.lock()
    defer { lock.unlock() }
    registered[key(mosaic.path, mosaic.floor)] = mosaic
  }

  public static func mosaic(path: String, floor: Int?) -> TileMosaic? {
    lock.lock()
    defer { lock.unlock() }
    return registered[key(path, floor)]
  }
}
