import CVips
import CVipsShim
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// A photo-like picture: smooth gradients under fine noise, so that every DCT
/// coefficient and both chroma planes have work.
private func photo(width: Int, height: Int, seed: UInt32) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  var state = seed &* 2_654_435_761 &+ 7
  for y in 0..<height {
    for x in 0..<width {
      state = state &* 1_664_525 &+ 1_013_904_223
      let noise = Int(state >> 27) - 16
      let i = (y * width + x) * 4
      image.pixels[i] = UInt8(clamping: x * 255 / max(1, width - 1) + noise)
      image.pixels[i + 1] = UInt8(clamping: y * 255 / max(1, height - 1) - noise)
      image.pixels[i + 2] = UInt8(clamping: (x + y) % 256 + noise / 2)
      image.pixels[i + 3] = 255
    }
  }
  return image
}

@Suite("tilecut's JPEG reader decodes what libvips' jpegload decodes, and checks the whole scan")
struct JPEGReaderTests {
  /// What libvips' jpegload (random access, then sRGB RGBA8) makes of a file.
  func libvipsDecode(_ path: String) throws -> RGBAImage {
    let image = try VipsImageHandle.make("load") { tc_load_named("jpegload", path, -1, 0, 0, &$0) }
    return try RGBAImage.decode(image)
  }

  @Test(
    "4:2:0, 4:4:4, progressive, restart markers, odd sizes and greyscale: the reader takes them, pixel for pixel as jpegload; CMYK is left to libvips"
  )
  func samePixels() throws {
    let dir = NSTemporaryDirectory() + "tilecut-jpeg-reader-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let cases: [(name: String, options: String, width: Int, height: Int)] = [
      ("subsampled", "Q=85", 320, 240),
      ("full-chroma", "Q=85,subsample_mode=off", 320, 240),
      ("progressive", "Q=80,interlace=true", 300, 200),
      ("restart", "Q=80,restart_interval=2", 256, 256),
      ("odd", "Q=90", 333, 217),
      ("one-row", "Q=90", 401, 1),
    ]
    for (k, c) in cases.enumerated() {
      let path = "\(dir)/\(c.name).jpg"
      try photo(width: c.width, height: c.height, seed: UInt32(k + 1)).writePNG(to: "\(path)[\(c.options)]")
      #expect(tc_jpeg_reads(path) == 1, "\(c.name): the reader left it to libvips")
      let ours = try RGBAImage.decode(file: path)
      let theirs = try libvipsDecode(path)
      #expect(ours.width == theirs.width && ours.height == theirs.height, "\(c.name)")
      let differ = zip(ours.pixels, theirs.pixels).filter { $0 != $1 }.count
      #expect(differ == 0 && ours.pixels.count == theirs.pixels.count, "\(c.name): \(differ) samples differ from jpegload's")
      #expect(tc_jpeg_read_whole(path) == 1, "\(c.name): read to its end marker")
    }
    // greyscale: one component, spread to RGB as tc_to_srgba spreads jpegload's
    let grey = dir + "/grey.jpg"
    try photo(width: 200, height: 150, seed: 9).write(to: grey, as: .greyAlpha)
    #expect(tc_jpeg_reads(grey) == 1)
    let ours = try RGBAImage.decode(file: grey)
    #expect(ours.pixels == (try libvipsDecode(grey)).pixels)
    #expect(ours.pixels[0] == ours.pixels[1] && ours.pixels[1] == ours.pixels[2])
    // CMYK: libvips converts it through a profile; the reader does not take it
    let cmyk = dir + "/cmyk.jpg"
    try photo(width: 120, height: 80, seed: 3).write(to: cmyk, as: .cmykJPEG)
    #expect(tc_jpeg_reads(cmyk) == 0)
    #expect((try RGBAImage.decode(file: cmyk)).pixels == (try libvipsDecode(cmyk)).pixels)
  }

  @Test("a read that stops above the last rows does not count as a whole read; a damaged tail fails the rows that reach it")
  func partialReads() throws {
    let dir = NSTemporaryDirectory() + "tilecut-jpeg-partial-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/tall.jpg"
    try photo(width: 256, height: 512, seed: 4).writePNG(to: path + "[Q=90]")
    var out: UnsafeMutablePointer<VipsImage>?
    #expect(tc_jpeg_open(path, &out) == 1)
    let image = VipsImageHandle(try #require(out))
    let region = try #require(vips_region_new(image.pointer))
    defer { g_object_unref(region) }
    var rows = [UInt8](repeating: 0, count: 256 * 64 * 4)
    #expect(tc_fetch(region, 0, 0, 256, 64, &rows) == 0)
    #expect(tc_jpeg_read_whole(path) == 0, "64 of 512 rows read")
    // the last bytes of the scan damaged: the top still reads, the bottom fails in libjpeg's words
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    for k in (bytes.count - 400)..<(bytes.count - 2) where bytes[k] != 0xFF { bytes[k] ^= 0x55 }
    let damaged = dir + "/damaged.jpg"
    try Data(bytes).write(to: URL(fileURLWithPath: damaged))
    let read: () -> Result<Void, VipsError>? = {
      var bad: UnsafeMutablePointer<VipsImage>?
      #expect(tc_jpeg_open(damaged, &bad) == 1)
      guard let bad, let badRegion = vips_region_new(bad) else { return nil }
      let badImage = VipsImageHandle(bad)
      defer { g_object_unref(badRegion) }
      #expect(tc_fetch(badRegion, 0, 0, 256, 64, &rows) == 0)
      var all = [UInt8](repeating: 0, count: 256 * 512 * 4)
      let failed = tc_fetch(badRegion, 0, 0, 256, 512, &all) != 0
      withExtendedLifetime(badImage) {}
      return failed ? .failure(VipsError.current("read")) : .success(())
    }
    guard case .failure(let error)? = ownMessage(read) else {
      Issue.record("the damaged JPEG read to its end")
      return
    }
    #expect(error.message.contains("libjpeg: "), "\(error)")
    #expect(tc_jpeg_read_whole(damaged) == 0)
    let line = InputCheck.readFailure(path: damaged, error)
    #expect("\(line)".contains("damaged.jpg: cannot be decoded: it is damaged (libjpeg: "), "\(line)")
    // before publishing, a job confirms it: a scan of the file, since the reader stopped short
    #expect(throws: TilecutError.self) { try InputCheck.confirmJPEGs(paths: [damaged]) }
    #expect(throws: Never.self) { try InputCheck.confirmJPEGs(paths: [path]) }
  }
}
