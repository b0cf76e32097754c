import CZip
import Foundation
import TilecutCore

/// A KMZ (a ZIP archive holding a KML document and its images) read through libzip:
/// entries are inflated into memory, never extracted to disk, each within limits set
/// before it is read (its declared size against the budget, its compression ratio), and
/// no more bytes are taken than it declares.
final class KMZArchive {
  let path: String
  private let archive: OpaquePointer

  /// The most entries an archive may list (a KMZ holds a document and a few images).
  static let maxEntries = 65_536
  /// The highest ratio of declared to compressed size taken for an entry over 1 MB:
  /// DEFLATE stops near 1032:1, an image barely compresses, a document some 20:1.
  static let maxRatio: UInt64 = 1000

  /// Opens the archive, checking its central directory (libzip's ZIP_CHECKCONS).
  init(path: String) throws(KMLProblem) {
    self.path = path
    var error: Int32 = 0
    guard let archive = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
      var e = zip_error_t()
      zip_error_init_with_code(&e, error)
      defer { zip_error_fini(&e) }
      throw KMLProblem("is not a ZIP archive libzip can read (\(String(cString: zip_error_strerror(&e)))); zip its files again")
    }
    // counted before the archive is kept: a throw once it is kept runs deinit, which
    // discards it too (twice: a crash in libzip)
    let count = zip_get_num_entries(archive, 0)
    guard count >= 0, count <= Self.maxEntries else {
      zip_discard(archive)
      throw KMLProblem("lists \(count) entries, more than \(Self.maxEntries)")
    }
    self.archive = archive
  }

  deinit { zip_discard(archive) }

  /// Entry names in the archive's order.
  var names: [String] {
    let count = max(0, zip_get_num_entries(archive, 0))
    return (0..<UInt64(count)).compactMap { i in zip_get_name(archive, i, 0).map { String(cString: $0) } }
  }

  /// The archive's document: its first entry named `*.kml` (Google Earth's rule; usually `doc.kml`).
  var documentEntry: String? { names.first { $0.lowercased().hasSuffix(".kml") && !$0.hasSuffix("/") } }

  /// The index of `name`, matched exactly, else ignoring case (archives made on Windows).
  func index(of name: String) -> UInt64? {
    let exact = zip_name_locate(archive, name, 0)
    if exact >= 0 { return UInt64(exact) }
    let folded = zip_name_locate(archive, name, ZIP_FL_NOCASE)
    return folded >= 0 ? UInt64(folded) : nil
  }

  /// The bytes of entry `name`, refused (naming it, as `what`) when it declares more than
  /// `maxBytes`, compresses more than `maxRatio`:1 past 1 MB, is encrypted, or inflates to
  /// other than it declares.
  func read(_ name: String, maxBytes: Int, what: String) throws(KMLProblem) -> [UInt8] {
    guard let index = index(of: name) else { throw KMLProblem("holds no entry \(Quote.value(name)) (\(what))") }
    var st = zip_stat_t()
    zip_stat_init(&st)
    guard zip_stat_index(archive, index, 0, &st) == 0,
      st.valid & UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE) == UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE)
    else {
      throw KMLProblem("entry \(Quote.value(name)) cannot be read (\(String(cString: zip_strerror(archive))))")
    }
    let entry = "entry \(Quote.value(name))"
    if st.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != UInt16(ZIP_EM_NONE) {
      throw KMLProblem("\(entry) is encrypted; tilecut reads no password-protected archive")
    }
    guard st.size <= UInt64(maxBytes) else {
      throw KMLProblem(
        "\(entry) (\(what)) declares \(DecodeBudget.megabytes(st.size)) uncompressed, more than the \(DecodeBudget.megabytes(UInt64(maxBytes))) it may take in memory; raise --max-memory if this is intended"
      )
    }
    if st.size > 1 << 20 && st.size / max(st.comp_size, 1) > Self.maxRatio {
      throw KMLProblem(
        "\(entry) (\(what)) inflates \(st.comp_size) bytes to \(st.size), more than \(Self.maxRatio):1: a ZIP bomb, refused")
    }
    guard let file = zip_fopen_index(archive, index, 0) else {
      throw KMLProblem("\(entry) cannot be read (\(String(cString: zip_strerror(archive))))")
    }
    defer { zip_fclose(file) }
    let size = Int(st.size)
    // one byte more than declared: an entry that inflates past its size is refused, not read on
    let capacity = size + 1
    var bytes = [UInt8](repeating: 0, count: capacity)
    var filled = 0
    while filled < capacity {
      let n = bytes.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress.map { $0 + filled }, UInt64(capacity - filled)) }
      if n < 0 {
        throw KMLProblem("\(entry) is damaged (libzip: \(String(cString: zip_file_strerror(file))))")
      }
      if n == 0 { break }
      filled += Int(n)
    }
    guard filled == size else {
      throw KMLProblem("\(entry) inflates to \(filled > size ? "more" : "fewer") bytes than the \(size) it declares")
    }
    bytes.removeLast()
    return bytes
  }

  /// Whether the file's first bytes are a ZIP archive's.
  static func looksLikeZip(_ head: [UInt8]) -> Bool { head.starts(with: [0x50, 0x4B, 0x03, 0x04]) }
}

/// Where an overlay's `<Icon><href>` leads, relative to its document's folder (in the
/// archive or on disk), or why tilecut does not follow it.
enum OverlayHref {
  /// `href` as a relative path of plain names under the document's folder
  /// (`folder`, "" for the top): a URL with a scheme (tilecut fetches nothing), an
  /// absolute path, a `..` or an empty name is refused.
  static func resolve(_ href: String, folder: String) throws(KMLProblem) -> String {
    let shown = Quote.value(href)
    guard !href.isEmpty else { throw KMLProblem("its GroundOverlay's <Icon><href> is empty") }
    let lower = href.lowercased()
    if let colon = lower.firstIndex(of: ":"), lower[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }),
      lower[..<colon].count > 1
    {
      let scheme = String(lower[..<colon])
      if scheme == "http" || scheme == "https" || scheme == "ftp" {
        throw KMLProblem(
          "names a remote image (\(shown)); tilecut never fetches an overlay's image: download it and put it beside the KML (or in the KMZ), with a relative <href>"
        )
      }
      throw KMLProblem("names its image by a \(scheme): URL (\(shown)); give a path relative to the KML")
    }
    var text = href.replacingOccurrences(of: "\\", with: "/")
    // a URL's escapes (my%20plan.png), as Google Earth reads them
    if text.contains("%"), let decoded = text.removingPercentEncoding { text = decoded }
    guard !text.hasPrefix("/"), !(text.count >= 2 && text.dropFirst().first == ":") else {
      throw KMLProblem("names its image by an absolute path (\(shown)); tilecut reads an overlay's image only from the KML's folder (or the KMZ)")
    }
    let parts = text.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
    guard !parts.isEmpty else { throw KMLProblem("its GroundOverlay's <Icon><href> (\(shown)) names no file") }
    guard !parts.contains("..") else {
      throw KMLProblem(
        "names its image outside the KML's folder (\(shown)); tilecut reads an overlay's image only from the KML's folder (or the KMZ)")
    }
    guard !parts.contains(where: { $0.contains("\u{0}") }) else { throw KMLProblem("its <href> holds a NUL character") }
    return (folder.isEmpty ? "" : folder + "/") + parts.joined(separator: "/")
  }
}
