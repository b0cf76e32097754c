import ArgumentParser
import Foundation
import Tilecut
import TilecutCore
import TilecutVips

// The tiling options as the parser reads them. Each group builds its library value
// (``OutputOptions``, ``PyramidOptions``, …) and checks it with the library's checks,
// so the command line, a Swift caller and a project file are refused in the same words.

/// ``OutputOptions`` as command-line options: where the tiles go and what they are called.
public struct OutputArguments: ParsableArguments {
  @Option(name: [.short, .long], help: ArgumentHelp("Output directory; replaced whole when the run succeeds.", valueName: "dir"))
  public var output: String = OutputOptions().output

  @Option(
    help: ArgumentHelp(
      "Tile path template relative to the output, with {floor} {z} {x} {y} {size}. The extension follows --format.",
      valueName: "template"))
  public var name: String = OutputOptions().name

  @Flag(help: "Rebuild even when the output is up to date.")
  public var force = false

  @Flag(help: "Also write preview.html, a self-contained page to pan and zoom over the tiles.")
  public var preview = false

  @Option(
    help: ArgumentHelp(
      "With --preview: a base map drawn under the tiles in preview.html, an XYZ tile URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png (without one, or offline, the page draws a graticule).",
      valueName: "url"))
  public var previewBasemap: String?

  @Option(help: ArgumentHelp("With --preview-basemap: the base map's attribution, shown on the page.", valueName: "text"))
  public var previewAttribution: String?

  @Option(
    help: ArgumentHelp(
      "Where tiles go: directory (one file per tile), mbtiles (one MBTiles 1.3 file per floor and tile size, for an app bundle) or pmtiles (one PMTiles v3 archive per floor and tile size, for a CDN).",
      valueName: "kind"))
  public var store: StoreKind = OutputOptions().store

  @Option(
    help: ArgumentHelp(
      "Write a make dependency file: <output>/manifest.json: the inputs, world files and .prj files the run read.", valueName: "file"))
  public var depfile: String?

  @Option(
    help: ArgumentHelp(
      "Write the tile files this run added, modified or deleted, one 'A|M|D<TAB>path' line each (git --name-status), relative to the output.",
      valueName: "file"))
  public var changes: String?

  @Flag(help: "Publish an output even when no cell has a tile (by default such a run fails, saying why).")
  public var allowEmpty = false

  public init() {}

  /// What the options say, as the library takes it; text that is no value is refused
  /// in the option's words.
  public var options: OutputOptions {
    get throws {
      var options = OutputOptions()
      options.output = output
      options.name = name
      options.force = force
      options.preview = preview
      options.store = store
      options.depfile = depfile
      options.changes = changes
      options.allowEmpty = allowEmpty
      if let previewBasemap {
        do {
          options.previewBasemap = try PreviewBasemap(parsing: previewBasemap, attribution: previewAttribution)
        } catch {
          // the group's other checks come first, with the base map given
          options.previewBasemap = PreviewBasemap(urlTemplate: previewBasemap, attribution: previewAttribution)
          try options.problems().throwFirst()
          throw error
        }
      } else if previewAttribution != nil {
        try options.problems().throwFirst()
        throw Failure.usage(PreviewBasemap.attributionAlone)
      }
      return options
    }
  }

  public func validate() throws { try options.validate() }
}

