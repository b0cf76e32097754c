import Foundation
import TilecutCore
import TilecutProject
import TilecutVips

/// How each option group takes a project file's value, by the CLI option the key
/// mirrors: the same fields, defaults and words as the command line's.
extension ProjectArguments {
  static func set(_ options: inout OutputOptions, _ cli: String, _ value: OptionValue) throws {
    let v = OptionValueReader(cli: cli, value: value)
    switch cli {
    case "--output": options.output = v.string
    case "--name": options.name = v.string
    case "--force": options.force = v.bool
    case "--preview": options.preview = v.bool
    case "--store": options.store = try v.choice("kind", StoreKind.init(rawValue:))
    case "--depfile": options.depfile = v.string
    case "--changes": options.changes = v.string
    default: throw v.unknown
    }
  }

  static func set(_ options: inout PyramidOptions, _ cli: String, _ value: OptionValue) throws {
    let v = OptionValueReader(cli: cli, value: value)
    switch cli {
    case "--min-zoom": options.minZoom = try v.int("z")
    case "--max-zoom": options.maxZoom = try v.int("z")
    case "--tile-size": options.tileSizes = try PyramidOptions.tileSizes(parsing: v.string)
    case "--retina-depth": options.retinaDepth = try v.choice("full|native", RetinaDepth.init(rawValue:))
    case "--resampling": options.resampling = try v.choice("kernel", Resampling.init(optionValue:))
    case "--max-tiles": options.maxTiles = try v.int("n")
    default: throw v.unknown
    }
  }

  static func set(_ options: inout EncodingOptions, _ cli: String, _ value: OptionValue) throws {
    let v = OptionValueReader(cli: cli, value: value)
    switch cli {
    case "--format": options.format = try v.choice("format", TileFormat.init(rawValue:))
    case "--png-compression": options.pngCompression = try v.int("0-9")
    case "--palette": options.palette = v.bool
    case "--quality": options.quality = try v.int("q")
    case "--webp-effort": options.webpEffort = try v.int("0-6")
    case "--jpeg-optimize": options.jpegOptimize = v.bool
    case "--background": options.background = try v.color()
    case "--knockout": options.knockout = try v.color()
    default: throw v.unknown
    }
  }

  static func set(_ options: inout RunOptions, _ cli: String, _ value: OptionValue) throws {
    let v = OptionValueReader(cli: cli, value: value)
    switch cli {
    case "--jobs": options.jobs = try v.int("n")
    case "--max-pixels": options.maxPixelsOption = try v.int("n")
    case "--no-vector": options.noVector = v.bool
    case "--dry-run": options.dryRun = v.bool
    case "--json": options.json = v.bool
    case "--quiet": options.quiet = v.bool
    case "--shard": options.shard = try ShardOption(parsing: v.string)
    default: throw v.unknown
    }
  }

  /// An IMDF venue floor's drawing keys (`language`, `venueStyle`).
  static func set(_ options: inout FloorOptions, _ cli: String, _ value: OptionValue) throws {
    let v = OptionValueReader(cli: cli, value: value)
    switch cli {
    case "--language": options.language = v.string
    case "--venue-style": options.venueStyle = v.string
    default: throw v.unknown
    }
  }

  /// A file's coordinates as their text used to give them: -0 is 0.
  static func read(_ numbers: [Double]) -> [Double] { numbers.map { $0 + 0 } }

  /// A floor's placement keys, and its pixel keys (`bands`, `scale`, `nodata`, `layers`).
  static func set(_ options: inout PlacementOptions, _ cli: String, _ value: OptionValue) throws {
    let v = OptionValueReader(cli: cli, value: value)
    switch cli {
    case "--bounds":
      let order = options.coordinateOrder
      if case .numbers(let numbers) = value, let bounds = GeoBounds(numbers: read(numbers), order: order) {
        options.bounds = bounds
      } else {
        options.bounds = try GeoBounds(parsing: v.string, order: order)
      }
    case "--source-projection":
      options.sourceProjection = try v.choice("projection", SourceProjection.init(optionValue:), choices: SourceProjection.optionValues)
    case "--gcp":
      let order = options.coordinateOrder
      if case .rows(let rows) = value {
        for row in rows {
          options.gcp.append(try ControlPoint(numbers: read(row), order: order) ?? ControlPoint(parsing: text(.numbers(row)), order: order))
        }
      } else {
        options.gcp.append(try ControlPoint(parsing: v.string, order: order))
      }
    case "--allow-residual": options.allowResidual = try v.double("px")
    case "--center":
      let order = options.coordinateOrder
      if case .numbers(let numbers) = value, let center = GeoPoint(numbers: read(numbers), order: order) {
        options.center = center
      } else {
        options.center = try GeoPoint(parsing: v.string, order: order, option: cli)
      }
    case "--meters-per-pixel": options.metersPerPixel = try v.double("m")
    case "--drawing-scale": options.drawingScale = try DrawingScale(parsing: v.string)
    case "--drawing-units": options.drawingUnits = try DrawingUnit(parsing: v.string)
    case "--rotation": options.rotation = try v.double("deg")
    case "--world-file": options.worldFile = v.string
    case "--source-crs": options.sourceCrs = v.string
    case "--whole-page": options.wholePage = v.bool
    case "--strict": options.strict = v.bool
    case "--lonlat": options.lonLatOrder = v.bool
    case "--bands": options.pixels.bands = try PixelOptions.bands(parsing: v.string)
    case "--scale": options.pixels.scale = try PixelOptions.scale(parsing: v.string)
    case "--nodata": options.pixels.nodata = try v.double("v")
    case "--layers": options.pixels.layers = try LayerPattern.list(parsing: v.string)
    default: throw v.unknown
    }
  }
}
