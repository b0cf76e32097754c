import Dispatch
import Foundation
import TilecutCore

#if canImport(Glibc)
  import Glibc
#endif

/// One finished process: how it ended, what it said, the most memory it held.
struct ProbeResult: Sendable {
  var status: Int32
  /// The signal that killed it, or 0.
  var signal: Int32
  var maxResidentKB: Int
  var stderr: String
  var timedOut: Bool
}

/// Runs the tilecut binary (or any program) with posix_spawn and wait4, which
/// reports the child's peak resident memory; a child that outlives `timeout` is killed.
func probe(_ program: String, _ args: [String], timeout: Double = 30) -> ProbeResult {
  let errPath = NSTemporaryDirectory() + "tilecut-probe-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).err"
  defer { unlink(errPath) }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
  posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
  let argv = ([program] + args).map { strdup($0) } + [nil]
  defer { for p in argv { free(p) } }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
  guard spawned == 0 else {
    return ProbeResult(status: -1, signal: 0, maxResidentKB: 0, stderr: "spawn failed: \(spawned)", timedOut: false)
  }
  var status: Int32 = 0
  var usage = rusage()
  // The child's end is waited for, not polled: waitid(WNOWAIT) blocks until it has
  // exited and leaves it unreaped, so the watchdog that kills it after `timeout` can
  // never signal a reused pid; wait4 then reaps it and gives its peak memory.
  let watchdog = ProbeWatchdog()
  let child = pid
  let killer = DispatchWorkItem {
    watchdog.lock.withLock {
      if !watchdog.exited {
        watchdog.timedOut = true
        kill(child, SIGKILL)
      }
    }
  }
  DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
  var info = siginfo_t()
  while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
  watchdog.lock.withLock { watchdog.exited = true }
  killer.cancel()
  while wait4(child, &status, 0, &usage) < 0 && errno == EINTR {}
  let timedOut = watchdog.lock.withLock { watchdog.timedOut }
  let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
  let signalled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
  return ProbeResult(
    status: signalled ? -1 : (status >> 8) & 0xff, signal: signalled ? status & 0x7f : 0, maxResidentKB: usage.ru_maxrss,
    stderr: err, timedOut: timedOut)
}

/// Whether a probed child has exited, and whether its watchdog killed it (under `lock`).
private final class ProbeWatchdog: @unchecked Sendable {
  let lock = NSLock()
  var exited = false
  var timedOut = false
}
