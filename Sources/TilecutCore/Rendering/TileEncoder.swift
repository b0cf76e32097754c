import Foundation

/// Turns one square RGBA8 tile into file bytes.
public protocol TileEncoder: Sendable {
  var fileExtension: String { get }
  /// `upsampled`: the tile is finer than the source (512 px tiles at the deepest
  /// zoom) and holds no detail of its own, so an encoder may spend less effort on it.
  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8]
}

extension TileEncoder {
  public func encode(rgba: [UInt8], size: Int) throws -> [UInt8] {
    try encode(rgba: rgba, size: size, upsampled: false)
  }
}
