import Foundation
import TilecutCore

/// `--shard`: a share K of N of the tiles, or the share a batch job's environment names.
public enum ShardOption: Sendable, Codable, Equatable, CustomStringConvertible {
  /// `K/N`: the K-th (1-based) of N shares.
  case part(index: Int, count: Int)
  /// `env` or `env/N`: K (and N, unless given) from a Kubernetes Indexed Job or an
  /// AWS Batch array job, read when the run is checked.
  case environment(count: Int?)

  /// `--shard`'s text (`2/4`, `env`, `env/8`), refused as a usage error in the option's words.
  public init(parsing text: String) throws {
    if text == "env" || text.hasPrefix("env/") {
      self = .environment(count: try ShardEnvironment.count(spec: text))
      return
    }
    let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Int($0) }
    if parts.count == 2, let k = parts[0], k < 1 { throw Failure.usage(OptionNumbers.atLeast("--shard", 1, got: k, what: "K")) }
    if parts.count == 2, let n = parts[1], n < 1 { throw Failure.usage(OptionNumbers.atLeast("--shard", 1, got: n, what: "N")) }
    guard parts.count == 2, let k = parts[0], let n = parts[1] else { throw Self.notKOfN(text) }
    try Self.check(index: k, count: n, text: text)
    self = .part(index: k, count: n)
  }

  /// The K/N refusals, in the order the command line has always said them.
  static func check(index k: Int, count n: Int, text: String) throws {
    if k < 1 { throw Failure.usage(OptionNumbers.atLeast("--shard", 1, got: k, what: "K")) }
    if n < 1 { throw Failure.usage(OptionNumbers.atLeast("--shard", 1, got: n, what: "N")) }
    guard (1...PlanLimits.maxShards).contains(n), (1...n).contains(k) else { throw notKOfN(text) }
  }

  static func notKOfN(_ text: String) -> Failure {
    Failure.usage("--shard: '\(Quote.value(text))' is not K/N with 1 ≤ K ≤ N ≤ \(PlanLimits.maxShards) (e.g. 2/4)")
  }

  /// As `--shard` writes it.
  public var description: String {
    switch self {
    case .part(let k, let n): return "\(k)/\(n)"
    case .environment(let n): return "env" + (n.map { "/\($0)" } ?? "")
    }
  }

  /// The share this run renders; `.environment` is read from `environment`.
  func selector(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ShardSelector {
    switch self {
    case .part(let k, let n):
      try Self.check(index: k, count: n, text: description)
      return ShardSelector(index: k, count: n)
    case .environment(let n):
      let (k, count) = try ShardEnvironment.selector(spec: description, count: n, environment: environment)
      return ShardSelector(index: k, count: count)
    }
  }
}
