import Testing

@testable import TilecutCore

@Suite("reduce2x fast paths")
struct ReduceTests {
  /// The definition: each output pixel the alpha-weighted mean of its 2×2 block, rounded,
  /// alpha the rounded mean of the four alphas; pixels past an odd edge count as transparent.
  static func reference(_ src: [UInt8], stride: Int, width: Int, height: Int) -> [UInt8] {
    let outW = (width + 1) / 2
    let outH = (height + 1) / 2
    var out = [UInt8](repeating: 0, count: outW * outH * 4)
    for oy in 0..<outH {
      for ox in 0..<outW {
        var pixels: [(Int, [Int])] = []
        for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] where 2 * ox + dx < width && 2 * oy + dy < height {
          let i = (2 * oy + dy) * stride + (2 * ox + dx) * 4
          pixels.append((Int(src[i + 3]), [Int(src[i]), Int(src[i + 1]), Int(src[i + 2])]))
        }
        let asum = pixels.reduce(0) { $0 + $1.0 }
        let o = (oy * outW + ox) * 4
        guard asum > 0 else { continue }
        for c in 0..<3 {
          let s = pixels.reduce(0) { $0 + $1.0 * $1.1[c] }
          out[o + c] = UInt8(min((s + asum / 2) / asum, 255))
        }
        out[o + 3] = UInt8((asum + 2) / 4)
      }
    }
    return out
  }

  @Test(
    "the same pixels as the definition: opaque, transparent and mixed blocks, odd sizes, padded rows",
    arguments: [(2, 2), (1, 1), (3, 5), (64, 31), (257, 130), (300, 4)])
  func matchesDefinition(width: Int, height: Int) {
    let stride = width * 4 + 12
    var state: UInt32 = UInt32(width * 7919 + height)
    func random() -> UInt32 {
      state = state &* 1_664_525 &+ 1_013_904_223
      return state >> 8
    }
    // regions of opaque noise, of transparency, of flat colour and of random alpha
    var src = [UInt8](repeating: 0, count: stride * height)
    for y in 0..<height {
      for x in 0..<width {
        let i = y * stride + x * 4
        let kind = ((x / 5) + (y / 3)) % 4
        for c in 0..<3 { src[i + c] = UInt8(truncatingIfNeeded: random()) }
        src[i + 3] = [255, 0, UInt8(truncatingIfNeeded: random()), random() % 3 == 0 ? 0 : 255][kind]
      }
    }
    var dst = [UInt8](repeating: 7, count: ((width + 1) / 2) * ((height + 1) / 2) * 4)
    src.withUnsafeBufferPointer { s in
      dst.withUnsafeMutableBufferPointer { d in
        PixelOps.reduce2x(s.baseAddress!, srcStride: stride, width: width, height: height, into: d.baseAddress!, dstStride: ((width + 1) / 2) * 4)
      }
    }
    #expect(dst == Self.reference(src, stride: stride, width: width, height: height))
  }
}

@Suite("isBlank scans four pixels a step")
struct BlankScanTests {
  @Test("one visible pixel anywhere in the block is seen; pixels past its width are not", arguments: [1, 3, 4, 5, 37, 256])
  func onePixel(width: Int) {
    let height = 3
    let stride = width * 4 + 20
    // colour everywhere, alpha 0 inside the block, visible pixels in the padding
    var block = [UInt8](repeating: 200, count: stride * height)
    for y in 0..<height { for x in 0..<width { block[y * stride + x * 4 + 3] = 0 } }
    let blank = block.withUnsafeBufferPointer { PixelOps.isBlank($0.baseAddress!, stride: stride, width: width, height: height, background: nil) }
    #expect(blank)
    for y in 0..<height {
      for x in [0, width / 2, width - 1] {
        var marked = block
        marked[y * stride + x * 4 + 3] = 1
        let seen = marked.withUnsafeBufferPointer {
          !PixelOps.isBlank($0.baseAddress!, stride: stride, width: width, height: height, background: nil)
        }
        #expect(seen, "pixel \(x), \(y)")
      }
    }
  }
}
