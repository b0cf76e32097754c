import Foundation

/// Turns one square RGBA8 tile into file bytes.
public protocol TileEncoder: Sendable {
  var fileExtension: String { get }
  /// `upsampled`: the tile is finer than the source (512 px tiles at the deepest
  /// zoom) and holds no detail of its own, so an encoder may spend less effort on it.
  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8]
  /// The same for a tile read in place: `size` rows of `size` pixels, `stride` bytes
  /// apart (a tile of a strip, not copied out of it).
  func encode(pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8]
  /// `encode(rgba:size:upsampled:)` for the tile `tile` of `key`'s floor and size:
  /// what the renderers call, so an encoder may decide by the tile (a dry run's sample).
  func encode(rgba: [UInt8], key: LevelKey, tile: TileCoordinate, upsampled: Bool) throws -> [UInt8]
  /// `encode(pixels:stride:size:upsampled:)` for the tile `tile` of `key`'s floor and size.
  func encode(pixels: UnsafePointer<UInt8>, stride: Int, key: LevelKey, tile: TileCoordinate, upsampled: Bool) throws -> [UInt8]
}

extension TileEncoder {
  /// Copies the tile out and encodes the copy: for encoders that need packed rows.
  public func encode(pixels: UnsafePointer<UInt8>, stride: Int, size: Int, upsampled: Bool) throws -> [UInt8] {
    let rgba = [UInt8](unsafeUninitializedCapacity: size * size * 4) { out, count in
      if let o = out.baseAddress {
        for row in 0..<size { (o + row * size * 4).initialize(from: pixels + row * stride, count: size * 4) }
      }
      count = size * size * 4
    }
    return try encode(rgba: rgba, size: size, upsampled: upsampled)
  }

  public func encode(rgba: [UInt8], key: LevelKey, tile: TileCoordinate, upsampled: Bool) throws -> [UInt8] {
    try encode(rgba: rgba, size: key.tileSize, upsampled: upsampled)
  }

  public func encode(
    pixels: UnsafePointer<UInt8>, stride: Int, key: LevelKey, tile: TileCoordinate, upsampled: Bool
  ) throws -> [UInt8] {
    try encode(pixels: pixels, stride: stride, size: key.tileSize, upsampled: upsampled)
  }

  public func encode(rgba: [UInt8], size: Int) throws -> [UInt8] {
    try encode(rgba: rgba, size: size, upsampled: false)
  }
}
