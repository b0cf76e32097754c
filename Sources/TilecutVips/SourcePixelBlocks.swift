import CVips
import Foundation
import TilecutCore

/// The digests of a raster source's decoded pixels in blocks (`PixelBlocks`), read
/// top to bottom the way the renderer reads them (sRGB RGBA8, cropped to its band):
/// a band of blocks is hashed on the other cores while the next is decoded.
public enum SourcePixelBlocks {
  /// The source's block digests; nil for a source whose pixels are rendered (PDF, SVG)
  /// or a tile store read as a source, which a rebuild compares floor by floor.
  public static func digests(of source: SourceDescription, format: SourceFormat?, block: Int = PixelBlocks.defaultBlock) throws
    -> PixelBlocks?
  {
    guard !source.isVector, source.storeFloor == nil, block > 0 else { return nil }
    try Vips.start()
    let image = try SourceImage.pixels(of: source, format: format, sequential: true, scale: 1)
    guard let region = vips_region_new(image.pointer) else { throw VipsError.current("region \(source.path)") }
    defer { g_object_unref(region) }
    let width = image.width
    let height = image.height
    let columns = (width + block - 1) / block
    let rows = (height + block - 1) / block
    let stride = width * 4
    let bytes = PixelBlocks.digestBytes
    // two band buffers: one decoded into while the other is hashed
    let buffers = [BandBuffer(count: stride * block), BandBuffer(count: stride * block)]
    let raw = BandBuffer(count: columns * rows * bytes)
    let hashing = DispatchGroup()
    let queue = DispatchQueue(label: "tilecut.pixel-blocks")
    for r in 0..<rows {
      let buffer = buffers[r % 2]
      let top = r * block
      let count = min(block, height - top)
      // decoded while the band above is hashed (from the other buffer)
      try fetchRows(region, width: width, top: top, count: count, into: buffer.base, source: source.path)
      // one band hashed at a time: the next decode goes into the buffer it read
      hashing.wait()
      queue.async(group: hashing) {
        DispatchQueue.concurrentPerform(iterations: columns) { c in
          let x = c * block
          let w = min(block, width - x)
          var digest = SHA256Digest()
          for y in 0..<count {
            digest.update(UnsafeRawBufferPointer(start: buffer.base + y * stride + x * 4, count: w * 4))
          }
          let hex = Array(digest.finish().utf8)
          let out = raw.base + (r * columns + c) * bytes
          for i in 0..<bytes { out[i] = hexByte(hex[2 * i], hex[2 * i + 1]) }
        }
      }
    }
    hashing.wait()
    return PixelBlocks(block: block, width: width, height: height, raw: Array(UnsafeBufferPointer(start: raw.base, count: columns * rows * bytes)))
  }

  private static func hexByte(_ high: UInt8, _ low: UInt8) -> UInt8 {
    func value(_ c: UInt8) -> UInt8 { c >= 97 ? c - 87 : c - 48 }
    return value(high) << 4 | value(low)
  }

  /// Bytes that one thread fills and others then read, handed between them by a group's wait.
  private final class BandBuffer: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>

    init(count: Int) {
      base = .allocate(capacity: max(count, 1))
      base.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { base.deallocate() }
  }
}
