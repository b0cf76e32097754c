import CVips
import CVipsShim
import TilecutCore

/// Rasters libvips does not read whose pixels libgdal reads (JPEG 2000, ERDAS Imagine,
/// ENVI, GeoPackage: `GDALRaster.pixelDrivers`), and TIFFs whose samples libvips'
/// loader refuses: one image, read in strips through GDAL's block cache
/// (`SourceImage.gdalImage`), with GDAL's mask and nodata.
struct GDALRasterKind: SourceKind {
  var name: String { "raster (libgdal)" }
  var formats: [SourceFormat] { [.gdal] }
  var isDrawnPerZoom: Bool { false }

  func loader(for format: SourceFormat) -> String { "gdal" }

  func gdalMask(format: SourceFormat, page: Int?) -> GDALMaskReading? { .required }

  func header(
    of input: InputName, format: SourceFormat, maxPixels: Int, maxMemory: Int, drawingUnits: (meters: Double, name: String)?
  ) throws -> SourceHeader {
    let path = input.path
    let (pages, width, height) = try SourceImage.measure(path: path, page: input.page, format: format)
    return try SourceImage.pagedHeader(
      path: path, page: input.page, pages: pages, width: width, height: height, format: format, maxPixels: maxPixels)
  }

  /// A raster GDAL reads: one image.
  func measureItself(path: String, page: Int?, format: SourceFormat) throws -> (pages: Int, width: Int, height: Int)? {
    let (width, height) = try SourceImage.gdalSize(path: path)
    return (1, width, height)
  }

  func openStored(path: String, page: Int?, sequential: Bool, format: SourceFormat) throws -> VipsImageHandle {
    try SourceImage.gdalImage(path: path)
  }

  func pixels(
    of source: SourceDescription, format: SourceFormat, sequential: Bool, scale: Double, sheet: SheetClaim?, bands: Bool
  ) throws -> VipsImageHandle {
    try SourceImage.storedPixels(of: source, format: format, sequential: sequential, scale: scale, sheet: sheet)
  }

  /// Grey and alpha, or RGBA (an alpha band, or a palette).
  func hasAlpha(_ input: InputName, format: SourceFormat) throws -> Bool {
    [2, 4].contains(try SourceImage.gdalImage(path: input.path).bands)
  }
}
