import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

/// The source-kind seam (`SourceKind`): each kind answers for its formats in its own
/// file in Sources/TilecutVips/SourceKinds, and no other source asks a format's case.
@Suite("the source-kind seam")
struct SourceKindSeamTests {
  /// What a format's kind answers: its name, loader, whether it is drawn at each
  /// level's density, whether its pages state their placement, how GDAL reads its mask
  /// (for no page and for page 1), and whether its nodata is a TIFF tag.
  struct Answers: Equatable, CustomStringConvertible {
    var kind: String
    var loader: String
    var drawnPerZoom: Bool
    var pagesStatePlacement: Bool
    var mask: GDALMaskReading?
    var maskOfPage1: GDALMaskReading?
    var nodataInTIFFTag: Bool

    var description: String {
      "\(kind), \(loader), drawn per zoom \(drawnPerZoom), pages state placement \(pagesStatePlacement), mask \(String(describing: mask))/\(String(describing: maskOfPage1)), TIFF-tag nodata \(nodataInTIFFTag)"
    }
  }

  static func answers(_ format: SourceFormat) -> Answers {
    let kind = format.kind
    return Answers(
      kind: kind.name, loader: format.loader, drawnPerZoom: kind.isDrawnPerZoom, pagesStatePlacement: kind.pagesStatePlacement,
      mask: kind.gdalMask(format: format, page: nil), maskOfPage1: kind.gdalMask(format: format, page: 1),
      nodataInTIFFTag: kind.nodataInTIFFTag(format: format))
  }

  /// The answers the switches on `SourceFormat` gave before the seam (0.16.0).
  static let expected: [SourceFormat: Answers] = {
    func raster(_ loader: String) -> Answers {
      Answers(
        kind: "raster (libvips)", loader: loader, drawnPerZoom: false, pagesStatePlacement: false, mask: nil, maskOfPage1: nil,
        nodataInTIFFTag: false)
    }
    var tiff = raster("tiffload")
    tiff.mask = .optional
    tiff.nodataInTIFFTag = true
    let drawing = Answers(
      kind: "drawing (DXF, DWG)", loader: "dxfload", drawnPerZoom: true, pagesStatePlacement: false, mask: nil, maskOfPage1: nil,
      nodataInTIFFTag: false)
    var dwg = drawing
    dwg.loader = "dwgload"
    return [
      .png: raster("pngload"), .jpeg: raster("jpegload"), .webp: raster("webpload"), .tiff: tiff, .gif: raster("gifload"),
      .heif: raster("heifload"),
      .pdf: Answers(
        kind: "document (PDF)", loader: "pdfload", drawnPerZoom: true, pagesStatePlacement: true, mask: nil, maskOfPage1: nil,
        nodataInTIFFTag: false),
      .svg: Answers(
        kind: "document (SVG)", loader: "svgload", drawnPerZoom: true, pagesStatePlacement: false, mask: nil, maskOfPage1: nil,
        nodataInTIFFTag: false),
      .gdal: Answers(
        kind: "raster (libgdal)", loader: "gdal", drawnPerZoom: false, pagesStatePlacement: false, mask: .required,
        maskOfPage1: .required, nodataInTIFFTag: false),
      .dxf: drawing, .dwg: dwg,
    ]
  }()

  @Test("each format's kind answers the seam's questions as the format's switches did", arguments: SourceFormat.allCases)
  func answersAsBefore(format: SourceFormat) {
    #expect(Self.answers(format) == Self.expected[format], "\(format.rawValue)")
  }

  @Test("every format is read by exactly one kind")
  func oneKindPerFormat() {
    let claimed = SourceKinds.all.flatMap(\.formats)
    #expect(claimed.count == Set(claimed).count, "a format is claimed by two kinds: \(claimed.map(\.rawValue))")
    #expect(Set(claimed) == Set(SourceFormat.allCases))
    for kind in SourceKinds.all {
      for format in kind.formats { #expect(format.kind.name == kind.name) }
    }
  }

  @Test("the kinds a job registers: a tile store's stored pixels, a venue's floors drawn per zoom; nothing registered, none")
  func registeredKinds() {
    let kinds = SourceKinds.registered.map { String(describing: $0) }
    #expect(kinds == ["TileStoreKind", "VenueKind"])
    let mosaic = TileMosaic(
      path: "/nonexistent/store.mbtiles", floor: nil, zoom: 1, tileSize: 256, firstColumn: 0, firstRow: 0, columns: 1, rows: 1, format: .png,
      crop: nil, tiles: [:])
    #expect(TileStoreKind(mosaic: mosaic).isDrawnPerZoom == false)
    #expect(VenueKind(ordinal: 0).isDrawnPerZoom == true)
    let plain = SourceDescription(path: "/nonexistent/plan.png", page: nil, crop: nil, width: 1, height: 1, isVector: false, storeFloor: 0)
    #expect(SourceKinds.registered(for: plain) == nil)
  }

  @Test("headers of the example drawings come from their kinds: documents drawn per zoom, rasters not")
  func headersByKind() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let plans = root.appendingPathComponent("examples/floorplan").path
    for (file, format, vector) in [("office.png", SourceFormat.png, false), ("building.pdf", .pdf, true), ("office.svg", .svg, true)] {
      let header = try SourceImage.header(of: InputName(path: plans + "/" + file), maxPixels: 1 << 30)
      #expect(header.format == format && header.isVector == vector, "\(file): \(header.format) vector \(header.isVector)")
    }
  }

