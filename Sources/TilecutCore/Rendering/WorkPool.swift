import CTilecutPlatform
import Dispatch
import Synchronization

/// Runs tile jobs on Dispatch with at most `jobs` at once and a bounded backlog;
/// the first failure or a cancellation stops everything that has not started.
public final class WorkPool: Sendable {
  public let jobs: Int
  private let queue = DispatchQueue(label: "tilecut.work", qos: .userInitiated, attributes: .concurrent)
  private let group = DispatchGroup()
  private let backlog: DispatchSemaphore
  private let running: DispatchSemaphore
  private let failure = Mutex<(any Error)?>(nil)
  private let cancelled = Atomic<Bool>(false)

  /// The backlog is counted in units of 64 KiB of pixels held by queued jobs.
  public static let backlogUnit = 64 << 10
  private let backlogUnits: Int

  /// `backlogBytes`: how much queued jobs may hold before `submit` waits
  /// (default 24 MiB, at least 4 MiB a job slot: about a hundred 256 px tiles
  /// waiting, plenty to keep the workers busy; 48 MiB cost 24 MB of peak RSS on wide
  /// sources, where the densest level's tiles are copied out of their strip).
  public init(jobs: Int, backlogBytes: Int? = nil) {
    self.jobs = max(1, jobs)
    backlogUnits = max(16, (backlogBytes ?? max(24 << 20, self.jobs * (4 << 20))) / Self.backlogUnit)
    self.backlog = DispatchSemaphore(value: backlogUnits)
    self.running = DispatchSemaphore(value: self.jobs)
  }

  /// Queues a job that holds `bytes` of memory until it ends; blocks while the
  /// backlog is full so memory stays bounded.
  public func submit(holding bytes: Int = backlogUnit, _ work: @escaping @Sendable () throws -> Void) {
    let units = min(max(1, (bytes + Self.backlogUnit - 1) / Self.backlogUnit), backlogUnits)
    for _ in 0..<units { backlog.wait() }
    queue.async(group: group) { [self] in
      defer { for _ in 0..<units { backlog.signal() } }
      guard !isStopped else { return }
      WorkPool.yieldToProducer()
      running.wait()
      defer { running.signal() }
      do { try work() } catch { record(error) }
    }
  }

  /// Runs `count` independent pieces of one step across the pool's width and waits for them.
  public func parallelFor(_ count: Int, _ body: @Sendable (Int) -> Void) {
    if count <= 1 || jobs == 1 {
      for i in 0..<count { body(i) }
      return
    }
    DispatchQueue.concurrentPerform(iterations: min(count, jobs)) { worker in
      var i = worker
      while i < count {
        body(i)
        i += jobs
      }
    }
  }

  /// Tile jobs run a little below the thread that decodes and cuts strips (nice +4):
  /// that thread is the critical path, and with every core encoding it would
  /// otherwise get only its share of a core and leave the workers waiting for
  /// strips. (On Linux the nice value is per thread: who 0 is the calling thread.)
  private static func yieldToProducer() {
    tc_lower_thread_priority(4)
  }

  public var isStopped: Bool {
    cancelled.load(ordering: .relaxed) || failure.withLock { $0 != nil }
  }

  public func record(_ error: any Error) {
    failure.withLock { if $0 == nil { $0 = error } }
  }

  public func cancel() { cancelled.store(true, ordering: .relaxed) }

  /// Throws the first failure, or `TilecutError.cancelled` once cancelled.
  public func checkpoint() throws {
    if let error = failure.withLock({ $0 }) { throw error }
    if cancelled.load(ordering: .relaxed) { throw TilecutError.cancelled }
  }

  /// Waits for every queued job, then reports like `checkpoint`.
  public func drain() throws {
    group.wait()
    try checkpoint()
  }
}
