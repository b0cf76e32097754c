import Foundation

/// A colour with a tolerance, as given to `--background` and `--knockout`.
public struct ColorRule: Hashable, Sendable, Codable, CustomStringConvertible {
  public var red: UInt8
  public var green: UInt8
  public var blue: UInt8
  /// The largest per-channel difference that still counts as this colour.
  public var tolerance: Int
  /// The option's text it was read from (`white:8`), which messages repeat; not part of
  /// the value (nor of its equality or its coding).
  public var spelling: String?

  public init(red: UInt8, green: UInt8, blue: UInt8, tolerance: Int = 0) {
    self.red = red
    self.green = green
    self.blue = blue
    self.tolerance = tolerance
  }

  static let named: [String: (UInt8, UInt8, UInt8)] = [
    "white": (255, 255, 255), "black": (0, 0, 0), "paper": (248, 248, 248),
  ]

  /// Parses `white`, `#f8f8f8`, `#fff`, `248,248,248`, each optionally followed by `:TOLERANCE`.
  public init(parsing text: String, option: String) throws {
    let pieces = text.split(separator: ":", maxSplits: 1).map(String.init)
    let colour = pieces.first?.lowercased() ?? ""
    var tol = 0
    if pieces.count == 2 {
      guard let t = Int(pieces[1]), (0...255).contains(t) else {
        throw TilecutError.invalidOption(option: option, reason: "tolerance '\(Quote.value(pieces[1]))' is not a whole number from 0 to 255")
      }
      tol = t
    }
    func bad() -> TilecutError {
      TilecutError.invalidOption(
        option: option, reason: "'\(Quote.value(text))' is not a colour; use a name (white, black), #rrggbb, #rgb or R,G,B, optionally :TOLERANCE")
    }
    if let rgb = Self.named[colour] {
      self.init(red: rgb.0, green: rgb.1, blue: rgb.2, tolerance: tol)
    } else if colour.hasPrefix("#") {
      var hex = String(colour.dropFirst())
      if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
      guard hex.count == 6, let v = UInt32(hex, radix: 16) else { throw bad() }
      self.init(red: UInt8(v >> 16 & 0xff), green: UInt8(v >> 8 & 0xff), blue: UInt8(v & 0xff), tolerance: tol)
    } else {
      let parts = colour.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
      guard parts.count == 3, let r = parts[0], let g = parts[1], let b = parts[2],
        (0...255).contains(r), (0...255).contains(g), (0...255).contains(b)
      else { throw bad() }
      self.init(red: UInt8(r), green: UInt8(g), blue: UInt8(b), tolerance: tol)
    }
    spelling = text
  }

  /// As the user wrote it, else as ``description`` writes it.
  public var spelled: String { spelling ?? description }

  enum CodingKeys: String, CodingKey { case red, green, blue, tolerance }

  public static func == (a: ColorRule, b: ColorRule) -> Bool {
    (a.red, a.green, a.blue, a.tolerance) == (b.red, b.green, b.blue, b.tolerance)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(red)
    hasher.combine(green)
    hasher.combine(blue)
    hasher.combine(tolerance)
  }

  public var description: String {
    let hex = String(format: "#%02x%02x%02x", red, green, blue)
    return tolerance == 0 ? hex : "\(hex):\(tolerance)"
  }
}

/// Pixel work on packed RGBA8 rows (unpremultiplied), shared by every level.
public enum PixelOps {
  /// True when every pixel of the w × h block at `base` (row stride in bytes) is
  /// transparent, or within tolerance of `background` when one is given.
  public static func isBlank(
    _ base: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, background: ColorRule?
  ) -> Bool {
    for row in 0..<height {
      let p = base + row * stride
      if let bg = background {
        let tol = bg.tolerance
        let r = Int(bg.red)
        let g = Int(bg.green)
        let b = Int(bg.blue)
        for i in Swift.stride(from: 0, to: width * 4, by: 4) where p[i + 3] != 0 {
          if p[i + 3] != 255 || abs(Int(p[i]) - r) > tol || abs(Int(p[i + 1]) - g) > tol
            || abs(Int(p[i + 2]) - b) > tol
          {
            return false
          }
        }
      } else {
        // Four pixels a step, their alpha bytes or-ed together: most blank tiles are
        // far from any content and are read to the end.
        let raw = UnsafeRawPointer(p)
        let alphas: UInt64 = 0xFF00_0000_FF00_0000
        var i = 0
        let end = width * 4
        while i + 16 <= end {
          let a = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
          let b = raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
          if (a | b) & alphas != 0 { return false }
          i += 16
        }
        while i < end {
          if p[i + 3] != 0 { return false }
          i += 4
        }
      }
    }
    return true
  }

