import Foundation
import TilecutCore
import TilecutVips

extension PlacementMethod {
  /// An IMDF venue's own WGS 84 coordinates.
  public static let imdf = PlacementMethod(rawValue: "imdf")
}

/// An IMDF venue given as a source (a folder holding `manifest.json` and the IMDF
/// layers, or a ZIP archive of them): each level ordinal is a floor (`L-1`, `L0`, `L1`,
/// …), holding every building's level of that ordinal; each floor is drawn (`IMDFDrawing`)
/// at each level's density and placed exactly by its coordinates: sheet pixel (col, row)
/// is world pixel (origin + col, origin + row) of the sheet's zoom.
enum VenueSource {
  /// The sheet zoom when --max-zoom is not given: the first whose pixel is at most 15 cm
  /// on the ground at the venue's latitude, within 16...21.
  static func defaultZoom(_ venue: IMDFVenue) -> Int {
    let points = venue.features.flatMap { $0.geometry?.positions ?? [] }
    let lat = points.isEmpty ? 0 : points.map(\.lat).reduce(0, +) / Double(points.count)
    var zoom = 16
    while zoom < 21 && 2 * Double.pi * 6_378_137 * cos(lat * .pi / 180) / WebMercator.worldPixels(zoom: zoom) > 0.15 { zoom += 1 }
    return zoom
  }

  /// Opens and registers the venue at `name.path`; nil when it is no venue.
  static func open(_ name: InputName, options: FloorOptions, maxZoom: Int?, maxMemory: Int) throws -> VenueSheets.Entry? {
    if let entry = VenueSheets.entry(path: name.path) {
      // one drawing of a venue per run: its floors in a project take the same language and style
      let style = try options.venueStyle.map { try IMDFStyle.standard.overlaid(file: $0) } ?? .standard
      guard entry.language == options.language, entry.style == style else {
        throw TilecutError.invalidOption(
          option: options.language != entry.language ? "--language" : "--venue-style",
          reason:
            "\(name.path) is drawn once per run, and its floors ask for different languages or styles; give each of its floors the same language and venueStyle"
        )
      }
      return entry
    }
    guard IMDFVenue.isVenue(name.path) else {
      if IMDFVenue.isVenueWithoutManifest(name.path) {
        throw TilecutError.invalidInput(
          path: name.path,
          reason:
            "holds IMDF layers but no manifest.json (IMDF requires one, with its version and language); add it, e.g. {\"version\": \"1.0.0\", \"language\": \"en\"}"
        )
      }
      return nil
    }
    if name.page != nil {
      throw TilecutError.invalidInput(
        path: name.path, reason: "is an IMDF venue, which has no pages; name a floor as [floor=K] (its levels' ordinal)")
    }
    // its files may hold a 16th of the budget together, and their JSON, parsed, what is
    // left of it past tilecut's own 64 MB (a venue's JSON takes 12 to 54 times its bytes)
    let venue = try IMDFVenue.load(
      path: name.path, maxBytes: max(1 << 20, maxMemory / 16), maxParsedBytes: max(16 << 20, maxMemory - (64 << 20)))
    var style = IMDFStyle.standard
    if let file = options.venueStyle { style = try style.overlaid(file: file) }
    let zoom = maxZoom ?? defaultZoom(venue)
    let floors = IMDFFloor.floors(of: venue, zoom: zoom, language: options.language)
    guard !floors.isEmpty else {
      let first = venue.problems.first.map { ": \($0)" } ?? ""
      throw TilecutError.invalidInput(
        path: name.path,
        reason:
          "has nothing to draw (no level with a unit, opening or fixture on it; \(venue.problems.count) problem\(venue.problems.count == 1 ? "" : "s")\(first))"
      )
    }
    let entry = VenueSheets.Entry(venue: venue, floors: floors, style: style, language: options.language)
    VenueSheets.register(entry)
    return entry
  }

  /// The floors of a venue input, by ordinal (only `[floor=K]` when the input names one);
  /// nil when the input is no venue.
  static func floorSources(_ name: InputName, options: FloorOptions, maxZoom: Int?, maxPixels: Int, maxMemory: Int) throws -> [FloorSource]? {
    guard let entry = try open(name, options: options, maxZoom: maxZoom, maxMemory: maxMemory) else { return nil }
    if options.firstFloor != 1 {
      throw TilecutError.invalidOption(
        option: "--first-floor",
        reason:
          "\(name.path) is an IMDF venue, whose floors are numbered by their levels' ordinals (\(ordinals(entry))); give it without --first-floor")
    }
    if options.floors != nil {
      throw TilecutError.invalidOption(
        option: "--floors", reason: "\(name.path) is an IMDF venue, whose floors are its levels (\(ordinals(entry))); give it without --floors")
    }
    var floors = entry.floors
    if let wanted = name.floor {
      floors = floors.filter { $0.ordinal == wanted }
      guard !floors.isEmpty else {
        throw TilecutError.invalidInput(path: name.path, reason: "has no level of ordinal \(wanted); its floors are \(ordinals(entry))")
      }
    }
    return try floors.map { floor in
      guard floor.width * floor.height <= maxPixels else {
        throw TilecutError.invalidInput(
          path: name.path,
          reason:
            "floor \(floor.ordinal) is \(floor.width) × \(floor.height) px at zoom \(floor.zoom), more than --max-pixels \(maxPixels); lower --max-zoom or raise --max-pixels"
        )
      }
      var input = InputName(path: name.path)
      input.floor = floor.ordinal
      let header = SourceHeader.venueFloor(path: name.path, width: floor.width, height: floor.height)
      return FloorResolver.floorSource(try Floor(floor.ordinal, option: name.path), input, header, crop: nil)
    }
  }

