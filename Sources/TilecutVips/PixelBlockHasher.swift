import CTilecutDigest
import Dispatch
import Foundation
import Synchronization
import TilecutCore

/// Makes a source's `PixelBlocks` from its decoded rows as they are read, top to
/// bottom, in runs of any length: one XXH3-128 per column of blocks, fed row by row
/// (each block's digest is that of its rows, as `PixelBlocks` says), a row of blocks
/// finished when its last row arrives. The columns are hashed on all cores.
///
/// Whoever reads the source for another purpose (the renderer's strip reader) hands it
/// the rows it reads: the digests then cost no decode of their own. Rows must come in
/// order from the top; a run that starts below the next row expected (a reader that
/// skipped rows) leaves the digests unfinished (`result` is nil), and a run above it
/// (a second reader of the same source) is ignored.
public final class PixelBlockHasher: @unchecked Sendable {
  public let width: Int
  public let height: Int
  public let block: Int
  private let columns: Int
  private let rowsOfBlocks: Int
  /// Each column's running XXH3-128 over the rows of the current row of blocks.
  private var contexts: [UnsafeMutableRawPointer?]
  /// The finished blocks' digests, `PixelBlocks.digestBytes` each, in block order.
  private var raw: [UInt8]
  /// The next source row expected.
  private var next = 0
  private var failed = false
  private let lock = NSLock()

  public init(width: Int, height: Int, block: Int = PixelBlocks.defaultBlock) {
    self.width = max(width, 0)
    self.height = max(height, 0)
    self.block = max(block, 1)
    columns = (self.width + self.block - 1) / self.block
    rowsOfBlocks = (self.height + self.block - 1) / self.block
    contexts = Array(repeating: nil, count: columns)
    raw = Array(repeating: 0, count: columns * rowsOfBlocks * PixelBlocks.digestBytes)
  }

  deinit {
    var discard = [UInt8](repeating: 0, count: 16)
    for context in contexts {
      if let context { _ = tc_xxh3_end(context, &discard) }
    }
  }

  /// Rows `top..<top + count` of the source, each `width` RGBA8 pixels, `rowBytes` apart.
  public func add(rows: UnsafePointer<UInt8>, top: Int, count: Int, rowBytes: Int) {
    lock.lock()
    defer { lock.unlock() }
    guard !failed, count > 0, top + count > next else { return }
    guard top <= next, rowBytes >= width * 4 else {
      failed = true
      return
    }
    // the part of the run not hashed yet, cut at the rows of blocks' edges
    var row = next
    let end = min(top + count, height)
    while row < end {
      let bandEnd = min(end, (row / block + 1) * block)
      let band = row / block
      let base = UInt(bitPattern: rows + (row - top) * rowBytes)
      let (first, n, width, block, columns) = (row, bandEnd - row, width, block, columns)
      let failures = contexts.withUnsafeMutableBufferPointer { contexts -> Int in
        raw.withUnsafeMutableBufferPointer { raw -> Int in
          guard let c0 = contexts.baseAddress, let r0 = raw.baseAddress else { return 1 }
          let (cs, rs) = (UInt(bitPattern: c0), UInt(bitPattern: r0))
          let bad = Atomic(0)
          DispatchQueue.concurrentPerform(iterations: columns) { c in
            guard let contexts = UnsafeMutablePointer<UnsafeMutableRawPointer?>(bitPattern: cs),
              let raw = UnsafeMutablePointer<UInt8>(bitPattern: rs), let rows = UnsafePointer<UInt8>(bitPattern: base)
            else { return }
            let x = c * block
            let w = min(block, width - x)
            if contexts[c] == nil { contexts[c] = tc_xxh3_begin() }
            guard let context = contexts[c] else {
              bad.add(1, ordering: .relaxed)
              return
            }
            for y in 0..<n where tc_xxh3_update(context, rows + y * rowBytes + x * 4, w * 4) != 0 { bad.add(1, ordering: .relaxed) }
            // the row of blocks' last row: its digest is done
            if first + n == min(height, (band + 1) * block) {
              var digest = [UInt8](repeating: 0, count: 16)
              if tc_xxh3_end(context, &digest) != 0 { bad.add(1, ordering: .relaxed) }
              contexts[c] = nil
              let out = raw + (band * columns + c) * PixelBlocks.digestBytes
              for i in 0..<PixelBlocks.digestBytes { out[i] = digest[i] }
            }
          }
          return bad.load(ordering: .relaxed)
        }
      }
      if failures > 0 {
        failed = true
        return
      }
      row = bandEnd
      next = row
    }
  }

  /// Whether every row has been hashed.
  public var isComplete: Bool {
    lock.lock()
    defer { lock.unlock() }
    return !failed && next >= height
  }

  /// The digests, once every row has been hashed; else nil.
  public func result() -> PixelBlocks? {
    guard isComplete, width > 0, height > 0 else { return nil }
    lock.lock()
    defer { lock.unlock() }
    return PixelBlocks(block: block, width: width, height: height, raw: raw)
  }
}
