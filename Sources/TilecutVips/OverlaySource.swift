import CVips
import CVipsShim
import Foundation
import Synchronization
import TilecutCore
import TilecutGeo

/// A KML document, or a KMZ archive holding one, given as a source: one of its
/// GroundOverlays (the input's page: `plan.kmz[page=1]` is the second), whose image
/// is the floor's pixels and whose LatLonBox or gx:LatLonQuad places it.
///
/// The image of a KML is a file in the KML's folder, read as any input is; the image
/// of a KMZ is an entry of the archive, inflated into memory within the budget and
/// read from there by its format's own libvips loader (never extracted). Every
/// refusal names the KML or KMZ.
public struct OverlaySource: Sendable {
  /// Where the image's bytes are.
  public enum Image: Sendable {
    /// A file beside the KML (a path to open).
    case file(String)
    /// An entry of the KMZ, in memory, and the format its bytes say.
    case bytes([UInt8], format: SourceFormat)
  }

  /// The `.kml` or `.kmz` as given.
  public var document: String
  /// The KML entry of a KMZ (`doc.kml`); nil for a KML file.
  public var entry: String?
  public var overlays: [KMLGroundOverlay]
  public var index: Int
  public var image: Image
  /// The image as the href leads to it: an entry of the KMZ, or a path beside the KML.
  public var imageName: String

  public var overlay: KMLGroundOverlay { overlays[index] }

  /// "GroundOverlay 'Name' of doc.kml (image img/a.jpg)", for the placement line.
  public var summary: String {
    "GroundOverlay \(overlay.label(index: index))" + (entry.map { " of \(Quote.value($0))" } ?? "") + " (image \(Quote.value(imageName)))"
  }

  /// The images (for a KMZ, with their bytes) found so far, by document and overlay.
  private static let found = Mutex<[String: OverlaySource]>([:])

  /// The file by name, size and modification time (an edited file is read again), and the overlay.
  static func key(_ path: String, _ index: Int) -> String { "\(InputCheck.fileKey(path) ?? path)\u{0}\(index)" }

  /// The overlay an input names, when the input is a KML document or a KMZ archive
  /// holding one; nil for any other file. `maxMemory`: what a KMZ's image may take.
  public static func resolve(path: String, page: Int?, maxMemory: Int = DecodeBudget.defaultBytes) throws -> OverlaySource? {
    let index = page ?? 0
    if let known = found.withLock({ $0[key(path, index)] }) {
      // read within a larger budget before: checked against this one again
      guard case .bytes(let bytes, _) = known.image, bytes.count > maxEntryBytes(maxMemory) else { return known }
    }
    guard let kind = kind(of: path) else { return nil }
    do {
      let source = try load(path: path, kind: kind, index: index, maxMemory: maxMemory)
      found.withLock { $0[key(path, index)] = source }
      return source
    } catch let problem as KMLProblem {
      throw TilecutError.invalidInput(path: path, reason: problem.reason)
    }
  }

