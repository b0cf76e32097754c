import ArgumentParser
import Foundation
import TilecutCore
import TilecutVips

/// The units of a world file.
public enum WorldFileUnits: String, ExpressibleByArgument, CaseIterable, Sendable {
  case epsg3857 = "3857"
  case epsg4326 = "4326"
}

/// Where the image lies on the map.
public struct PlacementOptions: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("North-up image between these lines, in degrees (the corners of a GMSCoordinateBounds).", valueName: "south,west,north,east"))
  public var bounds: String?

  @Option(help: ArgumentHelp("With --bounds: the image is linear in Web-Mercator (mercator, like a ground overlay) or in lon/lat (lonlat, plate carrée).", valueName: "projection"))
  public var sourceProjection: SourceProjection = .webMercator

  @Option(
    parsing: .unconditionalSingleValue,
    help: ArgumentHelp("A control point: source pixel X,Y (column,row; 0,0 is the top-left corner) at LAT,LON. Give 2 or more.", valueName: "x,y,lat,lon"))
  public var gcp: [String] = []

  @Option(parsing: .unconditional, help: ArgumentHelp("The image centre's position, in degrees.", valueName: "lat,lon"))
  public var center: String?

  @Option(help: ArgumentHelp("With --center: ground metres per source pixel.", valueName: "m"))
  public var metersPerPixel: Double?

  @Option(parsing: .unconditional, help: ArgumentHelp("With --center: clockwise turn of the image in degrees (its up then points to this bearing).", valueName: "deg"))
  public var rotation: Double?

  @Option(help: ArgumentHelp("A world file to use (default: one found beside each input, e.g. plan.pgw).", valueName: "path"))
  public var worldFile: String?

  @Option(help: ArgumentHelp("Units of world files: 3857 (Web-Mercator metres) or 4326 (degrees).", valueName: "crs"))
  public var worldFileCrs: WorldFileUnits = .epsg3857

  public init() {}

  public func validate() throws {
    let given = [bounds != nil, !gcp.isEmpty, center != nil, worldFile != nil].filter { $0 }.count
    if given > 1 {
      throw ValidationError("--bounds, --gcp, --center and --world-file each place the image; give only one of them")
    }
    if center == nil && (metersPerPixel != nil || rotation != nil) {
      throw ValidationError("--meters-per-pixel and --rotation go with --center")
    }
    if center != nil && metersPerPixel == nil {
      throw ValidationError("--center needs --meters-per-pixel (ground metres per source pixel)")
    }
    if let r = rotation, !(r.isFinite && abs(r) <= 360) { throw ValidationError("--rotation: \(r) is not an angle in -360...360") }
    if let m = metersPerPixel, !(m.isFinite && m >= 1e-6 && m <= 1e6) {
      throw ValidationError("--meters-per-pixel: \(m) is outside 0.000001...1000000")
    }
    if bounds == nil && sourceProjection != .webMercator {
      throw ValidationError("--source-projection goes with --bounds")
    }
  }

  /// One placement per floor: the option's, else the floor's world file, else raster.
  func resolve(floors: [FloorSource], pyramid: PyramidOptions, printer: Printer) throws -> [Placement] {
    let nativeZoom =
      pyramid.maxZoom
      ?? floors.map { PyramidPlanner.rasterMaxZoom(width: $0.description.width, height: $0.description.height) }.max() ?? 0
    // All floors share a placement (one building): the first floor's size anchors it.
    guard let anchor = floors.first?.description else { return [] }
    let shared = try explicitPlacement(width: anchor.width, height: anchor.height, printer: printer)
    return try floors.map { floor in
      if let shared { return shared }
      if let sidecar = WorldFile.findSidecar(for: floor.input.path) {
        return try worldFilePlacement(sidecar)
      }
      return Placement.raster(nativeZoom: nativeZoom)
    }
  }

  private func worldFilePlacement(_ path: String) throws -> Placement {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be read")
    }
    let transform = try WorldFile.parse(text, path: path)
    return try WorldFile.placement(transform: transform, crs: worldFileCrs == .epsg4326 ? .epsg4326 : .epsg3857)
  }

  private func explicitPlacement(width: Int, height: Int, printer: Printer) throws -> Placement? {
    if let bounds {
      let b = try Georeference.parseBounds(bounds)
      return try Georeference.bounds(
        south: b.south, west: b.west, north: b.north, east: b.east, width: width, height: height, projection: sourceProjection)
    }
    if !gcp.isEmpty {
      let points = try gcp.map { try Georeference.parseControlPoint($0) }
      let (placement, report) = try Georeference.fit(points, width: width, height: height)
      let line = String(format: "control points: RMS residual %.2f px (%.3f m), worst %.2f px", report.rmsPixels, report.rmsMeters, report.maxPixels)
      if report.isSuspicious {
        printer.warning(line + (report.worstIndex.map { " at --gcp #\($0 + 1) (\(gcp[$0])); is it mistyped?" } ?? ""))
      } else {
        printer.info(line)
      }
      return placement
    }
    if let center, let metersPerPixel {
      let point = try Georeference.parseLatLon(center, option: "--center")
      return try Georeference.center(point, metersPerPixel: metersPerPixel, rotationDegrees: rotation ?? 0, width: width, height: height)
    }
    if let worldFile {
      guard FileManager.default.fileExists(atPath: worldFile) else {
        throw TilecutError.invalidOption(option: "--world-file", reason: "\(worldFile): no such file")
      }
      return try worldFilePlacement(worldFile)
    }
    return nil
  }
}

extension SourceProjection: ExpressibleByArgument {}
