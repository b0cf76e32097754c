import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

/// PSNR over the RGB of two images of one size, in dB (infinite when equal).
func rgbPSNR(_ a: RGBAImage, _ b: RGBAImage) -> Double {
  precondition(a.width == b.width && a.height == b.height)
  var squares = 0.0
  for i in stride(from: 0, to: a.pixels.count, by: 4) {
    for c in 0..<3 {
      let d = Double(a.pixels[i + c]) - Double(b.pixels[i + c])
      squares += d * d
    }
  }
  let mse = squares / Double(a.width * a.height * 3)
  return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
}

/// A tile of `picture` cut out of a wider strip: its pixels in the middle of rows
/// `stride` bytes apart, the bytes around it a colour that must not leak in.
func strip(_ picture: RGBAImage, margin: Int) -> (bytes: [UInt8], stride: Int, offset: Int) {
  let stride = (picture.width + 2 * margin) * 4
  var bytes = [UInt8](repeating: 0, count: stride * picture.height)
  for i in Swift.stride(from: 0, to: bytes.count, by: 4) { (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) = (255, 0, 255, 255) }
  for y in 0..<picture.height {
    let row = y * picture.width * 4
    bytes.replaceSubrange(
      (y * stride + margin * 4)..<(y * stride + margin * 4 + picture.width * 4), with: picture.pixels[row..<(row + picture.width * 4)])
  }
  return (bytes, stride, margin * 4)
}

/// `picture` with an alpha ramp over its left half (0 at the edge to opaque) and a
/// fully transparent corner.
func translucent(_ picture: RGBAImage) -> RGBAImage {
  var image = picture
  for y in 0..<image.height {
    for x in 0..<image.width {
      let a = x < image.width / 2 ? x * 255 / (image.width / 2) : 255
      image.pixels[(y * image.width + x) * 4 + 3] = UInt8(x < 32 && y < 32 ? 0 : a)
    }
  }
  return image
}

@Suite("WebP and JPEG encoded from the strip (libwebp, libjpeg)")
struct LossyEncoderTests {
  @Test(
    "the direct encoders decode to what libvips' savers write, from packed rows and from a strip",
    arguments: [TileFormat.webp, .jpeg], [50, 75, 95])
  func sameAsLibvips(format: TileFormat, quality: Int) throws {
    let picture = scanPicture(width: 256, height: 256, seed: 3)
    var encoder = VipsTileEncoder(format: format, quality: quality)
    encoder.webpEffort = 4  // libwebp's own options, as webpsave's default effort uses them
    let direct = try RGBAImage.decode(bytes: encoder.encode(rgba: picture.pixels, size: 256, upsampled: false))
    let libvips = try RGBAImage.decode(bytes: encoder.libvipsEncode(rgba: picture.pixels, size: 256))
    #expect(direct.width == 256 && direct.height == 256)
    // the same settings: the same pixels up to libwebp's/libjpeg's own rounding
    #expect(rgbPSNR(direct, libvips) > 45, "\(format) q\(quality): \(rgbPSNR(direct, libvips)) dB")
    // as close to the source as libvips' output is
    #expect(rgbPSNR(direct, picture) >= rgbPSNR(libvips, picture) - 0.05)
    #expect(direct.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })

    let cut = strip(picture, margin: 40)
    let fromStrip = try cut.bytes.withUnsafeBufferPointer { buf in
      try encoder.encode(pixels: buf.baseAddress! + cut.offset, stride: cut.stride, size: 256, upsampled: false)
    }
    #expect(try RGBAImage.decode(bytes: fromStrip) == direct)
  }

