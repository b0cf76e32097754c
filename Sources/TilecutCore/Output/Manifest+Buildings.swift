import Foundation

extension Manifest {
  /// One building of a campus: its floors, each with where it lies and what drew it.
  public struct Building: Codable, Sendable, Equatable {
    /// `[a-z0-9_-]+`, as the project file gives it.
    public var id: String
    public var name: String?
    public var floors: [BuildingFloor]

    public init(id: String, name: String? = nil, floors: [BuildingFloor]) {
      self.id = id
      self.name = name
      self.floors = floors
    }
  }

  /// One floor of a building: its footprint (this building's alone; the manifest's
  /// `footprints` are the union per floor) and its source's digest.
  public struct BuildingFloor: Codable, Sendable, Equatable {
    public var floor: Floor
    public var south, west, north, east: Double
    public var source: String
    public var page: Int?
    public var sha256: String
    /// Digests of the source's decoded pixels in blocks (raster sources; absent for
    /// PDF and SVG, and in manifests of earlier versions): a rebuild compares them to
    /// find what changed (`PixelBlocks`).
    public var pixels: PixelBlocks?

    public init(footprint: Footprint, source: String, page: Int?, sha256: String, pixels: PixelBlocks? = nil) {
      floor = footprint.floor
      (south, west, north, east) = (footprint.south, footprint.west, footprint.north, footprint.east)
      self.source = source
      self.page = page
      self.sha256 = sha256
      self.pixels = pixels
    }
  }
}

extension WorldRect {
  /// The smallest box holding both.
  public func union(_ other: WorldRect) -> WorldRect {
    WorldRect(minU: min(minU, other.minU), minV: min(minV, other.minV), maxU: max(maxU, other.maxU), maxV: max(maxV, other.maxV))
  }
}
