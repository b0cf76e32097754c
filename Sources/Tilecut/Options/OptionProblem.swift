import Foundation

/// One thing wrong with a request's options, in the words the command line says it.
public struct OptionProblem: Sendable, Equatable, CustomStringConvertible {
  /// The sentence, naming the option and what to do (`--min-zoom: 5 is above --max-zoom 2`).
  public var message: String

  public init(_ message: String) { self.message = message }

  public var description: String { message }
}

/// Problems gathered in the order the checks run; a shared check that throws adds its line.
struct ProblemList {
  var items: [OptionProblem] = []

  mutating func add(_ message: String) { items.append(OptionProblem(message)) }

  mutating func check(_ body: () throws -> Void) {
    do { try body() } catch { add(Failure(error).line) }
  }
}

extension [OptionProblem] {
  /// The first problem as the usage error the command line prints; nothing when there is none.
  public func throwFirst() throws {
    if let first { throw Failure.usage(first.message) }
  }
}
