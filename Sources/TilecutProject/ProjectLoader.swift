import Foundation
import TilecutCore
import Yams

/// Reads a project file into a `Project`: YAML through Yams' node API, which keeps
/// where each key and value was written, so that every mistake names its line and column.
public enum ProjectLoader {
  /// The file `tilecut build` reads when none is given.
  public static let defaultFileName = "tilecut.yml"

  /// The largest project file read.
  public static let maxFileBytes = 16 << 20

  /// Reads and checks the project file at `path`; relative paths inside it are made
  /// relative to its directory. The first mistake (by position) is thrown.
  public static func load(path: String) throws -> Project {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw ProjectError(
        file: path, mark: nil,
        message: "no such file; give the project file (tilecut build FILE) or write \(defaultFileName) here (see README, \"A building, a campus\")")
    }
    guard !isDirectory.boolValue else {
      throw ProjectError(file: path, mark: nil, message: "is a directory; give the project file inside it, e.g. \(path)/\(defaultFileName)")
    }
    // its size is checked on the opened file before a byte is read
    let bytes: [UInt8]
    do {
      bytes = try SmallFile.read(path, maxBytes: maxFileBytes)
    } catch .tooLarge(let size) {
      throw ProjectError(
        file: path, mark: nil, message: "is \(size) bytes, more than \(maxFileBytes >> 20) MB; a project file is a few kilobytes of YAML")
    } catch {
      throw ProjectError(file: path, mark: nil, message: "cannot be read as UTF-8 text")
    }
    guard let text = String(data: Data(bytes), encoding: .utf8) else {
      throw ProjectError(file: path, mark: nil, message: "cannot be read as UTF-8 text")
    }
    let directory = (path as NSString).deletingLastPathComponent
    var project = try parse(text, file: path, directory: directory.isEmpty ? "." : directory)
    project = project.resolvingPaths()
    let problems = ProjectValidation.problems(in: project)
    if !problems.isEmpty { throw ProjectErrors.of(problems) }
    return project
  }

  /// Parses the text of a project file (no file system checks, paths as written).
  public static func parse(_ text: String, file: String, directory: String = ".") throws -> Project {
    // Yams composes nodes recursively: 5000 levels of `[` in a 10 KB file overflow the stack
    if let deep = tooDeep(text) {
      throw ProjectError(
        file: file, mark: deep.mark,
        message: "nests \(deep.what) deeper than a project file needs "
          + "(more than \(maxFlowDepth) levels of [ ] { }, or indented past column \(maxIndent))")
    }
    let root: Node
    do {
      guard let node = try Yams.compose(yaml: text) else {
        throw ProjectError(file: file, mark: nil, message: "is empty; it needs at least `buildings:` (see README, \"A building, a campus\")")
      }
      root = node
      // before any of it is read: aliases may repeat a node without bound
      try ProjectBounds.checkExpansion(root, file: file)
    } catch let error as ProjectError {
      throw error
    } catch let error as YamlError {
      throw ProjectError(file: file, mark: yamlMark(error), message: "is not valid YAML: " + yamlProblem(error))
    }
    let reader = NodeReader(file: file)
    return try reader.project(root, directory: directory)
  }

  /// Limits on how deep a project file may nest, checked before Yams sees it.
  static let maxFlowDepth = 64
  static let maxIndent = 256

  /// Where `text` nests too deep: flow collections (`[`, `{`) outside quotes and
  /// comments, or a line's indentation with its block sequence dashes (`- - - x`),
  /// each of which opens a level. nil when it stays within the limits.
  static func tooDeep(_ text: String) -> (mark: SourceMark, what: String)? {
    var flow = 0
    var line = 1
    var column = 0
    var leading = true
    var quote: UInt8? = nil
    var comment = false
    let bytes = Array(text.utf8)
    var i = 0
    while i < bytes.count {
      let c = bytes[i]
      column += 1
      if c == UInt8(ascii: "\n") {
        line += 1
        column = 0
        leading = true
        comment = false
        // a quoted scalar may go on over lines; a comment may not
        i += 1
        continue
      }
      if comment {
        i += 1
        continue
      }
      if let q = quote {
        if c == UInt8(ascii: "\\"), q == UInt8(ascii: "\"") {
          i += 2
          column += 1
          continue
        }
        if c == q { quote = nil }
        i += 1
        continue
      }
      if leading {
        let dash = c == UInt8(ascii: "-") && (i + 1 == bytes.count || bytes[i + 1] == UInt8(ascii: " "))
        if c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || dash {
          if column > maxIndent { return (SourceMark(line: line, column: column), "block collections") }
          i += 1
          continue
        }
        leading = false
      }
      switch c {
      case UInt8(ascii: "#") where i == 0 || bytes[i - 1] == UInt8(ascii: " ") || bytes[i - 1] == UInt8(ascii: "\t"):
        comment = true
      case UInt8(ascii: "'"), UInt8(ascii: "\""):
        quote = c
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        flow += 1
        if flow > maxFlowDepth { return (SourceMark(line: line, column: column), "flow collections") }
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        flow = max(0, flow - 1)
      default: break
      }
      i += 1
    }
    return nil
  }

  static func yamlMark(_ error: YamlError) -> SourceMark? {
    switch error {
    case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
      return SourceMark(line: mark.line, column: mark.column)
    default: return nil
    }
  }

  static func yamlProblem(_ error: YamlError) -> String {
    switch error {
    case .scanner(_, let problem, _, _), .parser(_, let problem, _, _), .composer(_, let problem, _, _): return problem
    default: return "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
    }
  }
}

