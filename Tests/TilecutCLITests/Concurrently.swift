import Dispatch
import Foundation

/// Runs `body(0)` … `body(count - 1)`, each on a thread of its own, all at once, and
/// returns when every one has returned. `DispatchQueue.concurrentPerform` runs at most
/// as many at once as the machine has cores (two on a small CI runner): for work that
/// mostly waits on child processes, this keeps `count` of them in flight.
func onThreads(_ count: Int, _ body: (Int) -> Void) {
  withoutActuallyEscaping(body) { body in
    // The threads reach `body` through a box that is emptied once they have all
    // returned: a Thread keeps its own block (and what it captured) until Foundation
    // lets go of it, which may be after `wait()`, and `withoutActuallyEscaping`
    // traps if the closure is still referenced when it returns.
    let box = BodyBox(body)
    let group = DispatchGroup()
    for index in 0..<count {
      group.enter()
      Thread {
        box.call(index)
        group.leave()
      }.start()
    }
    group.wait()
    box.empty()
  }
}

/// A closure handed to other threads by `onThreads`, which joins them before it empties
/// the box.
private final class BodyBox: @unchecked Sendable {
  private let lock = NSLock()
  private var body: ((Int) -> Void)?

  init(_ body: @escaping (Int) -> Void) { self.body = body }

  /// Calls the closure; the reference taken for the call is released before it returns.
  func call(_ index: Int) {
    let body = lock.withLock { self.body }
    body?(index)
  }

  func empty() { lock.withLock { body = nil } }
}
