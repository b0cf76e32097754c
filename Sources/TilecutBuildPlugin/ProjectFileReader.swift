import Foundation

/// What the build-tool plugin must know of a `tilecut.yml` before anything runs:
/// the floors and tile sizes (which MBTiles files the build makes) and the files it
/// reads (when to run again). A plugin cannot link Yams or run tilecut while SwiftPM
/// plans the build, so this reads the YAML itself.
///
/// It reads the part of YAML that project files are written in: block mappings and
/// block lists by indentation, flow lists and mappings (`[256, 512]`, `{index: 2}`,
/// also over several lines), plain, single- and double-quoted scalars, and `#`
/// comments. It refuses, naming the line, what it does not read rather than guess:
/// anchors and aliases (`&a`, `*a`, `<<:`), tags, block scalars (`|`, `>`), several
/// documents (one `---` at the top is fine) and tabs in indentation. tilecut itself then reads the file with Yams and
/// checks everything else; when the two disagree about the files a run makes, SwiftPM
/// reports a declared output that is missing.
struct ProjectFileReader {
  /// A value of the file.
  indirect enum Node {
    case scalar(String)
    case list([Node])
    case map([(key: String, value: Node)])

    subscript(key: String) -> Node? {
      guard case .map(let pairs) = self else { return nil }
      return pairs.last { $0.key == key }?.value
    }

    var text: String? {
      if case .scalar(let s) = self { return s }
      return nil
    }

    var items: [Node]? {
      if case .list(let items) = self { return items }
      return nil
    }
  }

  /// A floor's drawing and the world file a floor names (`worldFile:`), as written.
  struct Floor {
    var number: Int
    var source: String
    var worldFile: String?
  }

  /// A file the reader refuses: one line with the file (and line) and why.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// tilecut's default `--tile-size`.
  static let defaultTileSizes = [256, 512]

  var tileSizes: [Int]
  var floors: [Floor]

  /// The floor numbers the build makes a pyramid for, ascending.
  var floorNumbers: [Int] { Array(Set(floors.map(\.number))).sorted() }

  /// The name tilecut's MBTiles store gives a floor's tile set at a size.
  static func fileName(floor: Int, tileSize: Int) -> String { "L\(floor)_\(tileSize).mbtiles" }

  /// The files `tilecut build --store mbtiles` writes: the manifest, then one MBTiles
  /// file per floor and tile size.
  var outputNames: [String] {
    ["manifest.json"] + floorNumbers.flatMap { floor in tileSizes.map { Self.fileName(floor: floor, tileSize: $0) } }
  }

  /// The files a run reads: the project file, every source, every `worldFile`, and
  /// the files beside each source or world file that share its name (`plan.pgw`,
  /// `plan.prj`, `plan.png.aux.xml`, in any case) as they are now.
  func inputs(projectFile: URL) -> [URL] {
    let directory = projectFile.deletingLastPathComponent()
    var inputs: [URL] = [projectFile]
    for floor in floors {
      let source = Self.resolve(floor.source, in: directory)
      inputs.append(source)
      inputs += Self.sidecars(of: source)
      inputs += Self.overlayImages(of: source)
      if let world = floor.worldFile.map({ Self.resolve($0, in: directory) }) {
        // and the .prj beside it
        inputs += [world] + Self.sidecars(of: world)
      }
    }
    var seen = Set<String>()
    return inputs.filter { seen.insert($0.standardizedFileURL.path).inserted }
  }

  /// A path of the project file: relative to its directory.
  static func resolve(_ path: String, in directory: URL) -> URL {
    path.hasPrefix("/") ? URL(fileURLWithPath: path) : directory.appendingPathComponent(path)
  }

