import CTilecutPNGRead
import CVips
import Foundation
import TilecutCore

/// The digests of a raster source's decoded pixels in blocks (`PixelBlocks`), read
/// top to bottom the way the renderer reads them (sRGB RGBA8, cropped to its band)
/// and hashed by a `PixelBlockHasher`, as the renderer's reader hashes them when it
/// reads the source itself.
public enum SourcePixelBlocks {
  /// Whether a source's pixels are compared in blocks: a raster's; a PDF or SVG is
  /// rendered, and a tile store read as a source is compared floor by floor.
  public static func digestible(_ source: SourceDescription) -> Bool { !source.isVector && source.storeFloor == nil }

  /// The source's block digests, from a decode of its own (runs of rows hashed on the
  /// other cores while the next run is decoded); nil for a source that is not
  /// `digestible`.
  public static func digests(of source: SourceDescription, format: SourceFormat?, block: Int = PixelBlocks.defaultBlock) throws
    -> PixelBlocks?
  {
    guard digestible(source), block > 0 else { return nil }
    try Vips.start()
    let image = try SourceImage.pixels(of: source, format: format, sequential: true, scale: 1)
    let width = image.width
    let height = image.height
    let hasher = PixelBlockHasher(width: width, height: height, block: block)
    if try scanned(image, into: hasher, source: source.path) { return hasher.result() }
    guard let region = vips_region_new(image.pointer) else { throw VipsError.current("region \(source.path)") }
    defer { g_object_unref(region) }
    let rows = 64
    // two buffers: one decoded into while the other is hashed
    let buffers = [RowBuffer(count: width * 4 * rows), RowBuffer(count: width * 4 * rows)]
    let hashing = DispatchGroup()
    let queue = DispatchQueue(label: "tilecut.pixel-blocks")
    defer { hashing.wait() }
    var top = 0
    var k = 0
    while top < height {
      let count = min(rows, height - top)
      let buffer = buffers[k % 2]
      // the buffer was hashed two runs ago: the run before this one is hashed meanwhile
      try fetchRows(region, width: width, top: top, count: count, into: buffer.base, source: source.path)
      hashing.wait()
      queue.async(group: hashing) { [top] in hasher.add(rows: buffer.base, top: top, count: count, rowBytes: width * 4) }
      top += count
      k += 1
    }
    hashing.wait()
    return hasher.result()
  }

  /// A hasher for a source's decoded pixels (its size read from the header), for the
  /// renderer to feed as it reads them; nil for a source that is not `digestible`.
  public static func hasher(for source: SourceDescription, format: SourceFormat?, block: Int = PixelBlocks.defaultBlock) throws
    -> PixelBlockHasher?
  {
    guard digestible(source), block > 0 else { return nil }
    try Vips.start()
    let image = try SourceImage.pixels(of: source, format: format, sequential: true, scale: 1)
    return PixelBlockHasher(width: image.width, height: image.height, block: block)
  }

  /// Hands the rows of `image` to `hasher` as tilecut's PNG reader unfilters them, each
  /// run hashed while the next is decoded, without libvips' regions between (for an
  /// RGBA8 file, without a copy of a row); false when `image` is not that reader's
  /// own image (another format, or pixels converted or cropped on the way).
  private static func scanned(_ image: VipsImageHandle, into hasher: PixelBlockHasher, source: String) throws -> Bool {
    let feed = ScanFeed(hasher: hasher)
    let status = withExtendedLifetime(feed) {
      tc_png_scan(
        image.pointer,
        { context, rows, top, count, stride in
          guard let context, let rows else { return 1 }
          Unmanaged<ScanFeed>.fromOpaque(context).takeUnretainedValue().take(rows, top: Int(top), count: Int(count), stride: stride)
          return 0
        }, Unmanaged.passUnretained(feed).toOpaque())
    }
    feed.finish()
    if status < 0 { throw InputCheck.readFailure(path: source, VipsError.current("read")) }
    return status == 1
  }

  /// The runs `tc_png_scan` hands over, hashed one behind: a run's rows stay readable
  /// until the reader's next hand-over returns, so that one waits for the run before.
  private final class ScanFeed: @unchecked Sendable {
    let hasher: PixelBlockHasher
    let hashing = DispatchGroup()
    let queue = DispatchQueue(label: "tilecut.pixel-blocks.scan")

    init(hasher: PixelBlockHasher) { self.hasher = hasher }

    func take(_ rows: UnsafePointer<UInt8>, top: Int, count: Int, stride: Int) {
      hashing.wait()
      let address = UInt(bitPattern: rows)
      queue.async(group: hashing) { [hasher] in
        guard let rows = UnsafePointer<UInt8>(bitPattern: address) else { return }
        hasher.add(rows: rows, top: top, count: count, rowBytes: stride)
      }
    }

    func finish() { hashing.wait() }
  }

  /// Rows that one thread fills and another then hashes, handed between them by a group's wait.
  private final class RowBuffer: @unchecked Sendable {
    let base: UnsafeMutablePointer<UInt8>

    init(count: Int) {
      base = .allocate(capacity: max(count, 1))
      base.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { base.deallocate() }
  }
}