/// Walks the composed YAML nodes, checking keys and kinds as it goes.
struct NodeReader {
  let file: String

  func mark(_ node: Node) -> SourceMark {
    node.mark.map { SourceMark(line: $0.line, column: $0.column) } ?? SourceMark(line: 1, column: 1)
  }

  func fail(_ node: Node, _ message: String) -> ProjectError { ProjectError(file: file, mark: mark(node), message: message) }

  /// The pairs of a mapping, each key checked against `allowed`.
  func pairs(_ node: Node, allowed: [String], context: String) throws -> [(key: String, keyNode: Node, value: Node)] {
    guard case .mapping(let mapping) = node else { throw fail(node, "\(context) must be a mapping of keys (key: value)") }
    var out: [(String, Node, Node)] = []
    for (keyNode, value) in mapping {
      guard let key = keyNode.string else { throw fail(keyNode, "a key must be text") }
      guard allowed.contains(key) else {
        let hint = ProjectKeys.nearest(key, in: allowed).map { "; did you mean '\($0)'?" } ?? "; valid keys here: " + allowed.joined(separator: ", ")
        throw fail(keyNode, "unknown key '\(Quote.value(key))' in \(context)" + hint)
      }
      if out.contains(where: { $0.0 == key }) { throw fail(keyNode, "'\(Quote.value(key))' is given twice in \(context); keep one") }
      out.append((key, keyNode, value))
    }
    return out
  }

  func project(_ root: Node, directory: String) throws -> Project {
    let allowed = ProjectKeys.top.map(\.name) + ProjectKeys.run.map(\.name)
    var options: [ProjectOption] = []
    var buildings: [Building] = []
    var sawBuildings = false
    for (key, keyNode, value) in try pairs(root, allowed: allowed, context: "the project") {
      if key == "buildings" {
        sawBuildings = true
        guard case .sequence(let list) = value else { throw fail(value, "'buildings' must be a list of buildings (- id: …)") }
        buildings = try list.map(building)
        continue
      }
      if let spec = ProjectKeys.run.first(where: { $0.name == key }) {
        options.append(ProjectOption(key: key, value: try self.value(value, spec: spec), mark: mark(keyNode)))
      }
    }
    if options.contains(where: { $0.key == "tileSize" }), let twice = options.first(where: { $0.key == "tileSizes" }) {
      throw ProjectError(file: file, mark: twice.mark, message: "'tileSizes' and 'tileSize' name the same option; keep one")
    }
    guard sawBuildings else {
      throw ProjectError(file: file, mark: mark(root), message: "has no 'buildings:'; list at least one building with its floors")
    }
    return Project(file: file, directory: directory, options: options, buildings: buildings)
  }