/// ``PyramidOptions`` as command-line options: which zooms and tile sizes to make.
public struct PyramidArguments: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Lowest zoom to write (default: 0 for plain images; for georeferenced ones the deepest zoom whose one 256 px tile holds the whole footprint).",
      valueName: "z"))
  public var minZoom: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Highest zoom to write (default: plain images, the smallest z with 256·2^z ≥ the longer side; georeferenced, the deepest zoom whose 256 px tiles are not finer than the source pixels).",
      valueName: "z"))
  public var maxZoom: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Tile sizes in pixels, any of 256, 512 (@2x: the same z/x/y grid at twice the density) and 768 (@3x), comma-separated.", valueName: "sizes"))
  public var tileSize: String = PyramidOptions.text(PyramidOptions().tileSizes)

  @Option(
    help: ArgumentHelp(
      "How deep 512 px tiles go: full (every zoom) or native (only where the source has the detail; deeper zooms' 512 px tiles are not written and the manifest says the 256 px tile serves them).",
      valueName: "full|native"))
  public var retinaDepth: RetinaDepth = PyramidOptions().retinaDepth

  @Option(
    help: ArgumentHelp(
      "The kernel every zoom is drawn with: nearest (no colour the source lacks; classified rasters), average (the area mean of what a tile pixel covers), bilinear (the default: a tent as wide as a tile pixel when it reduces, GDAL's bilinear; least moiré on a plan's hatching) or lanczos3 (sharpest for photos, may ring at hard edges). gdal2tiles' near and lanczos are understood.",
      valueName: "kernel"))
  public var resampling: Resampling = PyramidOptions().resampling

  @Option(
    parsing: .unconditional, help: ArgumentHelp("Refuse jobs of more tiles than this (the estimate names the zoom that causes it).", valueName: "n"))
  public var maxTiles: Int = PyramidOptions().maxTiles

  public init() {}

  /// What the options say, as the library takes it; text that is no value is refused
  /// in the option's words.
  public var options: PyramidOptions {
    get throws {
      var options = PyramidOptions()
      options.minZoom = minZoom
      options.maxZoom = maxZoom
      options.retinaDepth = retinaDepth
      options.resampling = resampling
      options.maxTiles = maxTiles
      do {
        options.tileSizes = try PyramidOptions.tileSizes(parsing: tileSize)
      } catch {
        // the zoom and tile-count checks come before the sizes', as they always have
        try options.problems().filter { !$0.message.hasPrefix("--tile-size") && !$0.message.hasPrefix("--retina-depth") }.throwFirst()
        throw error
      }
      return options
    }
  }

  public func validate() throws { try options.validate() }
}

/// ``FloorOptions`` as command-line options: floors: pages, stacked bands or one input per floor.
public struct FloorArguments: ParsableArguments {
  @Option(
    parsing: .unconditional, help: ArgumentHelp("Number of floors: the source's first N pages, or N equal bands of a one-page sheet.", valueName: "n")
  )
  public var floors: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("Floor number of the first floor, used in names (0 and negatives allowed: basements).", valueName: "k"))
  public var firstFloor: Int = FloorOptions().firstFloor

  @Option(help: ArgumentHelp("How floors are stacked on a one-page sheet: vertical (top to bottom) or horizontal (left to right).", valueName: "dir"))
  public var stack: StackDirection = FloorOptions().stack

  @Option(
    help: ArgumentHelp(
      "For an IMDF venue: the language of its labels (a tag such as en or ru; default: the venue's own), falling back as IMDF's names do.",
      valueName: "tag"))
  public var language: String?

  @Option(
    help: ArgumentHelp(
      "For an IMDF venue: a JSON style file whose paints replace the default indoor style's, e.g. {\"unit.classroom\": {\"fill\": \"#ffeecc\"}}.",
      valueName: "path"))
  public var venueStyle: String?

  public init() {}

  /// What the options say, as the library takes it.
  public var options: FloorOptions {
    var options = FloorOptions()
    options.floors = floors
    options.firstFloor = firstFloor
    options.stack = stack
    options.language = language
    options.venueStyle = venueStyle
    return options
  }

  public func validate() throws { try options.validate() }
}

/// ``EncodingOptions`` as command-line options: pixel treatment and file encoding.
public struct EncodingArguments: ParsableArguments {
  @Option(help: ArgumentHelp("Tile file format: png, webp or jpeg.", valueName: "format"))
  public var format: TileFormat = EncodingOptions().format

  @Option(parsing: .unconditional, help: ArgumentHelp("PNG deflate level, 0 (fast) to 9 (small); upsampled tiles use at most 4.", valueName: "0-9"))
  public var pngCompression: Int = EncodingOptions().pngCompression

  @Flag(
    help: "Quantise tiles of more than 256 colours to 8-bit palettes (libimagequant, lossy). Tiles of fewer colours are always exact palette PNGs.")
  public var palette = false

  @Option(parsing: .unconditional, help: ArgumentHelp("WebP/JPEG quality, 1 to 100 (WebP is lossy and keeps transparency).", valueName: "q"))
  public var quality: Int = EncodingOptions().quality

  @Option(parsing: .unconditional, help: ArgumentHelp("libwebp's effort for WebP tiles, 0 (fast) to 6 (small).", valueName: "0-6"))
  public var webpEffort: Int = EncodingOptions().webpEffort

  @Flag(
    help:
      "Optimised Huffman tables for JPEG tiles: the same pixels in about 7-13% fewer bytes, for about twice libjpeg's encoding time.")
  public var jpegOptimize = false