  @Test(
    "JPEG keeps libvips' coefficients: 4:2:0 below quality 90, 4:4:4 from 90, libvips' size; --jpeg-optimize: the same pixels, smaller"
  )
  func jpegSameCoefficients() throws {
    let picture = scanPicture(width: 256, height: 256, seed: 5)
    for quality in [75, 90] {
      var encoder = VipsTileEncoder(format: .jpeg, quality: quality)
      #expect(!encoder.jpegOptimize)
      let direct = try encoder.encode(rgba: picture.pixels, size: 256, upsampled: false)
      let libvips = try encoder.libvipsEncode(rgba: picture.pixels, size: 256)
      let (a, b) = (try RGBAImage.decode(bytes: direct), try RGBAImage.decode(bytes: libvips))
      let worst = zip(a.pixels, b.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
      #expect(worst <= 1, "q\(quality): \(worst)")
      // the standard Huffman tables, as jpegsave's default: within 1 % of its bytes
      #expect(abs(Double(direct.count) / Double(libvips.count) - 1) < 0.01, "q\(quality): \(direct.count) vs \(libvips.count)")
      encoder.jpegOptimize = true
      let optimised = try encoder.encode(rgba: picture.pixels, size: 256, upsampled: false)
      #expect(try RGBAImage.decode(bytes: optimised) == a)
      #expect(optimised.count < direct.count, "q\(quality): \(optimised.count) vs \(direct.count)")
    }
  }

  @Test(
    "effort 2, with its noise shaping and filter, is no further from the source than libwebp's effort 2; the default is 4", arguments: [50, 75, 90])
  func fastEffortOptions(quality: Int) throws {
    let picture = scanPicture(width: 256, height: 256, seed: 13)
    var encoder = VipsTileEncoder(format: .webp, quality: quality)
    #expect(encoder.webpEffort == 4)
    encoder.webpEffort = 2
    let tuned = try RGBAImage.decode(bytes: encoder.encode(rgba: picture.pixels, size: 256, upsampled: false))
    let plain = try RGBAImage.decode(bytes: encoder.libvipsEncode(rgba: picture.pixels, size: 256))
    #expect(rgbPSNR(tuned, picture) >= rgbPSNR(plain, picture) - 0.05, "q\(quality): \(rgbPSNR(tuned, picture)) vs \(rgbPSNR(plain, picture)) dB")
    #expect(rgbPSNR(tuned, plain) > 30)
  }

  @Test("WebP keeps a translucent tile's alpha losslessly, as webpsave does")
  func webpAlpha() throws {
    let picture = translucent(scanPicture(width: 256, height: 256, seed: 9))
    var encoder = VipsTileEncoder(format: .webp, quality: 75)
    encoder.webpEffort = 4  // libwebp's own options, as webpsave's
    let direct = try RGBAImage.decode(bytes: encoder.encode(rgba: picture.pixels, size: 256, upsampled: false))
    let libvips = try RGBAImage.decode(bytes: encoder.libvipsEncode(rgba: picture.pixels, size: 256))
    for i in stride(from: 3, to: picture.pixels.count, by: 4) {
      #expect(direct.pixels[i] == picture.pixels[i])
      if direct.pixels[i] != picture.pixels[i] { return }
    }
    #expect(meanDifference(direct, libvips).mean < 1)
    // the default effort keeps it exactly too
    let fast = try RGBAImage.decode(bytes: VipsTileEncoder(format: .webp, quality: 75).encode(rgba: picture.pixels, size: 256, upsampled: false))
    #expect(stride(from: 3, to: picture.pixels.count, by: 4).allSatisfy { fast.pixels[$0] == picture.pixels[$0] })
  }

  @Test(
    "JPEG flattens translucent pixels onto --background (white without it), as vips_flatten does",
    arguments: [nil, ColorRule(red: 20, green: 90, blue: 200)])
  func jpegFlatten(fill: ColorRule?) throws {
    let picture = translucent(scanPicture(width: 256, height: 256, seed: 11))
    let encoder = VipsTileEncoder(format: .jpeg, quality: 90, fill: fill)
    let direct = try RGBAImage.decode(bytes: encoder.encode(rgba: picture.pixels, size: 256, upsampled: false))
    let libvips = try RGBAImage.decode(bytes: encoder.libvipsEncode(rgba: picture.pixels, size: 256))
    #expect(rgbPSNR(direct, libvips) > 45)
    // the transparent corner is the fill colour
    let colour = fill ?? ColorRule(red: 255, green: 255, blue: 255)
    let corner = (8 * 256 + 8) * 4
    for (c, want) in [colour.red, colour.green, colour.blue].enumerated() {
      #expect(abs(Int(direct.pixels[corner + c]) - Int(want)) <= 3)
    }
    #expect(direct.pixels[corner + 3] == 255)
  }
}
