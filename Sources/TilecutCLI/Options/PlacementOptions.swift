import ArgumentParser
import TilecutCore
import TilecutVips

/// Where the image lies on the map.
public struct PlacementOptions: ParsableArguments {
  public init() {}

  /// One placement per floor.
  func resolve(floors: [FloorSource], pyramid: PyramidOptions, printer: Printer) throws -> [Placement] {
    let nativeZoom = pyramid.maxZoom ?? floors.map { PyramidPlanner.rasterMaxZoom(width: $0.description.width, height: $0.description.height) }.max() ?? 0
    return floors.map { _ in Placement.raster(nativeZoom: nativeZoom) }
  }
}
