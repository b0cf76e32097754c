import Foundation
import TilecutCore
import TilecutGeo
import TilecutVips

/// Where the image lies on the map.
public struct PlacementOptions: Sendable, Codable {
  /// `--bounds`: the image's edges, latitude first whatever `lonLatOrder` says.
  public var bounds: GeoBounds?
  /// `--source-projection`
  public var sourceProjection: SourceProjection = .webMercator
  /// `--gcp`: source pixels tied to places, latitude first whatever `lonLatOrder` says.
  public var gcp: [ControlPoint] = []
  /// `--allow-residual`
  public var allowResidual: Double?
  /// `--gcp-order`
  public var gcpOrder: Int?
  /// `--tps`
  public var tps = false
  /// `--center`: the image centre's place.
  public var center: GeoPoint?
  /// `--meters-per-pixel`
  public var metersPerPixel: Double?
  /// `--drawing-scale`
  public var drawingScale: DrawingScale?
  /// `--drawing-units`
  public var drawingUnits: DrawingUnit?
  /// `--rotation`
  public var rotation: Double?
  /// `--world-file`
  public var worldFile: String?
  /// `--source-crs (or --world-file-crs)`
  public var sourceCrs: String?
  /// `--whole-page`
  public var wholePage = false
  /// `--strict`
  public var strict = false
  /// `--lonlat`: the coordinate options were typed longitude first (their values above
  /// are latitude first already); warnings and messages say them in this order.
  public var lonLatOrder = false

  /// The order the coordinate options were typed in (`--lonlat`).
  public var coordinateOrder: CoordinateOrder { lonLatOrder ? .lonLat : .latLon }

  /// `--bands`, `--scale`, `--nodata`, `--layers`
  public var pixels = PixelOptions()

  public init() {}

  public func validate() throws { try problems().throwFirst() }

  /// Every problem of the group, in the order the command line checks them.
  public func problems() -> [OptionProblem] {
    var p = ProblemList()
    let given = [bounds != nil, !gcp.isEmpty, center != nil, worldFile != nil].filter { $0 }.count
    if given > 1 {
      p.add("--bounds, --gcp, --center and --world-file each place the image; give only one of them")
    }
    if center == nil && (metersPerPixel != nil || rotation != nil || drawingScale != nil) {
      p.add("--meters-per-pixel, --drawing-scale and --rotation go with --center")
    }
    if let problem = drawingUnits?.problem { p.add(problem) }
    p.check { try validateDrawingScale() }
    if let r = rotation, !(r.isFinite && abs(r) <= 360) { p.add("--rotation: \(r) is not an angle in -360...360") }
    if let m = metersPerPixel, !(m.isFinite && m >= 1e-6 && m <= 1e6) {
      p.add("--meters-per-pixel: \(m) is outside 0.000001...1000000")
    }
    if bounds == nil && sourceProjection != .webMercator {
      p.add("--source-projection goes with --bounds")
    }
    if sourceCrs != nil && (bounds != nil || !gcp.isEmpty || center != nil) {
      p.add("--source-crs goes with a world file or a GeoTIFF, not with --bounds, --gcp or --center (those are in degrees)")
    }
    if let gcpOrder, !(1...3).contains(gcpOrder) { p.add("--gcp-order is 1, 2 or 3") }
    if gcpOrder != nil && tps { p.add("--gcp-order and --tps each choose the fit; give only one") }
    if let allowResidual, !(allowResidual.isFinite && allowResidual >= 0) {
      p.add("--allow-residual: must be at least 0 (a number of pixels), got \(allowResidual)")
    }
    return p.items
  }

  /// The files the options name for the placement to read: a world file, a CRS given as a file.
  var namedFiles: [String] {
    [worldFile, sourceCrs.flatMap { FileManager.default.fileExists(atPath: $0) ? $0 : nil }].compactMap { $0 }
  }

  /// One placement per floor: the options', else the file's GeoTIFF tags (or a GeoPDF
  /// page's georeferencing, which also cuts the floor to the page's map frame), else its
  /// world file (with a CRS), else raster, with a notice.
  func resolve(floors: [FloorSource], pyramid: PyramidOptions, printer: Printer) throws -> [Placement] {
    var floors = floors
    return try resolve(floors: &floors, pyramid: pyramid, printer: printer)
  }

