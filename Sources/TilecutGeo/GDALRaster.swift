import CTilecutGDAL
import Foundation
import TilecutCore

/// A raster opened by libgdal for its pixels or its mask (`tc_gdal_raster`): the raster
/// formats libvips does not read (JPEG 2000 through OpenJPEG, ERDAS Imagine, ENVI,
/// GeoPackage), and GDAL's mask of any raster tilecut reads (an internal TIFF mask, a
/// `.msk` beside it). GDAL opens it in a private folder of vetted links (`GDALFolder`),
/// which is removed once the files it needs are open.
public struct GDALRaster: @unchecked Sendable {
  /// The handle; whoever takes it (`TilecutVips`' image) closes it with `tc_gdal_raster_close`.
  public let handle: OpaquePointer
  /// GDAL's short name of the driver (`JP2OpenJPEG`, `GTiff`, …) and its long name.
  public let driver: String
  public let driverName: String
  public let width: Int
  public let height: Int
  public let bands: Int
  /// GDAL's `GDALDataType` of every band (1 Byte … 7 Float64).
  public let dataType: Int
  public let nodata: Double?
  /// The last band is GDAL's alpha band.
  public let alpha: Bool
  /// Band 1 holds palette indices, read as RGBA.
  public let palette: Bool
  /// `GDALGetMaskFlags` of band 1.
  public let maskFlags: Int
  /// The `.msk` beside the input that GDAL reads its mask from, if any (as the input's
  /// folder names it): the file a refusal of the mask names.
  public let maskFile: String?
  /// GDAL's messages name the private folder GDAL opened the raster in: (its path, the
  /// input's folder as its path spells it), to name the input's files instead.
  let folderNames: (private: String, original: String)

  /// GDAL's mask flags (`gdal.h`).
  public static let allValid = 1
  public static let perDataset = 2
  public static let alphaFlag = 4
  public static let nodataFlag = 8

  /// The drivers whose pixels tilecut reads through GDAL.
  public static let pixelDrivers = ["JP2OpenJPEG", "HFA", "ENVI", "GPKG"]

  /// Whether GDAL's mask is one of its own (internal or `.msk`), not derived from an
  /// alpha band or a nodata value (which tilecut applies as such) nor "all valid".
  public var hasDatasetMask: Bool { maskFlags == Self.perDataset }

  /// What GDAL's drivers make of a file.
  public enum Identity: Equatable, Sendable {
    /// A driver whose pixels tilecut reads (its short name).
    case readable(String)
    /// Another driver built into libgdal knows it (its long name).
    case other(String)
  }

  /// Nil when no GDAL driver knows the file, or libgdal cannot be loaded (then the file
  /// is refused as before, by what its bytes say).
  public static func identify(path: String) -> Identity? {
    guard !path.hasPrefix("/vsi"), let folder = GDALFolder(for: path) else { return nil }
    defer { folder.remove() }
    var name: UnsafeMutablePointer<CChar>?
    let status = withCStrings(folder.names) { tc_gdal_identify(folder.raster, $0, &name) }
    defer { free(name) }
    let text = name.map { String(cString: $0) } ?? ""
    switch status {
    case 1: return .readable(text)
    case 0: return text.isEmpty ? nil : .other(text)
    default: return nil
    }
  }

  /// Opens the raster for its pixels (`mask` false) or for its mask, through any driver
  /// tilecut registers: the pixels of a file detected as one of the four drivers above,
  /// or of a TIFF whose samples libvips does not read (64-bit float). Throws naming the
  /// file at fault: the `.msk` when the mask comes from one.
  public static func open(path: String, mask: Bool) throws -> GDALRaster {
    guard !path.hasPrefix("/vsi") else { throw TilecutError.invalidInput(path: path, reason: "is not a plain file path") }
    guard let folder = GDALFolder(for: path) else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be opened through GDAL (no private folder could be made)")
    }
    // the files GDAL needs are open once it returns (the mask band is fetched inside)
    defer { folder.remove() }
    let name = URL(fileURLWithPath: path).lastPathComponent.lowercased()
    let maskFile = folder.names.first { $0.lowercased() == name + ".msk" }.map { folder.original + $0 }
    var info = tc_gdal_raster_info()
    defer { tc_gdal_raster_info_free(&info) }
    let handle = withCStrings(folder.names) { tc_gdal_raster_open(folder.raster, $0, mask ? 1 : 0, &info) }
    guard let handle else {
      let why = info.error.map { folder.originalText(String(cString: $0)) } ?? "GDAL cannot open it"
      throw TilecutError.invalidInput(path: mask ? (maskFile ?? path) : path, reason: "cannot be read through GDAL (\(why))")
    }
    func text(_ p: UnsafeMutablePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }
    return GDALRaster(
      handle: handle, driver: text(info.driver), driverName: text(info.driver_name), width: Int(info.width), height: Int(info.height),
      bands: Int(info.bands), dataType: Int(info.data_type), nodata: info.has_nodata != 0 ? info.nodata : nil, alpha: info.alpha != 0,
      palette: info.palette != 0, maskFlags: Int(info.mask_flags), maskFile: maskFile,
      folderNames: (folder.path + "/", folder.original))
  }

  /// Reads the whole mask once, in strips of at most 16 MB, before any tile is made: a
  /// mask GDAL announces but cannot read (a `.msk` cut short) is refused naming its file,
  /// not found halfway through the tiles.
  public func verifyMask(path: String) throws {
    let rows = max(1, min(height, (16 << 20) / max(1, width)))
    var strip = [UInt8](repeating: 0, count: width * rows)
    var top = 0
    while top < height {
      let count = min(rows, height - top)
      var error: UnsafeMutablePointer<CChar>?
      let status = strip.withUnsafeMutableBytes {
        tc_gdal_raster_read(handle, 0, Int32(top), Int32(width), Int32(count), $0.baseAddress, width, &error)
      }
      defer { free(error) }
      if status != 0 {
        let why =
          error.map { String(cString: $0).replacingOccurrences(of: folderNames.private, with: folderNames.original) }
          ?? "GDAL could not read it"
        throw TilecutError.invalidInput(path: maskFile ?? path, reason: "cannot be read as GDAL's mask (\(why))")
      }
      top += count
    }
  }

  /// Closes a raster no image took.
  public func close() { tc_gdal_raster_close(handle) }

  /// A one-line name of the sample type: `8-bit`, `16-bit unsigned`, `64-bit float`.
  public var sampleName: String {
    switch dataType {
    case 1: "8-bit"
    case 2: "16-bit unsigned"
    case 3: "16-bit signed"
    case 4: "32-bit unsigned"
    case 5: "32-bit signed"
    case 6: "32-bit float"
    case 7: "64-bit float"
    default: "GDAL type \(dataType)"
    }
  }
}
