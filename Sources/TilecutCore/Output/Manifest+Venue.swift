extension Manifest {
  /// One IMDF level tiled on a floor: a venue's floor is a level ordinal, holding one
  /// level per building that has that ordinal.
  public struct VenueLevel: Codable, Sendable, Equatable {
    /// The floor (the level's ordinal) whose tiles draw it.
    public var floor: Floor
    /// The level feature's id in the venue's `level.geojson`.
    public var id: String
    /// Its `short_name` in the language drawn (`--language`, with IMDF's fallback).
    public var shortName: String?
    /// Its `name` in the language drawn.
    public var name: String?
    /// Its `building_ids`.
    public var buildings: [String]?

    public init(floor: Floor, id: String, shortName: String?, name: String?, buildings: [String]?) {
      (self.floor, self.id, self.shortName, self.name, self.buildings) = (floor, id, shortName, name, buildings)
    }
  }
}
