import Foundation

/// Takes the encoded tiles of a run: a tile store, or a test's sink. How a tile is
/// named (a file path, an MBTiles row) is the writer's business.
public protocol TileWriter: Sendable {
  func put(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) throws
}
