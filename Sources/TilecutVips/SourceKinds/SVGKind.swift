import CTilecutDocument
import CTilecutPlatform
import CVips
import CVipsShim
import TilecutCore

/// SVG drawings, rendered by librsvg at the density each level needs: in bands when
/// read top to bottom (`tc_svg_open_banded`). An IMDF venue's floors are drawn as SVG
/// and rendered by this kind (`VenueSheets`).
struct SVGKind: SourceKind {
  var name: String { "document (SVG)" }
  var formats: [SourceFormat] { [.svg] }
  var isDrawnPerZoom: Bool { true }

  func loader(for format: SourceFormat) -> String { "svgload" }

  func header(
    of input: InputName, format: SourceFormat, maxPixels: Int, maxMemory: Int, drawingUnits: (meters: Double, name: String)?
  ) throws -> SourceHeader {
    // its references and embedded images against the budget, before librsvg reads them
    let files = try SVGReferences.check(path: input.path, maxBytes: maxMemory)
    var header = try SourceImage.documentHeader(of: input, format: format, maxPixels: maxPixels, refusedAs: "an SVG")
    header.filesReferenced = files
    return header
  }

  func pixels(
    of source: SourceDescription, format: SourceFormat, sequential: Bool, scale: Double, sheet: SheetClaim?, bands: Bool
  ) throws -> VipsImageHandle {
    // read top to bottom: rendered in bands, not in libvips' 2000 px tiles
    let image =
      sequential && bands
      ? try Self.banded(source, scale: scale) : try Self.rendered(source, scale: scale, sequential: sequential, what: "render \(source.path)")
    return try SourceImage.cropped(SourceImage.convert(image, source: source), source: source, scale: scale)
  }

  /// The drawing rendered band by band as it is read (`tc_svg_open_banded`): one band
  /// of `SourceImage.documentBandBytes` in memory, whatever its size.
  static func banded(_ source: SourceDescription, scale: Double) throws -> VipsImageHandle {
    let rows = SourceImage.bandRows(source, scale: scale)
    return try VipsImageHandle.make("render \(source.path)") { out in tc_svg_open_banded(source.path, scale, Int32(rows), &out) }
  }

  /// The drawing rendered by libvips' loader, in its tiles; `what` names the operation.
  static func rendered(_ source: SourceDescription, scale: Double, sequential: Bool, what: String) throws -> VipsImageHandle {
    try VipsImageHandle.make(what) { out in tc_load_named("svgload", source.path, -1, scale, sequential ? 1 : 0, &out) }
  }
}
