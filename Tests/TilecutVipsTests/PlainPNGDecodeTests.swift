import CTilecutPNG
import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

/// `tc_png_decode_plain`, the straight decode of a previous output's tiles in an
/// incremental rebuild: the pixels libvips gives for the same bytes, for every filter
/// type and IDATs split anywhere; anything else (another chunk, another size, a
/// palette, damage) is left to libvips, whose answer or error stands.
@Suite("PNGReader: tilecut's own tiles decoded without libvips")
struct PlainPNGDecodeTests {
  /// The plain decode's pixels, or nil when it leaves the file to libvips.
  func plain(_ png: [UInt8], width: Int, height: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: width * height * 4)
    let status = png.withUnsafeBufferPointer { b in
      out.withUnsafeMutableBufferPointer { tc_png_decode_plain(b.baseAddress, b.count, Int32(width), Int32(height), $0.baseAddress) }
    }
    return status == 0 ? out : nil
  }

  func encode(_ pixels: [UInt8], size: Int, indexed: Int32 = Int32(TC_PNG_TRUECOLOR)) throws -> [UInt8] {
    var length = 0
    let out = try #require(pixels.withUnsafeBufferPointer { tc_png_encode($0.baseAddress, Int32(size), Int32(size), 6, indexed, &length) })
    defer { tc_png_free(out) }
    return Array(UnsafeBufferPointer(start: out, count: length))
  }

  /// A tile of `size`² pixels: a plan-like picture, transparent in part unless `opaque`.
  func tile(_ size: Int, opaque: Bool, seed: Int = 0) -> [UInt8] {
    var p = [UInt8](repeating: 0, count: size * size * 4)
    for y in 0..<size {
      for x in 0..<size {
        let i = (y * size + x) * 4
        let wall = (x + seed) % 37 < 3 || (y + seed) % 29 < 2
        p[i] = wall ? 30 : UInt8((x * 7 + y * 3 + seed) & 255)
        p[i + 1] = wall ? 30 : UInt8((x ^ y) & 255)
        p[i + 2] = UInt8((x + 2 * y) & 255)
        p[i + 3] = opaque ? 255 : (x < size / 3 && y > size / 2 ? 0 : (x % 11 == 0 ? 128 : 255))
        if p[i + 3] == 0 { (p[i], p[i + 1], p[i + 2]) = (0, 0, 0) }
      }
    }
    return p
  }

  // MARK: PNG made by hand: every filter type, stored deflate blocks, split IDATs

  static let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes { c = Self.crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }

  func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 255), UInt8((v >> 8) & 255), UInt8(v & 255)] }

  func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return be32(UInt32(data.count)) + body + be32(crc32(body))
  }

  /// A zlib stream of stored (uncompressed) deflate blocks.
  func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var i = 0
    repeat {
      let n = min(65535, data.count - i)
      let last: UInt8 = i + n == data.count ? 1 : 0
      out += [last, UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)]
      out += data[i..<(i + n)]
      i += n
    } while i < data.count
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in data {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return out + be32(b << 16 | a)
  }

  /// Rows filtered with filter type `y % 5` (none, sub, up, average, Paeth), as PNG defines them.
  func filtered(_ rgba: [UInt8], width: Int, height: Int, bpp: Int) -> [UInt8] {
    var rows: [[UInt8]] = []
    for y in 0..<height {
      var row: [UInt8] = []
      for x in 0..<width {
        let i = (y * width + x) * 4
        row += rgba[i..<(i + bpp)]
      }
      rows.append(row)
    }
    var out: [UInt8] = []
    for y in 0..<height {
      let type = y % 5
      let row = rows[y]
      let prev = y > 0 ? rows[y - 1] : [UInt8](repeating: 0, count: row.count)
      out.append(UInt8(type))
      for i in row.indices {
        let a = i >= bpp ? Int(row[i - bpp]) : 0
        let b = Int(prev[i])
        let c = i >= bpp ? Int(prev[i - bpp]) : 0
        let predictor: Int
        switch type {
        case 1: predictor = a
        case 2: predictor = b
        case 3: predictor = (a + b) / 2
        case 4:
          let p = a + b - c
          let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
          predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
        default: predictor = 0
        }
        out.append(UInt8(truncatingIfNeeded: Int(row[i]) - predictor))
      }
    }
    return out
  }

  /// A PNG of `rgba` (RGBA, or RGB when `bpp` is 3) with every filter type, its IDAT
  /// split into `parts`, and `extra` chunks before the IDATs; `raw` and `stream` may
  /// change the filtered rows and the zlib stream on the way (damage).
  func handMade(
    _ rgba: [UInt8], size: Int, bpp: Int, parts: Int, extra: [[UInt8]] = [], raw: ([UInt8]) -> [UInt8] = { $0 },
    stream: ([UInt8]) -> [UInt8] = { $0 }
  ) -> [UInt8] {
    let ihdr = be32(UInt32(size)) + be32(UInt32(size)) + [8, bpp == 4 ? 6 : 2, 0, 0, 0]
    let zlib = stream(zlibStored(raw(filtered(rgba, width: size, height: size, bpp: bpp))))
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
    for e in extra { png += e }
    let per = (zlib.count + parts - 1) / parts
    for start in stride(from: 0, to: zlib.count, by: per) { png += chunk("IDAT", Array(zlib[start..<min(zlib.count, start + per)])) }
    return png + chunk("IEND", [])
  }

  @Test("tilecut's tiles, RGBA and opaque RGB, 256 and 512 px: the plain decode gives libvips' pixels", arguments: [256, 512])
  func ownTiles(size: Int) throws {
    for opaque in [false, true] {
      let pixels = tile(size, opaque: opaque, seed: size)
      let png = try encode(pixels, size: size)
      #expect(png[25] == (opaque ? 2 : 6))
      let fast = try #require(plain(png, width: size, height: size), "opaque: \(opaque)")
      #expect(fast == pixels)
      #expect(try RGBAImage.decode(bytes: png).pixels == fast)
      #expect(try RGBAImage.decode(bytes: png, width: size, height: size).pixels == fast)
    }
  }

  @Test("every filter type, stored blocks and IDATs split in one, two and seven: libvips' pixels", arguments: [3, 4])
  func filtersAndSplits(bpp: Int) throws {
    let size = 64
    var pixels = tile(size, opaque: bpp == 3, seed: 5)
    // random bytes on some rows: Paeth and average then pick every neighbour
    var state: UInt32 = 12345
    for i in (size * 4 * 10)..<(size * 4 * 20) where bpp == 4 || i % 4 != 3 {
      state = state &* 1_103_515_245 &+ 12345
      pixels[i] = UInt8(truncatingIfNeeded: state >> 16)
    }
    for parts in [1, 2, 7] {
      let png = handMade(pixels, size: size, bpp: bpp, parts: parts)
      let reference = try RGBAImage.decode(bytes: png)
      let fast = try #require(plain(png, width: size, height: size), "\(parts) IDATs")
      #expect(fast == reference.pixels, "\(parts) IDATs")
    }
  }

  @Test("another chunk, another size, a palette or 16 bits: left to libvips, which decodes it")
  func leftToLibvips() throws {
    let size = 32
    let pixels = tile(size, opaque: false, seed: 2)
    let gamma = chunk("gAMA", be32(45455))
    let withGamma = handMade(pixels, size: size, bpp: 4, parts: 1, extra: [gamma])
    #expect(plain(withGamma, width: size, height: size) == nil)
    #expect(try RGBAImage.decode(bytes: withGamma, width: size, height: size) == RGBAImage.decode(bytes: withGamma))
    let own = try encode(pixels, size: size)
    #expect(plain(own, width: size, height: size + 1) == nil)
    #expect(plain(own, width: size * 2, height: size) == nil)
    #expect(try RGBAImage.decode(bytes: own, width: 2 * size, height: size).width == size)
    // a palette (--palette)
    var few = [UInt8](repeating: 0, count: size * size * 4)
    for i in stride(from: 0, to: few.count, by: 4) { (few[i], few[i + 1], few[i + 2], few[i + 3]) = (UInt8(i / 4 % 3 * 80), 20, 30, 255) }
    let indexed = try encode(few, size: size, indexed: Int32(TC_PNG_INDEXED_ONLY))
    #expect(indexed[25] == 3)
    #expect(plain(indexed, width: size, height: size) == nil)
    #expect(try RGBAImage.decode(bytes: indexed, width: size, height: size).pixels == few)
    // 16 bits a sample
    var deep = handMade(pixels, size: size, bpp: 4, parts: 1)
    deep[24] = 16
    #expect(plain(deep, width: size, height: size) == nil)
  }

  @Test("damage (a chunk's CRC, the zlib stream, a filter type, a cut file): left to libvips, whose answer stands")
  func damage() throws {
    let size = 48
    let pixels = tile(size, opaque: false, seed: 9)
    let png = try encode(pixels, size: size)
    #expect(plain(png, width: size, height: size) != nil)
    // a byte of the IDAT's data (the IEND chunk is the last 12 bytes, the IDAT's CRC the 4 before)
    var badCRC = png
    badCRC[badCRC.count - 20] ^= 0x40
    // chunks whose CRCs check out around a stream that does not: its header, its Adler-32
    let badHeader = handMade(pixels, size: size, bpp: 4, parts: 1, stream: { s in [0x79] + s.dropFirst() })
    let badAdler = handMade(pixels, size: size, bpp: 4, parts: 2, stream: { s in Array(s.dropLast()) + [s[s.count - 1] ^ 1] })
    // a well-formed stream of rows whose filter type PNG does not have
    let badFilter = handMade(pixels, size: size, bpp: 4, parts: 1, raw: { r in [9] + r.dropFirst() })
    let cut = Array(png.prefix(png.count - 30))
    for (name, bytes) in [("crc", badCRC), ("header", badHeader), ("adler", badAdler), ("filter", badFilter), ("cut", cut)] {
      #expect(plain(bytes, width: size, height: size) == nil, "\(name)")
      // the tile decode is then libvips' own: the same pixels, or a failure as well
      let general = Result { try RGBAImage.decode(bytes: bytes) }
      let tile = Result { try RGBAImage.decode(bytes: bytes, width: size, height: size) }
      switch (general, tile) {
      case (.success(let a), .success(let b)): #expect(a == b, "\(name)")
      case (.failure, .failure): break
      default: Issue.record("\(name): libvips gives \(general), the tile decode \(tile)")
      }
    }
  }
}
