import Foundation

/// Gives the pixels of one direct level, strip by strip, top to bottom.
public protocol LevelPixelSource: AnyObject {
  /// Fills `count` rows starting `top` rows below the region's top edge, each the
  /// region's full width of packed RGBA8 (row stride = 4 × region width).
  func read(top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws
}
