import CTilecutDigest
import Foundation

/// SHA-256 through Nettle (`CTilecutDigest`): the digests of tiles, sources and store
/// files, the same as `sha256sum` prints. It replaced GLib's checksum and a hand-written
/// Swift one (Nettle uses the CPU's SHA extensions, several times GLib's speed), then
/// OpenSSL's libcrypto, whose first digest made 2 MB of it resident (bench/README.md).
public struct SHA256Digest: ~Copyable {
  private let context: UnsafeMutableRawPointer

  public init() {
    guard let context = tc_sha256_begin() else { fatalError("no memory for a SHA-256 context") }
    self.context = context
  }

  deinit {
    // a digest never finished: its context is freed by the end call
    var discard = [UInt8](repeating: 0, count: 32)
    _ = tc_sha256_end(context, &discard)
  }

  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    guard tc_sha256_update(context, base, bytes.count) == 0 else { fatalError("SHA-256 failed") }
  }

  public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

  /// The digest as lowercase hex.
  public consuming func finish() -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    let status = tc_sha256_end(context, &digest)
    discard self
    guard status == 0 else { fatalError("SHA-256 failed") }
    return Self.hex(digest: digest)
  }

  static let digits = Array("0123456789abcdef".utf8)

  static func hex(digest: [UInt8]) -> String {
    var text = [UInt8](repeating: 0, count: 64)
    for (i, byte) in digest.enumerated() {
      text[2 * i] = digits[Int(byte >> 4)]
      text[2 * i + 1] = digits[Int(byte & 15)]
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// SHA-256 of bytes.
  public static func hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    let status = bytes.withUnsafeBytes { tc_sha256($0.baseAddress, $0.count, &digest) }
    guard status == 0 else { fatalError("SHA-256 failed") }
    return hex(digest: digest)
  }

  /// SHA-256 of a regular file, read in 1 MiB pieces without following a final link;
  /// nil when it cannot be read.
  public static func hex(ofFile path: String) -> String? {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var d = SHA256Digest()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n >= 0 else { return nil }
      if n == 0 { break }
      buffer.withUnsafeBytes { d.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }
    return d.finish()
  }
}
