import Dispatch
import Foundation

/// Runs `body(0)` … `body(count - 1)`, each on a thread of its own, all at once, and
/// returns when every one has returned. `DispatchQueue.concurrentPerform` runs at most
/// as many at once as the machine has cores (two on a small CI runner): for work that
/// mostly waits on child processes, this keeps `count` of them in flight.
func onThreads(_ count: Int, _ body: (Int) -> Void) {
  withoutActuallyEscaping(body) { body in
    let shared = UncheckedBody(body)
    let group = DispatchGroup()
    for index in 0..<count {
      group.enter()
      Thread {
        shared.body(index)
        group.leave()
      }.start()
    }
    group.wait()
  }
}

/// A closure handed to other threads by `onThreads`, which joins them before it returns.
private struct UncheckedBody: @unchecked Sendable {
  let body: (Int) -> Void
  init(_ body: @escaping (Int) -> Void) { self.body = body }
}
