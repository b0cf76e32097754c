import CTilecutPlatform
import TilecutCore

/// An IMDF venue's floor (`[floor=K]`, its levels' ordinal), registered by the job
/// (`VenueSource`): drawn for each level's scale as an SVG document (`VenueSheets`,
/// `IMDFDrawing`) and rendered as `SVGKind` renders a drawing.
struct VenueKind: RegisteredSourceKind {
  var ordinal: Int

  var name: String { "venue (IMDF)" }
  var isDrawnPerZoom: Bool { true }

  static func registered(for source: SourceDescription) -> VenueKind? {
    guard let ordinal = source.storeFloor, VenueSheets.floor(path: source.path, ordinal: ordinal) != nil else { return nil }
    return VenueKind(ordinal: ordinal)
  }

  func pixels(of source: SourceDescription, sequential: Bool, scale: Double, bands: Bool) throws -> VipsImageHandle {
    let file = try VenueSheets.document(path: source.path, ordinal: ordinal, scale: scale)
    defer { VenueSheets.discard(file) }
    // the drawing's text, built and written, is freed: given back before it is rendered
    tc_release_free_memory()
    var sheet = source
    sheet.path = file
    let image =
      sequential && bands
      ? try SVGKind.banded(sheet, scale: scale)
      : try SVGKind.rendered(sheet, scale: scale, sequential: false, what: "render \(source.path) floor \(ordinal)")
    return try SourceImage.cropped(SourceImage.convert(image, source: source), source: source, scale: scale)
  }
}
