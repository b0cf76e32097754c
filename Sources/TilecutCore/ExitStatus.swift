/// Every exit status tilecut uses, the one place that defines them (the table of
/// Sources/Tilecut/Tilecut.docc/ExitStatus.md is checked against this list by a test).
public enum ExitStatus: Int32, CaseIterable, Sendable {
  /// Success, including "up to date".
  case success = 0
  /// Bad input or a processing error: an unreadable file, a file's own bad georeference,
  /// disk full, verify found problems, a library that ran out of memory or aborted
  /// (TC_STOP_STATUS, written by the fatal-signal and std::terminate handlers in C).
  case failure = 1
  /// Usage: an unknown option, a bad option value, or a placement the options give that
  /// is refused (a --gcp fit above the residual, a --strict warning).
  case usage = 2
  /// Interrupted by SIGINT (128 + 2); the previous output is intact.
  case interrupted = 130
  /// Terminated by SIGTERM (128 + 15); the previous output is intact.
  case terminated = 143

  /// The status of a run ended by a signal.
  public static func signalled(_ signal: Int32) -> Int32 { 128 + signal }
}
