import CTilecutDigest
import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

@Suite("pixel block digests fed as rows are read")
struct PixelBlockHasherTests {
  /// A picture of `width` × `height` RGBA8 pixels, every byte from its position.
  static func picture(width: Int, height: Int) -> [UInt8] {
    (0..<(width * height * 4)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
  }

  /// XXH3-128 in one call, in its canonical (big-endian) bytes.
  static func xxh3(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 16)
    _ = bytes.withUnsafeBufferPointer { tc_xxh3($0.baseAddress, $0.count, &digest) }
    return digest
  }

  /// The definition: each block's digest the XXH3-128 of its rows, in one call.
  static func reference(_ pixels: [UInt8], width: Int, height: Int, block: Int) -> PixelBlocks {
    var raw: [UInt8] = []
    for top in stride(from: 0, to: height, by: block) {
      for left in stride(from: 0, to: width, by: block) {
        var bytes: [UInt8] = []
        for y in top..<min(top + block, height) {
          bytes += pixels[((y * width + left) * 4)..<((y * width + min(left + block, width)) * 4)]
        }
        raw += xxh3(bytes)
      }
    }
    return PixelBlocks(block: block, width: width, height: height, raw: raw)
  }

  @Test("XXH3-128 gives xxHash's published values (libxxhash 0.8.1 through ctypes agrees)")
  func knownValues() {
    func hex(_ d: [UInt8]) -> String { d.map { String(format: "%02x", $0) }.joined() }
    #expect(hex(Self.xxh3([])) == "99aa06d3014798d86001c324468d497f")
    #expect(hex(Self.xxh3(Array("tilecut".utf8))) == "f492fd1e51e9343f531dd84c00adefaa")
  }

  @Test("digests of another kind (SHA-256, before XXH3-128) are not compared block by block")
  func otherKind() throws {
    let (width, height, block) = (100, 80, 32)
    let pixels = Self.picture(width: width, height: height)
    let made = try #require(Self.fed(pixels, width: width, height: height, block: block, runs: [80]).result())
    #expect(made.hash == "xxh3-128")
    #expect(made.changedBlocks(since: made) == [])
    var older = made
    older.hash = nil
    #expect(made.changedBlocks(since: older) == nil)
    // a manifest written before the kind was recorded reads as the older kind
    let json = try JSONEncoder().encode(made)
    var object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    #expect(object["hash"] as? String == "xxh3-128")
    object["hash"] = nil
    let decoded = try JSONDecoder().decode(PixelBlocks.self, from: try JSONSerialization.data(withJSONObject: object))
    #expect(decoded.hash == nil)
  }

  /// Feeds rows in runs of the given lengths (cycled), each run from a buffer of its own.
  static func fed(_ pixels: [UInt8], width: Int, height: Int, block: Int, runs: [Int], from start: Int = 0) -> PixelBlockHasher {
    let hasher = PixelBlockHasher(width: width, height: height, block: block)
    var top = start
    var k = 0
    while top < height {
      let n = min(runs[k % runs.count], height - top)
      let rows = Array(pixels[(top * width * 4)..<((top + n) * width * 4)])
      rows.withUnsafeBufferPointer { hasher.add(rows: $0.baseAddress!, top: top, count: n, rowBytes: width * 4) }
      top += n
      k += 1
    }
    return hasher
  }

  @Test("rows in runs of any length make the digests of the definition", arguments: [[1], [7, 64, 3], [300], [256], [255, 1, 90]])
  func runs(_ runs: [Int]) throws {
    let (width, height, block) = (300, 270, 64)
    let pixels = Self.picture(width: width, height: height)
    let hasher = Self.fed(pixels, width: width, height: height, block: block, runs: runs)
    #expect(hasher.isComplete)
    let made = try #require(hasher.result())
    #expect(made == Self.reference(pixels, width: width, height: height, block: block))
    #expect(made.columns == 5 && made.rows == 5)
  }

  @Test("a reader that skips rows leaves the digests unfinished; rows read again are ignored")
  func gapsAndRepeats() throws {
    let (width, height, block) = (130, 100, 32)
    let pixels = Self.picture(width: width, height: height)
    let skipped = Self.fed(pixels, width: width, height: height, block: block, runs: [10], from: 10)
    #expect(!skipped.isComplete)
    #expect(skipped.result() == nil)
    let hasher = Self.fed(pixels, width: width, height: height, block: block, runs: [40])
    // a second reader of the same source, from the top: nothing changes
    let again = Array(pixels[0..<(50 * width * 4)])
    again.withUnsafeBufferPointer { hasher.add(rows: $0.baseAddress!, top: 0, count: 50, rowBytes: width * 4) }
    #expect(try #require(hasher.result()) == Self.reference(pixels, width: width, height: height, block: block))
    let partial = Self.fed(pixels, width: width, height: 60, block: block, runs: [20])
    #expect(partial.isComplete)
    let unfinished = PixelBlockHasher(width: width, height: height, block: block)
    Array(pixels[0..<(20 * width * 4)]).withUnsafeBufferPointer {
      unfinished.add(rows: $0.baseAddress!, top: 0, count: 20, rowBytes: width * 4)
    }
    #expect(unfinished.result() == nil)
  }
}