  /// As `resolve(floors:pyramid:printer:)`, cutting a GeoPDF floor to its map frame in `floors`.
  func resolve(floors: inout [FloorSource], pyramid: PyramidOptions, printer: Printer) throws -> [Placement] {
    let nativeZoom =
      pyramid.maxZoom
      ?? floors.map { PyramidPlanner.rasterMaxZoom(width: $0.description.width, height: $0.description.height) }.max() ?? 0
    // All floors share a placement (one building): the first floor's size anchors it.
    guard let anchor = floors.first?.description else { return [] }
    try VenueSource.check(floors, placing: bounds != nil || !gcp.isEmpty || center != nil || worldFile != nil, printer: printer)
    try checkDrawingScale(floors)
    let shared = try explicitPlacement(
      width: anchor.width, height: anchor.height, imagePath: anchor.path, page: anchor.page, drawing: anchor.drawing, pyramid: pyramid,
      printer: printer)
    var noticed = false
    var placements: [Placement] = []
    for index in floors.indices {
      if let shared {
        // a KML or KMZ is its placement: the options' replaces it, and the user is told
        if try OverlaySource.resolve(path: floors[index].input.path, page: floors[index].input.page) != nil {
          printer.note(
            "\(floors[index].input.path): its GroundOverlay's placement is replaced by the options' (placed by \(shared.method.rawValue)); drop them to place the image as the KML does"
          )
        }
        placements.append(shared)
        continue
      }
      let floor = floors[index]
      let size = (floor.description.width, floor.description.height)
      // an IMDF venue's floor: placed by its own coordinates
      if let venue = VenueSource.placement(floor) {
        placements.append(venue)
        continue
      }
      // a tile store read as a source: its tiles' own cells (never GDAL's reading of it)
      if let tiles = TileStoreSource.placement(path: floor.input.path, floor: floor.description.storeFloor) {
        if let line = TileStoreSource.describe(path: floor.input.path, floor: floor.description.storeFloor) { printer.info(line) }
        placements.append(tiles)
        continue
      }
      if let overlay = try OverlaySource.resolve(path: floor.input.path, page: floor.input.page) {
        placements.append(try kmlPlacement(overlay, floor: floor, pyramid: pyramid))
        continue
      }
      if let found = try geodataPlacement(floor, pyramid: pyramid) {
        placements.append(found)
        continue
      }
      if let found = try geoPDFPlacement(&floors[index], pyramid: pyramid, printer: printer) {
        placements.append(found)
        continue
      }
      if let found = try gdalPlacement(floor, pyramid: pyramid, printer: printer) {
        placements.append(found)
        continue
      }
      if let sidecar = WorldFile.findSidecar(for: floor.input.path) {
        placements.append(
          try worldFilePlacement(sidecar, named: false, imagePath: floor.input.path, width: size.0, height: size.1, pyramid: pyramid))
        continue
      }
      if strict {
        throw TilecutError.invalidOption(
          option: "--strict",
          reason:
            "\(floor.input.path) has no georeference, and --strict refuses an image that nothing placed; give --bounds, --gcp, --center, a world file with a .prj, or a GeoTIFF"
            + (Self.georeferencedPageHint(floor) ?? "")
        )
      }
      if !noticed {
        printer.note(
          "\(floor.input.path) has no georeference: it is placed in pixel space at the map's north-west corner (85.05° N, 180° W), native at zoom \(nativeZoom); to put it on the map give --bounds, --gcp, --center, a world file with a .prj, or a GeoTIFF (--strict refuses such an image)"
            + (Self.georeferencedPageHint(floor) ?? "")
        )
        noticed = true
      }
      placements.append(Placement.raster(nativeZoom: nativeZoom))
    }
    // a photo turned as its EXIF orientation says: the placement line tells
    for (i, floor) in floors.enumerated() where floor.header.orientation != 1 {
      let turned = "EXIF orientation \(floor.header.orientation): tiled as displayed, \(ExifOrientation.describe(floor.header.orientation))"
      if placements[i].method == .raster {
        printer.note("\(floor.input.path) has \(turned); a world file or control points refer to the pixels as displayed")
      } else {
        placements[i].note = (placements[i].note.map { $0 + "; " } ?? "") + turned
      }
    }
    // the line names where the plan lies (the gazetteer, read on first use): not made
    // when --quiet drops it
    for (floor, placement) in zip(floors, placements) where placement.method != .raster && printer.verbosity == .normal {
      printer.info(Self.describe(placement, floor: floor.floor, width: floor.description.width, height: floor.description.height))
    }
    return placements
  }

