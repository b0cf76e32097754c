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
