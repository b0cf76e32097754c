import Foundation
import TilecutCore

/// `--shard env`: the shard index and count from the batch engine that started the run.
enum ShardEnvironment {
  static let help =
    "JOB_COMPLETION_INDEX (Kubernetes Indexed Job, with the count as env/N or TILECUT_SHARD_COUNT) or AWS_BATCH_JOB_ARRAY_INDEX and AWS_BATCH_JOB_ARRAY_SIZE (AWS Batch array job)"

  /// Resolves `env` or `env/N` against the environment; both engines count from 0,
  /// shards from 1. An explicit N wins over the environment's count.
  static func selector(spec: String, environment: [String: String]) throws -> (index: Int, count: Int) {
    try selector(spec: spec, count: try count(spec: spec), environment: environment)
  }

  /// The N of `env/N`, nil for `env`; other text is refused in `--shard`'s words.
  static func count(spec: String) throws -> Int? {
    let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
    if parts.count == 2 {
      guard let n = Int(parts[1]), n >= 1 else { throw Failure.usage("--shard: '\(Quote.value(spec))' is not env/N with N ≥ 1") }
      return n
    } else if parts.count != 1 {
      throw Failure.usage("--shard: '\(Quote.value(spec))' is not env or env/N")
    }
    return nil
  }

  /// `env` (`spec`, with `count` when it says N) resolved against the environment.
  static func selector(spec: String, count: Int?, environment: [String: String]) throws -> (index: Int, count: Int) {
    var count = count
    func number(_ name: String) throws -> Int? {
      guard let text = environment[name] else { return nil }
      guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
        throw Failure.usage("--shard: \(name)='\(Quote.value(text))' is not a whole number ≥ 0")
      }
      return n
    }
    let index: Int
    if let aws = try number("AWS_BATCH_JOB_ARRAY_INDEX") {
      index = aws
      count = try count ?? number("AWS_BATCH_JOB_ARRAY_SIZE")
    } else if let k8s = try number("JOB_COMPLETION_INDEX") {
      index = k8s
      count = try count ?? number("TILECUT_SHARD_COUNT")
    } else {
      throw Failure.usage("--shard: \(spec) needs \(help) in the environment")
    }
    guard let count, count >= 1 else {
      throw Failure.usage("--shard: the shard count is unknown; give --shard env/N or set TILECUT_SHARD_COUNT")
    }
    guard index < count else {
      throw Failure.usage("--shard: index \(index) from the environment is not below the count \(count)")
    }
    return (index + 1, count)
  }
}
