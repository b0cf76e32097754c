import Dispatch
import Foundation

/// Reads a direct level's strips one ahead on a thread of its own, so that
/// decoding (or resampling) strip k + 1 overlaps cutting and reducing strip k.
///
/// The source is opened, read and released on that one thread: libvips binds a
/// pipeline's regions to the thread that made them. A strip of at most
/// `readAheadBudget` bytes (`PyramidBuilder.readAheadBudget`) comes back in a whole
/// buffer swapped with the caller's, never copied: the caller hands in the buffer it
/// has finished with, and the reader fills that one next (one strip buffer more than
/// a plain read). A wider one is read
/// ahead in chunks of rows through two slots that together hold at most the budget,
/// each copied into the caller's buffer as it comes: the read-ahead then costs the
/// budget, not a strip, whatever the width (a 65536 px wide level: 8 MB, not 64 MB).
final class StripReader: @unchecked Sendable {
  private let strips: [LevelStrip]
  private let stride: Int
  private let rows: Int
  /// Rows per chunk when strips are read ahead in chunks; nil: in whole strips.
  private let chunkRows: Int?
  /// The two chunk slots, allocated at the first chunked read and owned by the reader
  /// until it is released: the reader thread writes one while the caller copies the other.
  private var slots: [UnsafeMutableBufferPointer<UInt8>] = []
  private let filled = DispatchSemaphore(value: 0)
  private let freed = DispatchSemaphore(value: 2)
  /// Chunks of the pending strip the caller has taken.
  private var taken = 0
  private let lock = NSLock()
  private var jobs: [(() -> Void)?] = []
  private let wake = DispatchSemaphore(value: 0)
  private let ready = DispatchSemaphore(value: 0)
  // the reader thread's: set up by `open`, used by fills, dropped by `finish`
  private var source: (any LevelPixelSource)?
  // handed between the threads through `ready`
  private var spare: [UInt8] = []
  private var pending: Int?
  private var failure: (any Error)?

  /// `rows`: the height of a strip buffer; a strip that does not fill it is cleared first.
  init(
    open: @escaping () throws -> any LevelPixelSource, strips: [LevelStrip], stride: Int, rows: Int,
    readAheadBudget: Int
  ) throws {
    self.strips = strips
    self.stride = stride
    self.rows = rows
    let chunk = (readAheadBudget / 2) / max(stride, 1)
    chunkRows = stride * rows > readAheadBudget ? max(1, min(chunk, rows)) : nil
    try OwnThread.start(name: "strip reader") { [self] in
      while true {
        wake.wait()
        let job = lock.withLock { jobs.removeFirst() }
        guard let job else { return }
        job()
      }
    }
    do {
      try onReader { self.source = try open() }
    } catch {
      stop()
      throw error
    }
  }

  /// Puts strip `index` into `buffer` (the caller's previous strip buffer goes
  /// back to the reader) and starts reading the next one.
  func take(_ index: Int, into buffer: inout [UInt8]) throws {
    if let chunkRows { return try takeChunked(index, into: &buffer, chunkRows: chunkRows) }
    if pending == index {
      ready.wait()
      pending = nil
      if let failure { throw failure }
      swap(&buffer, &spare)
    } else {
      let strip = strips[index]
      try buffer.withUnsafeMutableBufferPointer { buf in
        let target = buf
        try onReader { try self.fill(target, strip) }
      }
    }
    guard index + 1 < strips.count else { return }
    if spare.count != buffer.count { spare = [UInt8](repeating: 0, count: buffer.count) }
    pending = index + 1
    let next = strips[index + 1]
    // `spare` is not touched again on this side until `ready` is signalled
    let target = spare.withUnsafeMutableBufferPointer { $0 }
    submit { [self] in
      do { try fill(target, next) } catch { failure = error }
      ready.signal()
    }
  }

