import CTilecutPlatform
import Foundation
import Synchronization
import TilecutCore

/// Everything tilecut says on stderr goes through here, one line at a time, so
/// worker threads never interleave and the progress bar is redrawn cleanly.
public final class Printer: Sendable {
  /// `quiet` (`-q`) drops progress and summaries but keeps every warning and note;
  /// `silent` (a library caller without a progress callback) keeps errors only.
  public enum Verbosity: Sendable { case silent, quiet, normal }

  public let verbosity: Verbosity
  /// True when a person watches stderr: then the progress bar redraws in place.
  public let isTerminal: Bool
  private let state = Mutex<State>(State())
  /// Where lines go instead of stderr (a library caller's progress callback), if set.
  private let sink: (@Sendable (String) -> Void)?

  struct State {
    var barShown = false
    var lastDraw = 0.0
    /// Without a terminal, lines wait here until the run succeeds or has run long
    /// enough that a log wants to see it alive: a failure is then one line alone.
    var held: [String] = []
    var holding = false
    var holdStarted = 0.0
  }

  /// How long a run without a terminal keeps its lines back.
  static let holdSeconds = 10.0

  /// Starts keeping lines back (no effect on a terminal).
  public func hold() {
    guard !isTerminal, sink == nil else { return }
    state.withLock { s in
      s.holding = true
      s.holdStarted = Date.timeIntervalSinceReferenceDate
    }
  }

  /// Prints what was kept back and stops keeping lines (the run went well).
  public func release() {
    let lines = state.withLock { s -> [String] in
      s.holding = false
      defer { s.held = [] }
      return s.held
    }
    for line in lines { write(line) }
  }

  /// Forgets the plain lines kept back, keeping the warnings (an up-to-date run says so
  /// in one line; the placement it repeats was logged by the run that wrote the output).
  public func keepOnlyWarnings() {
    state.withLock { s in s.held = s.held.filter { $0.hasPrefix("warning:") } }
  }

  /// Forgets what was kept back (the run failed: its error says what matters).
  public func discard() {
    state.withLock { s in
      s.holding = false
      s.held = []
    }
  }

  public init(verbosity: Verbosity = .normal, isTerminal: Bool? = nil) {
    self.verbosity = verbosity
    self.isTerminal = isTerminal ?? (isatty(tc_stderr_fd()) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb")
    self.sink = nil
  }

  /// A printer that hands every line to `sink` (no terminal, nothing held back).
  public init(verbosity: Verbosity = .normal, sink: @escaping @Sendable (String) -> Void) {
    self.verbosity = verbosity
    self.isTerminal = false
    self.sink = sink
  }

  /// A plain line (progress, summary); dropped with --quiet.
  public func info(_ line: String) {
    guard verbosity == .normal else { return }
    emit(line)
  }

  /// A warning: kept with --quiet (a CI log must show a plan placed at 85° N).
  public func warning(_ line: String) {
    guard verbosity != .silent else { return }
    emit("warning: " + line)
  }

  /// A note on how an input was read or placed ("has no georeference: placed in
  /// pixel space…"): kept with --quiet, as warnings are.
  public func note(_ line: String) {
    guard verbosity != .silent else { return }
    emit("note: " + line)
  }

  /// An error line; always shown (escaped into one line by `emit`, as every line).
  public func error(_ line: String) { emit("error: " + line, important: true) }

  /// Redraws the one-line progress bar (terminal only, at most 10 times a second unless `force`).
  public func progress(_ line: @autoclosure () -> String, force: Bool = false) {
    guard verbosity == .normal, isTerminal else { return }
    let now = Date.timeIntervalSinceReferenceDate
    state.withLock { s in
      guard force || now - s.lastDraw >= 0.1 else { return }
      s.lastDraw = now
      s.barShown = true
      Self.write("\r\u{1B}[2K" + Quote.line(line()))
    }
  }

  /// Clears the bar so the next line starts clean.
  public func endProgress() {
    state.withLock { s in
      if s.barShown { Self.write("\r\u{1B}[2K") }
      s.barShown = false
    }
  }

  /// Every line goes out here: a file name, a CRS's name or a value with a control
  /// character in it (an escape sequence that would set the terminal's title or write
  /// its clipboard, a newline that would forge a line) is shown escaped, and a line
  /// never runs on for megabytes (``Quote/line(_:limit:)``).
  private func emit(_ text: String, important: Bool = false) {
    let line = Quote.line(text)
    state.withLock { s in
      if s.holding && !important {
        s.held.append(line)
        guard Date.timeIntervalSinceReferenceDate - s.holdStarted > Self.holdSeconds else { return }
        s.holding = false
        for l in s.held { write(l) }
        s.held = []
        return
      }
      if s.barShown {
        Self.write("\r\u{1B}[2K")
        s.barShown = false
        s.lastDraw = 0
      }
      write(line)
    }
  }

  /// One line to the sink, or to stderr.
  private func write(_ line: String) {
    if let sink { sink(line) } else { Self.write(line + "\n") }
  }

  private static func write(_ text: String) {
    var t = text
    t.withUTF8 { buf in
      // a failed write to stderr has nowhere to be reported; tc_stderr_fd is the real
      // stderr when the command-line tool keeps libraries' messages off it
      guard let base = buf.baseAddress else { return }
      _ = tc_write_all(tc_stderr_fd(), base, buf.count)
    }
  }

  /// Writes a result for people to stdout, line by line, each escaped as on stderr.
  public static func result(_ text: String) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Quote.escaped($0) }
    resultDocument(lines.joined(separator: "\n"))
  }

  /// Writes a JSON document to stdout as it is (JSON escapes its own strings).
  public static func resultDocument(_ text: String) {
    FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
  }
}

/// Human units for the summary.
package enum Format {
  package static func bytes(_ n: Int) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"]
    var v = Double(n)
    var i = 0
    while v >= 1000 && i < units.count - 1 {
      v /= 1000
      i += 1
    }
    return i == 0 ? "\(n) B" : String(format: "%.1f %@", v, units[i])
  }

  package static func seconds(_ s: Double) -> String {
    if s < 60 { return String(format: "%.1fs", s) }
    return String(format: "%dm%02ds", Int(s) / 60, Int(s) % 60)
  }
}