  func building(_ node: Node) throws -> Building {
    var id: String?
    var name: String?
    var floors: [FloorSpec]?
    for (key, _, value) in try pairs(node, allowed: ProjectKeys.building.map(\.name), context: "a building") {
      switch key {
      case "id": id = try text(value, key: key)
      case "name": name = try text(value, key: key)
      default:
        guard case .sequence(let list) = value else { throw fail(value, "'floors' must be a list of floors (- floor: 1 …)") }
        floors = try list.map(floor)
      }
    }
    guard let id else { throw fail(node, "a building needs an 'id' ([a-z0-9_-]+, e.g. id: hq)") }
    guard let floors, !floors.isEmpty else { throw fail(node, "building '\(id)' needs 'floors:', a list of at least one floor") }
    return Building(id: id, name: name, floors: floors, mark: mark(node))
  }

  func floor(_ node: Node) throws -> FloorSpec {
    let allowed = ProjectKeys.floor.map(\.name) + ProjectKeys.floorOptions.map(\.name)
    var number: Int?
    var source: (String, SourceMark)?
    var page: Int?
    var band: SheetBand?
    var options: [ProjectOption] = []
    for (key, keyNode, value) in try pairs(node, allowed: allowed, context: "a floor") {
      switch key {
      case "floor": number = try integer(value, key: key)
      case "source": source = (try text(value, key: key), mark(value))
      case "page":
        let p = try integer(value, key: key)
        guard p >= 0 else { throw fail(value, "'page' counts from 0 (the first page); got \(p)") }
        page = p
      case "band": band = try sheetBand(value)
      default:
        if let spec = ProjectKeys.floorOptions.first(where: { $0.name == key }) {
          options.append(ProjectOption(key: key, value: try self.value(value, spec: spec), mark: mark(keyNode)))
        }
      }
    }
    guard let number else { throw fail(node, "a floor needs 'floor:', its number (e.g. floor: 1; 0 and negatives are basements)") }
    guard let source else { throw fail(node, "floor \(number) needs 'source:', the drawing's path (relative to this file)") }
    return FloorSpec(floor: number, source: source.0, page: page, band: band, options: options, mark: mark(node), sourceMark: source.1)
  }

  func sheetBand(_ node: Node) throws -> SheetBand {
    var index: Int?
    var count: Int?
    var horizontal = false
    for (key, _, value) in try pairs(node, allowed: ProjectKeys.band.map(\.name), context: "'band'") {
      switch key {
      case "index": index = try integer(value, key: key)
      case "count": count = try integer(value, key: key)
      default:
        let s = try text(value, key: key)
        guard s == "vertical" || s == "horizontal" else { throw fail(value, "'stack' is vertical or horizontal, not '\(Quote.value(s))'") }
        horizontal = s == "horizontal"
      }
    }
    guard let index, let count else { throw fail(node, "'band' needs 'index' (1-based, from the top) and 'count' (the bands on the sheet)") }
    guard count >= 1, (1...count).contains(index) else { throw fail(node, "'band': index \(index) is outside 1...\(count)") }
    return SheetBand(index: index, count: count, horizontal: horizontal)
  }

  func text(_ node: Node, key: String) throws -> String {
    guard case .scalar = node, node.null == nil, let s = node.string else { throw fail(node, "'\(key)' must be text") }
    if let problem = ProjectBounds.problem(text: s, key: key) { throw fail(node, problem) }
    return s
  }

  func integer(_ node: Node, key: String) throws -> Int {
    guard case .scalar(let scalar) = node, let n = Int(scalar.string.trimmingCharacters(in: .whitespaces)) else {
      throw fail(node, "'\(key)' must be a whole number, not '\(Quote.value(node.string ?? "a list"))'")
    }
    return n
  }

