import CTilecutDocument
import CVips
import CVipsShim
import TilecutCore
import TilecutGeo

/// Rasters libvips does not read, and GDAL's masks, as libvips images whose pixels
/// libgdal reads when they are asked for (`tc_gdal_image`): strips of rows through
/// GDAL's block cache, never the whole raster, so the pipeline downstream (conversion,
/// nodata, scaling of data, resampling) is the one a TIFF goes through.
extension SourceImage {
  /// The raster's pixels as its bands give them: 1 to 4 bands (grey, grey and alpha,
  /// RGB, RGBA) of its own sample type, or RGBA through its palette; more bands are
  /// chosen with `--bands` as for a TIFF.
  static func gdalImage(path: String) throws -> VipsImageHandle {
    let raster = try GDALRaster.open(path: path, mask: false)
    let bands = raster.palette ? 4 : raster.bands
    let format: VipsBandFormat
    switch raster.palette ? 1 : raster.dataType {
    case 1: format = VIPS_FORMAT_UCHAR
    case 2: format = VIPS_FORMAT_USHORT
    case 3: format = VIPS_FORMAT_SHORT
    case 4: format = VIPS_FORMAT_UINT
    case 5: format = VIPS_FORMAT_INT
    case 6: format = VIPS_FORMAT_FLOAT
    case 7: format = VIPS_FORMAT_DOUBLE
    default:
      raster.close()
      throw TilecutError.invalidInput(path: path, reason: "has samples of a type tilecut does not read (GDAL type \(raster.dataType))")
    }
    let grey = bands < 3
    let interpretation: VipsInterpretation =
      switch format {
      case VIPS_FORMAT_UCHAR: grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
      case VIPS_FORMAT_USHORT: grey ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_RGB16
      default: grey ? VIPS_INTERPRETATION_B_W : VIPS_INTERPRETATION_sRGB
      }
    return try VipsImageHandle.make("read \(path) through GDAL (\(raster.driver))") { out in
      tc_gdal_image(raster.handle, Int32(raster.width), Int32(raster.height), Int32(bands), format, interpretation, &out)
    }
  }

  /// GDAL's per-dataset mask of the raster (internal, or the `.msk` beside it): one band
  /// of uchar, 255 where a pixel is valid.
  static func gdalMask(path: String) throws -> VipsImageHandle {
    let raster = try GDALRaster.open(path: path, mask: true)
    let file = raster.maskFile ?? path
    do {
      return try VipsImageHandle.make("read the mask of \(path)") { out in
        tc_gdal_image(raster.handle, Int32(raster.width), Int32(raster.height), 1, VIPS_FORMAT_UCHAR, VIPS_INTERPRETATION_B_W, &out)
      }
    } catch let error as VipsError {
      throw TilecutError.invalidInput(path: file, reason: "cannot be read as GDAL's mask (\(error.message))")
    }
  }

  /// Width and height of a raster GDAL reads.
  static func gdalSize(path: String) throws -> (width: Int, height: Int) {
    let raster = try GDALRaster.open(path: path, mask: false)
    defer { raster.close() }
    return (raster.width, raster.height)
  }

  /// `image` (sRGB RGBA8, the source's whole raster) with GDAL's mask applied: masked
  /// pixels transparent, as gdalwarp leaves them.
  static func masked(_ image: VipsImageHandle, path: String) throws -> VipsImageHandle {
    let mask = try gdalMask(path: path)
    guard mask.width == image.width, mask.height == image.height else {
      throw TilecutError.invalidInput(
        path: path, reason: "has a GDAL mask of \(mask.width) × \(mask.height) pixels, not its own \(image.width) × \(image.height)")
    }
    return try image.map("mask \(path)") { tc_apply_mask($0, mask.pointer, &$1) }
  }
}
