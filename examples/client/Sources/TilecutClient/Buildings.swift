import Foundation

extension TileManifest {
  /// One building of a campus (`tilecut build`): an id, a name for a picker, its floors.
  public struct Building: Decodable, Sendable, Equatable {
    public let id: String
    public let name: String?
    public let floors: [BuildingFloor]
  }

  /// One floor of a building: where this building's drawing of it lies, in degrees.
  public struct BuildingFloor: Decodable, Sendable, Equatable {
    public let floor: Int
    public let south, west, north, east: Double
  }

  /// The building with this id, or nil.
  public func building(_ id: String) -> Building? { buildings.first { $0.id == id } }

  /// The floor numbers a building has, ascending (empty for an unknown id).
  public func floors(building id: String) -> [Int] { (building(id)?.floors.map(\.floor) ?? []).sorted() }

  /// The box to fit the camera to for a building: all its floors (or only `floor`), in degrees.
  public func bounds(building id: String, floor: Int? = nil) -> Footprint? {
    let boxes = (building(id)?.floors ?? []).filter { floor == nil || $0.floor == floor }
    guard let first = boxes.first else { return nil }
    return Footprint(
      floor: floor ?? first.floor, south: boxes.map(\.south).min() ?? first.south, west: boxes.map(\.west).min() ?? first.west,
      north: boxes.map(\.north).max() ?? first.north, east: boxes.map(\.east).max() ?? first.east)
  }
}
