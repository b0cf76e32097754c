import CTilecutPNG
import TilecutCore

/// The PNG `tilecut preview` writes: the sheet's pixels with a `Software` text chunk
/// saying tilecut made it, so a later `preview -o` may overwrite its own sheet but
/// never a file of the user's that happens to have the name.
public enum PreviewSheet {
  /// The text of the `tEXt` chunk that marks a sheet.
  static let marker = Array("Software\u{0}tilecut preview sheet".utf8)

  /// The sheet as PNG bytes, marked as tilecut's.
  public static func png(_ image: RGBAImage) throws -> [UInt8] {
    var length = 0
    guard
      let buffer = image.pixels.withUnsafeBufferPointer({ buf in
        buf.baseAddress.flatMap {
          tc_png_encode_rows($0, image.width * 4, Int32(image.width), Int32(image.height), 6, Int32(TC_PNG_INDEXED_WHEN_EXACT), &length)
        }
      })
    else { throw VipsError(operation: "pngsave", message: "out of memory encoding a \(image.width)×\(image.height) sheet") }
    defer { tc_png_free(buffer) }
    let bytes = [UInt8](UnsafeBufferPointer(start: buffer, count: length))
    // signature (8) and IHDR (4 + 4 + 13 + 4): the text chunk goes right after
    let ihdrEnd = 33
    guard bytes.count > ihdrEnd else { throw VipsError(operation: "pngsave", message: "the encoder returned no PNG") }
    return Array(bytes[..<ihdrEnd]) + chunk("tEXt", marker) + Array(bytes[ihdrEnd...])
  }

  /// True when `bytes` (the start of a file is enough) are a PNG tilecut wrote as a sheet.
  public static func isSheet(_ bytes: [UInt8]) -> Bool {
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let expected = chunk("tEXt", marker)
    guard bytes.count >= 33 + expected.count, Array(bytes[..<8]) == signature else { return false }
    return Array(bytes[33..<(33 + expected.count)]) == expected
  }

  /// One PNG chunk: length, type, data, CRC-32 of type and data.
  static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(type.utf8) + data
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
  }

  static func bigEndian(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

  /// CRC-32 (ISO 3309, as PNG uses it), bit by bit: the chunk is a few dozen bytes.
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for b in bytes {
      crc ^= UInt32(b)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return crc ^ 0xFFFF_FFFF
  }
}
