import Foundation
import Testing
import TilecutCore

@testable import TilecutVips

@Suite("WebP effort")
struct WebPEffortTests {
  @Test("libwebp's effort reaches the encoder: 0 and 6 give different files of the same picture, 6 no larger")
  func effortReachesLibwebp() throws {
    let picture = scanPicture(width: 256, height: 256, seed: 7)
    var bytes: [Int: [UInt8]] = [:]
    for effort in [0, 6] {
      var encoder = VipsTileEncoder(format: .webp, quality: 75)
      encoder.webpEffort = effort
      let data = try encoder.encode(rgba: picture.pixels, size: 256, upsampled: false)
      let decoded = try RGBAImage.decode(bytes: data)
      #expect(decoded.width == 256 && decoded.height == 256)
      #expect(meanDifference(decoded, picture).mean < 8, "effort \(effort)")
      bytes[effort] = data
    }
    #expect(bytes[0] != bytes[6])
    #expect((bytes[6]?.count ?? .max) <= (bytes[0]?.count ?? 0))
  }
}
