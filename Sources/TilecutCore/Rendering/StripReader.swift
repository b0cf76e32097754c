import Dispatch
import Foundation

/// Reads a direct level's strips one ahead on a thread of its own, so that
/// decoding (or resampling) strip k + 1 overlaps cutting and reducing strip k.
///
/// The source is opened, read and released on that one thread: libvips binds a
/// pipeline's regions to the thread that made them. Strips come back in whole
/// buffers swapped with the caller's, never copied: the caller hands in the
/// buffer it has finished with, and the reader fills that one next. Holds one
/// strip buffer more than a plain read.
final class StripReader: @unchecked Sendable {
  private let strips: [LevelStrip]
  private let stride: Int
  private let rows: Int
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
  init(open: @escaping () throws -> any LevelPixelSource, strips: [LevelStrip], stride: Int, rows: Int) throws {
    self.strips = strips
    self.stride = stride
    self.rows = rows
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

  /// Waits for a read under way, releases the source on its thread and ends the thread.
  func finish() {
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

  private func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ strip: LevelStrip) throws {
    guard let base = buffer.baseAddress, let source else { return }
    if strip.offset != 0 || strip.count < rows { base.update(repeating: 0, count: buffer.count) }
    try source.read(top: strip.top, count: strip.count, into: base + strip.offset * stride)
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
