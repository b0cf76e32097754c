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

  public init(jobs: Int, backlog: Int? = nil) {
    self.jobs = max(1, jobs)
    self.backlog = DispatchSemaphore(value: backlog ?? max(256, 128 * self.jobs))
    self.running = DispatchSemaphore(value: self.jobs)
  }

  /// Queues a job; blocks while the backlog is full so memory stays bounded.
  public func submit(_ work: @escaping @Sendable () throws -> Void) {
    backlog.wait()
    queue.async(group: group) { [self] in
      defer { backlog.signal() }
      guard !isStopped else { return }
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
