import Foundation

/// Digests of a raster source's decoded pixels (sRGB RGBA8, as the renderer reads
/// them), in square blocks: what lets a rebuild tell a file saved again with the same
/// image from an edited one, and find the part of an edited one that changed.
///
/// Stored per floor in the manifest (`buildings[].floors[].pixels`). Blocks are
/// `block` × `block` source pixels in rows from the top-left (the last column and row
/// of blocks may be narrower); each block's digest is the XXH3-128 of its rows, top to
/// bottom (`hash`; manifests before it hold the first 16 bytes of their SHA-256), and
/// `digests` is them in block order, in base64.
public struct PixelBlocks: Codable, Sendable, Equatable {
  /// The edge of a block in source pixels.
  public var block: Int
  public var width: Int
  public var height: Int
  /// SHA-256 (hex) over the image's size and every block's digest: equal means the
  /// same decoded image.
  public var sha256: String
  /// The blocks' 16-byte digests, row by row, in base64.
  public var digests: String
  /// What made the blocks' digests: `xxh3-128` (`hashName`); absent, the first 16
  /// bytes of their SHA-256 (manifests of tilecut 0.7.0 and before). Digests of two
  /// kinds cannot be compared: the floor is then made again whole.
  public var hash: String?

  /// The kind of block digest tilecut makes.
  public static let hashName = "xxh3-128"

  /// The bytes of one block's digest.
  public static let digestBytes = 16
  /// The block edge tilecut uses: 4096 blocks on a 16384² plan (87 KB in the manifest).
  public static let defaultBlock = 256

  public init(block: Int, width: Int, height: Int, sha256: String, digests: String, hash: String? = PixelBlocks.hashName) {
    self.block = block
    self.width = width
    self.height = height
    self.sha256 = sha256
    self.digests = digests
    self.hash = hash
  }

  /// From each block's digest (`digestBytes` each, in block order).
  public init(block: Int, width: Int, height: Int, raw: [UInt8]) {
    var whole = SHA256Digest()
    whole.update(Array("\(width)x\(height)/\(block)\n".utf8))
    whole.update(raw)
    self.init(block: block, width: width, height: height, sha256: whole.finish(), digests: Data(raw).base64EncodedString())
  }

  public var columns: Int { block > 0 ? (width + block - 1) / block : 0 }
  public var rows: Int { block > 0 ? (height + block - 1) / block : 0 }

  /// The source rectangles of the blocks whose digests differ from `previous`'s,
  /// merged along each row of blocks; empty for the same image, nil when the two
  /// cannot be compared block by block (another size or block edge, digests of another
  /// kind, or a digest list that is not one per block).
  public func changedBlocks(since previous: PixelBlocks) -> [PixelRect]? {
    guard block > 0, hash == previous.hash, block == previous.block, width == previous.width, height == previous.height,
      let mine = Data(base64Encoded: digests), let theirs = Data(base64Encoded: previous.digests),
      mine.count == columns * rows * Self.digestBytes, theirs.count == mine.count
    else { return nil }
    if sha256 == previous.sha256 && mine == theirs { return [] }
    let a = [UInt8](mine)
    let b = [UInt8](theirs)
    var rects: [PixelRect] = []
    for r in 0..<rows {
      var start: Int?
      for c in 0...columns {
        let differs =
          c < columns
          && a[((r * columns + c) * Self.digestBytes)..<((r * columns + c + 1) * Self.digestBytes)]
            != b[((r * columns + c) * Self.digestBytes)..<((r * columns + c + 1) * Self.digestBytes)]
        if differs, start == nil { start = c }
        if !differs, let s = start {
          let x = s * block
          let y = r * block
          rects.append(PixelRect(x: x, y: y, width: min(c * block, width) - x, height: min(y + block, height) - y))
          start = nil
        }
      }
    }
    return rects
  }
}
