import Dispatch
import Foundation
import Synchronization
import TilecutCore
import TilecutVips

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
      let tiles = try StoreCatalogue.driver(for: manifest.store).levelTiles(level, of: manifest, in: directory)
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