  /// A number as the command line reads it (`OptionNumber`): decimal only, so `0x10`
  /// and `0x1p3` are no numbers here either.
  func number(_ node: Node, key: String) throws -> Double {
    guard case .scalar(let scalar) = node, let n = OptionNumber.parse(scalar.string.trimmingCharacters(in: .whitespaces)), n.isFinite else {
      throw fail(node, "'\(key)' must be a number, not '\(Quote.value(node.string ?? "a list"))'")
    }
    return n
  }

  func value(_ node: Node, spec: KeySpec) throws -> OptionValue {
    let key = spec.name
    switch spec.kind {
    case .bool:
      guard case .scalar(let scalar) = node, ["true", "false"].contains(scalar.string.lowercased()) else {
        throw fail(node, "'\(key)' must be true or false")
      }
      return .bool(scalar.string.lowercased() == "true")
    case .int: return .int(try integer(node, key: key))
    case .number: return .number(try number(node, key: key))
    case .string: return .string(try text(node, key: key))
    case .names:
      // a YAML list, each a name or pattern; or the CLI's comma-separated text
      guard case .sequence(let list) = node else { return .string(try text(node, key: key)) }
      let names = try list.map { item -> String in
        let name = try text(item, key: key)
        guard !name.contains(","), !name.trimmingCharacters(in: .whitespaces).isEmpty else {
          throw fail(item, "each '\(key)' entry is one name or pattern, not empty and without a comma")
        }
        return name
      }
      guard !names.isEmpty else { throw fail(node, "'\(key)' must be \(spec.kind.phrase); it is empty") }
      return .string(names.joined(separator: ","))
    case .numbers(let count, let orString):
      var values: [Double]
      if case .sequence(let list) = node {
        values = try list.map { try number($0, key: key) }
      } else if orString, case .scalar(let scalar) = node {
        let parts = scalar.string.split(separator: ",").map { OptionNumber.parse($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.allSatisfy({ $0 != nil }) else { throw fail(node, "'\(key)' must be \(spec.kind.phrase)") }
        values = parts.compactMap { $0 }
      } else {
        throw fail(node, "'\(key)' must be \(spec.kind.phrase)")
      }
      guard count.contains(values.count) else { throw fail(node, "'\(key)' must be \(spec.kind.phrase); it has \(values.count)") }
      return .numbers(values)
    case .rows(let width, let minimum):
      guard case .sequence(let list) = node else { throw fail(node, "'\(key)' must be \(spec.kind.phrase)") }
      let rows = try list.map { row -> [Double] in
        guard case .sequence(let items) = row, items.count == width else {
          throw fail(row, "each '\(key)' entry must be a list of \(width) numbers ([x, y, lat, lon])")
        }
        return try items.map { try number($0, key: key) }
      }
      guard rows.count >= minimum else { throw fail(node, "'\(key)' needs at least \(minimum) entries; it has \(rows.count)") }
      return .rows(rows)
    }
  }
}

extension Project {
  /// Paths in the file made relative to the current directory (they are relative to the file).
  func resolvingPaths() -> Project {
    var copy = self
    func resolve(_ path: String) -> String {
      if path.hasPrefix("/") || directory == "." || directory.isEmpty { return path }
      return (directory as NSString).appendingPathComponent(path)
    }
    for i in copy.options.indices where ["output", "depfile", "changes"].contains(copy.options[i].key) {
      if case .string(let s) = copy.options[i].value { copy.options[i].value = .string(resolve(s)) }
    }
    for b in copy.buildings.indices {
      for f in copy.buildings[b].floors.indices {
        copy.buildings[b].floors[f].source = resolve(copy.buildings[b].floors[f].source)
        for o in copy.buildings[b].floors[f].options.indices {
          let option = copy.buildings[b].floors[f].options[o]
          guard case .string(let s) = option.value else { continue }
          // a CRS is a file only when one of that name exists beside the project
          let file = ["worldFile", "venueStyle"].contains(option.key)
          if file || (option.key == "sourceCrs" && FileManager.default.fileExists(atPath: resolve(s))) {
            copy.buildings[b].floors[f].options[o].value = .string(resolve(s))
          }
        }
      }
    }
    return copy
  }
}