  /// A drawing's levels are drawn within the --max-memory its header was read within
  /// (the render used the default budget: a drawing the dry run took within --max-memory
  /// 3000 was refused when drawn, "raise --max-memory").
  @Test("a drawing is drawn within the budget its header was read within")
  func drawingKeepsItsBudget() throws {
    let dir = NSTemporaryDirectory() + "tilecut-budget-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/plan.dxf"
    let pairs = ["0", "SECTION", "2", "ENTITIES", "0", "LINE", "8", "0", "10", "0", "20", "0", "11", "10", "21", "10", "0", "ENDSEC", "0", "EOF"]
    try Data(pairs.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
    #expect(DrawingSource.budget(for: path) == DecodeBudget.defaultBytes)
    _ = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30, maxMemory: 3_000_000_000)
    #expect(DrawingSource.budget(for: path) == 3_000_000_000)
    _ = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 30, maxMemory: 100_000_000)
    #expect(DrawingSource.budget(for: path) == 100_000_000)
  }

  /// Sources that may name the formats that decide a kind: the kinds, and
  /// `SourceFormat.swift` (the identity and the detection by bytes).
  static let kindFiles = ["Sources/TilecutVips/SourceKinds/", "Sources/TilecutVips/SourceFormat.swift"]

  /// Formats named as what they are, not asked which kind they are: the raster kind's
  /// damage checks and an SVG's embedded images sniff TIFF as a codec, a KMZ overlay's
  /// image is one of the raster codecs, and a venue's sheets keep the SVG format their
  /// manifests have always recorded.
  static let allowed: [String: Set<String>] = [
    "Sources/TilecutVips/InputCheck.swift": ["tiff"], "Sources/TilecutVips/SVGReferences.swift": ["tiff"],
    "Sources/TilecutVips/OverlaySource.swift": ["tiff"], "Sources/TilecutVips/VenueSheets.swift": ["svg"],
  ]

  /// `.pdf`, `SourceFormat.dxf`, `[.dxf, .dwg].contains(…)`, `case .png, .pdf:`: a
  /// format that decides a kind named as a value, outside comments and string literals
  /// (`.pdfPage` and `.svg(…)` are other names).
  static let named = try! NSRegularExpression(pattern: #"(?:SourceFormat|(?<![A-Za-z0-9_]))\.(pdf|svg|gdal|dxf|dwg|tiff|heif)(?![A-Za-z0-9_(])"#)
  /// `format.rawValue == "dxf"`: the same question asked of the raw value.
  static let rawNamed = try! NSRegularExpression(pattern: #"rawValue\s*[!=]=\s*"(pdf|svg|gdal|dxf|dwg|tiff|heif)""#)

  /// The line's code: string literals emptied, a `//` comment dropped.
  static func code(_ line: String) -> String {
    let literals = try! NSRegularExpression(pattern: #""(?:\\.|[^"\\])*""#)
    let text = literals.stringByReplacingMatches(in: line, range: NSRange(line.startIndex..., in: line), withTemplate: "\"\"")
    guard let comment = text.range(of: "//") else { return text }
    return String(text[..<comment.lowerBound])
  }

  /// The format names `pattern` finds in `text` (its first group).
  static func names(_ pattern: NSRegularExpression, in text: String) -> [String] {
    pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
      Range(match.range(at: 1), in: text).map { String(text[$0]) }
    }
  }

  @Test("the matcher finds a kind's format however it is written, and not in comments or strings")
  func matcherFindsTheQuestion() {
    let asked = [
      "if format == .dxf || format == .dwg {", "case .png, .pdf:", "[.dxf, .dwg].contains(format)", ".pdf == format",
      "let f = SourceFormat.heif", "guard format != .svg else", "readsNext: format == .gdal)",
    ]
    for line in asked { #expect(!Self.names(Self.named, in: Self.code(line)).isEmpty, "not found in: \(line)") }
    #expect(Self.names(Self.rawNamed, in: #"if format.rawValue == "dxf" {"#) == ["dxf"])
    let innocent = [
      "// a .pdf page", #"let name = "plan.dxf""#, "let page = x.pdfPage", "case .svgRoot:", "return .tiffTags",
      #"throw refused("a .dwg file")"#,
    ]
    for line in innocent { #expect(Self.names(Self.named, in: Self.code(line)).isEmpty, "found in: \(line)") }
  }

  @Test("no Swift source outside the kinds switches on or compares the formats that decide a kind")
  func noSwitchesOutsideTheKinds() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let sources = root.appendingPathComponent("Sources")
    let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
    #expect(files.count > 50, "the Swift sources were not found below \(sources.path)")
    var found: [String] = []
    for file in files.map({ "Sources/" + $0 }) where !Self.kindFiles.contains(where: { file.hasPrefix($0) }) {
      let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let line = String(line)
        let names = Self.names(Self.named, in: Self.code(line)) + Self.names(Self.rawNamed, in: line)
        for name in names where !(Self.allowed[file]?.contains(name) ?? false) { found.append("\(file):\(n + 1): .\(name)") }
        for pattern in [".isDrawing", "format.isVector"] where Self.code(line).contains(pattern) {
          found.append("\(file):\(n + 1): \(pattern)")
        }
      }
    }
    #expect(found.isEmpty, "a source kind's question asked outside Sources/TilecutVips/SourceKinds:\n\(found.joined(separator: "\n"))")
  }
}