  static func ordinals(_ entry: VenueSheets.Entry) -> String {
    entry.floors.map { "L\($0.ordinal)" }.joined(separator: ", ")
  }

  /// The header of a venue's floor named as `venue[floor=K]` (a project's floor), or nil for no venue.
  static func header(of name: InputName, options: FloorOptions? = nil, maxPixels: Int, maxMemory: Int) throws -> SourceHeader? {
    guard IMDFVenue.isVenue(name.path) || IMDFVenue.isVenueWithoutManifest(name.path) else { return nil }
    guard name.floor != nil else {
      throw TilecutError.invalidInput(
        path: name.path, reason: "is an IMDF venue: name one of its floors as '\(name.path)[floor=K]' (a level ordinal)")
    }
    // a project's floor: its language and venueStyle, else the default style and the venue's language
    let options = options ?? FloorOptions()
    return try floorSources(name, options: options, maxZoom: nil, maxPixels: maxPixels, maxMemory: maxMemory)?.first?.header
  }

  /// The exact placement of a venue's floor, or nil when the source is none.
  static func placement(_ floor: FloorSource) -> Placement? {
    guard let sheet = VenueSheets.floor(path: floor.input.path, ordinal: floor.description.storeFloor) else { return nil }
    let world = WebMercator.worldPixels(zoom: sheet.zoom)
    var placement = Placement(
      method: .imdf,
      transform: AffineTransform(a: 1 / world, b: 0, c: Double(sheet.originX) / world, d: 0, e: 1 / world, f: Double(sheet.originY) / world),
      nativeZoom: sheet.zoom)
    let levels = sheet.levels.map { level in level.shortName.map { "\(Quote.value($0)) (\(level.id))" } ?? level.id }
    placement.note = "IMDF level\(levels.count == 1 ? "" : "s") \(levels.joined(separator: ", ")), drawn at zoom \(sheet.zoom)"
    return placement
  }

  /// Refuses a placement option for a venue (placed by its own coordinates), and prints
  /// each venue's problems once, by feature id and file.
  static func check(_ floors: [FloorSource], placing: Bool, printer: Printer) throws {
    var seen = Set<String>()
    for floor in floors {
      guard let entry = VenueSheets.entry(path: floor.input.path), seen.insert(floor.input.path).inserted else { continue }
      if placing {
        throw TilecutError.invalidOption(
          option: "--bounds",
          reason:
            "\(floor.input.path) is an IMDF venue, placed by its own WGS 84 coordinates; give it without --bounds, --gcp, --center or --world-file"
        )
      }
      let problems = entry.venue.problems
      for problem in problems.prefix(20) { printer.warning("\(floor.input.path)/\(problem)") }
      if problems.count > 20 { printer.warning("\(floor.input.path): \(problems.count - 20) more IMDF problems not shown") }
      let levels = entry.floors.reduce(0) { $0 + $1.levels.count }
      printer.info(
        "\(floor.input.path): IMDF venue, \(levels) level\(levels == 1 ? "" : "s") on \(entry.floors.count) floor\(entry.floors.count == 1 ? "" : "s") (\(ordinals(entry))), \(entry.venue.features.count) features drawn, \(problems.count) problem\(problems.count == 1 ? "" : "s")"
      )
    }
  }

  /// The digest that stands for a venue's floor: its files, the style and the language.
  static func digest(_ path: String) -> String? {
    guard let entry = VenueSheets.entry(path: path) else { return nil }
    let text = "\(entry.venue.digest) \(String(describing: entry.style.paints.sorted { $0.key < $1.key })) \(entry.language ?? "-")"
    return Vips.sha256(of: Array(text.utf8))
  }

  /// The manifest's record of each floor's levels (id, short name, buildings), or nil without a venue.
  static func manifestLevels(_ floors: [FloorSource]) -> [Manifest.VenueLevel]? {
    var out: [Manifest.VenueLevel] = []
    var seen = Set<String>()
    for floor in floors {
      guard let sheet = VenueSheets.floor(path: floor.input.path, ordinal: floor.description.storeFloor) else { continue }
      for level in sheet.levels where seen.insert(level.id).inserted {
        out.append(
          Manifest.VenueLevel(
            floor: floor.floor, id: level.id, shortName: level.shortName, name: level.name,
            buildings: level.buildingIDs.isEmpty ? nil : level.buildingIDs))
      }
    }
    return out.isEmpty ? nil : out
  }
}
