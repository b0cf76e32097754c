import Foundation
import Yams

/// Bounds a project file is held to before any of it is read as a project: how many
/// YAML nodes it expands to (an alias repeats the whole node it names, so a few
/// hundred kilobytes of `*a` can stand for 10⁸ floors), how deep the expanded nodes
/// nest, and what a path it names may hold.
public enum ProjectBounds {
  /// Nodes (scalars, sequences, mappings, each key and value counted) after aliases are
  /// expanded. A campus of 200 buildings of 20 floors, each placed by 10 control
  /// points, is about 100 000.
  public static let maxNodes = 250_000

  /// Nesting after aliases are expanded (the text's own nesting is limited by
  /// `ProjectLoader.maxFlowDepth`; a chain of aliases nests without any `[`).
  public static let maxDepth = 64

  /// Counts `root`'s nodes as reading them would meet them (aliases expanded), without
  /// recursion, stopping at the first bound passed. Throws a `ProjectError` naming the
  /// file and the node where the bound was passed.
  public static func checkExpansion(_ root: Node, file: String) throws {
    var stack: [(node: Node, depth: Int)] = [(root, 1)]
    var count = 0
    while let (node, depth) = stack.popLast() {
      count += 1
      if count > maxNodes {
        throw ProjectError(
          file: file, mark: mark(node),
          message: "expands to more than \(maxNodes) YAML nodes (each alias '*' repeats the whole node it names); "
            + "write the project out with fewer aliases")
      }
      if depth > maxDepth {
        throw ProjectError(
          file: file, mark: mark(node),
          message: "nests deeper than \(maxDepth) levels once its aliases are expanded; write the project out with fewer aliases")
      }
      switch node {
      case .scalar: break
      case .sequence(let list):
        for item in list { stack.append((item, depth + 1)) }
      case .mapping(let mapping):
        for (key, value) in mapping {
          stack.append((key, depth + 1))
          stack.append((value, depth + 1))
        }
      }
    }
  }

  static func mark(_ node: Node) -> SourceMark? { node.mark.map { SourceMark(line: $0.line, column: $0.column) } }

  /// The keys whose text is a path: tilecut reads or writes the file it names (`name`
  /// names the tile files below the output). `sourceCrs` may be a file's name or a
  /// long WKT text: only its NUL is refused.
  public static let pathKeys: Set<String> = ["source", "output", "depfile", "changes", "worldFile", "name"]

  /// Longest path and path component the system takes (Linux's PATH_MAX and NAME_MAX).
  static let maxPathBytes = 4095
  static let maxComponentBytes = 255

  /// Why `text` cannot be the path key `key` names, or nil. A NUL ends a path where
  /// the system reads it (`plan.png\0.pdf` opens `plan.png`), so it is refused in any
  /// text; a path key is also refused empty, or longer than any the system opens.
  public static func problem(text: String, key: String) -> String? {
    if text.utf8.contains(0) {
      return "'\(key)' holds a NUL character, which no file name can; remove it (a path would end there and name another file)"
    }
    guard pathKeys.contains(key) else { return nil }
    if text.isEmpty { return "'\(key)' is empty; name a file" }
    if text.utf8.count > maxPathBytes {
      return "'\(key)' is \(text.utf8.count) bytes long, longer than any path the system opens (\(maxPathBytes)); name a shorter path"
    }
    if text.split(separator: "/").contains(where: { $0.utf8.count > maxComponentBytes }) {
      return "'\(key)' has a name longer than \(maxComponentBytes) bytes between slashes, which no file system takes; name a shorter path"
    }
    return nil
  }
}