  /// One line that says how a floor was placed: method, CRS, footprint, ground resolution.
  static func describe(_ placement: Placement, floor: Floor, width: Int, height: Int) -> String {
    let f = Manifest.Footprint(floor: floor, rect: placement.footprint(width: width, height: height).clampedToWorld)
    return String(
      format: "floor %d: placed by %@, CRS %@, footprint S %.6f W %.6f N %.6f E %.6f, %.3g m per source pixel", floor.number,
      methodName(placement.method) + (placement.note.map { " (\($0))" } ?? ""), crsName(placement), f.south, f.west, f.north, f.east,
      placement.groundMetersPerPixel(width: width, height: height))
      + (placement.crsOperation.map { ", datum shift: \($0)" } ?? "") + "; " + (f.location ?? "")
  }

  /// How a placement was given, for people: its method, or a GeoPDF's encoding.
  static func methodName(_ method: PlacementMethod) -> String {
    switch method {
    case .geoPDFLGIDict: return "GeoPDF, " + GeoPDFPage.Encoding.lgidict.label
    case .geoPDFISO32000: return "GeoPDF, " + GeoPDFPage.Encoding.iso32000.label
    default: return method.rawValue
    }
  }

  /// The CRS a placement's numbers were given in, for people.
  static func crsName(_ placement: Placement) -> String {
    if let name = placement.crsName { return name }
    switch placement.method {
    case .raster: return "none (pixel space)"
    case .bounds, .gcp, .center: return "EPSG:4326 WGS 84 (degrees)"
    default: return placement.projection == .lonLat ? "EPSG:4326 WGS 84" : "EPSG:3857 WGS 84 / Pseudo-Mercator"
    }
  }

