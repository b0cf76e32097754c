import CVips
import CVipsShim
import TilecutCore

/// The source-kind seam: one way tilecut reads an input whose bytes name its format
/// (`SourceFormat.detect`). A kind opens the file within the budget, says its pages,
/// size and whether it is drawn at each level's density, answers the questions the
/// options and the planner ask of it, and renders its pixels (a band of them, at a
/// density) for `LevelPipeline`. Each kind is one file in this folder; a new kind is a
/// new file, its formats added to `SourceFormat` and the kind to `SourceKinds.all`.
/// Callers ask `format.kind`, never switch on a format's cases.
///
/// Sources found before the bytes are read (a tile store, an IMDF venue, a KML or KMZ
/// GroundOverlay) are resolved by their own readers (`TileMosaics`, `VenueSheets`,
/// `OverlaySource`) and then read as the kind their pixels are.
package protocol SourceKind: Sendable {
  /// What the kind is, for messages and the documentation: "raster (libvips)".
  var name: String { get }

  /// The formats this kind reads; each format is one kind's.
  var formats: [SourceFormat] { get }

  /// The libvips loader that reads `format` (one of `formats`): the only one that opens it.
  func loader(for format: SourceFormat) -> String

  /// A document or drawing: drawn at the density each level needs (the planner's
  /// `isVector`), never resampled from stored pixels; an incremental build compares
  /// it as a whole file, not by pixel blocks, and its floor is made again when it changes.
  var isDrawnPerZoom: Bool { get }

  /// Its pages may state their own georeferencing (a GeoPDF's viewport) and drawing
  /// scale (`/Measure /RL`), which placement reads.
  var pagesStatePlacement: Bool { get }

  /// How GDAL reads a mask and nodata value for page `page` of a file of `format`, or
  /// nil when GDAL is not asked (`PixelOptions.gdalMask`).
  func gdalMask(format: SourceFormat, page: Int?) -> GDALMaskReading?

  /// Whether a file of `format` states its nodata value in its own GDAL_NODATA TIFF tag
  /// (read by tilecut); otherwise GDAL's mask reading says it.
  func nodataInTIFFTag(format: SourceFormat) -> Bool

  /// The header: pages, size (as displayed) and, for a drawing, its frame; read within
  /// `maxMemory` bytes and refused past `maxPixels`. `drawingUnits` is a CAD drawing's
  /// `--drawing-units` (metres in one unit, and its name).
  func header(
    of input: InputName, format: SourceFormat, maxPixels: Int, maxMemory: Int, drawingUnits: (meters: Double, name: String)?
  ) throws -> SourceHeader

  /// Pages, width and height of `path` when the kind measures them itself (a TIFF's
  /// page walked by offsets, a raster GDAL reads); nil to open it with its loader.
  func measureItself(path: String, page: Int?, format: SourceFormat) throws -> (pages: Int, width: Int, height: Int)?

  /// The stored pixels of page `page` (nil: the first, or the only one), opened by the
  /// format's own reader; `sequential`: read top to bottom.
  func openStored(path: String, page: Int?, sequential: Bool, format: SourceFormat) throws -> VipsImageHandle

  /// The source's pixels as sRGB RGBA8, cropped to its band; documents and drawings
  /// rendered at `scale`. `sheet`: a sequential read of a raster's band may continue
  /// the sheet's shared reader. `bands`: a document read strictly top to bottom is
  /// rendered in bands; a reader that goes back and forth across rows wants tiles.
  func pixels(
    of source: SourceDescription, format: SourceFormat, sequential: Bool, scale: Double, sheet: SheetClaim?, bands: Bool
  ) throws -> VipsImageHandle

  /// Whether the input has an alpha channel as it is loaded: what JPEG tiles cannot keep.
  func hasAlpha(_ input: InputName, format: SourceFormat) throws -> Bool
}

/// How GDAL reads a raster's mask and nodata value.
package enum GDALMaskReading: Sendable, Hashable {
  /// GDAL reads the raster: its refusal stands.
  case required
  /// Another reader reads the pixels: a raster GDAL cannot open is read without a
  /// mask (a refusal caused by a file beside it still stands).
  case optional
}

extension SourceKind {
  package var pagesStatePlacement: Bool { false }

  package func gdalMask(format: SourceFormat, page: Int?) -> GDALMaskReading? { nil }

  package func nodataInTIFFTag(format: SourceFormat) -> Bool { false }

  package func measureItself(path: String, page: Int?, format: SourceFormat) throws -> (pages: Int, width: Int, height: Int)? { nil }

  package func openStored(path: String, page: Int?, sequential: Bool, format: SourceFormat) throws -> VipsImageHandle {
    try VipsImageHandle.make("load \(path)") { out in
      tc_load_named(loader(for: format), path, Int32(page ?? -1), 0, sequential ? 1 : 0, &out)
    }
  }

  package func hasAlpha(_ input: InputName, format: SourceFormat) throws -> Bool {
    var alpha: Int32 = 0
    guard tc_has_alpha(loader(for: format), input.path, Int32(input.page ?? -1), &alpha) == 0 else {
      let error = VipsError.current("load")
      throw TilecutError.invalidInput(
        path: input.path, reason: "cannot be read as an image (\(error.message.isEmpty ? error.operation : error.message))")
    }
    return alpha != 0
  }
}

/// The kinds tilecut reads, and which reads a format.
package enum SourceKinds {
  /// Every kind, in the order of `SourceFormat`'s cases.
  package static let all: [any SourceKind] = [VipsRasterKind(), PDFKind(), SVGKind(), GDALRasterKind(), DrawingKind()]

  static let byFormat: [SourceFormat: any SourceKind] = {
    var out: [SourceFormat: any SourceKind] = [:]
    for kind in all {
      for format in kind.formats { out[format] = kind }
    }
    return out
  }()
}

extension SourceFormat {
  /// The kind that reads this format.
  package var kind: any SourceKind {
    guard let kind = SourceKinds.byFormat[self] else { fatalError("no source kind reads \(rawValue)") }
    return kind
  }

  /// The libvips loader that reads this format.
  public var loader: String { kind.loader(for: self) }

  /// A CAD drawing (DXF, DWG), read by GDAL's OGR driver and drawn by cairo: for the
  /// library's users; tilecut itself asks `kind`.
  public var isDrawing: Bool { kind is DrawingKind }

  /// A document or drawing, drawn at the density each level needs: for the library's
  /// users; tilecut itself asks `kind.isDrawnPerZoom`.
  public var isVector: Bool { kind.isDrawnPerZoom }
}
