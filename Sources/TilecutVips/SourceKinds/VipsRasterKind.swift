import CTilecutPNGRead
import CVips
import CVipsShim
import TilecutCore

/// Rasters libvips reads, each by its own loader: PNG, JPEG, WebP, TIFF (each page a
/// floor, or the sheet split in bands), GIF and HEIF. Their stored pixels are resampled
/// to each level; a photo's EXIF orientation is tiled as displayed.
struct VipsRasterKind: SourceKind {
  var name: String { "raster (libvips)" }
  var formats: [SourceFormat] { [.png, .jpeg, .webp, .tiff, .gif, .heif] }
  var isDrawnPerZoom: Bool { false }

  func loader(for format: SourceFormat) -> String {
    switch format {
    case .png: "pngload"
    case .jpeg: "jpegload"
    case .webp: "webpload"
    case .tiff: "tiffload"
    case .gif: "gifload"
    case .heif: "heifload"
    // not this kind's: the loader of that name, which this kind never opens
    default: "\(format.rawValue)load"
    }
  }

  /// A TIFF's first page: GDAL reads its mask (internal, or a `.msk` beside it) and nodata.
  func gdalMask(format: SourceFormat, page: Int?) -> GDALMaskReading? {
    format == .tiff && (page ?? 0) == 0 ? .optional : nil
  }

  func nodataInTIFFTag(format: SourceFormat) -> Bool { format == .tiff }

  func header(
    of input: InputName, format: SourceFormat, maxPixels: Int, maxMemory: Int, drawingUnits: (meters: Double, name: String)?
  ) throws -> SourceHeader {
    let path = input.path
    // what the header declares against the bytes that are there, before a loader allocates
    try InputCheck.check(path: path, page: input.page, format: format, maxBytes: maxMemory)
    var format = format
    let (pages, storedWidth, storedHeight): (Int, Int, Int)
    do {
      (pages, storedWidth, storedHeight) = try SourceImage.measure(path: path, page: input.page, format: format)
    } catch let error where format == .tiff && input.page == nil {
      // samples libvips' TIFF loader refuses (64-bit float): read by GDAL's GTiff driver, as gdalwarp reads them
      guard let size = try? SourceImage.gdalSize(path: path) else { throw error }
      SourceFormat.readThroughGDAL(tiff: path)
      (format, pages, storedWidth, storedHeight) = (.gdal, 1, size.width, size.height)
    }
    // a photo's EXIF orientation: tiled as displayed
    let (width, height, orientation) = try SourceImage.displayed(
      path: path, format: format, width: storedWidth, height: storedHeight, maxMemory: maxMemory)
    return try SourceImage.pagedHeader(
      path: path, page: input.page, pages: pages, width: width, height: height, orientation: orientation, format: format,
      maxPixels: maxPixels)
  }

  /// One page of a TIFF: opened alone, its page count walked by offsets (TilecutTIFFPage.h).
  func measureItself(path: String, page: Int?, format: SourceFormat) throws -> (pages: Int, width: Int, height: Int)? {
    guard format == .tiff, let page, let one = try SourceImage.tiffPage(path: path, page: page, sequential: false) else { return nil }
    let pages = Int(tc_tiff_page_count(path))
    return (max(pages, page + 1), one.width, one.height)
  }

  func openStored(path: String, page: Int?, sequential: Bool, format: SourceFormat) throws -> VipsImageHandle {
    if let page, format == .tiff, let one = try SourceImage.tiffPage(path: path, page: page, sequential: sequential) {
      return one
    }
    if page == nil, let turned = try SourceImage.openOriented(path: path, format: format) { return turned }
    return try VipsImageHandle.make("load \(path)") { out in
      // the common PNGs, read top to bottom, decode on ISA-L's inflate (TilecutPNGRead.h)
      if page == nil, sequential, format == .png, tc_png_open(path, &out) == 1 { return 0 }
      // JPEGs read top to bottom: libjpeg through tilecut's reader, which fails on
      // any warning to the end of the file (TilecutJPEGScan.h)
      if page == nil, sequential, format == .jpeg, tc_jpeg_open(path, &out) == 1 { return 0 }
      return tc_load_named(loader(for: format), path, Int32(page ?? -1), 0, sequential ? 1 : 0, &out)
    }
  }

  func pixels(
    of source: SourceDescription, format: SourceFormat, sequential: Bool, scale: Double, sheet: SheetClaim?, bands: Bool
  ) throws -> VipsImageHandle {
    try SourceImage.storedPixels(of: source, format: format, sequential: sequential, scale: scale, sheet: sheet)
  }
}
