import Foundation
import TilecutCore
import TilecutProject
import TilecutVips

/// A failure as tilecut reports it: one line and the exit status of the process.
///
/// The one place an error becomes an exit status: 1 for an input or processing
/// failure, 2 for a usage error (an option or the project file), 128 + the signal
/// for an interrupted run.
public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
  /// The line to print after "error: ".
  public var line: String
  /// The exit status (`ExitStatus`'s raw values, or 128 + signal).
  public var status: Int32
  /// Further lines, each printed after "error: " below the first: the other mistakes
  /// of a project file, all reported at once.
  public var more: [String] = []

  /// A failure with this line and status.
  public init(line: String, status: Int32) {
    self.line = line
    self.status = status
  }

  /// A usage error (exit status 2): an option, or a combination of options, refused
  /// by the library's checks; `line` names the option and what to do.
  public static func usage(_ line: String) -> Failure {
    Failure(line: line, status: ExitStatus.usage.rawValue)
  }

  /// The line and status of `error`, whatever its type (the CLI maps its parser's
  /// own errors to ``usage(_:)`` before it asks).
  public init(_ error: any Error) {
    switch error {
    case let failure as Failure:
      self = failure
    case let interrupted as JobInterrupted:
      line = "interrupted by \(interrupted.signal == SIGINT ? "SIGINT" : "SIGTERM"); the previous output is unchanged"
      status = ExitStatus.signalled(interrupted.signal)
    case let error as TilecutError:
      line = error.description
      status = error.exitCode
    case let error as VipsError:
      line = error.description
      status = ExitStatus.failure.rawValue
    case let error as ProjectError:
      // a mistake in the project file, found while loading or while placing its floors
      line = error.description
      status = ExitStatus.usage.rawValue
    case let errors as ProjectErrors:
      line = errors.errors.first?.description ?? "the project file has mistakes"
      more = errors.errors.dropFirst().map(\.description)
      status = ExitStatus.usage.rawValue
    default:
      // anything else is still a processing failure: one sentence, exit 1
      line = sentence(for: error)
      status = ExitStatus.failure.rawValue
    }
  }

  public var description: String { line }
}

/// One line for an error that is not tilecut's own (a Foundation or system error).
func sentence(for error: any Error) -> String {
  let ns = error as NSError
  var text = ns.localizedDescription
  if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
    text += " (" + String(cString: strerror(Int32(underlying.code))) + ")"
  }
  let line = text.split(separator: "\n").first.map(String.init) ?? "\(error)"
  return line.isEmpty ? "unexpected failure: \(error)" : line
}
