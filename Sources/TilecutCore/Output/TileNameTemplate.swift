/// A file-name pattern with `{floor} {z} {x} {y} {size}` placeholders, relative to the output root.
public struct TileNameTemplate: Hashable, Sendable, Codable, CustomStringConvertible {
  public static let defaultPattern = "{size}/L{floor}_{z}_{x}_{y}.png"
  public static let placeholders = ["floor", "z", "x", "y", "size"]

  public let pattern: String
  private let parts: [Part]

  private enum Part: Hashable, Sendable {
    case text(String)
    case field(String)
  }

  public var description: String { pattern }

  /// Parses and checks a pattern; `option` names the CLI option in errors.
  public init(_ pattern: String, option: String = "--name") throws {
    var parts: [Part] = []
    var text = ""
    var index = pattern.startIndex
    while index < pattern.endIndex {
      let ch = pattern[index]
      if ch == "{" {
        guard let close = pattern[index...].firstIndex(of: "}") else {
          throw TilecutError.invalidOption(option: option, reason: "'\(pattern)' has a '{' without a closing '}'")
        }
        let name = String(pattern[pattern.index(after: index)..<close])
        guard Self.placeholders.contains(name) else {
          throw TilecutError.invalidOption(
            option: option,
            reason: "'{\(name)}' is not a placeholder; use \(Self.placeholders.map { "{\($0)}" }.joined(separator: " "))")
        }
        if !text.isEmpty { parts.append(.text(text)) }
        text = ""
        parts.append(.field(name))
        index = pattern.index(after: close)
      } else {
        text.append(ch)
        index = pattern.index(after: index)
      }
    }
    if !text.isEmpty { parts.append(.text(text)) }
    for needed in ["z", "x", "y"] where !parts.contains(.field(needed)) {
      throw TilecutError.invalidOption(option: option, reason: "'\(pattern)' has no {\(needed)}: tiles would overwrite each other")
    }
    if pattern.hasPrefix("/") {
      throw TilecutError.invalidOption(option: option, reason: "'\(pattern)' is absolute; names are relative to the output directory")
    }
    let components = pattern.split(separator: "/", omittingEmptySubsequences: false)
    if components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) {
      throw TilecutError.invalidOption(option: option, reason: "'\(pattern)' has an empty, '.' or '..' path component")
    }
    if pattern == "manifest.json" || pattern.hasPrefix("manifest.json") || pattern.hasPrefix("preview.html") {
      throw TilecutError.invalidOption(option: option, reason: "'\(pattern)' collides with tilecut's own files")
    }
    self.pattern = pattern
    self.parts = parts
  }

  public func uses(_ placeholder: String) -> Bool { parts.contains(.field(placeholder)) }

  /// The relative path of one tile.
  public func path(floor: Int, tileSize: Int, tile: TileCoordinate) -> String {
    var out = ""
    for part in parts {
      switch part {
      case .text(let t): out += t
      case .field("floor"): out += String(floor)
      case .field("z"): out += String(tile.zoom)
      case .field("x"): out += String(tile.x)
      case .field("y"): out += String(tile.y)
      case .field("size"): out += String(tileSize)
      case .field: break
      }
    }
    return out
  }

  /// The same pattern with its file extension replaced (or added).
  public func withExtension(_ ext: String) throws -> TileNameTemplate {
    let lastSlash = pattern.lastIndex(of: "/").map { pattern.index(after: $0) } ?? pattern.startIndex
    let fileName = pattern[lastSlash...]
    var base = pattern
    if let dot = fileName.lastIndex(of: "."), !pattern[dot...].contains("}") {
      base = String(pattern[..<dot])
    }
    return try TileNameTemplate(base + "." + ext)
  }

  public init(from decoder: Decoder) throws {
    try self.init(try decoder.singleValueContainer().decode(String.self))
  }

  public func encode(to encoder: Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(pattern)
  }
}
