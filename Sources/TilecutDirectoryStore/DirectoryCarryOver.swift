import Foundation
import TilecutCore

extension DirectoryDriver {
  /// Tile files are lent whatever the manifest's tile sets.
  public func lendsTiles(_ previous: Manifest) -> Bool { true }

  /// Each tile file is checked as it is carried.
  public func carryOverDifference(_ store: any TileStore, previous: Manifest) -> String? { nil }

  /// Each tile file hard-linked into staging where the file system allows, else copied;
  /// with `inPlace` each is counted where it is, not linked.
  public func tileCarrier(_ previous: Manifest, into store: any TileStore, staging: String, template: TileNameTemplate, inPlace: Bool) throws
    -> any TileCarrier
  {
    DirectoryTileCarrier(store: store, staging: staging, template: template, inPlace: inPlace)
  }
}

/// Carries a tile file of the previous output into staging.
final class DirectoryTileCarrier: TileCarrier {
  let store: any TileStore
  let staging: String
  let template: TileNameTemplate
  let inPlace: Bool

  init(store: any TileStore, staging: String, template: TileNameTemplate, inPlace: Bool) {
    self.store = store
    self.staging = staging
    self.template = template
    self.inPlace = inPlace
  }

  func carry(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> Int {
    let relative = template.path(floor: floor, tileSize: tileSize, tile: tile)
    let source = store.path + "/" + relative
    let target = staging + "/" + relative
    var st = stat()
    if inPlace {
      guard stat(source, &st) == 0 else {
        throw TilecutError.output(path: source, reason: "is listed in the manifest but gone; run again with --force")
      }
      return Int(st.st_size)
    }
    let folder = (target as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    guard stat(source, &st) == 0 else {
      throw TilecutError.output(path: source, reason: "is listed in the manifest but gone; run again with --force")
    }
    if link(source, target) != 0 {
      guard let data = FileManager.default.contents(atPath: source) else {
        throw TilecutError.output(path: source, reason: "cannot be read to carry it over; run again with --force")
      }
      try store.put([UInt8](data), floor: floor, tileSize: tileSize, tile: tile)
    }
    return Int(st.st_size)
  }
}
