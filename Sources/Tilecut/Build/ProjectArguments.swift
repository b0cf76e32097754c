import Foundation
import TilecutCore
import TilecutProject
import TilecutVips

/// Fills the library's option values (``OutputOptions``, ``PyramidOptions``, …) from the
/// project file's keys, whose values the loader has already typed, then runs the same
/// checks as the command line; a refusal names the key's line and column.
enum ProjectArguments {
  /// The keys each option group takes.
  static let outputKeys = ["output", "name", "force", "preview", "store", "depfile", "changes"]
  static let pyramidKeys = ["minZoom", "maxZoom", "tileSize", "tileSizes", "retinaDepth", "resampling", "maxTiles"]
  static let encodingKeys = ["format", "pngCompression", "palette", "quality", "webpEffort", "jpegOptimize", "background", "knockout"]
  static let runKeys = ["jobs", "maxPixels", "noVector"]
  /// Per floor, the keys that are not `PlacementOptions`' (they shape the layer's pixels).
  static let layerPixelKeys = ["knockout", "background"]
  /// The colour options, in the order the command line reads them (after its other checks).
  static let colorOptions = ["--background", "--knockout"]
  /// Per floor, the keys of an IMDF venue's drawing (`FloorOptions`' `--language`, `--venue-style`).
  static let venueKeys = ["language", "venueStyle"]

  /// A value from outside the file (the command line's, which wins), by the option it sets.
  struct Setting {
    var cliOption: String
    var value: OptionValue

    init(_ cliOption: String, _ value: OptionValue) {
      self.cliOption = cliOption
      self.value = value
    }
  }

  /// Fills `T`'s defaults from the file's options among `keys`, then `extra`, and checks
  /// the result with `problems`; `set` takes one option, by its CLI name. Every value
  /// that cannot be set is refused at its key; when all could be, every problem the
  /// checks find is, each at the key it names. One mistake is thrown as a
  /// ``ProjectError``, several as ``ProjectErrors`` (the first as it was always said).
  /// The values of `checkedLast` (CLI options, in the order the command line reads them)
  /// are refused after the checks, as the command line refuses them.
  static func fill<T>(
    _ defaults: T, options: [ProjectOption], keys: [String], extra: [Setting] = [], overridden: Set<String> = [], file: String,
    fallback: SourceMark?, checkedLast: [String] = [], set: (inout T, String, OptionValue) throws -> Void, problems: (T) -> [OptionProblem]
  ) throws -> T {
    let mine = options.filter { keys.contains($0.key) && !overridden.contains($0.key) }
    func filled(_ mine: [ProjectOption], _ extra: [Setting]) -> (value: T, problems: [String]) {
      var value = defaults
      var found: [String] = []
      var last: [(rank: Int, line: String)] = []
      for option in mine {
        do { try set(&value, option.cliOption, option.value) } catch {
          if let rank = checkedLast.firstIndex(of: option.cliOption) {
            last.append((rank, Failure(error).line))
          } else {
            found.append(Failure(error).line)
          }
        }
      }
      for setting in extra {
        do { try set(&value, setting.cliOption, setting.value) } catch { found.append(Failure(error).line) }
      }
      if found.isEmpty { found = problems(value).map(\.message) + last.sorted { $0.rank < $1.rank }.map(\.line) }
      return (value, found)
    }
    let (value, found) = filled(mine, extra)
    guard !found.isEmpty else { return value }
    // each at the key the message names last in the file (the second of two that
    // clash), else the one that fails alone, else the first of the group
    let given = mine.flatMap { arguments($0.cliOption, $0.value) } + extra.flatMap { arguments($0.cliOption, $0.value) }
    var alone: [String: Bool] = [:]
    let errors = found.map { line -> ProjectError in
      let message = Quote.firstLine(of: line, values: given)
      let named = mine.filter { message.contains($0.cliOption) }.max { ($0.mark.line, $0.mark.column) < ($1.mark.line, $1.mark.column) }
      let culprit =
        named
        ?? mine.first { option in
          if let known = alone[option.key] { return known }
          let fails = !filled([option], []).problems.isEmpty
          alone[option.key] = fails
          return fails
        } ?? mine.first
      return ProjectError(file: file, mark: culprit?.mark ?? fallback, message: explain(message, culprit))
    }
    throw ProjectErrors.of(errors)
  }

  /// `--max-zoom=21` (the text the command line would give, to quote values in a message).
  static func arguments(_ cli: String, _ value: OptionValue) -> [String] {
    switch value {
    case .bool(let b): return b ? [cli] : []
    case .rows(let rows): return rows.map { "\(cli)=" + $0.map(number).joined(separator: ",") }
    default: return ["\(cli)=" + text(value)]
    }
  }

  /// A value as the command line writes it: numbers without a needless `.0`, lists comma-separated.
  static func text(_ value: OptionValue) -> String {
    switch value {
    case .bool(let b): return b ? "true" : "false"
    case .int(let n): return "\(n)"
    case .number(let d): return number(d)
    case .string(let s): return s
    case .numbers(let values): return values.map(number).joined(separator: ",")
    case .rows(let rows): return rows.map { $0.map(number).joined(separator: ",") }.joined(separator: " ")
    }
  }

  static func number(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
  }

  /// The checks' sentence, said of the key instead of the option where it names one.
  static func explain(_ message: String, _ option: ProjectOption?) -> String {
    guard let option else { return message }
    let text = message.replacingOccurrences(of: option.cliOption, with: option.key)
    return text.hasPrefix(option.key + ":") ? text : "'\(option.key)': " + text
  }
}

/// One value for one option, read as the command line reads its text, refused in its words.
struct OptionValueReader {
  var cli: String
  var value: OptionValue

  /// "The value 'x' is invalid for '--store <kind>'. Please provide one of …", as swift-argument-parser says it.
  func invalid(_ valueName: String, choices: [String] = []) -> Failure {
    var line = "The value '\(ProjectArguments.text(value))' is invalid for '\(cli) <\(valueName)>'"
    if !choices.isEmpty {
      let quoted = choices.map { "'\($0)'" }
      if quoted.count > 5 {
        line += ". Please provide one of the following:\n" + choices.map { "  - \($0)" }.joined(separator: "\n")
      } else {
        let list =
          quoted.count <= 2 ? quoted.joined(separator: " and ") : quoted.dropLast().joined(separator: ", ") + " or \(quoted[quoted.count - 1])"
        line += ". Please provide one of \(list)."
      }
    }
    return .usage(line)
  }

  var string: String { ProjectArguments.text(value) }

  var bool: Bool {
    if case .bool(let b) = value { return b }
    return true
  }

  func int(_ valueName: String) throws -> Int {
    if case .int(let n) = value { return n }
    guard let n = Int(string) else { throw invalid(valueName) }
    return n
  }

  func double(_ valueName: String) throws -> Double {
    switch value {
    case .number(let d): return d
    case .int(let n): return Double(n)
    default:
      guard let d = OptionNumber.parse(string) else { throw invalid(valueName) }
      return d
    }
  }

  /// A colour with its tolerance (`white:8`), read as the command line reads it.
  func color() throws -> ColorRule { try ColorRule(parsing: string, option: cli) }

  func choice<T: RawRepresentable & CaseIterable>(_ valueName: String, _ make: (String) -> T?, choices: [String]? = nil) throws -> T
  where T.RawValue == String {
    guard let chosen = make(string) else { throw invalid(valueName, choices: choices ?? T.allCases.map(\.rawValue)) }
    return chosen
  }

  /// A key the group does not take (the key lists and the setters disagree).
  var unknown: Failure { .usage("Unknown option '\(cli)'") }
}