  /// Whether the file is a KMZ (a ZIP archive with a `.kml` entry) or KML (XML whose
  /// root is `<kml>` or a bare `<GroundOverlay>`), from its bytes.
  static func kind(of path: String) -> Bool? {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
    var head = [UInt8](repeating: 0, count: 512)
    let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, 512) }
    guard n > 0 else { return nil }
    head.removeSubrange(n...)
    if KMZArchive.looksLikeZip(head) {
      // a .kmz libzip refuses (damaged, cut short, past the entries tilecut takes) is read
      // as an overlay, whose reading says why; any other ZIP without a KML document is
      // refused as a ZIP archive, by the format check
      guard let archive = try? KMZArchive(path: path) else { return path.lowercased().hasSuffix(".kmz") ? true : nil }
      return archive.documentEntry != nil ? true : nil
    }
    guard SourceFormat.looksLikeXML(head), let root = try? XMLRoot.find(fd: fd, size: Int(st.st_size)) else { return nil }
    let local = KMLDocument.local(root)
    return local == "kml" || local == "GroundOverlay" ? false : nil
  }

  /// Reads the document, picks overlay `index`, and finds its image.
  private static func load(path: String, kind isArchive: Bool, index: Int, maxMemory: Int) throws -> OverlaySource {
    var archive: KMZArchive?
    var entry: String?
    let text: [UInt8]
    if isArchive {
      let kmz = try KMZArchive(path: path)
      guard let document = kmz.documentEntry else { throw KMLProblem("holds no .kml document") }
      archive = kmz
      entry = document
      text = try kmz.read(document, maxBytes: KMLDocument.maxBytes, what: "the KML document")
    } else {
      // the size first: a sparse KML of gigabytes was read whole before the check
      do {
        text = try SmallFile.read(path, maxBytes: KMLDocument.maxBytes)
      } catch .tooLarge(let size) {
        throw KMLProblem("is \(size) bytes of KML, more than \(KMLDocument.maxBytes >> 20) MB")
      } catch .changed {
        throw KMLProblem("changed while it was read; run again when it is complete")
      } catch {
        throw KMLProblem("cannot be read")
      }
    }
    // a problem in a KMZ's document names the entry
    let inEntry = entry.map { "its \(Quote.value($0)) " } ?? ""
    let overlays: [KMLGroundOverlay]
    do { overlays = try KMLDocument.overlays(text) } catch { throw KMLProblem(inEntry + error.reason) }
    guard !overlays.isEmpty else {
      throw KMLProblem(
        "\(inEntry.isEmpty ? "" : inEntry.replacingOccurrences(of: "its ", with: ""))holds no GroundOverlay; tilecut places a KML's GroundOverlay (an image with a LatLonBox or gx:LatLonQuad)"
      )
    }
    guard index < overlays.count else {
      throw KMLProblem(
        "holds \(overlays.count) GroundOverlay\(overlays.count == 1 ? "" : "s"); page=\(index) is past the end (overlays count from 0: \(overlays.count == 1 ? "0" : "0 to \(overlays.count - 1)"))"
      )
    }
    let overlay = overlays[index]
    let label = "GroundOverlay \(overlay.label(index: index))"
    guard let geometry = overlay.geometry else { throw KMLProblem("\(label) has no LatLonBox or gx:LatLonQuad to place it") }
    if let problem = geometry.problem { throw KMLProblem("\(label): \(problem)") }
    guard let href = overlay.href else { throw KMLProblem("\(label) has no image (<Icon><href>)") }
    let relative: String
    do { relative = try OverlayHref.resolve(href, folder: "") } catch { throw KMLProblem("\(label) " + error.reason) }
    if let archive, let entry {
      let folder = (entry as NSString).deletingLastPathComponent
      let name = folder.isEmpty ? relative : folder + "/" + relative
      // overlays of one image (a floor each) share its bytes: one copy in memory, not one a floor
      let limit = maxEntryBytes(maxMemory)
      let bytes = try readBefore(path, entry: name, maxBytes: limit) ?? archive.read(name, maxBytes: limit, what: "the image of \(label)")
      let format = try imageFormat(bytes, entry: name)
      return OverlaySource(
        document: path, entry: entry, overlays: overlays, index: index, image: .bytes(bytes, format: format), imageName: name)
    }
    let folder = (path as NSString).deletingLastPathComponent
    let imagePath = folder.isEmpty ? relative : folder + "/" + relative
    if let why = outside(imagePath, folder: folder.isEmpty ? "." : folder) { throw KMLProblem("\(label)'s image \(Quote.value(relative)) \(why)") }
    // a KML whose image is a KML (itself, or one leading back) would be read without end
    if kind(of: imagePath) != nil {
      throw KMLProblem("\(label)'s image \(Quote.value(relative)) is a KML or KMZ, not an image")
    }
    // other inputs tilecut reads that are no image: refused naming the KML, not as inputs of their own
    if let what = notAnImage(imagePath) {
      throw KMLProblem("\(label)'s image \(Quote.value(relative)) \(what); a GroundOverlay's image is a raster (PNG, JPEG, WebP, TIFF or GIF)")
    }
    return OverlaySource(document: path, entry: nil, overlays: overlays, index: index, image: .file(imagePath), imageName: imagePath)
  }

  /// The most a KMZ's image entry may inflate to: half the budget, the other half for its
  /// pixels (an image decodes to more than its file but for a pathological one).
  static func maxEntryBytes(_ maxMemory: Int) -> Int { maxMemory / 2 }

  /// The bytes of entry `name` of the KMZ at `path` as read for another of its overlays,
  /// when they fit in `maxBytes`.
  static func readBefore(_ path: String, entry name: String, maxBytes: Int) -> [UInt8]? {
    let prefix = (InputCheck.fileKey(path) ?? path) + "\u{0}"
    return found.withLock { found in
      for (key, source) in found where key.hasPrefix(prefix) && source.imageName == name {
        if case .bytes(let bytes, _) = source.image, bytes.count <= maxBytes { return bytes }
      }
      return nil
    }
  }

  /// Why the image beside a KML may not be read: absent, or a link leading out of the
  /// KML's folder or into /proc, /sys or /dev.
  static func outside(_ path: String, folder: String) -> String? {
    guard let real = SidecarPath.resolved(path) else { return "does not exist beside the KML" }
    guard let home = SidecarPath.resolved(folder) else { return "is not in a folder tilecut can read" }
    if ["/proc", "/sys", "/dev"].contains(where: { real == $0 || real.hasPrefix($0 + "/") }) && !real.hasPrefix("/dev/shm/") {
      return "leads into the system's files; tilecut reads an overlay's image only from the KML's folder"
    }
    let inside = home == "/" ? real.hasPrefix("/") : real.hasPrefix(home + "/")
    return inside ? nil : "is a link that leads out of the KML's folder; tilecut reads an overlay's image only from the KML's folder"
  }

  /// What the file beside a KML is when it is not a raster tilecut reads: a directory (a
  /// tile store, an IMDF venue), a PMTiles archive, an MBTiles store, a ZIP archive, or any
  /// other file whose bytes name no raster (PNG, JPEG, WebP, TIFF, GIF, HEIF) and which no
  /// GDAL raster driver tilecut reads through (JPEG 2000, ERDAS Imagine, ENVI, GeoPackage)
  /// claims. nil for a raster, and for a document (PDF, SVG, DXF, DWG: refused as one when
  /// its header is read) or a file that is not regular (refused as an input is): those are
  /// refused, if they are, in their own words. Only a regular file is opened.
  static func notAnImage(_ path: String) -> String? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    if st.st_mode & S_IFMT == S_IFDIR { return "is a directory, not an image" }
    guard st.st_mode & S_IFMT == S_IFREG else { return nil }
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var other = stat()
    // the file opened is the one looked at (not one put in its place since)
    guard fstat(fd, &other) == 0, other.st_mode & S_IFMT == S_IFREG, other.st_dev == st.st_dev, other.st_ino == st.st_ino else { return nil }
    var head = [UInt8](repeating: 0, count: 4096)
    let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4096, 0) }
    guard n >= 0 else { return nil }
    head.removeSubrange(n...)
    if SourceFormat.starts(head, "PMTiles") { return "is a PMTiles archive (a tile store), not an image" }
    // a raster by its magic, or a document, a drawing or markup: read, or refused, as inputs are
    if SourceFormat.magic(head) != nil || DrawingSource.format(head) != nil || SourceFormat.looksLikeXML(head) { return nil }
    switch GDALRaster.identify(path: path) {
    case .readable: return nil
    case .other(let name) where name == "MBTiles": return "is an MBTiles store (a tile store), not an image"
    case .other(let name): return "is \(name) (as GDAL identifies it), not an image"
    case nil:
      if SourceFormat.starts(head, "SQLite format 3\u{0}") { return "is an SQLite database, not an image" }
      return "is \(SourceFormat.otherFormat(head)), not an image"
    }
  }

  /// The raster format of an image entry, by its bytes.
  static func imageFormat(_ bytes: [UInt8], entry: String) throws(KMLProblem) -> SourceFormat {
    let name = "entry \(Quote.value(entry))"
    guard let format = SourceFormat.magic(Array(bytes.prefix(4096))), [.png, .jpeg, .webp, .tiff, .gif].contains(format) else {
      throw KMLProblem(
        "\(name) is \(SourceFormat.otherFormat(Array(bytes.prefix(4096)))), not an image tilecut reads in a KMZ (PNG, JPEG, WebP, TIFF or GIF)")
    }
    guard tc_has_operation(format.loader + "_buffer") != 0 else {
      throw KMLProblem("\(name) is \(format.rawValue.uppercased()), which this libvips cannot read from memory (no \(format.loader)_buffer)")
    }
    return format
  }
}
