import Foundation

/// A campus as its project file (`tilecut.yml`) describes it: run-wide options and buildings.
public struct Project: Sendable, Equatable {
  /// The project file, as given.
  public var file: String
  /// Relative paths in the file are relative to this directory.
  public var directory: String
  /// Run-wide options, each the camelCase of a CLI long option (`maxZoom` is `--max-zoom`).
  public var options: [ProjectOption]
  public var buildings: [Building]

  public init(file: String, directory: String, options: [ProjectOption], buildings: [Building]) {
    self.file = file
    self.directory = directory
    self.options = options
    self.buildings = buildings
  }

  /// The option named `key`, if the file gives it.
  public func option(_ key: String) -> ProjectOption? { options.first { $0.key == key } }
}

/// Where something is in the project file, 1-based as editors count.
public struct SourceMark: Sendable, Equatable, Hashable, CustomStringConvertible {
  public var line: Int
  public var column: Int

  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  public var description: String { "\(line):\(column)" }
}

/// One option of the file: its key, its value and where it was written.
public struct ProjectOption: Sendable, Equatable {
  public var key: String
  public var value: OptionValue
  public var mark: SourceMark

  public init(key: String, value: OptionValue, mark: SourceMark) {
    self.key = key
    self.value = value
    self.mark = mark
  }

  /// The CLI long option this key mirrors (`maxZoom` → `--max-zoom`).
  public var cliOption: String { ProjectKeys.cliOption(for: key) }
}

/// A value of an option, already checked against its key's kind.
public enum OptionValue: Sendable, Equatable {
  case bool(Bool)
  case int(Int)
  case number(Double)
  case string(String)
  /// A list of numbers (`bounds`, `center`, `tileSizes`, `bands`, `scale`).
  case numbers([Double])
  /// A list of lists of numbers (`gcp`).
  case rows([[Double]])
}