  /// `take` for strips read ahead in chunks: the pending strip's chunks are copied
  /// into `buffer` as the reader fills them, then the next strip's reading starts.
  private func takeChunked(_ index: Int, into buffer: inout [UInt8], chunkRows: Int) throws {
    let strip = strips[index]
    if pending == index {
      let stride = self.stride
      let count = buffer.count
      // a strip that names its columns gives only those: the others of the caller's
      // buffer are left as they are, neither cleared nor copied
      let columns = strip.columns.map { $0.clamped(to: 0..<(stride / 4)) }
      try buffer.withUnsafeMutableBufferPointer { buf in
        guard let base = buf.baseAddress else { return }
        if strip.offset != 0 || strip.count < rows {
          if let columns {
            for r in 0..<(count / max(stride, 1)) { (base + r * stride + columns.lowerBound * 4).update(repeating: 0, count: columns.count * 4) }
          } else {
            base.update(repeating: 0, count: count)
          }
        }
        let chunks = (strip.count + chunkRows - 1) / chunkRows
        while taken < chunks {
          filled.wait()
          let c = taken
          taken += 1
          if let failure {
            freed.signal()
            throw failure
          }
          let n = min(chunkRows, strip.count - c * chunkRows)
          if let s = slots[c % 2].baseAddress {
            let into = base + (strip.offset + c * chunkRows) * stride
            if let columns {
              let skip = columns.lowerBound * 4
              for r in 0..<n { (into + r * stride + skip).update(from: s + r * stride + skip, count: columns.count * 4) }
            } else {
              into.update(from: s, count: n * stride)
            }
          }
          freed.signal()
        }
      }
      pending = nil
    } else {
      // with no read under way, a strip that names its columns goes through a slot
      // too, so that only its columns of the caller's buffer are written
      let through = strip.columns != nil && pending == nil ? makeSlots(chunkRows).first : nil
      try buffer.withUnsafeMutableBufferPointer { buf in
        let target = buf
        try onReader { try self.fill(target, strip, through: through) }
      }
    }
    guard index + 1 < strips.count else { return }
    _ = makeSlots(chunkRows)
    pending = index + 1
    taken = 0
    let next = strips[index + 1]
    // each slot is written here only between a `freed` and the `filled` after it
    let targets = slots
    submit { [self] in
      let chunks = (next.count + chunkRows - 1) / chunkRows
      for c in 0..<chunks {
        freed.wait()
        guard failure == nil, let base = targets[c % 2].baseAddress, let source else {
          filled.signal()
          continue
        }
        do {
          let (top, count) = (next.top + c * chunkRows, min(chunkRows, next.count - c * chunkRows))
          if let columns = next.columns {
            try source.read(top: top, count: count, columns: columns, into: base)
          } else {
            try source.read(top: top, count: count, into: base)
          }
        } catch {
          failure = error
        }
        filled.signal()
      }
    }
  }

  /// The two chunk slots, made at the first call.
  private func makeSlots(_ chunkRows: Int) -> [UnsafeMutableBufferPointer<UInt8>] {
    if slots.isEmpty {
      slots = (0..<2).map { _ in
        let slot = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: chunkRows * stride)
        slot.initialize(repeating: 0)
        return slot
      }
    }
    return slots
  }

  // the reader thread holds the reader until it ends, so no chunk is written after this
  deinit {
    for slot in slots { slot.deallocate() }
  }

  /// Waits for a read under way, releases the source on its thread and ends the thread.
  func finish() {
    if let index = pending, let chunkRows {
      let chunks = (strips[index].count + chunkRows - 1) / chunkRows
      while taken < chunks {
        filled.wait()
        taken += 1
        freed.signal()
      }
      pending = nil
    }
    if pending != nil {
      ready.wait()
      pending = nil
    }
    try? onReader { self.source = nil }
    stop()
  }

  private func stop() {
    lock.withLock { jobs.append(nil) }
    wake.signal()
  }

  /// Reads `strip` into `buffer`: whole, or in chunks of rows when strips are read ahead
  /// so, as the chunks read ahead are (a source's read of a chunk needs the rows of its
  /// band only: a streaming resampler's ring then holds a chunk's band, not a strip's).
  /// `through`: a chunk slot each chunk of a strip naming its columns is read into, and
  /// only those columns copied from: the others of `buffer` are left as they are.
  private func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ strip: LevelStrip, through: UnsafeMutableBufferPointer<UInt8>? = nil)
    throws
  {
    guard let base = buffer.baseAddress, let source else { return }
    let stride = self.stride
    if let slot = through?.baseAddress, let chunkRows, let wanted = strip.columns {
      let columns = wanted.clamped(to: 0..<(stride / 4))
      if strip.offset != 0 || strip.count < rows {
        for r in 0..<(buffer.count / max(stride, 1)) { (base + r * stride + columns.lowerBound * 4).update(repeating: 0, count: columns.count * 4) }
      }
      for first in Swift.stride(from: 0, to: strip.count, by: chunkRows) {
        let (top, count) = (strip.top + first, min(chunkRows, strip.count - first))
        try source.read(top: top, count: count, columns: wanted, into: slot)
        let into = base + (strip.offset + first) * stride
        let skip = columns.lowerBound * 4
        for r in 0..<count { (into + r * stride + skip).update(from: slot + r * stride + skip, count: columns.count * 4) }
      }
      return
    }
    if strip.offset != 0 || strip.count < rows { base.update(repeating: 0, count: buffer.count) }
    let step = chunkRows ?? strip.count
    for first in Swift.stride(from: 0, to: strip.count, by: max(step, 1)) {
      let (top, count) = (strip.top + first, min(step, strip.count - first))
      let into = base + (strip.offset + first) * stride
      if let columns = strip.columns {
        try source.read(top: top, count: count, columns: columns, into: into)
      } else {
        try source.read(top: top, count: count, into: into)
      }
    }
  }

  private func submit(_ job: @escaping () -> Void) {
    lock.withLock { jobs.append(job) }
    wake.signal()
  }

  /// Runs `body` on the reader thread and waits for it.
  private func onReader(_ body: @escaping () throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    var thrown: (any Error)?
    submit {
      do { try body() } catch { thrown = error }
      done.signal()
    }
    done.wait()
    if let thrown { throw thrown }
  }
}
