/// One wording for a number below what an option takes. Options that take numbers
/// parse their value unconditionally, so `--floors -1` reaches this line instead of
/// swift-argument-parser's "Missing value" (a leading `-` looks like a flag to it).
package enum OptionNumbers {
  /// `--floors: must be at least 1, got -1`; `what` names a part (`K` of `--shard K/N`).
  package static func atLeast<T: Comparable & CustomStringConvertible>(_ option: String, _ minimum: T, got value: T, what: String? = nil) -> String {
    "\(option): \(what.map { $0 + " " } ?? "")must be at least \(minimum), got \(value)"
  }
}
