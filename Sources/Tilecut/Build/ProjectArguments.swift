import ArgumentParser
import Foundation
import TilecutCore
import TilecutProject

/// Turns the project file's options into the CLI's option groups, so a key has the
/// option's parsing, defaults and checks; a refusal names the key's line and column.
enum ProjectArguments {
  /// The keys each option group takes.
  static let outputKeys = ["output", "name", "force", "preview", "store", "depfile", "changes"]
  static let pyramidKeys = ["minZoom", "maxZoom", "tileSize", "tileSizes", "retinaDepth", "resampling", "maxTiles"]
  static let encodingKeys = ["format", "pngCompression", "palette", "quality", "webpEffort", "jpegOptimize", "background", "knockout"]
  static let runKeys = ["jobs", "maxPixels", "noVector"]
  /// Per floor, the keys that are not `PlacementOptions`' (they shape the layer's pixels).
  static let layerPixelKeys = ["knockout", "background"]
  /// Per floor, the keys of an IMDF venue's drawing (`FloorOptions`' `--language`, `--venue-style`).
  static let venueKeys = ["language", "venueStyle"]

  /// `--max-zoom=21`: the `=` form, so negative numbers are never taken for options.
  static func arguments(_ option: ProjectOption) -> [String] {
    let cli = option.cliOption
    switch option.value {
    case .bool(let b): return b ? [cli] : []
    case .int(let n): return ["\(cli)=\(n)"]
    case .number(let d): return ["\(cli)=\(number(d))"]
    case .string(let s): return ["\(cli)=\(s)"]
    case .numbers(let values): return ["\(cli)=" + values.map(number).joined(separator: ",")]
    case .rows(let rows): return rows.map { "\(cli)=" + $0.map(number).joined(separator: ",") }
    }
  }

  static func number(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : "\(d)"
  }

  /// Parses `T` from the file's options among `keys`, then `extra` (the command line's, which win).
  static func parse<T: ParsableArguments>(
    _ type: T.Type, options: [ProjectOption], keys: [String], extra: [String] = [], overridden: Set<String> = [], file: String,
    fallback: SourceMark?
  ) throws -> T {
    let mine = options.filter { keys.contains($0.key) && !overridden.contains($0.key) }
    do {
      return try T.parse(mine.flatMap(arguments) + extra)
    } catch {
      // the key the message names last in the file (the second of two that clash),
      // else the one that fails alone, else the first of the group
      let message = Quote.firstLine(of: T.message(for: error), values: mine.flatMap(arguments) + extra)
      let named = mine.filter { message.contains($0.cliOption) }.max { ($0.mark.line, $0.mark.column) < ($1.mark.line, $1.mark.column) }
      let culprit = named ?? mine.first { option in (try? T.parse(arguments(option))) == nil } ?? mine.first
      throw ProjectError(file: file, mark: culprit?.mark ?? fallback, message: explain(message, culprit))
    }
  }

  /// The parser's sentence, said of the key instead of the option where it names one.
  static func explain(_ message: String, _ option: ProjectOption?) -> String {
    guard let option else { return message }
    let text = message.replacingOccurrences(of: option.cliOption, with: option.key)
    return text.hasPrefix(option.key + ":") ? text : "'\(option.key)': " + text
  }
}