  /// The images a KML's GroundOverlays name (`<Icon><href>`), relative to the KML, as
  /// tilecut reads them; a KMZ holds its image, and a remote or absolute href is one
  /// tilecut refuses. Only the first 16 MB of the KML are looked at.
  static func overlayImages(of source: URL) -> [URL] {
    guard source.pathExtension.lowercased() == "kml", let handle = try? FileHandle(forReadingFrom: source) else { return [] }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: 16 << 20) else { return [] }
    let text = String(decoding: data, as: UTF8.self)
    var images: [URL] = []
    var rest = text[...]
    while let open = rest.range(of: "<href>"), let close = rest.range(of: "</href>", range: open.upperBound..<rest.endIndex) {
      var href = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines)
      for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
        href = href.replacingOccurrences(of: entity, with: character)
      }
      if !href.isEmpty, !href.contains("://"), !href.hasPrefix("/") {
        images.append(source.deletingLastPathComponent().appendingPathComponent(href))
      }
      rest = rest[close.upperBound...]
    }
    return images
  }

  /// The regular files beside a drawing whose names start with its name without the
  /// extension and a dot, in any case: its world file, `.prj` and `.aux.xml`.
  static func sidecars(of source: URL) -> [URL] {
    let folder = source.deletingLastPathComponent()
    let name = source.lastPathComponent
    let stem = source.deletingPathExtension().lastPathComponent.lowercased() + "."
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return entries.sorted().compactMap { entry in
      guard entry != name, entry.lowercased().hasPrefix(stem) else { return nil }
      var isDirectory: ObjCBool = false
      let url = folder.appendingPathComponent(entry)
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { return nil }
      return url
    }
  }

  init(text: String, file: String) throws {
    var parser = Parser(text: text, file: file)
    let root = try parser.document()
    func fail(_ message: String) -> Failure { Failure(description: "\(file): \(message)") }

    if let sizes = root["tileSizes"] ?? root["tileSize"] {
      let parts: [String]
      switch sizes {
      case .scalar(let s): parts = s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
      case .list(let items): parts = items.compactMap(\.text)
      case .map: throw fail("tileSizes: expected a list such as [256, 512]")
      }
      var values: [Int] = []
      for part in parts {
        guard let n = Int(part), [256, 512, 768].contains(n) else {
          throw fail("tileSizes: '\(part)' is not a tile size tilecut makes (256, 512, 768)")
        }
        if !values.contains(n) { values.append(n) }
      }
      guard !values.isEmpty else { throw fail("tileSizes: expected a list such as [256, 512]") }
      tileSizes = values.sorted()
    } else {
      tileSizes = Self.defaultTileSizes
    }

    guard let buildings = root["buildings"]?.items, !buildings.isEmpty else {
      throw fail("expected 'buildings:', a list of buildings with floors")
    }
    var floors: [Floor] = []
    for building in buildings {
      guard let list = building["floors"]?.items else { throw fail("every building needs 'floors:', a list") }
      for floor in list {
        guard let number = floor["floor"]?.text.flatMap({ Int($0) }) else {
          throw fail("every floor needs 'floor:', a whole number")
        }
        guard let source = floor["source"]?.text, !source.isEmpty else {
          throw fail("floor \(number) needs 'source:', the drawing's path")
        }
        floors.append(Floor(number: number, source: source, worldFile: floor["worldFile"]?.text))
      }
    }
    self.floors = floors
  }

  /// Lines to nodes, by indentation.
  struct Parser {
    /// A line with content: its number, its indentation and the rest, comment removed.
    struct Line {
      var number: Int
      var indent: Int
      var content: String
    }

    var lines: [Line] = []
    var index = 0
    let file: String

    init(text: String, file: String) {
      self.file = file
      var pending: Line?
      var depth = 0
      for (i, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let stripped = Self.stripComment(String(raw.hasSuffix("\r") ? raw.dropLast() : raw))
        if var open = pending {
          // the rest of a flow list or mapping that began on an earlier line
          open.content += " " + stripped.trimmingCharacters(in: .whitespaces)
          depth += Self.depth(of: stripped)
          if depth <= 0 {
            lines.append(open)
            pending = nil
          } else {
            pending = open
          }
          continue
        }
        let content = stripped.drop { $0 == " " }
        if content.isEmpty { continue }
        let line = Line(number: i + 1, indent: stripped.count - content.count, content: String(content))
        depth = Self.depth(of: line.content)
        if depth > 0 { pending = line } else { lines.append(line) }
      }
      if let open = pending { lines.append(open) }
    }

    /// The line without its comment: a `#` at the start or after a space, outside quotes.
    static func stripComment(_ line: String) -> String {
      var quote: Character?
      var previous: Character = " "
      var out = ""
      for c in line {
        if let q = quote {
          if c == q { quote = nil }
        } else if c == "\"" || c == "'" {
          quote = c
        } else if c == "#" && (previous == " " || previous == "\t") {
          break
        }
        out.append(c)
        previous = c
      }
      while out.last == " " || out.last == "\t" { out.removeLast() }
      return out
    }

    /// Open brackets minus closed ones, outside quotes.
    static func depth(of text: String) -> Int {
      var quote: Character?
      var depth = 0
      for c in text {
        if let q = quote {
          if c == q { quote = nil }
        } else if c == "\"" || c == "'" {
          quote = c
        } else if c == "[" || c == "{" {
          depth += 1
        } else if c == "]" || c == "}" {
          depth -= 1
        }
      }
      return depth
    }

    func fail(_ line: Line?, _ message: String) -> Failure {
      Failure(description: "\(file)\(line.map { ":\($0.number)" } ?? ""): \(message) (the build-tool plugin reads a plain subset of YAML)")
    }

    mutating func document() throws -> Node {
      // one document: a `---` may open it
      if lines.first?.content == "---" { lines.removeFirst() }
      if let first = lines.first(where: { $0.content.hasPrefix("\t") || $0.content == "---" || $0.content == "..." }) {
        throw fail(first, first.content.hasPrefix("\t") ? "tabs in indentation" : "several documents")
      }
      guard let first = lines.first else { throw fail(nil, "the file is empty") }
      let node = try block(indent: first.indent)
      if index < lines.count { throw fail(lines[index], "this line is indented less than the lines above it") }
      return node
    }

    mutating func block(indent: Int) throws -> Node {
      let line = lines[index]
      return line.content == "-" || line.content.hasPrefix("- ") ? try list(indent: indent) : try map(indent: indent)
    }

    mutating func list(indent: Int) throws -> Node {
      var items: [Node] = []
      while index < lines.count, lines[index].indent == indent, lines[index].content == "-" || lines[index].content.hasPrefix("- ") {
        let line = lines[index]
        let rest = line.content.dropFirst().drop { $0 == " " }
        if rest.isEmpty {
          index += 1
          guard index < lines.count, lines[index].indent > indent else {
            items.append(.scalar(""))
            continue
          }
          items.append(try block(indent: lines[index].indent))
        } else if Self.keyAndValue(String(rest)) != nil {
          // `- floor: 1`: a mapping whose keys line up with `floor`
          let column = indent + line.content.count - rest.count
          lines[index] = Line(number: line.number, indent: column, content: String(rest))
          items.append(try map(indent: column))
        } else {
          index += 1
          items.append(try value(String(rest), line))
        }
      }
      return .list(items)
    }

    mutating func map(indent: Int) throws -> Node {
      var pairs: [(key: String, value: Node)] = []
      while index < lines.count, lines[index].indent == indent {
        let line = lines[index]
        if line.content.hasPrefix("- ") || line.content == "-" { break }
        guard let (key, text) = Self.keyAndValue(line.content) else { throw fail(line, "expected 'key: value'") }
        if key == "<<" { throw fail(line, "merge keys (<<)") }
        index += 1
        if !text.isEmpty {
          pairs.append((key, try value(text, line)))
        } else if index < lines.count, lines[index].indent > indent {
          pairs.append((key, try block(indent: lines[index].indent)))
        } else if index < lines.count, lines[index].indent == indent, lines[index].content.hasPrefix("- ") {
          // a list may sit at its key's own indentation
          pairs.append((key, try list(indent: indent)))
        } else {
          pairs.append((key, .scalar("")))
        }
      }
      if index < lines.count, lines[index].indent > indent {
        throw fail(lines[index], "this line is indented more than the key above it")
      }
      return .map(pairs)
    }

    /// `key: value` or `key:`, the key plain or quoted; nil when the text is no mapping entry.
    static func keyAndValue(_ text: String) -> (String, String)? {
      let key: String
      let rest: Substring
      if let q = text.first, q == "\"" || q == "'" {
        guard let end = text.dropFirst().firstIndex(of: q) else { return nil }
        key = String(text[text.index(after: text.startIndex)..<end])
        rest = text[text.index(after: end)...]
      } else {
        guard let first = text.first, !"[{".contains(first) else { return nil }
        let colon = text.range(of: ": ")?.lowerBound ?? (text.hasSuffix(":") ? text.index(before: text.endIndex) : nil)
        guard let colon else { return nil }
        key = text[..<colon].trimmingCharacters(in: .whitespaces)
        rest = text[colon...]
      }
      // `:` then the end or a space
      guard rest.first == ":", rest.count == 1 || rest.dropFirst().first == " " else { return nil }
      return (key, rest.dropFirst().trimmingCharacters(in: .whitespaces))
    }

    func value(_ text: String, _ line: Line) throws -> Node {
      var flow = FlowReader(text: Array(text), at: 0)
      let node: Node
      do { node = try flow.node() } catch let message as FlowReader.Refusal { throw fail(line, message.text) }
      flow.skipSpaces()
      if flow.at < flow.text.count { throw fail(line, "unexpected text after the value") }
      return node
    }
  }

  /// One value on a line: a scalar, or a flow list or mapping.
  struct FlowReader {
    /// What the value holds that the reader does not read.
    struct Refusal: Error { var text: String }

    let text: [Character]
    var at: Int

    mutating func skipSpaces() {
      while at < text.count, text[at] == " " || text[at] == "\t" { at += 1 }
    }

    mutating func node(inFlow: Bool = false) throws -> Node {
      skipSpaces()
      guard at < text.count else { return .scalar("") }
      switch text[at] {
      case "[":
        at += 1
        var items: [Node] = []
        skipSpaces()
        if at < text.count, text[at] == "]" {
          at += 1
          return .list(items)
        }
        while true {
          items.append(try node(inFlow: true))
          skipSpaces()
          guard at < text.count else { throw Refusal(text: "a list without its ']'") }
          at += 1
          if text[at - 1] == "]" { return .list(items) }
          if text[at - 1] != "," { throw Refusal(text: "expected ',' or ']' in a list") }
        }
      case "{":
        at += 1
        var pairs: [(key: String, value: Node)] = []
        skipSpaces()
        if at < text.count, text[at] == "}" {
          at += 1
          return .map(pairs)
        }
        while true {
          guard case .scalar(let key) = try node(inFlow: true) else { throw Refusal(text: "a mapping key that is not a scalar") }
          skipSpaces()
          guard at < text.count, text[at] == ":" else { throw Refusal(text: "expected ':' after '\(key)'") }
          at += 1
          pairs.append((key, try node(inFlow: true)))
          skipSpaces()
          guard at < text.count else { throw Refusal(text: "a mapping without its '}'") }
          at += 1
          if text[at - 1] == "}" { return .map(pairs) }
          if text[at - 1] != "," { throw Refusal(text: "expected ',' or '}' in a mapping") }
        }
      case "\"", "'":
        let quote = text[at]
        at += 1
        var out = ""
        while at < text.count {
          let c = text[at]
          at += 1
          if c == quote {
            // '' is a quote inside single quotes
            if quote == "'", at < text.count, text[at] == "'" {
              out.append("'")
              at += 1
              continue
            }
            return .scalar(out)
          }
          if quote == "\"", c == "\\", at < text.count {
            let e = text[at]
            at += 1
            switch e {
            case "n": out.append("\n")
            case "t": out.append("\t")
            case "\"", "\\", "/": out.append(e)
            default: throw Refusal(text: "the escape \\\(e)")
            }
            continue
          }
          out.append(c)
        }
        throw Refusal(text: "a string without its closing \(quote)")
      case "&", "*", "!", "|", ">", "%", "@", "`":
        throw Refusal(text: "'\(text[at])' (anchors, aliases, tags and block scalars)")
      default:
        let start = at
        while at < text.count {
          let c = text[at]
          if inFlow && (c == "," || c == "]" || c == "}") { break }
          if inFlow && c == ":" && (at + 1 == text.count || text[at + 1] == " ") { break }
          at += 1
        }
        return .scalar(String(text[start..<at]).trimmingCharacters(in: .whitespaces))
      }
    }
  }
}
