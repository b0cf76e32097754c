import CTilecutFixtures
import Foundation
import TilecutCore

/// A one-page PDF written byte by byte: hostile documents for the tests, in the
/// filters and layouts tilecut must read as poppler reads them.
public struct PDFWriter {
  /// Objects from number 5 on (1: catalog, 2: pages, 3: the page, 4: its content).
  public var objects: [[UInt8]] = []

  public init() {}

  /// A stream object's bytes: `dictionary` entries besides /Length, then `data` as it is.
  public static func stream(_ data: [UInt8], _ dictionary: String = "") -> [UInt8] {
    Array("<< /Length \(data.count) \(dictionary) >>\nstream\n".utf8) + data + Array("\nendstream".utf8)
  }

  /// The file: a 200 × 100 pt page with `resources` (and `page`'s entries) whose
  /// content is `content` under `filter` (a /Filter entry, or "").
  public func document(content: [UInt8], filter: String = "", resources: String = "", page: String = "") -> [UInt8] {
    let all: [[UInt8]] =
      [
        Array("<< /Type /Catalog /Pages 2 0 R >>".utf8), Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
        Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << \(resources) >> /Contents 4 0 R \(page) >>".utf8),
        Self.stream(content, filter),
      ] + objects
    return Self.file(all)
  }

  /// A PDF of `objects` (object 1 the catalog, numbered in order) with its cross-reference table.
  public static func file(_ objects: [[UInt8]]) -> [UInt8] {
    var pdf = Array("%PDF-1.4\n".utf8)
    var offsets: [Int] = []
    for (k, object) in objects.enumerated() {
      offsets.append(pdf.count)
      pdf += Array("\(k + 1) 0 obj\n".utf8) + object + Array("\nendobj\n".utf8)
    }
    let xref = pdf.count
    pdf += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
    for offset in offsets { pdf += Array(String(format: "%010d 00000 n \n", offset).utf8) }
    pdf += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
    return pdf
  }

  /// `data` as a zlib stream of stored (uncompressed) deflate blocks, its Adler-32 at the end.
  public static func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var at = 0
    repeat {
      let n = min(65535, data.count - at)
      out.append(at + n == data.count ? 1 : 0)
      out += [UInt8(n & 255), UInt8(n >> 8), UInt8(~n & 255), UInt8((~n >> 8) & 255)]
      out += data[at..<at + n]
      at += n
    } while at < data.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    let adler = b << 16 | a
    return out + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> $0) }
  }

  /// LZW as PDF's /LZWDecode reads it (9 to 12 bit codes, early change), the table
  /// cleared before it fills.
  public static func lzw(_ input: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var bits: UInt64 = 0
    var count = 0
    var next = 258
    var table: [Int: Int] = [:]
    func emit(_ code: Int) {
      let width = next >= 2048 ? 12 : next >= 1024 ? 11 : next >= 512 ? 10 : 9
      bits = bits << UInt64(width) | UInt64(code)
      count += width
      while count >= 8 {
        out.append(UInt8(truncatingIfNeeded: bits >> UInt64(count - 8)))
        count -= 8
      }
      bits &= (1 << UInt64(count)) - 1
    }
    emit(256)
    guard var prefix = input.first.map({ Int($0) }) else {
      emit(257)
      return out + (count > 0 ? [UInt8(truncatingIfNeeded: bits << UInt64(8 - count))] : [])
    }
    for byte in input.dropFirst() {
      let key = prefix << 8 | Int(byte)
      if let code = table[key] {
        prefix = code
        continue
      }
      emit(prefix)
      table[key] = next
      next += 1
      if next >= 4000 {
        emit(256)
        table.removeAll(keepingCapacity: true)
        next = 258
      }
      prefix = Int(byte)
    }
    emit(prefix)
    emit(257)
    if count > 0 { out.append(UInt8(truncatingIfNeeded: bits << UInt64(8 - count))) }
    return out
  }

  /// /RunLengthDecode's encoding, in literal runs of 128 bytes.
  public static func runLength(_ input: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    while start < input.count {
      let end = min(start + 128, input.count)
      out.append(UInt8(end - start - 1))
      out += input[start..<end]
      start = end
    }
    return out + [128]
  }

  /// /ASCIIHexDecode's encoding.
  public static func hex(_ input: [UInt8]) -> [UInt8] {
    let digits = Array("0123456789abcdef".utf8)
    var out = [UInt8](repeating: 0, count: input.count * 2 + 1)
    for (k, b) in input.enumerated() {
      out[2 * k] = digits[Int(b >> 4)]
      out[2 * k + 1] = digits[Int(b & 15)]
    }
    out[out.count - 1] = UInt8(ascii: ">")
    return out
  }

  /// How qpdf rewrites a file, streams kept as they are.
  public enum Rewrite: Int32, Sendable {
    /// objects in compressed object streams, with an xref stream
    case objectStreams = 0
    /// 128-bit RC4, empty user password
    case rc4 = 1
    /// 256-bit AES, empty user password
    case aes256 = 2
  }

  /// `source` rewritten by qpdf into `destination`.
  public static func rewrite(_ source: String, to destination: String, _ how: Rewrite) throws {
    guard tc_fixture_pdf_rewrite(source, destination, how.rawValue) == 0 else {
      throw TilecutError.output(path: destination, reason: "qpdf could not rewrite \(source)")
    }
  }
}
