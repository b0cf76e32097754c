import Foundation
import TilecutCore

/// The directory store: tiles as files under the output directory, named by the run's
/// template. Staging, ownership and the swap are the output's (`StagedOutput`): the
/// tiles are written into its staging directory, which the commit swaps in whole.
public final class DirectoryTileStore: TileStore, @unchecked Sendable {
  /// The output directory: its inspection, staging and swap.
  public let output: StagedOutput
  let template: TileNameTemplate?

  /// `template`: the names this run will write (nil for a store that only reads or merges
  /// with the manifest's own template).
  /// `digests`: where each tile's SHA-256 is kept as it is put (nil: not kept).
  public init(path: String, template: TileNameTemplate?, option: String = "--output", digests: TileDigests? = nil) {
    output = StagedOutput(path: path, option: option)
    self.template = template
    self.digests = digests
  }

  /// Each tile's SHA-256 as it was put, for the content version.
  let digests: TileDigests?

  public var path: String { output.path }
  public var existingManifest: Manifest? { output.existingManifest }
  public var stagingPath: String? { output.stagingPath }
  public var keepsTiles: Bool { output.keepsTiles }

  public func inspect() throws { try output.inspect() }
  public func markUpToDate() throws { try output.markUpToDate() }
  public func begin() throws { try output.begin() }
  public func keepTiles() -> Bool { output.keepTiles() }
  public func commit() throws { try output.commit() }
  public func abort() { output.abort() }

  public func stagedDigest(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    if let hex = digests?.hex(floor: floor, tileSize: tileSize, tile: tile) { return hex }
    guard let template else { return nil }
    return output.previousDigest(floor: floor, tileSize: tileSize, tile: tile, at: template.path(floor: floor, tileSize: tileSize, tile: tile))
  }

  public func difference(from manifest: Manifest) -> String? {
    guard let found = output.inspectedFiles else { return "not inspected" }
    for level in manifest.levels {
      let key = LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)
      let have = found.tally[key] ?? (0, 0)
      if have.count != level.tileCount {
        return "floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) has \(have.count) tile files; the manifest lists \(level.tileCount)"
      }
      if let bytes = level.bytes, bytes != have.bytes {
        return "floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) holds \(have.bytes) bytes of tiles; the manifest says \(bytes)"
      }
    }
    for file in manifest.storeFiles ?? [] where !found.storeFiles.contains(file) {
      return "\(file) is missing"
    }
    return nil
  }

  /// Writes a file at `relativePath` in staging.
  public func write(_ bytes: [UInt8], to relativePath: String) throws { try output.write(bytes, to: relativePath) }

  public func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws {
    guard let template else { throw TilecutError.output(path: path, reason: "this store was opened without a name template") }
    try write(bytes, to: template.path(floor: floor, tileSize: tileSize, tile: tile))
    digests?.record(bytes, floor: floor, tileSize: tileSize, tile: tile)
  }

  public func stagedTile(floor: Floor, tileSize: Int, tile: TileCoordinate) throws -> [UInt8] {
    guard let template, let staging = stagingPath else { throw TilecutError.output(path: path, reason: "the store was not begun") }
    let file = (keepsTiles ? path : staging) + "/" + template.path(floor: floor, tileSize: tileSize, tile: tile)
    guard let data = FileManager.default.contents(atPath: file) else {
      throw TilecutError.output(path: file, reason: "cannot be read back")
    }
    return [UInt8](data)
  }

  @discardableResult
  public func finish(manifest: Manifest, files: [String: [UInt8]]) throws -> Manifest {
    try output.finish(manifest: manifest, files: files)
  }
}
