import CTilecutDocument
import CTilecutPNGRead
import CTilecutPlatform
import CVips
import CVipsShim
import Foundation
import TilecutCore

/// An input as named on the command line: a file, with libvips' `[page=N]` option syntax allowed.
public struct InputName: Hashable, Sendable {
  public var path: String
  public var page: Int?
  /// `out[floor=K]`: the floor of a tilecut output read as a tile source.
  public var floor: Int?

  /// Splits `plan.pdf[page=2]` into the file and its page.
  public init(parsing text: String) throws {
    guard text.hasSuffix("]"), let open = text.lastIndex(of: "[") else {
      path = text
      page = nil
      return
    }
    path = String(text[..<open])
    let options = text[text.index(after: open)..<text.index(before: text.endIndex)]
    var page: Int?
    var floor: Int?
    for pair in options.split(separator: ",") {
      let kv = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
      if kv.count == 2, kv[0] == "floor", let n = Int(kv[1]) {
        floor = n
        continue
      }
      guard kv.count == 2, kv[0] == "page", let n = Int(kv[1]), n >= 0 else {
        throw TilecutError.invalidInput(
          path: text, reason: "only the [page=N] option (and [floor=K] for a tilecut output) is understood, got '\(pair)'")
      }
      page = n
    }
    self.page = page
    self.floor = floor
  }

  public init(path: String, page: Int? = nil) {
    self.path = path
    self.page = page
  }
}

/// What the header of an input says, read without decoding its pixels.
public struct SourceHeader: Sendable, Hashable {
  public var path: String
  public var width: Int
  public var height: Int
  public var pages: Int
  public var isVector: Bool
  /// The format its bytes say it is: its loader (`SourceFormat.loader`) is the only one that opens it.
  public var format: SourceFormat
  /// Its EXIF orientation (1: as stored); `width` and `height` are as displayed.
  public var orientation: Int = 1
  /// A CAD drawing's frame: its source pixels in drawing units (nil for any other source).
  public var drawing: DrawingFrame?
  /// What is said of it as it is read, each a line ("N of its tables … are not drawn").
  public var warnings: [String] = []
  /// The other files its loader reads (an SVG's images, stylesheets and SVGs, found by
  /// the check its header is read after): inputs of the run, for the checks of the files
  /// options name and the depfile.
  public var filesReferenced: [String] = []
}

/// A floor's claim on the shared reader of the sheet it is a band of.
package struct SheetClaim {
  var sheet: SharedSheet
  var floor: Floor
}

