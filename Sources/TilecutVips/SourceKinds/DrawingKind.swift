import CVips
import CVipsShim
import TilecutCore

/// CAD drawings, DXF and DWG: read by GDAL's OGR driver into a display list and drawn
/// by cairo in bands at the density each level needs (`DrawingSource`). Their header
/// carries the drawing's frame (`DrawingFrame`): its units, layers and own georeference.
struct DrawingKind: SourceKind {
  var name: String { "drawing (DXF, DWG)" }
  var formats: [SourceFormat] { [.dxf, .dwg] }
  var isDrawnPerZoom: Bool { true }

  func loader(for format: SourceFormat) -> String { format == .dwg ? "dwgload" : "dxfload" }

  func header(
    of input: InputName, format: SourceFormat, maxPixels: Int, maxMemory: Int, drawingUnits: (meters: Double, name: String)?
  ) throws -> SourceHeader {
    if let page = input.page, page > 0 { throw SourceImage.pastTheEnd(path: input.path, pages: 1, page: page) }
    return try DrawingSource.header(path: input.path, format: format, maxPixels: maxPixels, maxMemory: maxMemory, units: drawingUnits)
  }

  func pixels(
    of source: SourceDescription, format: SourceFormat, sequential: Bool, scale: Double, sheet: SheetClaim?, bands: Bool
  ) throws -> VipsImageHandle {
    // drawn by cairo in bands, whichever way it is read
    guard let frame = source.drawing else {
      // a description without its frame (not one a header made): the loader's refusal
      let image = try VipsImageHandle.make("render \(source.path)") { out in
        tc_load_named(loader(for: format), source.path, Int32(source.page ?? 0), scale, sequential ? 1 : 0, &out)
      }
      return try SourceImage.cropped(SourceImage.convert(image, source: source), source: source, scale: scale)
    }
    let rows = SourceImage.bandRows(source, scale: scale)
    return try SourceImage.cropped(DrawingSource.banded(source, frame: frame, scale: scale, rows: rows), source: source, scale: scale)
  }
}