  /// The CRS given by --source-crs (an EPSG code, a PROJ string, or a file with WKT or a PROJ string).
  func explicitCRS() throws -> CRSDefinition? {
    guard let sourceCrs else { return nil }
    let text = sourceCrs.trimmingCharacters(in: .whitespaces)
    // the old --world-file-crs values
    if text == "3857" || text == "4326" { return try ProjTransformer.describe("EPSG:" + text, option: "--source-crs") }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory), !isDirectory.boolValue {
      if let kind = Self.notRegularFile(text) ?? SidecarPath.systemTree(text) {
        throw TilecutError.invalidOption(option: "--source-crs", reason: "\(text) \(kind)")
      }
      let bytes: [UInt8]
      do {
        bytes = try SmallFile.read(text, maxBytes: Self.maxSidecarBytes)
      } catch .tooLarge(let size) {
        throw TilecutError.invalidOption(
          option: "--source-crs", reason: "\(text) is \(size) bytes, more than \(Self.maxSidecarBytes >> 20) MB; give a file of WKT or a PROJ string")
      } catch {
        throw TilecutError.invalidOption(option: "--source-crs", reason: "\(text) cannot be read as text (WKT or a PROJ string)")
      }
      guard let contents = String(data: Data(bytes), encoding: .utf8), !contents.isEmpty else {
        throw TilecutError.invalidOption(option: "--source-crs", reason: "\(text) cannot be read as text (WKT or a PROJ string)")
      }
      return try ProjTransformer.describe(contents, option: "--source-crs \(text)", files: [text])
    }
    return try ProjTransformer.describe(text, option: "--source-crs")
  }

  /// `named`: the user named the world file (--world-file), else it was found beside the image.
  private func worldFilePlacement(
    _ path: String, named: Bool, imagePath: String, width: Int, height: Int, pyramid: PyramidOptions
  ) throws -> Placement {
    let text = try Self.sidecarText(path, named: named)
    let transform = try WorldFile.parse(text, path: path, quoting: named)
    let crs: CRSDefinition
    if let explicit = try explicitCRS() {
      crs = explicit
    } else if let found = try sidecarCRS(imagePath: imagePath, worldFile: path) {
      crs = found
    } else {
      throw TilecutError.invalidInput(
        path: path,
        reason:
          "a world file says nothing of its CRS: put a .prj beside it (\(Self.prjName(for: imagePath))) or give --source-crs (EPSG:NNNN, a PROJ string or a WKT file)"
      )
    }
    var placement = try Self.fromFile(path) {
      try GeoPlacement.make(
        method: .worldFile, toCRS: transform, crs: crs, width: width, height: height, deepestZoom: pyramid.maxZoom, option: path)
    }
    placement.sidecars = [path] + crs.files
    return placement
  }

  /// The largest world file, `.prj` or `--source-crs` file read (each is a few lines).
  static let maxSidecarBytes = 1 << 20

  /// Why a sidecar path is not a regular file (a FIFO could block, a device never
  /// ends), or nil when it is one or does not exist.
  static func notRegularFile(_ path: String) -> String? {
    var st = stat()
    guard stat(path, &st) == 0 else { return nil }
    switch st.st_mode & S_IFMT {
    case S_IFREG: return nil
    case S_IFDIR: return "is a directory, not a text file"
    case S_IFIFO: return "is a FIFO (named pipe), not a regular file; save it to a file first"
    case S_IFCHR, S_IFBLK: return "is a device, not a regular file"
    default: return "is not a regular file"
    }
  }

  /// A world file or `.prj` as UTF-8 text, refused with what it is when it is not a
  /// regular file, and before it is opened when it leads into /proc, /sys or /dev or,
  /// found beside an input (not `named` by the user), out of the input's folder.
  static func sidecarText(_ path: String, named: Bool = false) throws -> String {
    // the size is checked on the opened file before it is read: no whole read of a huge one
    if let kind = notRegularFile(path) ?? (named ? SidecarPath.systemTree(path) : SidecarPath.escape(path)) {
      throw TilecutError.invalidInput(path: path, reason: kind)
    }
    let bytes: [UInt8]
    do {
      bytes = try SmallFile.read(path, maxBytes: maxSidecarBytes)
    } catch .tooLarge(let size) {
      throw TilecutError.invalidInput(
        path: path, reason: "is \(size) bytes, more than \(maxSidecarBytes >> 20) MB; a world file or .prj is a few lines of text")
    } catch {
      throw TilecutError.invalidInput(path: path, reason: "cannot be read as UTF-8 text")
    }
    guard let text = String(data: Data(bytes), encoding: .utf8) else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be read as UTF-8 text")
    }
    return text
  }

  /// The CRS in a `.prj` beside the image or its world file, or in GDAL's `.aux.xml`.
  func sidecarCRS(imagePath: String, worldFile: String?) throws -> CRSDefinition? {
    if let prj = WorldFile.findProjection(for: [imagePath] + (worldFile.map { [$0] } ?? [])) {
      let wkt = try Self.sidecarText(prj)
      return try Self.fromFile(prj) { try ProjTransformer.describe(wkt, option: prj, files: [prj]) }
    }
    // GDAL keeps the CRS of a PNG or JPEG it wrote with a world file here
    if let aux = WorldFile.findAuxiliary(for: imagePath), let xml = try? Self.sidecarText(aux), let wkt = WorldFile.auxiliarySRS(xml) {
      return try Self.fromFile(aux) { try ProjTransformer.describe(wkt, option: aux, files: [aux]) }
    }
    return nil
  }

  /// Problems found in a file (its georeference, its CRS) are input errors (exit 1),
  /// even where the library names them as an option.
  static func fromFile<T>(_ path: String, _ body: () throws -> T) throws -> T {
    do { return try body() } catch TilecutError.invalidOption(let option, let reason) where option == path {
      throw TilecutError.invalidInput(path: path, reason: reason)
    }
  }

  static func prjName(for imagePath: String) -> String {
    let name = imagePath.split(separator: "/").last.map(String.init) ?? imagePath
    let base = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
    return base + ".prj"
  }

  /// A placement warning: printed, or with --strict an error.
  func warn(_ text: String, printer: Printer) throws {
    if strict { throw TilecutError.invalidOption(option: "--strict", reason: text) }
    printer.warning(text)
  }

  /// `drawing`: a CAD drawing's frame, in which --gcp and --center's scale are in drawing units.
  private func explicitPlacement(
    width: Int, height: Int, imagePath: String, page: Int?, drawing: DrawingFrame?, pyramid: PyramidOptions, printer: Printer
  ) throws -> Placement? {
    if let b = bounds {
      try b.check()
      if let warning = Georeference.aspectWarning(
        south: b.south, west: b.west, north: b.north, east: b.east, width: width, height: height, projection: sourceProjection)
      {
        try warn(warning, printer: printer)
      }
      return try Georeference.bounds(
        south: b.south, west: b.west, north: b.north, east: b.east, width: width, height: height, projection: sourceProjection)
    }
    if !gcp.isEmpty {
      for point in gcp { try point.check() }
      var points = gcp
      // a drawing's control points are in drawing coordinates (x right, y up)
      if let drawing {
        points = points.map { p in
          let pixel = drawing.pixel(x: p.col, y: p.row)
          return ControlPoint(col: pixel.column, row: pixel.row, point: p.point)
        }
      }
      if points.count == 2 {
        let lat = (points[0].point.latitude + points[1].point.latitude) / 2
        let lon = (points[0].point.longitude + points[1].point.longitude) / 2
        if let warning = SwapCheck.warning(latitude: lat, longitude: lon, option: "--gcp", order: coordinateOrder) {
          try warn(warning, printer: printer)
        }
      }
      let (placement, report) = try Georeference.fit(points, width: width, height: height)
      let worst = report.worstIndex.map { " at --gcp #\($0 + 1) (\(gcp[$0].spelled(order: coordinateOrder)))" } ?? ""
      let line = String(format: "control points: RMS residual %.2f px (%.3f m), worst %.2f px", report.rmsPixels, report.rmsMeters, report.maxPixels)
      let limit = allowResidual ?? report.defaultLimitPixels
      if report.rmsPixels > limit {
        throw TilecutError.invalidOption(
          option: "--gcp",
          reason: String(
            format: "the control points fit with an RMS residual of %.2f px, above %.2f px; worst %.2f px", report.rmsPixels, limit, report.maxPixels)
            + worst + "; check that point, or accept the fit with --allow-residual PX")
      }
      printer.info(line + (report.isSuspicious ? worst : ""))
      return placement
    }
    if let center {
      // the options' scale, else a drawing's units, else the one a PDF page states in its viewport (/Measure /RL)
      let scale: (Double, String?)
      if let given = metersPerPixel ?? drawingScaleMetersPerPixel() {
        scale = (given, nil)
      } else if drawing != nil, let units = try drawingMetersPerPixel(drawing, path: imagePath) {
        scale = (units, nil)
      } else {
        scale = try viewportScale(imagePath: imagePath, page: page)
      }
      let (metersPerPixel, note) = scale
      let point = center
      try point.check(option: "--center")
      if let warning = SwapCheck.warning(latitude: point.latitude, longitude: point.longitude, option: "--center", order: coordinateOrder) {
        try warn(warning, printer: printer)
      }
      var placement = try Georeference.center(
        point, metersPerPixel: metersPerPixel, rotationDegrees: rotation ?? 0, width: width, height: height)
      placement.note = note
      return placement
    }
    if let worldFile {
      guard FileManager.default.fileExists(atPath: worldFile) else {
        throw TilecutError.invalidOption(option: "--world-file", reason: "\(worldFile): no such file")
      }
      return try worldFilePlacement(worldFile, named: true, imagePath: imagePath, width: width, height: height, pyramid: pyramid)
    }
    return nil
  }
}

extension SourceProjection {
  /// `--source-projection`'s values: `projected` is what a CRS makes, not a choice for --bounds.
  public init?(optionValue: String) {
    guard optionValue != SourceProjection.projected.rawValue else { return nil }
    self.init(rawValue: optionValue)
  }

  /// The values `--source-projection` takes.
  public static var optionValues: [String] { [SourceProjection.webMercator.rawValue, SourceProjection.lonLat.rawValue] }
}
