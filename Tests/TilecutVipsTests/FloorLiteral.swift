import TilecutCore

/// Tests name floors by number (`floor: 1`, `floors: [0, 1]`); the library takes
/// numbers only through `Floor`'s checked initialisers.
extension Floor: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: Int) {
    // a literal outside Floor.range is a mistake in the test itself
    guard let floor = Floor(value) else { preconditionFailure("test floor \(value) is outside \(Floor.range)") }
    self = floor
  }
}
