import CVipsShim
import Foundation
import Synchronization
import TilecutCore
import TilecutGeo

/// An input's format as its bytes say, decided before libvips sees the file: only
/// these are loaded, each by its own libvips loader, never by libvips' guess (which
/// hands unknown formats to ImageMagick, and ImageMagick starts other programs).
/// `gdal`: a raster libvips does not read whose pixels libgdal reads (JPEG 2000, ERDAS
/// Imagine, ENVI, GeoPackage: `GDALRaster.pixelDrivers`), as GDAL's drivers identify it.
/// What each format is read as, and by which loader, its kind says (`SourceKind`).
public enum SourceFormat: String, Sendable, Hashable, Codable, CaseIterable {
  case png, jpeg, webp, tiff, gif, heif, pdf, svg, gdal, dxf, dwg

  /// Reads the start of a regular file (an SVG's root may come after any amount of
  /// prologue, so that case reads on) and names its format, or throws naming what it is.
  public static func detect(path: String) throws -> SourceFormat {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be read (\(String(cString: strerror(errno))))")
    }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
      throw TilecutError.invalidInput(path: path, reason: "is not a regular file")
    }
    var head = [UInt8](repeating: 0, count: 4096)
    let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 4096) }
    guard n >= 0 else { throw TilecutError.invalidInput(path: path, reason: "cannot be read (\(String(cString: strerror(errno))))") }
    head.removeSubrange(max(0, n)...)
    if let format = magic(head) {
      if format == .tiff && gdalTIFFs.withLock({ $0.contains(path) }) { return .gdal }
      return try available(format, path: path)
    }
    if let drawing = DrawingSource.format(head) { return drawing }
    if looksLikeXML(head) {
      switch try XMLRoot.find(fd: fd, size: Int(st.st_size)) {
      case .some(let root) where root == "svg" || root.hasSuffix(":svg"):
        return try available(.svg, path: path)
      case .some(let root):
        throw refused(path, "an XML document whose root element is <\(root)>, not <svg>")
      case .none:
        throw refused(path, "an XML document without a root element")
      }
    }
    if starts(head, "ENVI") && path.lowercased().hasSuffix(".hdr") {
      throw TilecutError.invalidInput(
        path: path, reason: "is an ENVI header; give tilecut the data file it describes (the file beside it named after it)")
    }
    // a DWG's magic is AC10 and four digits (DrawingSource.format); GDAL's CAD driver
    // claims a damaged one whatever its digits, and would be named as its format
    if starts(head, "AC10") {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "starts as a DWG drawing does, but its first 6 bytes name no AutoCAD release: it is damaged; save it again from its CAD program, or as DXF"
      )
    }
    if isUTF16DXF(head, path: path) {
      throw TilecutError.invalidInput(
        path: path, reason: "is a DXF saved as UTF-16 text, which GDAL's DXF driver does not read; save it as an ASCII (or UTF-8) DXF")
    }
    // what GDAL's drivers make of it (an ENVI data file has no magic: its .hdr says)
    switch GDALRaster.identify(path: path) {
    case .readable: return .gdal
    case .other(let name):
      let other = otherFormat(head)
      let generic = ["text", "a file of unknown format", "a script or binary", "JSON or other text"].contains(other)
      throw refused(path, generic ? "\(name) (as GDAL identifies it)" : "\(other) (GDAL: \(name))")
    case nil:
      if let header = damagedENVIHeader(of: path) { throw TilecutError.invalidInput(path: path, reason: header) }
      // a .zip tilecut reads is an IMDF venue: say what this one lacks as a venue
      if starts(head, "PK"), path.lowercased().hasSuffix(".zip"), let problem = IMDFVenue.zipProblem(path) {
        throw TilecutError.invalidInput(path: path, reason: problem)
      }
      throw refused(path, otherFormat(head))
    }
  }

  /// TIFFs whose samples libvips' loader refuses (64-bit float) and GDAL's GTiff driver
  /// reads, as `SourceImage.header` found: their pixels are read through GDAL (`.gdal`).
  private static let gdalTIFFs = Mutex<Set<String>>([])

  /// Marks `path`, a TIFF, as read through GDAL from now on.
  static func readThroughGDAL(tiff path: String) { gdalTIFFs.withLock { _ = $0.insert(path) } }

  static func available(_ format: SourceFormat, path: String) throws -> SourceFormat {
    guard format == .gdal || tc_has_operation(format.loader) != 0 else {
      throw TilecutError.invalidInput(
        path: path, reason: "is \(format.rawValue.uppercased()), which this libvips was built without (no \(format.loader))")
    }
    return format
  }

  static func refused(_ path: String, _ what: String) -> TilecutError {
    .invalidInput(
      path: path,
      reason:
        "is \(what), which tilecut does not read; convert it to PNG, TIFF, JPEG, WebP, PDF, SVG or DXF (or JPEG 2000, ERDAS .img, ENVI, GeoPackage)")
  }

  static func starts(_ b: [UInt8], _ prefix: [UInt8], at offset: Int = 0) -> Bool {
    b.count >= offset + prefix.count && Array(b[offset..<offset + prefix.count]) == prefix
  }

  static func starts(_ b: [UInt8], _ text: String, at offset: Int = 0) -> Bool { starts(b, Array(text.utf8), at: offset) }

  /// The allow-listed formats that have a magic number.
  static func magic(_ b: [UInt8]) -> SourceFormat? {
    if starts(b, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if starts(b, [0xFF, 0xD8, 0xFF]) { return .jpeg }
    if starts(b, "RIFF") && starts(b, "WEBP", at: 8) { return .webp }
    if starts(b, [0x49, 0x49, 0x2A, 0x00]) || starts(b, [0x4D, 0x4D, 0x00, 0x2A]) || starts(b, [0x49, 0x49, 0x2B, 0x00])
      || starts(b, [0x4D, 0x4D, 0x00, 0x2B])
    {
      return .tiff
    }
    if starts(b, "GIF87a") || starts(b, "GIF89a") { return .gif }
    if starts(b, "ftyp", at: 4), b.count >= 12 {
      let brand = String(decoding: b[8..<12], as: UTF8.self)
      if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"].contains(brand) { return .heif }
    }
    // PDF allows a little junk before its header; poppler finds it within 1 KB
    let window = Array(b.prefix(1024))
    if starts(b, "%PDF-") || (window.count >= 5 && (0...(window.count - 5)).contains { starts(window, "%PDF-", at: $0) }) {
      return .pdf
    }
    return nil
  }

  /// Text that starts like markup: a BOM, white space, then '<'.
  static func looksLikeXML(_ b: [UInt8]) -> Bool {
    var i = starts(b, [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { i += 1 }
    return i < b.count && b[i] == UInt8(ascii: "<")
  }

  /// UTF-16 text (a byte-order mark) named `.dxf`, or whose text starts as a DXF does
  /// (`0`, then `SECTION`, each on its line).
  static func isUTF16DXF(_ b: [UInt8], path: String) -> Bool {
    let little = starts(b, [0xFF, 0xFE])
    guard little || starts(b, [0xFE, 0xFF]) else { return false }
    if path.lowercased().hasSuffix(".dxf") { return true }
    let units = stride(from: 2, to: b.count - 1, by: 2).map { i in
      little ? UInt16(b[i]) | UInt16(b[i + 1]) << 8 : UInt16(b[i]) << 8 | UInt16(b[i + 1])
    }
    let lines = String(decoding: units, as: UTF16.self).split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false)
      .prefix(2).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    return lines == ["0", "SECTION"]
  }

  /// A name for what a refused file is, from its first bytes.
  /// What is wrong with the ENVI header beside a data file GDAL reads as no format
  /// (`e.hdr` or `e.dat.hdr` for `e.dat`, starting "ENVI"): GDAL then says nothing of it,
  /// and the data file was "a file of unknown format … convert it to … ENVI". Nil when
  /// there is no such header.
  static func damagedENVIHeader(of path: String) -> String? {
    let url = URL(fileURLWithPath: path)
    let candidates = [url.deletingPathExtension().path + ".hdr", url.deletingPathExtension().path + ".HDR", path + ".hdr"]
    for candidate in candidates where candidate != path {
      guard let handle = FileHandle(forReadingAtPath: candidate) else { continue }
      defer { try? handle.close() }
      let head = (try? handle.read(upToCount: 64 << 10)).map { Array($0) } ?? []
      guard starts(head, "ENVI") else { continue }
      let name = Quote.value(URL(fileURLWithPath: candidate).lastPathComponent, limit: 60)
      let size = (try? FileManager.default.attributesOfItem(atPath: candidate)[.size] as? Int) ?? 0
      var said: [String] = []
      if size > 1 << 20 { said.append("it is \(size >> 20) MB") }
      // its sizes, where GDAL refuses a band count or a size past what it takes
      for line in String(decoding: head, as: UTF8.self).split(whereSeparator: \.isNewline) {
        let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard parts.count == 2, ["samples", "lines", "bands"].contains(parts[0]) else { continue }
        said.append("\(parts[0]) \(Quote.value(parts[1], limit: 20))")
      }
      let what = said.isEmpty ? "" : " (\(said.joined(separator: ", ")))"
      return
        "has an ENVI header, \(name), that GDAL cannot read\(what); check its values (a band count or size too large?) or convert the image to GeoTIFF"
    }
    return nil
  }

  static func otherFormat(_ b: [UInt8]) -> String {
    let text = String(decoding: b.prefix(512), as: UTF8.self).lowercased()
    let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
    if b.isEmpty { return "empty" }
    if starts(b, "%!PS") || starts(b, "%!") || starts(b, [0xC5, 0xD0, 0xD3, 0xC6]) { return "PostScript" }
    if trimmed.hasPrefix("push graphic-context") || trimmed.hasPrefix("viewbox") || trimmed.hasPrefix("graphic-context")
      || (trimmed.hasPrefix("#") && text.contains("graphic-context"))
    {
      return "ImageMagick MVG (drawing commands)"
    }
    if text.hasPrefix("id=imagemagick") { return "ImageMagick MIFF" }
    if starts(b, "SIMPLE  =") { return "FITS" }
    if starts(b, [0xFF, 0xFE]) || starts(b, [0xFE, 0xFF]) { return "UTF-16 text (an SVG must be UTF-8 to be read)" }
    if starts(b, "MATLAB") { return "a Matlab file" }
    if starts(b, [0x76, 0x2F, 0x31, 0x01]) { return "OpenEXR" }
    if starts(b, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || starts(b, [0xFF, 0x4F, 0xFF, 0x51]) { return "JPEG 2000" }
    if starts(b, "BM") { return "BMP" }
    if starts(b, "8BPS") { return "Photoshop (PSD)" }
    if starts(b, "gimp xcf") { return "GIMP XCF" }
    if starts(b, "#?RADIANCE") || starts(b, "#?RGBE") { return "Radiance HDR" }
    if starts(b, [0x08, 0xF2, 0xA6, 0xB6]) || starts(b, [0xB6, 0xA6, 0xF2, 0x08]) { return "a libvips native file" }
    if b.count >= 2, b[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(b[1]) { return "PNM/PPM" }
    if starts(b, [0x00, 0x00, 0x01, 0x00]) { return "a Windows icon" }
    if starts(b, "PK") { return "a ZIP archive" }
    if starts(b, [0x1F, 0x8B]) { return "gzip-compressed" }
    if starts(b, "\u{1}\u{0}") || starts(b, "#!") { return "a script or binary" }
    if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") { return "JSON or other text" }
    if b.prefix(512).allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || (32..<127).contains($0) || $0 >= 0x80 }) { return "text" }
    return "a file of unknown format"
  }
}

/// Finds an XML document's root element name, skipping a declaration, comments,
/// processing instructions and a doctype (with its internal subset) of any length.
/// Reads the file in chunks through `pread`, so any size costs 64 KB of memory.
enum XMLRoot {
  static func find(fd: Int32, size: Int) throws -> String? {
    var reader = ChunkReader(fd: fd, size: size)
    while let c = reader.next() {
      if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0xEF || c == 0xBB || c == 0xBF { continue }
      guard c == UInt8(ascii: "<") else { return nil }
      guard let d = reader.next() else { return nil }
      switch d {
      case UInt8(ascii: "?"):
        guard reader.skip(past: Array("?>".utf8)) else { return nil }
      case UInt8(ascii: "!"):
        if reader.peek(Array("--".utf8)) {
          guard reader.skip(past: Array("-->".utf8)) else { return nil }
        } else {
          // <!DOCTYPE ...> with an optional [internal subset]
          var depth = 0
          var quote: UInt8? = nil
          var closed = false
          while let e = reader.next() {
            if let q = quote {
              if e == q { quote = nil }
            } else if e == UInt8(ascii: "\"") || e == UInt8(ascii: "'") {
              quote = e
            } else if e == UInt8(ascii: "[") {
              depth += 1
            } else if e == UInt8(ascii: "]") {
              depth -= 1
            } else if e == UInt8(ascii: ">") && depth <= 0 {
              closed = true
              break
            }
          }
          guard closed else { return nil }
        }
      default:
        var name = [d]
        while let e = reader.next(), !(e == 0x20 || e == 0x09 || e == 0x0A || e == 0x0D || e == UInt8(ascii: ">") || e == UInt8(ascii: "/")) {
          name.append(e)
          if name.count > 64 { break }
        }
        return String(decoding: name, as: UTF8.self)
      }
    }
    return nil
  }

  /// Sequential bytes of a file through a 64 KB buffer.
  struct ChunkReader {
    let fd: Int32
    let size: Int
    var buffer = [UInt8]()
    var index = 0
    var offset = 0

    init(fd: Int32, size: Int) {
      self.fd = fd
      self.size = size
    }

    mutating func fill() -> Bool {
      guard offset < size else { return false }
      var chunk = [UInt8](repeating: 0, count: 65536)
      let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 65536, off_t(offset)) }
      guard n > 0 else { return false }
      buffer = Array(chunk[0..<n])
      index = 0
      offset += n
      return true
    }

    mutating func next() -> UInt8? {
      if index >= buffer.count && !fill() { return nil }
      defer { index += 1 }
      return buffer[index]
    }

    /// Whether the next bytes are `s`; consumes them when they are.
    mutating func peek(_ s: [UInt8]) -> Bool {
      for (k, want) in s.enumerated() {
        guard let got = next(), got == want else {
          // only "--" after "<!" is peeked; a mismatch means a doctype, whose
          // scanner does not care about the one or two bytes consumed here
          _ = k
          return false
        }
      }
      return true
    }

    /// Consumes bytes up to and including `end`.
    mutating func skip(past end: [UInt8]) -> Bool {
      var window: [UInt8] = []
      while let c = next() {
        window.append(c)
        if window.count > end.count { window.removeFirst() }
        if window == end { return true }
      }
      return false
    }
  }
}
