import Foundation

/// Gives the pixels of one direct level, strip by strip, top to bottom.
public protocol LevelPixelSource: AnyObject {
  /// Fills `count` rows starting `top` rows below the region's top edge, each the
  /// region's full width of packed RGBA8 (row stride = 4 × region width).
  func read(top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws
  /// The same rows where only the region's `columns` (from its left edge) are read
  /// by anyone: the other columns may be left transparent.
  func read(top: Int, count: Int, columns: Range<Int>, into buffer: UnsafeMutablePointer<UInt8>) throws
}

extension LevelPixelSource {
  /// A source that cannot make part of a row makes all of it.
  public func read(top: Int, count: Int, columns: Range<Int>, into buffer: UnsafeMutablePointer<UInt8>) throws {
    try read(top: top, count: count, into: buffer)
  }
}
