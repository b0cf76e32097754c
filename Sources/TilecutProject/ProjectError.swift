import Foundation

/// A mistake in the project file: where it is and what to do about it.
public struct ProjectError: Error, Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var mark: SourceMark?
  public var message: String

  public init(file: String, mark: SourceMark?, message: String) {
    self.file = file
    self.mark = mark
    self.message = message
  }

  /// `tilecut.yml:12:7: unknown key 'metersPerPixle'; did you mean 'metersPerPixel'?`
  public var description: String { "\(file)\(mark.map { ":\($0.line):\($0.column)" } ?? ""): \(message)" }
}

/// Every mistake found in a project file, in the order they were found; the first is
/// the one a single line has always shown.
public struct ProjectErrors: Error, Sendable, Equatable, CustomStringConvertible {
  public var errors: [ProjectError]

  public init(_ errors: [ProjectError]) { self.errors = errors }

  /// One mistake as itself, several (or none) as ``ProjectErrors``.
  public static func of(_ errors: [ProjectError]) -> any Error {
    errors.count == 1 ? errors[0] : ProjectErrors(errors)
  }

  /// One line per mistake.
  public var description: String { errors.map(\.description).joined(separator: "\n") }

  /// The mistakes of `errors` (a ``ProjectError`` or ``ProjectErrors``), or nil for any other error.
  public static func listing(_ error: any Error) -> [ProjectError]? {
    switch error {
    case let one as ProjectError: return [one]
    case let many as ProjectErrors: return many.errors
    default: return nil
    }
  }
}
