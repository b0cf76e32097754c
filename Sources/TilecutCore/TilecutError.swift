/// Errors the library reports; each message is one lowercase line naming what is wrong.
public enum TilecutError: Error, Equatable, CustomStringConvertible, Sendable {
  case invalidOption(option: String, reason: String)
  case invalidInput(path: String, reason: String)
  case output(path: String, reason: String)
  case tooManyTiles(count: Int, limit: Int, zoom: Int)
  /// The system refused what the run needs (a thread); `reason` is the whole line.
  case system(reason: String)
  case cancelled

  /// 2 for a usage error (a bad option value), 1 for everything else.
  public var exitCode: Int32 {
    if case .invalidOption = self { return ExitStatus.usage.rawValue }
    return ExitStatus.failure.rawValue
  }

  public var description: String {
    switch self {
    case .invalidOption(let option, let reason): return "\(option): \(reason)"
    case .invalidInput(let path, let reason): return "\(path): \(reason)"
    case .output(let path, let reason): return "\(path): \(reason)"
    case .tooManyTiles(let count, let limit, let zoom):
      return
        "the job would write \(count) tiles, more than --max-tiles \(limit); zoom \(zoom) alone is the largest part. Lower --max-zoom or raise --max-tiles"
    case .system(let reason): return reason
    case .cancelled: return "interrupted; the previous output is unchanged"
    }
  }
}