/// Opens inputs with libvips: headers for planning, pixels for rendering.
public enum SourceImage {
  /// Reads an input's header and checks it is an image worth tiling: a regular file
  /// (never a FIFO or device, which could block), of an allowed format by its bytes,
  /// read by that format's own loader.
  /// `maxMemory`: bytes a decoder may hold for the whole image at once (`DecodeBudget`).
  /// `drawingUnits`: a CAD drawing's units as `--drawing-units` gives them (metres in one
  /// unit, and its name), over the drawing's own `$INSUNITS`.
  public static func header(
    of input: InputName, maxPixels: Int, maxMemory: Int = DecodeBudget.defaultBytes, drawingUnits: (meters: Double, name: String)? = nil
  ) throws -> SourceHeader {
    try Vips.start()
    let path = input.path
    var st = stat()
    guard stat(path, &st) == 0 else {
      let e = errno
      if e == ENOENT || e == ENOTDIR { throw TilecutError.invalidInput(path: path, reason: "no such file") }
      throw TilecutError.invalidInput(path: path, reason: "cannot be read (\(String(cString: strerror(e))))")
    }
    switch st.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw TilecutError.invalidInput(path: path, reason: "is a directory, not an image")
    case S_IFIFO: throw TilecutError.invalidInput(path: path, reason: "is a FIFO (named pipe), not a regular file; save the image to a file first")
    case S_IFSOCK: throw TilecutError.invalidInput(path: path, reason: "is a socket, not a regular file")
    case S_IFCHR, S_IFBLK: throw TilecutError.invalidInput(path: path, reason: "is a device, not a regular file; save the image to a file first")
    default: throw TilecutError.invalidInput(path: path, reason: "is not a regular file")
    }
    guard access(path, R_OK) == 0 else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be read (permission denied)")
    }
    guard st.st_size > 0 else { throw TilecutError.invalidInput(path: path, reason: "is empty (0 bytes)") }
    try checkSidecars(of: path)
    // a KML or KMZ: its GroundOverlay's image is the floor's pixels
    if let overlay = try OverlaySource.resolve(path: path, page: input.page, maxMemory: maxMemory) {
      return try overlayHeader(overlay, maxPixels: maxPixels, maxMemory: maxMemory)
    }
    let format = try SourceFormat.detect(path: path)
    return try format.kind.header(of: input, format: format, maxPixels: maxPixels, maxMemory: maxMemory, drawingUnits: drawingUnits)
  }

  /// A document's header (PDF, SVG), its file checked by its kind: measured by its
  /// loader, its parse given back to the system (an SVG's tree: 440 MB for 200000
  /// elements; rendering parses it again on a worker thread, in another malloc arena),
  /// then held to its page and `maxPixels` as `pagedHeader` holds it.
  static func documentHeader(of input: InputName, format: SourceFormat, maxPixels: Int, refusedAs: String) throws -> SourceHeader {
    let (pages, width, height) = try measure(path: input.path, page: input.page, format: format, refusedAs: refusedAs)
    tc_release_free_memory()
    return try pagedHeader(
      path: input.path, page: input.page, pages: pages, width: width, height: height, format: format, maxPixels: maxPixels)
  }

  /// A paged source's header once its kind has measured it: the page named is one it
  /// has, it has pixels, and no more than `maxPixels` of them.
  static func pagedHeader(
    path: String, page: Int?, pages: Int, width: Int, height: Int, orientation: Int = 1, format: SourceFormat, maxPixels: Int
  ) throws -> SourceHeader {
    if let page, page >= pages { throw pastTheEnd(path: path, pages: pages, page: page) }
    guard width > 0, height > 0 else { throw TilecutError.invalidInput(path: path, reason: "has no pixels") }
    let (area, overflow) = width.multipliedReportingOverflow(by: height)
    if overflow || area > maxPixels {
      throw TilecutError.invalidInput(
        path: path,
        reason: "is \(width) × \(height) pixels, more than --max-pixels \(maxPixels); raise --max-pixels if this is intended")
    }
    return SourceHeader(
      path: path, width: width, height: height, pages: pages, isVector: format.kind.isDrawnPerZoom, format: format,
      orientation: orientation)
  }

  /// Files named after an input are read as its sidecars, by tilecut (world file,
  /// `.prj`, `.aux.xml`) and by GDAL (those, `.ovr`, `.msk`, `.tab`, `.RPB`,
  /// `_RPC.TXT`, `.IMD`, …): one that is a FIFO, socket or device would block the
  /// read or be drained, and one that is a link out of the input's folder (or into
  /// /proc, /sys, /dev) is a file the user never named, so either refuses the input,
  /// naming the sidecar, before anything opens it. So does one GDAL reads whole that is
  /// past `SidecarPath.maxReadWholeBytes` (a sparse `.aux.xml` of gigabytes).
  static func checkSidecars(of path: String) throws {
    for sibling in WorldFile.namedSiblings(of: path) ?? [] {
      if let why = SidecarPath.escape(sibling) { throw TilecutError.invalidInput(path: sibling, reason: why) }
      var st = stat()
      guard stat(sibling, &st) == 0 else { continue }
      let kind: String
      switch st.st_mode & S_IFMT {
      case S_IFIFO: kind = "a FIFO (named pipe)"
      case S_IFSOCK: kind = "a socket"
      case S_IFCHR, S_IFBLK: kind = "a device"
      case S_IFREG:
        // a sidecar GDAL reads whole, sized before GDAL sees it
        if let why = SidecarPath.tooLarge(sibling, of: path, size: Int64(st.st_size)) {
          throw TilecutError.invalidInput(path: sibling, reason: why)
        }
        // a CRS beside the image that PROJ (or GDAL through PROJ) would follow into a file
        let lower = sibling.lowercased()
        guard lower.hasSuffix(".prj") || lower.hasSuffix(".aux.xml"), st.st_size <= 1 << 20,
          let data = try? SmallFile.read(sibling, maxBytes: 1 << 20), let why = CRSText.unsafeReason(String(decoding: data, as: UTF8.self))
        else { continue }
        throw TilecutError.invalidInput(path: sibling, reason: why)
      default: continue
      }
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "\(URL(fileURLWithPath: sibling).lastPathComponent) beside it is \(kind), not a file; files named after an input are read as its sidecars (world file, .prj, .aux.xml, GDAL's .ovr), so move it away or rename it"
      )
    }
  }

  /// Pages, width and height of a file, read by its kind or its format's own loader
  /// (which is released before this returns). `refusedAs`: a document's name ("a PDF")
  /// for the refusal of a loader that --no-vector blocks.
  static func measure(path: String, page: Int?, format: SourceFormat, refusedAs: String? = nil) throws -> (
    pages: Int, width: Int, height: Int
  ) {
    let image: VipsImageHandle
    do {
      // a TIFF's page walked by offsets, a raster GDAL reads: measured by their kind
      if let measured = try format.kind.measureItself(path: path, page: page, format: format) { return measured }
      image = try VipsImageHandle.make("load \(path)") { out in
        tc_load_named(format.loader, path, Int32(clamping: page ?? -1), 0, 1, &out)
      }
    } catch let error as VipsError {
      // a page past the end: the loader says only "pages out of range"; its count, from the first page, says more
      if let page, page > 0, let pages = try? measure(path: path, page: nil, format: format).pages, page >= pages {
        throw pastTheEnd(path: path, pages: pages, page: page)
      }
      if let refusedAs, error.message.contains("blocked") {
        throw TilecutError.invalidInput(path: path, reason: "is \(refusedAs) document, which --no-vector refuses")
      }
      throw TilecutError.invalidInput(
        path: path, reason: "cannot be read as \(format.rawValue.uppercased()) (\(error.message.isEmpty ? error.operation : error.message))")
    }
    return (max(1, Int(tc_header_pages(image.pointer))), image.width, image.height)
  }

  /// "has 2 pages; page=5 is past the end (pages count from 0: 0 to 1)".
  static func pastTheEnd(path: String, pages: Int, page: Int) -> TilecutError {
    TilecutError.invalidInput(
      path: path,
      reason:
        "has \(pages) page\(pages == 1 ? "" : "s"); page=\(page) is past the end (pages count from 0: \(pages == 1 ? "0" : "0 to \(pages - 1)"))")
  }

  /// Page `page` of a TIFF without libvips reading every directory of the file
  /// (floors × pages); nil when the directory chain is not one this reader walks.
  static func tiffPage(path: String, page: Int, sequential: Bool) throws -> VipsImageHandle? {
    var out: UnsafeMutablePointer<VipsImage>?
    switch tc_tiff_page_open(path, Int32(clamping: page), sequential ? 1 : 0, &out) {
    case 0:
      guard let out else { throw VipsError.current("load \(path)") }
      return VipsImageHandle(out)
    case 1: return nil
    default: throw VipsError.current("load \(path)")
    }
  }

  static func open(path: String, page: Int?, sequential: Bool, format: SourceFormat? = nil) throws -> VipsImageHandle {
    if let overlay = try OverlaySource.resolve(path: path, page: page) { return try openOverlay(overlay, sequential: sequential) }
    // libvips' pngload skips the stream's Adler-32, and jpegload lets warnings in
    // the last rows through, which tilecut's readers check
    if !sequential { try InputCheck.verifyStream(path: path) }
    // the loader the bytes name, the one the header was read with: never libvips' guess
    let format = try format ?? SourceFormat.detect(path: path)
    return try format.kind.openStored(path: path, page: page, sequential: sequential, format: format)
  }

  /// Any image as sRGB RGBA8: bands chosen, one band of data scaled, as `source.conversion` says.
  static func convert(_ image: VipsImageHandle, source: SourceDescription) throws -> VipsImageHandle {
    var image = image
    let conversion = source.conversion ?? PixelConversion()
    if let bands = conversion.bands {
      let indices = bands.map(Int32.init)
      image = try image.map("choose bands of \(source.path)") { tc_select_bands($0, &$1, indices, Int32(indices.count)) }
    }
    if let range = conversion.scale {
      let nodata = conversion.nodata
      image = try image.map("scale \(source.path) to 8 bits") {
        tc_scale_to_srgba($0, &$1, range.lowerBound, range.upperBound, nodata == nil ? 0 : 1, nodata ?? 0)
      }
    } else {
      if let nodata = conversion.nodata {
        image = try image.map("nodata of \(source.path)") { tc_nodata_to_alpha($0, &$1, nodata) }
      }
      image = try image.map("convert \(source.path) to sRGB") { tc_to_srgba($0, &$1) }
    }
    // GDAL's mask (internal, or a .msk beside it): masked pixels transparent
    if conversion.gdalMask == true { image = try masked(image, path: source.path) }
    return image
  }

  /// The source's pixels as sRGB RGBA8, cropped to its band; vectors rendered at `scale`.
  /// `sheet`: a sequential read of a band may continue the sheet's shared reader.
  /// `bands`: a PDF or SVG read strictly top to bottom is rendered in bands (its kind's `banded`); a
  /// reader that goes back and forth across rows (libvips' affine) wants the loaders' tiles.
  static func pixels(
    of source: SourceDescription, format: SourceFormat?, sequential: Bool, scale: Double, sheet: SheetClaim? = nil, bands: Bool = true
  ) throws -> VipsImageHandle {
    // a tile store or a venue's floor, registered by the job that opened it
    if let kind = SourceKinds.registered(for: source) {
      return try kind.pixels(of: source, sequential: sequential, scale: scale, bands: bands)
    }
    // a raster whose format the caller does not know: opened by the one its bytes name
    guard source.isVector || format != nil else {
      return try storedPixels(of: source, format: nil, sequential: sequential, scale: scale, sheet: sheet)
    }
    // the header's format, or the file's bytes: never libvips' guess
    let format = try format ?? SourceFormat.detect(path: source.path)
    return try format.kind.pixels(of: source, format: format, sequential: sequential, scale: scale, sheet: sheet, bands: bands)
  }

  /// A raster's stored pixels as sRGB RGBA8, cropped to its band: a sequential read of
  /// a band continues the sheet's shared reader when it can.
  static func storedPixels(of source: SourceDescription, format: SourceFormat?, sequential: Bool, scale: Double, sheet: SheetClaim?)
    throws -> VipsImageHandle
  {
    let image: VipsImageHandle
    if sequential, !source.isVector, let sheet, let band = source.crop, let shared = try sheet.sheet.claim(floor: sheet.floor, band: band) {
      image = shared
    } else {
      image = try open(path: source.path, page: source.page, sequential: sequential, format: format)
    }
    return try cropped(convert(image, source: source), source: source, scale: scale)
  }

  /// Bytes of rendered rows a banded document holds at once.
  static let documentBandBytes = 16 << 20

  /// Rows of a band of `documentBandBytes` of the source rendered at `scale` (64 to 4096).
  static func bandRows(_ source: SourceDescription, scale: Double) -> Int {
    let width = max(1.0, (Double(max(source.width, source.crop?.maxX ?? 0)) * scale).rounded(.up))
    return Int(max(64, min(4096, Double(documentBandBytes) / (4 * width))))
  }

  /// `image` cut to the source's band, when it has one (in rendered pixels for a document).
  static func cropped(_ image: VipsImageHandle, source: SourceDescription, scale: Double) throws -> VipsImageHandle {
    var image = image
    if let crop = source.crop {
      let s = source.isVector ? scale : 1
      let left = Int((Double(crop.x) * s).rounded())
      let top = Int((Double(crop.y) * s).rounded())
      let width = min(Int((Double(crop.width) * s).rounded()), image.width - left)
      let height = min(Int((Double(crop.height) * s).rounded()), image.height - top)
      image = try image.map("crop \(source.path)") { tc_crop($0, &$1, Int32(left), Int32(top), Int32(width), Int32(height)) }
      // a GeoPDF's map frame, in rendered pixels of the crop, on white paper as GDAL draws it
      if let clip = source.clip, clip.count >= 6 {
        var polygon: [Double] = []
        for k in stride(from: 0, to: clip.count - 1, by: 2) {
          polygon.append(clip[k] * s - Double(left))
          polygon.append(clip[k + 1] * s - Double(top))
        }
        image = try image.map("clip \(source.path) to its map frame") { tc_clip_polygon($0, &$1, polygon, Int32(polygon.count / 2), 1) }
      }
    }
    return image
  }
}
