import TilecutCore
import TilecutVips

/// One floor's input: which file, page and band, and what its header says.
public struct FloorSource: Sendable {
  public var floor: Floor
  public var input: InputName
  public var header: SourceHeader
  public var description: SourceDescription
}

/// Turns the inputs and `--floors` into one source per floor.
package enum FloorResolver {
  static func resolve(
    inputs: [String], options: FloorOptions, maxPixels: Int, maxMemory: Int = DecodeBudget.defaultBytes, maxZoom: Int? = nil,
    drawingUnits: DrawingUnit? = nil
  ) throws -> [FloorSource] {
    guard !inputs.isEmpty else { throw TilecutError.invalidOption(option: "INPUT", reason: "give at least one image to tile") }
    let names = try inputs.map { try InputName(parsing: $0) }
    // before any kind of source is looked for in it
    for name in names { try refuseKernelFile(name) }
    var out: [FloorSource] = []
    // an IMDF venue: a floor per level ordinal
    if names.count == 1,
      let venue = try VenueSource.floorSources(names[0], options: options, maxZoom: maxZoom, maxPixels: maxPixels, maxMemory: maxMemory)
    {
      return venue
    }
    if let venue = names.first(where: { IMDFVenue.isVenue($0.path) }), names.count > 1 {
      throw TilecutError.invalidInput(path: venue.path, reason: "is an IMDF venue, which holds its own floors; give it as the only input")
    }
    if names.count > 1 {
      if let n = options.floors, n != names.count {
        throw TilecutError.invalidOption(
          option: "--floors", reason: "\(n) floors but \(names.count) inputs; give one input per floor, or one input with --floors")
      }
      for (i, name) in names.enumerated() {
        let header = try sourceHeader(of: name, maxPixels: maxPixels, maxMemory: maxMemory, drawingUnits: drawingUnits)
        if header.pages > 1 && name.page == nil {
          throw TilecutError.invalidInput(
            path: name.path, reason: "has \(header.pages) pages; with several inputs name the page, e.g. '\(name.path)[page=0]'")
        }
        out.append(floorSource(try options.floor(i), name, header, crop: nil))
      }
      return out
    }
    let name = names[0]
    let header = try sourceHeader(of: name, maxPixels: maxPixels, maxMemory: maxMemory, drawingUnits: drawingUnits)
    let n = options.floors ?? 1
    if n == 1 { return [floorSource(try options.floor(0), name, header, crop: nil)] }
    if name.page == nil && header.pages > 1 {
      guard header.pages >= n else {
        throw TilecutError.invalidInput(path: name.path, reason: "has \(header.pages) pages, fewer than --floors \(n)")
      }
      for page in 0..<n {
        let pageName = InputName(path: name.path, page: page)
        let pageHeader = try sourceHeader(of: pageName, maxPixels: maxPixels, maxMemory: maxMemory, drawingUnits: drawingUnits)
        out.append(floorSource(try options.floor(page), pageName, pageHeader, crop: nil))
      }
      return out
    }
    // One page: N equal bands.
    let vertical = options.stack == .vertical
    let length = vertical ? header.height : header.width
    let axis = vertical ? "height" : "width"
    guard length % n == 0 else {
      throw TilecutError.invalidOption(
        option: "--floors",
        reason: "\(name.path) is \(length) px in \(axis), which does not split into \(n) equal bands (\(length % n) px left over)")
    }
    let band = length / n
    for i in 0..<n {
      let crop =
        vertical
        ? PixelRect(x: 0, y: i * band, width: header.width, height: band)
        : PixelRect(x: i * band, y: 0, width: band, height: header.height)
      out.append(floorSource(try options.floor(i), name, header, crop: crop))
    }
    return out
  }

  /// An input's header: a tile store's raster (`TileStoreSource`), else the image's.
  /// `venue`: a project floor's `language` and `venueStyle`, for an IMDF venue;
  /// `drawingUnits`: `--drawing-units`, for a CAD drawing.
  static func sourceHeader(
    of name: InputName, maxPixels: Int, maxMemory: Int, venue: FloorOptions? = nil, drawingUnits: DrawingUnit? = nil
  ) throws -> SourceHeader {
    try refuseKernelFile(name)
    if let header = try VenueSource.header(of: name, options: venue, maxPixels: maxPixels, maxMemory: maxMemory) { return header }
    if let header = try TileStoreSource.header(of: name, maxPixels: maxPixels, maxMemory: maxMemory) { return header }
    return try SourceImage.header(
      of: name, maxPixels: maxPixels, maxMemory: maxMemory, drawingUnits: drawingUnits.map { ($0.meters, $0.name) })
  }

  /// A source in `/proc` or `/sys` (`/proc/self/environ`) is refused by its name, before
  /// any reader opens it: it states a size of 0 whatever it holds.
  static func refuseKernelFile(_ name: InputName) throws {
    if let why = SidecarPath.kernelFile(name.path) { throw TilecutError.invalidInput(path: name.path, reason: why) }
  }

  static func floorSource(_ floor: Floor, _ name: InputName, _ header: SourceHeader, crop: PixelRect?) -> FloorSource {
    var description = SourceDescription(
      path: name.path, page: name.page, crop: crop, width: crop?.width ?? header.width,
      height: crop?.height ?? header.height, isVector: header.isVector, storeFloor: name.floor)
    description.drawing = header.drawing
    return FloorSource(floor: floor, input: name, header: header, description: description)
  }
}
