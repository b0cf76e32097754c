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
    // a NUL cuts the name short for the system; other control characters make names
    // no one can type (the error line shows them escaped)
    if pattern.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
      throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(pattern))' has a control character; tile names are file names")
    }
    var parts: [Part] = []
    var text = ""
    var index = pattern.startIndex
    while index < pattern.endIndex {
      let ch = pattern[index]
      if ch == "{" {
        guard let close = pattern[index...].firstIndex(of: "}") else {
          throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(pattern))' has a '{' without a closing '}'")
        }
        let name = String(pattern[pattern.index(after: index)..<close])
        if name == "building" {
          throw TilecutError.invalidOption(
            option: option,
            reason:
              "'\(Quote.value(pattern))': {building} is for `tilecut build`, where it gives each building its own pyramid ('{building}/L{floor}_{z}_{x}_{y}.png'); a single run has no buildings"
          )
        }
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
      throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(pattern))' has no {\(needed)}: tiles would overwrite each other")
    }
    if pattern.hasPrefix("/") {
      throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(pattern))' is absolute; names are relative to the output directory")
    }
    let components = pattern.split(separator: "/", omittingEmptySubsequences: false)
    if components.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }) {
      throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(pattern))' has an empty, '.' or '..' path component")
    }
    if pattern == "manifest.json" || pattern.hasPrefix("manifest.json") || pattern.hasPrefix("preview.html") {
      throw TilecutError.invalidOption(option: option, reason: "'\(Quote.value(pattern))' collides with tilecut's own files")
    }
    self.pattern = pattern
    self.parts = parts
    // Numbers must be separated by text that cannot continue a number, or two
    // tiles can share a name: {z}{x}{y} makes 1/12/3 and 11/2/3 both "1123".
    for (i, part) in parts.enumerated() {
      guard case .field = part, i + 1 < parts.count else { continue }
      let separated: Bool
      if case .text(let t) = parts[i + 1], let c = t.first, !c.isNumber { separated = true } else { separated = false }
      if !separated {
        throw TilecutError.invalidOption(
          option: option,
          reason:
            "'\(Quote.value(pattern))' puts numbers side by side\(collisionExample(sizes: [256, 512]).map { ": \($0)" } ?? ""); put a separator such as '_' between them"
        )
      }
    }
  }

  /// Refuses a template that cannot tell apart the tiles of this job: two sizes
  /// without `{size}`, several floors without `{floor}`.
  public func checkDistinct(sizes: [Int], floors: [Floor], option: String = "--name") throws {
    if sizes.count > 1 && !uses("size") {
      throw TilecutError.invalidOption(
        option: option,
        reason:
          "'\(Quote.value(pattern))' has no {size} but \(sizes.map(String.init).joined(separator: " and ")) px tiles are made: \(collisionExample(sizes: sizes, floors: floors) ?? "they would overwrite each other"); add {size}"
      )
    }
    if Set(floors).count > 1 && !uses("floor") {
      throw TilecutError.invalidOption(
        option: option,
        reason:
          "'\(Quote.value(pattern))' has no {floor} but there are \(Set(floors).count) floors: \(collisionExample(sizes: sizes, floors: floors) ?? "they would overwrite each other"); add {floor}"
      )
    }
  }

  /// Two tiles that get the same path, searched among small tile numbers, as a sentence.
  public func collisionExample(sizes: [Int], floors: [Floor] = [1, 11, 2, 12].compactMap(Floor.init)) -> String? {
    let numbers = [1, 2, 3, 11, 12, 13, 21, 22]
    var seen: [String: (Floor, Int, TileCoordinate)] = [:]
    for floor in floors.prefix(8) {
      for size in sizes {
        for z in numbers {
          for x in numbers where x < 1 << z {
            for y in numbers where y < 1 << z {
              let tile = TileCoordinate(zoom: z, x: x, y: y)
              let name = path(floor: floor, tileSize: size, tile: tile)
              if let other = seen[name] {
                func show(_ t: (Floor, Int, TileCoordinate)) -> String {
                  "floor \(t.0) \(t.1) px \(t.2.zoom)/\(t.2.x)/\(t.2.y)"
                }
                return "tiles \(show(other)) and \(show((floor, size, tile))) would both be \(name)"
              }
              seen[name] = (floor, size, tile)
            }
          }
        }
      }
    }
    return nil
  }

  /// The tile a relative path names under this template, or nil when it names none.
  /// Exact because numbers are always followed by text that is not a digit.
  public func match(_ path: String) -> TileName? {
    let chars = Array(path.utf8)
    var i = 0
    var name = TileName()
    for part in parts {
      switch part {
      case .text(let t):
        let lit = Array(t.utf8)
        guard i + lit.count <= chars.count, Array(chars[i..<i + lit.count]) == lit else { return nil }
        i += lit.count
      case .field(let field):
        let start = i
        if field == "floor" && i < chars.count && chars[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < chars.count, chars[i] >= UInt8(ascii: "0"), chars[i] <= UInt8(ascii: "9"), i - digitsStart < 18 { i += 1 }
        guard i > digitsStart else { return nil }
        // tilecut writes numbers without leading zeros: anything else is not its name
        if chars[digitsStart] == UInt8(ascii: "0") && i - digitsStart > 1 { return nil }
        guard let value = Int(String(decoding: chars[start..<i], as: UTF8.self)) else { return nil }
        switch field {
        case "floor":
          // a number outside Floor.range is no floor tilecut writes
          guard let floor = Floor(value), name.floor ?? floor == floor else { return nil }
          name.floor = floor
        case "size": if let s = name.tileSize, s != value { return nil } else { name.tileSize = value }
        case "z": if let z = name.zoom, z != value { return nil } else { name.zoom = value }
        case "x": if let x = name.x, x != value { return nil } else { name.x = value }
        case "y": if let y = name.y, y != value { return nil } else { name.y = value }
        default: return nil
        }
      }
    }
    return i == chars.count ? name : nil
  }

  /// The numbers a tile path carries; a placeholder the template lacks stays nil.
  public struct TileName: Hashable, Sendable {
    public var floor: Floor?
    public var tileSize: Int?
    public var zoom: Int?
    public var x: Int?
    public var y: Int?
  }

  private func uses(_ placeholder: String) -> Bool { parts.contains(.field(placeholder)) }

  /// The relative path of one tile.
  public func path(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String {
    var out = ""
    for part in parts {
      switch part {
      case .text(let t): out += t
      case .field("floor"): out += floor.description
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
