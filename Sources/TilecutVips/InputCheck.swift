import CTilecutInputCheck
import CTilecutPDFScan
import CTilecutPNGRead
import CVipsShim
import Foundation
import Synchronization
import TilecutCore

/// What any decoder may hold at once for one input: a whole-image buffer (a
/// progressive JPEG's coefficients, an interlaced PNG, an image embedded in an
/// SVG) is refused before it is allocated when it would be larger.
public enum DecodeBudget {
  /// `--max-memory`'s default, in megabytes (10⁶ bytes).
  public static let defaultMegabytes = 512
  public static let defaultBytes = defaultMegabytes * 1_000_000

  /// A fixed C character array of the PDF scan's result as a string, up to its NUL.
  static func text<T>(of field: T) -> String {
    withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }

  static func megabytes(_ bytes: UInt64) -> String {
    bytes >= 10_000_000_000 ? "\(bytes / 1_000_000_000) GB" : "\((bytes + 999_999) / 1_000_000) MB"
  }
}

/// Reads what an input's header declares, and checks it against the bytes that
/// are there, before libvips' loaders see the file.
package enum InputCheck {
  /// PNGs whose pixel stream was not verified at the header (tilecut's own reader
  /// checks it as it reads), verified once before libvips reads them.
  private static let verified = Mutex<Set<String>>([])

  /// JPEGs (and PDFs whose JPEG images) decoded without a warning, by path, size and modification time.
  private static let scannedJPEGs = Mutex<Set<String>>([])

  /// GIFs whose frames decoded whole, by path, size and modification time, with what their headers declare.
  private static let checkedGIFs = Mutex<[String: (width: UInt32, height: UInt32, bytes: UInt64)]>([:])

  static func fileKey(_ path: String) -> String? {
    guard let a = try? FileManager.default.attributesOfItem(atPath: path), let size = a[.size] as? Int,
      let modified = a[.modificationDate] as? Date
    else { return nil }
    return "\(path)\u{0}\(size)\u{0}\(modified.timeIntervalSince1970)"
  }

  /// The deepest nesting of saved graphics states a PDF may have (a real drawing
  /// nests a few dozen; each costs poppler about 1.5 KB).
  static let maxSavedStates = 100_000

  /// A damaged or truncated raster (`VipsRasterKind`), or a whole-image buffer larger
  /// than `maxBytes`, throws one line. Documents are checked by their kinds.
  static func check(path: String, page: Int? = nil, format: SourceFormat, maxBytes: Int) throws {
    var result = TcFileCheck()
    let status: Int32
    switch format {
    case .png:
      // what tilecut's PNG reader decodes is checked by it as it reads; anything
      // else goes to libpng, which ignores the stream's Adler-32
      let readerReads = tc_png_reads(path) == 1
      status = tc_check_png(path, readerReads ? 0 : 1, &result)
      if status == 0 && !readerReads { verified.withLock { _ = $0.insert(path) } }
    case .jpeg:
      status = tc_check_jpeg(path, &result)
    case .tiff:
      status = tc_check_tiff(path, Int32(clamping: page ?? 0), &result)
    case .gif:
      // a job reads a file's header many times: its frames are decoded once (44 MB of GIF: 0.1 s)
      let key = fileKey(path).map { "gif\u{0}" + $0 }
      if let key, let known = checkedGIFs.withLock({ $0[key] }) {
        try withinBudget(path: path, kind: "GIF", width: Int(known.width), height: Int(known.height), bytes: known.bytes, maxBytes: maxBytes)
        return
      }
      status = tc_check_gif(path, &result)
      if status == 0, let key {
        let known = (width: result.width, height: result.height, bytes: result.whole_image_bytes)
        checkedGIFs.withLock { $0[key] = known }
      }
    case .webp:
      try checkWebP(path: path, maxBytes: maxBytes)
      return
    default:
      return
    }
    guard status == 0 else { throw TilecutError.invalidInput(path: path, reason: reason(result)) }
    try withinBudget(path: path, result, maxBytes: maxBytes)
    // tilecut's JPEG reader checks the scan as it tiles it; what libvips reads is
    // decoded once here first
    if format == .jpeg && tc_jpeg_reads(path) != 1 { try verifyJPEGScan(path: path) }
  }

  /// Bytes a page's content streams (with its forms', patterns' and glyphs') may
  /// decode to: a drawing of a few thousand paths is a few megabytes; a stream
  /// that inflates past this is a bomb, which poppler would walk for every band.
  static let maxContentBytes: UInt64 = 1 << 30

  /// Bytes of content poppler may walk to draw a page once, its forms, images,
  /// shadings and tiling patterns counted each time they are drawn (an image's
  /// pixels, a mesh's vertices counted as the content they take as long as):
  /// poppler walks about 2 MB of content a second, so what a page walks follows
  /// the file's size, 256 times it, at least 48 MB and at most `maxContentBytes`.
  /// A form drawn four times by a form drawn four times, 14 deep, is 4¹⁴ forms
  /// from 3 KB; a 2000² image drawn 20,000 times is 100 minutes from 49 KB. The
  /// largest image `maxMemory` lets a page draw, drawn once, is allowed besides.
  static func maxWalkedBytes(fileSize: UInt64, maxMemory: UInt64) -> UInt64 {
    min(maxContentBytes, max(48_000_000, fileSize.multipliedReportingOverflow(by: 256).partialValue)) + maxMemory / 32
  }

  /// A PDF read page by page through qpdf, whatever its filters, object streams or
  /// (empty-password) encryption, before poppler sees it: q nesting, content that
  /// inflates without end, images declaring more than `maxBytes` decoded (poppler
  /// holds 4 bytes a pixel for an image it draws, however small on the page),
  /// damaged JPEGs. A file qpdf cannot read (poppler may repair it) is read as
  /// bytes, in order.
  static func checkPDF(path: String, maxBytes: Int) throws {
    let key = fileKey(path).map { "pdf\u{0}\(maxBytes)\u{0}" + $0 }
    if let key, scannedJPEGs.withLock({ $0.contains(key) }) { return }
    var scan = TcPDFScan()
    let budget = UInt64(max(0, maxBytes))
    let fileSize = UInt64((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    let walkedBound = maxWalkedBytes(fileSize: fileSize, maxMemory: budget)
    if tc_pdf_scan(path, maxContentBytes, walkedBound, maxSavedStates, budget, 1, &scan) == 0 {
      if scan.q_depth > maxSavedStates {
        throw TilecutError.invalidInput(path: path, reason: nestingReason(depth: scan.q_depth, page: Int(scan.q_page)))
      }
      if scan.over_decoded != 0 {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "page \(scan.decoded_page + 1)'s content streams decode to more than \(DecodeBudget.megabytes(maxContentBytes)); poppler would walk them for every band of the page"
        )
      }
      if scan.over_walked != 0 {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "page \(scan.walked_page + 1) would take poppler as long to draw as \(DecodeBudget.megabytes(scan.walked_bytes)) of content (its forms, images, shadings and patterns counted each time they are drawn), for every band of the page, more than \(DecodeBudget.megabytes(walkedBound)) for a file of \(fileSize) bytes; re-export the PDF with them drawn fewer times"
        )
      }
      let held = DecodeBudget.text(of: scan.held)
      if !held.isEmpty {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "page \(scan.held_page + 1) \(held), more than --max-memory \(maxBytes / 1_000_000) MB; raise --max-memory if this is intended"
        )
      }
      if scan.image_bytes > budget {
        let progressive = scan.image_progressive != 0
        let what = progressive ? "a progressive JPEG image" : "an image"
        let holds = progressive ? "whose decoder holds" : "which poppler holds decoded as"
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "page \(scan.image_page + 1) draws \(what) of \(scan.image_width) × \(scan.image_height) pixels, \(holds) \(DecodeBudget.megabytes(scan.image_bytes)), more than --max-memory \(maxBytes / 1_000_000) MB; raise --max-memory if this is intended\(progressive ? ", or save it as a baseline JPEG" : "")"
        )
      }
      let filter = DecodeBudget.text(of: scan.undecodable)
      if !filter.isEmpty {
        throw TilecutError.invalidInput(
          path: path,
          reason:
            "page \(scan.undecodable_page + 1)'s content is in \(filter), an image filter no PDF writer uses for drawing, which tilecut cannot check before poppler reads it; re-export the PDF"
        )
      }
      let damaged = DecodeBudget.text(of: scan.damaged)
      if !damaged.isEmpty {
        // poppler draws what it decodes of it, or pads it, without a word
        throw TilecutError.invalidInput(
          path: path, reason: "cannot be decoded: page \(scan.damaged_page + 1)'s \(damaged); re-export or re-scan it")
      }
      let said = DecodeBudget.text(of: scan.jpeg_reason)
      if !said.isEmpty {
        throw TilecutError.invalidInput(
          path: path, reason: "cannot be decoded: it has a damaged JPEG image on page \(scan.jpeg_page + 1), \(said); re-export or re-scan it")
      }
    } else {
      // poppler copies its graphics state for each q it has not closed: 10⁶ of them
      // in 2.4 KB of PDF take gigabytes, or end the process in std::bad_alloc
      let depth = tc_pdf_q_depth(path, 1 << 30)
      if depth > maxSavedStates {
        throw TilecutError.invalidInput(path: path, reason: nestingReason(depth: depth, page: nil))
      }
      // poppler draws a damaged JPEG with its damage, whichever path reads the page
      var message = [CChar](repeating: 0, count: 256)
      if tc_pdf_check_jpegs(path, &message, message.count) != 0 {
        let said = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw TilecutError.invalidInput(path: path, reason: "cannot be decoded: it \(said); re-export or re-scan it")
      }
    }
    if let key { scannedJPEGs.withLock { _ = $0.insert(key) } }
  }

  static func nestingReason(depth: Int, page: Int?) -> String {
    "nests 'q' (save graphics state) \(depth) deep \(page.map { "on page \($0 + 1)" } ?? "in its page content"), more than \(maxSavedStates); poppler would hold a copy of the graphics state for each"
  }

  /// libvips' jpegload lets a warning in the last rows or at the end of the scan
  /// through, even with `fail_on` warning: the whole scan is decoded once (at 1/8
  /// scale) and libjpeg's first warning refuses the file.
  static func verifyJPEGScan(path: String) throws {
    // a job reads a file's header many times (planning, each floor, each worker): its scan is decoded once
    let key = fileKey(path)
    if let key, scannedJPEGs.withLock({ $0.contains(key) }) { return }
    var message = [CChar](repeating: 0, count: 256)
    guard tc_verify_jpeg_file(path, &message, message.count) != 0 else {
      if let key { scannedJPEGs.withLock { _ = $0.insert(key) } }
      return
    }
    throw damagedJPEG(path: path, said: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
  }

  /// Before a job publishes: every JPEG it tiled has been decoded to its end without
  /// a warning, by tilecut's reader as it tiled it, else (a crop, a level that
  /// ended above the last rows, a file libvips read) by a scan now.
  package static func confirmJPEGs(paths: [String]) throws {
    for path in Set(paths) where tc_jpeg_read_whole(path) != 1 {
      guard let handle = FileHandle(forReadingAtPath: path) else { continue }
      let head = [UInt8]((try? handle.read(upToCount: 3)) ?? Data())
      try? handle.close()
      if SourceFormat.magic(head) == .jpeg { try verifyJPEGScan(path: path) }
    }
  }

  static func damagedJPEG(path: String, said: String) -> TilecutError {
    .invalidInput(path: path, reason: "cannot be decoded: it is damaged (libjpeg: \(said)); re-export or re-scan it")
  }

  /// A read of a file's pixels that failed inside libvips, as one line naming the
  /// file; tilecut's JPEG reader says libjpeg's words under "libjpeg:".
  package static func readFailure(path: String, _ error: VipsError) -> TilecutError {
    if let said = error.message.range(of: "libjpeg: ") {
      return damagedJPEG(path: path, said: String(error.message[said.upperBound...].prefix { $0 != ";" }))
    }
    return .invalidInput(path: path, reason: "cannot be decoded (\(error.message.isEmpty ? "read failed" : error.message))")
  }

  /// Before libvips' pngload or jpegload reads a file tilecut's readers would have
  /// read (random access, as a rotated placement asks for), its stream is checked once.
  static func verifyStream(path: String) throws {
    if verified.withLock({ $0.contains(path) }) { return }
    var head = [UInt8](repeating: 0, count: 8)
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    head = [UInt8](handle.readData(ofLength: 8))
    try? handle.close()
    if SourceFormat.magic(head) == .jpeg { return try verifyJPEGScan(path: path) }
    guard SourceFormat.magic(head) == .png else { return }
    var result = TcFileCheck()
    guard tc_check_png(path, 1, &result) == 0 else { throw TilecutError.invalidInput(path: path, reason: reason(result)) }
    verified.withLock { _ = $0.insert(path) }
  }

  static func reason(_ result: TcFileCheck) -> String {
    var copy = result
    return withUnsafeBytes(of: &copy.reason) { raw in
      String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
    }
  }

  static func withinBudget(path: String, _ result: TcFileCheck, maxBytes: Int) throws {
    guard result.whole_image_bytes > UInt64(max(0, maxBytes)), let raw = result.whole_image_kind else { return }
    throw overBudget(
      path: path, kind: String(cString: raw), width: Int(result.width), height: Int(result.height), bytes: result.whole_image_bytes,
      maxBytes: maxBytes)
  }

  static func withinBudget(path: String, kind: String, width: Int, height: Int, bytes: UInt64, maxBytes: Int) throws {
    if bytes > UInt64(max(0, maxBytes)) {
      throw overBudget(path: path, kind: kind, width: width, height: height, bytes: bytes, maxBytes: maxBytes)
    }
  }

  static func overBudget(path: String, kind: String, width: Int, height: Int, bytes: UInt64, maxBytes: Int) -> TilecutError {
    let instead =
      kind.hasPrefix("interlaced")
      ? "without interlacing" : kind.hasPrefix("progressive") ? "as a baseline JPEG" : "as a PNG or TIFF, which tilecut reads in strips"
    return TilecutError.invalidInput(
      path: path,
      reason:
        "is \(kind.hasPrefix("i") ? "an" : "a") \(kind) of \(width) × \(height) pixels, whose decoder holds \(DecodeBudget.megabytes(bytes)) at once, more than --max-memory \(maxBytes / 1_000_000) MB; raise --max-memory if this is intended, or save it \(instead)"
    )
  }

  /// libvips' WebP loader decodes the whole canvas (4 bytes a pixel) at once:
  /// its size, from the VP8X, VP8L or VP8 header, is held to the budget.
  static func checkWebP(path: String, maxBytes: Int) throws {
    guard let handle = FileHandle(forReadingAtPath: path) else { return }
    let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
    try? handle.close()
    guard let (width, height) = SVGReferences.imageSize(head) else { return }
    try withinBudget(path: path, kind: "WebP", width: width, height: height, bytes: UInt64(width) * UInt64(height) * 4, maxBytes: maxBytes)
  }
}
