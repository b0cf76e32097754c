import CVips
import CVipsShim
import Foundation
import Synchronization
import TilecutCore

/// A libvips failure, with the operation that failed and libvips' own message.
public struct VipsError: Error, CustomStringConvertible, Sendable {
  public var operation: String
  public var message: String

  public var description: String { message.isEmpty ? "\(operation) failed" : "\(operation): \(message)" }

  /// Takes the current contents of libvips' process-global error buffer.
  package static func current(_ operation: String) -> VipsError {
    var message = ""
    if let raw = vips_error_buffer_copy() {
      message = String(cString: raw)
      g_free(raw)
    }
    let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    return VipsError(operation: operation, message: lines.joined(separator: "; "))
  }
}

/// Starts libvips once per process and answers questions about it.
public enum Vips {
  private static let started = Mutex<Bool>(false)

  /// Starts libvips; safe to call many times from any thread.
  public static func start() throws {
    try started.withLock { done in
      if done { return }
      guard tc_init("tilecut") == 0 else { throw VipsError.current("vips_init") }
      done = true
    }
  }

  public static var version: String { String(cString: vips_version_string()) }

  /// Refuses loaders libvips marks untrusted (PDF, SVG and other document parsers).
  public static func blockUntrusted(_ block: Bool) { tc_block_untrusted(block ? 1 : 0) }

  /// Makes every later pixel request fail at once (after SIGINT/SIGTERM).
  public static func cancelAll() { tc_cancel_all() }

  /// SHA-256 of a file, streamed, as lowercase hex (Nettle, `SHA256Digest`).
  public static func sha256(ofFile path: String) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else {
      throw TilecutError.invalidInput(path: path, reason: "cannot be read")
    }
    defer { try? handle.close() }
    var digest = SHA256Digest()
    while true {
      let chunk = handle.readData(ofLength: 4 << 20)
      if chunk.isEmpty { break }
      chunk.withUnsafeBytes { digest.update($0) }
    }
    return digest.finish()
  }

  /// SHA-256 of bytes, as lowercase hex (Nettle, `SHA256Digest`).
  public static func sha256(of data: [UInt8]) -> String { SHA256Digest.hex(data) }
}

/// Owns one `VipsImage *` and drops its reference when it goes.
package final class VipsImageHandle: @unchecked Sendable {
  let pointer: UnsafeMutablePointer<VipsImage>

  init(_ pointer: UnsafeMutablePointer<VipsImage>) { self.pointer = pointer }

  deinit { g_object_unref(pointer) }

  var width: Int { Int(vips_image_get_width(pointer)) }
  var height: Int { Int(vips_image_get_height(pointer)) }
  var bands: Int { Int(vips_image_get_bands(pointer)) }

  /// Runs a shim that makes a new image from this one.
  func map(_ operation: String, _ body: (UnsafeMutablePointer<VipsImage>, inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws -> VipsImageHandle
  {
    var out: UnsafeMutablePointer<VipsImage>?
    guard body(pointer, &out) == 0, let out else { throw VipsError.current(operation) }
    return VipsImageHandle(out)
  }

  static func make(_ operation: String, _ body: (inout UnsafeMutablePointer<VipsImage>?) -> Int32) throws -> VipsImageHandle {
    var out: UnsafeMutablePointer<VipsImage>?
    guard body(&out) == 0, let out else { throw VipsError.current(operation) }
    return VipsImageHandle(out)
  }

  func string(_ field: String) -> String? {
    var value: UnsafePointer<CChar>?
    guard vips_image_get_typeof(pointer, field) != 0, vips_image_get_string(pointer, field, &value) == 0, let value else { return nil }
    return String(cString: value)
  }
}
