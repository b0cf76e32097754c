import Foundation
import TilecutCore

/// Checks a loaded project as a whole and lists every problem with where it is,
/// in file order: ids, floors given twice, placements, sources that do not exist.
public enum ProjectValidation {
  /// Building ids: lowercase letters, digits, `_` and `-` (they go into names and URLs).
  public static func isValidID(_ id: String) -> Bool {
    !id.isEmpty && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
  }

  public static func problems(in project: Project, checkFiles: Bool = true) -> [ProjectError] {
    var out: [ProjectError] = []
    func add(_ mark: SourceMark, _ message: String) { out.append(ProjectError(file: project.file, mark: mark, message: message)) }
    if project.buildings.isEmpty {
      out.append(ProjectError(file: project.file, mark: nil, message: "'buildings' is empty; list at least one building with its floors"))
    }
    var ids: [String: SourceMark] = [:]
    for building in project.buildings {
      if !isValidID(building.id) {
        add(building.mark, "building id '\(Quote.value(building.id))' must be lowercase letters, digits, '_' and '-' (it goes into tile names)")
      }
      if let first = ids[building.id] {
        add(building.mark, "building id '\(Quote.value(building.id))' is given twice (first at line \(first.line)); ids must be unique")
      } else {
        ids[building.id] = building.mark
      }
      var floors: [Int: SourceMark] = [:]
      for floor in building.floors {
        if let first = floors[floor.floor] {
          add(floor.mark, "building '\(building.id)' has floor \(floor.floor) twice (first at line \(first.line)); give each floor once")
        } else {
          floors[floor.floor] = floor.mark
        }
        let placements = floor.options.filter { ProjectKeys.placementKeys.contains($0.key) }
        if placements.count > 1 {
          add(
            placements[1].mark,
            "floor \(floor.floor) of '\(building.id)' is placed twice ('\(placements[0].key)' and '\(placements[1].key)'); keep one of \(ProjectKeys.placementKeys.joined(separator: ", "))"
          )
        }
        if floor.page != nil && floor.band != nil {
          add(floor.mark, "floor \(floor.floor) of '\(building.id)': 'page' and 'band' pick the drawing two ways; keep one")
        }
        if checkFiles {
          var isDirectory: ObjCBool = false
          // `out[floor=2]`: one floor of a tilecut output (a directory with its manifest)
          let path = Self.withoutFloor(floor.source)
          if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            add(floor.sourceMark, "source \(floor.source): no such file; check the path (relative to the project file)")
          } else if isDirectory.boolValue && !FileManager.default.fileExists(atPath: path + "/" + Manifest.fileName) {
            add(floor.sourceMark, "source \(floor.source) is a directory; name the drawing inside it (or a tilecut output, with its manifest.json)")
          }
        }
      }
    }
    return out.sorted { ($0.mark?.line ?? 0, $0.mark?.column ?? 0) < ($1.mark?.line ?? 0, $1.mark?.column ?? 0) }
  }

  /// A source without a trailing `[floor=K]` (K an integer), as a file name.
  static func withoutFloor(_ source: String) -> String {
    guard source.hasSuffix("]"), let open = source.range(of: "[floor=", options: .backwards),
      Int(source[open.upperBound..<source.index(before: source.endIndex)]) != nil
    else { return source }
    return String(source[..<open.lowerBound])
  }
}
