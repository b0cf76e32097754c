import Foundation

/// Strip buffers of one stage that tile jobs still read: a cut tile is encoded in
/// place from its strip, so a strip's storage is reused only once its last job is
/// done. At most `limit` buffers are made beyond the stage's own and its reader's;
/// `take` waits for one to come back, which bounds the memory (and the encode
/// backlog) to that many strips.
final class StripPool: @unchecked Sendable {
  private let condition = NSCondition()
  private var free: [[UInt8]] = []
  private var made = 0
  private let limit: Int
  private let count: Int

  init(count: Int, limit: Int) {
    self.count = count
    self.limit = max(1, limit)
  }

  /// A buffer no job reads (its bytes are stale: the caller overwrites or clears them).
  func take() -> [UInt8] {
    condition.lock()
    defer { condition.unlock() }
    while free.isEmpty && made >= limit { condition.wait() }
    if let buffer = free.popLast() { return buffer }
    made += 1
    let count = self.count
    return [UInt8](unsafeUninitializedCapacity: count) { _, n in n = count }
  }

  func give(_ buffer: consuming [UInt8]) {
    condition.lock()
    free.append(buffer)
    condition.signal()
    condition.unlock()
  }
}

/// One strip's storage shared by the tile jobs cut from it: back to its pool when the last one is done.
final class StripHold: @unchecked Sendable {
  private(set) var storage: [UInt8]
  private let pool: StripPool

  init(_ storage: [UInt8], pool: StripPool) {
    self.storage = storage
    self.pool = pool
  }

  /// Moves the storage out before handing it back: a buffer still referenced here
  /// when the stage takes it would be copied on its first write.
  deinit {
    var bytes: [UInt8] = []
    swap(&bytes, &storage)
    pool.give(bytes)
  }
}
