import CTilecutPlatform
import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// Raised when SIGINT or SIGTERM stopped a run.
package struct JobInterrupted: Error {
  package var signal: Int32
}

/// Turns SIGINT and SIGTERM into a cancelled run: the pool stops taking work, and
/// when the run has not wound down within half a second (a document render that
/// libvips cannot interrupt) staging is removed and the process exits 128 + signal.
/// The handler only writes to a pipe; a thread of its own (not Dispatch's, whose
/// threads the workers may all hold) reads it and acts.
package final class SignalCancellation: @unchecked Sendable {
  private let signalled = Atomic<Int32>(0)
  private let inCommit = Atomic<Bool>(false)
  /// Set once the run itself has wound down; the watchdog then has nothing to do.
  private let finished = Atomic<Bool>(false)
  private let attached = Mutex<(pool: WorkPool?, stores: [any TileStore])>((nil, []))
  private let printer: Printer

  package init(printer: Printer) { self.printer = printer }

  package var received: Int32? {
    let s = signalled.load(ordering: .relaxed)
    return s == 0 ? nil : s
  }

  /// Catches SIGINT and SIGTERM from now on. A plain handler writes the signal to a
  /// pipe that a thread of ours reads: unlike a dispatch signal source, whose
  /// registration completes later on another thread, no signal that arrives after
  /// this returns is lost.
  package func start() {
    SignalPipe.shared.listen { [self] sig in self.fire(sig) }
  }

  package func attach(_ pool: WorkPool) {
    attached.withLock { $0.pool = pool }
    if received != nil { pool.cancel() }
  }

  /// Throws when a signal arrived.
  package func checkpoint() throws {
    if let signal = received { throw JobInterrupted(signal: signal) }
  }

  /// A store whose staging the watchdog removes; a build of several buildings attaches each.
  package func attach(_ store: any TileStore) { attached.withLock { $0.stores.append(store) } }

  /// Runs the commit; a signal arriving meanwhile waits for it (it takes milliseconds).
  package func committing(_ body: () throws -> Void) throws {
    inCommit.store(true, ordering: .relaxed)
    defer { inCommit.store(false, ordering: .relaxed) }
    if let signal = received { throw JobInterrupted(signal: signal) }
    try body()
  }

  /// On the watcher thread: stop the work, give the run half a second to clean up
  /// by itself, then do it here and exit.
  private func fire(_ sig: Int32) {
    guard signalled.compareExchange(expected: 0, desired: sig, ordering: .relaxed).exchanged else { return }
    attached.withLock { $0.pool }?.cancel()
    Vips.cancelAll()
    usleep(500_000)
    while inCommit.load(ordering: .relaxed) { usleep(5_000) }
    if finished.load(ordering: .relaxed) { return }
    for store in attached.withLock({ $0.stores }) { store.abort() }
    printer.discard()
    printer.error("interrupted by \(sig == SIGINT ? "SIGINT" : "SIGTERM"); the previous output is unchanged")
    _exit(ExitStatus.signalled(sig))
  }

  package func stop() {
    finished.store(true, ordering: .relaxed)
    if received == nil { SignalPipe.shared.stop() }
  }
}

/// The write end of the signal pipe, read by the handler (a plain global: no lazy
/// initialisation inside a signal handler).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// SIGINT and SIGTERM delivered through a self-pipe to one listener at a time.
package final class SignalPipe: @unchecked Sendable {
  package static let shared = SignalPipe()
  private let listener = Mutex<(@Sendable (Int32) -> Void)?>(nil)
  private var readEnd: Int32 = -1

  private init() {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return }
    _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
    readEnd = fds[0]
    // no listener thread (the system could not start one): signals keep their default
    // action, ending the process (its staging is removed by the next run)
    let started: ()? = try? OwnThread.start(name: "signals") { [self] in
      var byte: UInt8 = 0
      while true {
        let n = read(readEnd, &byte, 1)
        if n == 1 {
          let sig = Int32(byte)
          if let body = listener.withLock({ $0 }) {
            body(sig)
          } else {
            // no run is under way (parsing, planning before staging): nothing to undo
            let line = "error: interrupted by \(sig == SIGINT ? "SIGINT" : "SIGTERM")\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
            _exit(ExitStatus.signalled(sig))
          }
        } else if n < 0 && errno == EINTR {
          continue
        } else {
          return
        }
      }
    }
    guard started != nil else {
      readEnd = -1
      close(fds[0])
      close(fds[1])
      return
    }
    signalPipeWriteEnd = fds[1]
  }

  /// Sends every signal to `body` until `stop()`.
  func listen(_ body: @escaping @Sendable (Int32) -> Void) {
    install()
    listener.withLock { $0 = body }
  }

  private let installed = Atomic<Bool>(false)

  /// Catches SIGINT and SIGTERM from now on, even when the shell that started us
  /// ignored SIGINT (a background job): with no listener a signal ends the process
  /// at once with 128 + its number, as the default action would.
  package func install() {
    guard signalPipeWriteEnd >= 0, installed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
    // a parent may have left these blocked (a test runner, a CI agent): take them
    var wanted = sigset_t()
    sigemptyset(&wanted)
    sigaddset(&wanted, SIGINT)
    sigaddset(&wanted, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
    for sig in [SIGINT, SIGTERM] {
      let handler: @convention(c) (Int32) -> Void = { sig in
        var byte = UInt8(truncatingIfNeeded: sig)
        let saved = errno
        _ = write(signalPipeWriteEnd, &byte, 1)
        errno = saved
      }
      _ = tc_on_signal(sig, handler)
    }
  }

  /// Ends the listening: a later signal ends the process at once.
  package func stop() {
    listener.withLock { $0 = nil }
  }
}
