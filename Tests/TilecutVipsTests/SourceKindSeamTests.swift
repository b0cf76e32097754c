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

  /// Sources that may name the formats that decide a kind: the kinds, and
  /// `SourceFormat.swift` (the identity and the detection by bytes).
  static let kindFiles = ["Sources/TilecutVips/SourceKinds/", "Sources/TilecutVips/SourceFormat.swift"]

  /// Byte sniffers of a raster codec, which name TIFF as a codec, not as a kind: the
  /// raster kind's damage checks, and the size of an image embedded in an SVG.
  static let codecFiles: [String: Set<String>] = [
    "Sources/TilecutVips/InputCheck.swift": ["tiff"], "Sources/TilecutVips/SVGReferences.swift": ["tiff"],
  ]

  @Test("no Swift source outside the kinds switches on or compares the formats that decide a kind")
  func noSwitchesOutsideTheKinds() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let sources = root.appendingPathComponent("Sources")
    let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
    #expect(files.count > 50, "the Swift sources were not found below \(sources.path)")
    let names = ["pdf", "svg", "gdal", "dxf", "dwg", "tiff", "heif"]
    var found: [String] = []
    for file in files.map({ "Sources/" + $0 }) where !Self.kindFiles.contains(where: { file.hasPrefix($0) }) {
      let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
      for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        for name in names where !(Self.codecFiles[file]?.contains(name) ?? false) {
          let asked = ["case .\(name)", "== .\(name)", "!= .\(name)", "SourceFormat.\(name)", ".\(name).loader"]
          for pattern in asked {
            guard let range = line.range(of: pattern) else { continue }
            // the pattern ends the name: `.pdf` but not `.pdfPage`
            if let next = line[range.upperBound...].first, next.isLetter || next.isNumber { continue }
            found.append("\(file):\(n + 1): \(pattern)")
          }
        }
        for pattern in [".isDrawing", "format.isVector"] where line.contains(pattern) { found.append("\(file):\(n + 1): \(pattern)") }
      }
    }
    #expect(found.isEmpty, "a source kind's question asked outside Sources/TilecutVips/SourceKinds:\n\(found.joined(separator: "\n"))")
  }
}