  /// Halves a block of rows: each output pixel is the mean of a 2×2 input block,
  /// averaged in premultiplied RGBA so transparent neighbours add no dark fringe.
  /// `width` and `height` are the input's; odd edges read as transparent.
  public static func reduce2x(
    _ src: UnsafePointer<UInt8>, srcStride: Int, width: Int, height: Int,
    into dst: UnsafeMutablePointer<UInt8>, dstStride: Int
  ) {
    let outW = (width + 1) / 2
    let outH = (height + 1) / 2
    // output columns whose 2×2 block lies inside the input
    let pairs = width / 2
    for oy in 0..<outH {
      let r0 = src + (2 * oy) * srcStride
      let hasR1 = 2 * oy + 1 < height
      let r1 = hasR1 ? src + (2 * oy + 1) * srcStride : r0
      let out = dst + oy * dstStride
      let top = UnsafeRawPointer(r0)
      let bottom = UnsafeRawPointer(r1)
      let o = UnsafeMutableRawPointer(out)
      var ox = 0
      // Whole blocks, two pixels of each row read as one word. A block with no
      // alpha is transparent; an opaque one is the plain rounded mean, which is
      // what the weighted formula below gives when every weight is 255.
      let alphas: UInt64 = 0xFF00_0000_FF00_0000
      while hasR1 && ox < pairs {
        let a = top.loadUnaligned(fromByteOffset: 8 * ox, as: UInt64.self)
        let b = bottom.loadUnaligned(fromByteOffset: 8 * ox, as: UInt64.self)
        if (a | b) & alphas == 0 {
          o.storeBytes(of: 0, toByteOffset: 4 * ox, as: UInt32.self)
        } else if a & b & alphas == alphas {
          let sum =
            SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(a, to: SIMD8<UInt8>.self))
            &+ SIMD8<UInt16>(truncatingIfNeeded: unsafeBitCast(b, to: SIMD8<UInt8>.self))
          let mean: SIMD4<UInt16> = (sum.lowHalf &+ sum.highHalf &+ 2) &>> 2
          o.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: mean), toByteOffset: 4 * ox, as: SIMD4<UInt8>.self)
        } else {
          weighted(r0, r1, x0: 8 * ox, x1: 8 * ox + 4, hasX1: true, hasR1: true, into: out + 4 * ox)
        }
        ox += 1
      }
      // the odd column, and every column of an odd last row
      while ox < outW {
        let hasX1 = 2 * ox + 1 < width
        weighted(r0, r1, x0: 8 * ox, x1: hasX1 ? 8 * ox + 4 : 8 * ox, hasX1: hasX1, hasR1: hasR1, into: out + 4 * ox)
        ox += 1
      }
    }
  }

  /// One output pixel of `reduce2x`: the alpha-weighted mean of the block's colours.
  @inline(__always)
  private static func weighted(
    _ r0: UnsafePointer<UInt8>, _ r1: UnsafePointer<UInt8>, x0: Int, x1: Int, hasX1: Bool, hasR1: Bool,
    into out: UnsafeMutablePointer<UInt8>
  ) {
    let a00 = UInt32(r0[x0 + 3])
    let a01 = hasX1 ? UInt32(r0[x1 + 3]) : 0
    let a10 = hasR1 ? UInt32(r1[x0 + 3]) : 0
    let a11 = hasR1 && hasX1 ? UInt32(r1[x1 + 3]) : 0
    let asum = a00 + a01 + a10 + a11
    if asum == 0 {
      out[0] = 0
      out[1] = 0
      out[2] = 0
      out[3] = 0
      return
    }
    for c in 0..<3 {
      let s = UInt32(r0[x0 + c]) * a00 + UInt32(r0[x1 + c]) * a01 + UInt32(r1[x0 + c]) * a10 + UInt32(r1[x1 + c]) * a11
      out[c] = UInt8(min((s + asum / 2) / asum, 255))
    }
    out[3] = UInt8((asum + 2) / 4)
  }

  /// Turns pixels close to `rule`'s colour transparent, fading anti-aliased edges to
  /// alpha (colour-to-alpha) instead of leaving a halo.
  public static func knockOut(_ base: UnsafeMutablePointer<UInt8>, count: Int, rule: ColorRule) {
    let bg = [Double(rule.red), Double(rule.green), Double(rule.blue)]
    let tol = Double(rule.tolerance)
    for i in 0..<count {
      let p = base + 4 * i
      if p[3] == 0 { continue }
      var alpha = 0.0
      var within = true
      for c in 0..<3 {
        let v = Double(p[c])
        let d = abs(v - bg[c])
        if d > tol { within = false }
        // how opaque the pixel must be to make this channel over the background
        let room = v > bg[c] ? 255 - bg[c] : bg[c]
        if room > 0 { alpha = max(alpha, max(d - tol, 0) / max(room - tol, 1)) }
      }
      if within {
        p[3] = 0
        p[0] = 0
        p[1] = 0
        p[2] = 0
        continue
      }
      alpha = min(alpha, 1)
      for c in 0..<3 {
        let v = Double(p[c])
        let unmixed = (v - bg[c] * (1 - alpha)) / alpha
        p[c] = UInt8(min(max(unmixed.rounded(), 0), 255))
      }
      p[3] = UInt8(min(max((Double(p[3]) * alpha).rounded(), 0), 255))
    }
  }

  /// Halves a block of rows for `--resampling nearest`: each output pixel is the
  /// top-left pixel of its 2×2 block (the one the block's centre rounds to, as
  /// `floor(s + 0.5)` in the resampler), so no level has a colour the source lacks.
  public static func pick2x(
    _ src: UnsafePointer<UInt8>, srcStride: Int, width: Int, height: Int,
    into dst: UnsafeMutablePointer<UInt8>, dstStride: Int
  ) {
    let outW = (width + 1) / 2
    let outH = (height + 1) / 2
    for oy in 0..<outH {
      let row = UnsafeRawPointer(src + 2 * oy * srcStride)
      let out = UnsafeMutableRawPointer(dst + oy * dstStride)
      for ox in 0..<outW {
        out.storeBytes(of: row.loadUnaligned(fromByteOffset: 8 * ox, as: UInt32.self), toByteOffset: 4 * ox, as: UInt32.self)
      }
    }
  }

  /// Doubles a block into one `size` × `size` tile by repeating each pixel 2×2
  /// (`--resampling nearest`); `block` as for `upsampleTile`.
  public static func replicateTile(
    _ block: UnsafePointer<UInt8>, blockStride: Int, size: Int, into out: UnsafeMutablePointer<UInt8>
  ) {
    let half = size / 2
    for oy in 0..<size {
      let row = UnsafeRawPointer(block + ((oy >> 1) + 1) * blockStride)
      let dst = UnsafeMutableRawPointer(out + oy * size * 4)
      for x in 0..<half {
        let p = row.loadUnaligned(fromByteOffset: 4 * (x + 1), as: UInt32.self)
        dst.storeBytes(of: p, toByteOffset: 8 * x, as: UInt32.self)
        dst.storeBytes(of: p, toByteOffset: 8 * x + 4, as: UInt32.self)
      }
    }
  }

  /// Doubles a block into one `size` × `size` tile with bilinear weights (9, 3, 3, 1)/16
  /// in premultiplied RGBA. `block` holds the size/2 × size/2 source pixels with a
  /// one-pixel border all round (so (size/2 + 2)² pixels, row stride `blockStride`).
  public static func upsampleTile(
    _ block: UnsafePointer<UInt8>, blockStride: Int, size: Int, into out: UnsafeMutablePointer<UInt8>
  ) {
    let half = size / 2
    let rowBytes = (half + 2) * 4
    var previous: (centre: UnsafeRawPointer, other: UnsafeRawPointer)?
    for oy in 0..<size {
      let i = (oy >> 1) + 1
      let centre = UnsafeRawPointer(block + i * blockStride)
      let other = UnsafeRawPointer(block + (i + ((oy & 1) == 0 ? -1 : 1)) * blockStride)
      let dst = UnsafeMutableRawPointer(out + oy * size * 4)
      // the same two source rows as the output row above (vertical runs in a
      // drawing): the same output row
      if let p = previous, memcmp(p.centre, centre, rowBytes) == 0, memcmp(p.other, other, rowBytes) == 0 {
        dst.copyMemory(from: dst - size * 4, byteCount: size * 4)
        continue
      }
      previous = (centre, other)
      for x in 1...half {
        // flat areas (most of a drawing) need no arithmetic: both output pixels are the centre's
        let c = centre.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
        if c == centre.loadUnaligned(fromByteOffset: 4 * x - 4, as: UInt32.self)
          && c == centre.loadUnaligned(fromByteOffset: 4 * x + 4, as: UInt32.self)
          && c == other.loadUnaligned(fromByteOffset: 4 * x - 4, as: UInt32.self)
          && c == other.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
          && c == other.loadUnaligned(fromByteOffset: 4 * x + 4, as: UInt32.self)
        {
          dst.storeBytes(of: c, toByteOffset: 8 * x - 8, as: UInt32.self)
          dst.storeBytes(of: c, toByteOffset: 8 * x - 4, as: UInt32.self)
          continue
        }
        blend(centre, other, x, x - 1, into: dst + 8 * x - 8)
        blend(centre, other, x, x + 1, into: dst + 8 * x - 4)
      }
    }
  }

  /// One upsampled pixel: weights 9, 3, 3, 1 (/16) on the centre, its horizontal
  /// neighbour, the vertical neighbour and the diagonal one, premultiplied.
  @inline(__always)
  private static func blend(_ centre: UnsafeRawPointer, _ other: UnsafeRawPointer, _ x: Int, _ n: Int, into o: UnsafeMutableRawPointer) {
    let c00 = SIMD4<UInt32>(truncatingIfNeeded: centre.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt8>.self))
    let c01 = SIMD4<UInt32>(truncatingIfNeeded: centre.loadUnaligned(fromByteOffset: 4 * n, as: SIMD4<UInt8>.self))
    let c10 = SIMD4<UInt32>(truncatingIfNeeded: other.loadUnaligned(fromByteOffset: 4 * x, as: SIMD4<UInt8>.self))
    let c11 = SIMD4<UInt32>(truncatingIfNeeded: other.loadUnaligned(fromByteOffset: 4 * n, as: SIMD4<UInt8>.self))
    let alphaSum = 9 &* c00.w &+ 3 &* c01.w &+ 3 &* c10.w &+ c11.w
    if alphaSum == 16 * 255 {
      // opaque: a plain weighted mean (the alpha lane gives 255 by itself)
      let v = (9 &* c00 &+ 3 &* c01 &+ 3 &* c10 &+ c11 &+ 8) &>> 4
      o.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
    } else if alphaSum == 0 {
      o.storeBytes(of: SIMD4<UInt8>(repeating: 0), as: SIMD4<UInt8>.self)
    } else {
      let w = SIMD4<UInt32>(9 &* c00.w, 3 &* c01.w, 3 &* c10.w, c11.w)
      var out = SIMD4<UInt8>(repeating: 0)
      for c in 0..<3 {
        let v = w[0] &* c00[c] &+ w[1] &* c01[c] &+ w[2] &* c10[c] &+ w[3] &* c11[c]
        out[c] = UInt8(min((v + alphaSum / 2) / alphaSum, 255))
      }
      out[3] = UInt8((alphaSum + 8) >> 4)
      o.storeBytes(of: out, as: SIMD4<UInt8>.self)
    }
  }

}