  @Option(
    help: ArgumentHelp(
      "Tiles whose every pixel is transparent or within TOLERANCE of COLOR are not written (e.g. white, '#f8f8f8:6'); JPEG tiles are filled with COLOR where transparent.",
      valueName: "color[:tol]"))
  public var background: String?

  @Option(
    help: ArgumentHelp(
      "Make pixels of COLOR (within TOLERANCE) transparent before tiling, fading anti-aliased edges, so a white paper plan shows the map around its walls.",
      valueName: "color[:tol]"))
  public var knockout: String?

  public init() {}

  /// What the options say, as the library takes it; text that is no value is refused
  /// in the option's words.
  public var options: EncodingOptions {
    get throws {
      var options = EncodingOptions()
      options.format = format
      options.pngCompression = pngCompression
      options.palette = palette
      options.quality = quality
      options.webpEffort = webpEffort
      options.jpegOptimize = jpegOptimize
      do {
        options.background = try background.map { try ColorRule(parsing: $0, option: "--background") }
        options.knockout = try knockout.map { try ColorRule(parsing: $0, option: "--knockout") }
      } catch {
        // the colours are checked last, --background first, as they always have been
        try options.problems().throwFirst()
        throw Failure(error)
      }
      return options
    }
  }

  public func validate() throws { try options.validate() }
}

/// ``RunOptions`` as command-line options: how the run behaves and reports.
public struct RunArguments: ParsableArguments {
  @Option(parsing: .unconditional, help: ArgumentHelp("Worker threads (default: all cores).", valueName: "n"))
  public var jobs: Int?

  @Flag(help: "Place and plan, print the plan (no pixel decoded: tile counts are upper bounds), write nothing.")
  public var dryRun = false

  @Flag(help: "With --dry-run: render every pixel (nothing written) to count exactly which cells get a tile.")
  public var exact = false

  @Flag(help: "Print the plan (with --dry-run) or the result as one JSON document on stdout.")
  public var json = false

  @Flag(name: [.short, .long], help: "Print only errors.")
  public var quiet = false

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Render a deterministic share K of N of the tiles and write a partial manifest (combine with `tilecut merge`). 'env' or 'env/N' take K (and N) from a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, TILECUT_SHARD_COUNT) or an AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX, AWS_BATCH_JOB_ARRAY_SIZE).",
      valueName: "k/n|env[/n]"))
  public var shard: String?

  @Option(
    name: .customLong("max-pixels"), parsing: .unconditional,
    help: ArgumentHelp(
      "Refuse sources with more pixels than this, and PDF/SVG whose rendering at the deepest zoom would have more (default: 4000000000 for images, 268435456 for a document's rendering).",
      valueName: "n"))
  public var maxPixelsOption: Int?

  @Option(
    name: .customLong("max-memory"), parsing: .unconditional,
    help: ArgumentHelp(
      "Refuse sources whose decoder must hold more than this many megabytes for the whole image at once: a progressive JPEG, an interlaced PNG, an image embedded in an SVG (default: 512).",
      valueName: "MB"))
  public var maxMemoryOption: Int?

  @Flag(help: "Refuse document formats (PDF, SVG and other loaders libvips marks untrusted).")
  public var noVector = false

  public init() {}

  /// What the options say, as the library takes it; text that is no value is refused
  /// in the option's words.
  public var options: RunOptions {
    get throws {
      var options = RunOptions()
      options.jobs = jobs
      options.dryRun = dryRun
      options.exact = exact
      options.json = json
      options.quiet = quiet
      options.maxPixelsOption = maxPixelsOption
      options.maxMemoryOption = maxMemoryOption
      options.noVector = noVector
      do {
        options.shard = try shard.map(ShardOption.init(parsing:))
      } catch {
        // --shard is checked last, as it always has been
        try options.problems().throwFirst()
        throw error
      }
      return options
    }
  }

  public func validate() throws { try options.validate() }
}

extension StackDirection: ExpressibleByArgument {}
extension StoreKind: ExpressibleByArgument {}
extension RetinaDepth: ExpressibleByArgument {}
extension TileFormat: ExpressibleByArgument {}

extension Resampling: ExpressibleByArgument {
  /// gdal2tiles' `near` and `lanczos` are tilecut's nearest and lanczos3.
  public init?(argument: String) { self.init(optionValue: argument) }
}
