import Foundation

/// `tilecut-buildings.json`: the file at the root of an output whose name template
/// starts with `{building}/`. Each building's pyramid is a whole tilecut output (its
/// own manifest, tiles or MBTiles files) in the folder the index names; the index says
/// which folders tilecut wrote, so that `verify` and `merge` can take the root.
public struct BuildingIndex: Codable, Sendable, Equatable {
  public static let formatName = "tilecut-buildings"
  public static let fileName = "tilecut-buildings.json"

  public var format: String = BuildingIndex.formatName
  public var version: Int = 1
  public var buildings: [Entry]

  /// One building: its id (the folder, relative to the index) and its name for clients.
  public struct Entry: Codable, Sendable, Equatable {
    public var id: String
    public var name: String?

    public init(id: String, name: String?) {
      self.id = id
      self.name = name
    }
  }

  public init(buildings: [Entry]) {
    self.buildings = buildings
  }

  /// The index at the root of `directory`; nil when there is no such file. A file of
  /// that name that is not an index (or whose ids could name anything but a folder
  /// of the root) is an error naming it.
  public static func load(_ directory: String) throws -> BuildingIndex? {
    let path = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/" + fileName
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    guard (st.st_mode & S_IFMT) == S_IFREG, st.st_size < 1 << 20, let data = FileManager.default.contents(atPath: path) else {
      throw TilecutError.invalidInput(path: path, reason: "is not an index tilecut wrote; move it away")
    }
    guard let index = try? JSONDecoder().decode(BuildingIndex.self, from: data), index.format == formatName else {
      throw TilecutError.invalidInput(path: path, reason: "is not an index tilecut wrote; move it away")
    }
    for entry in index.buildings where !isValidID(entry.id) {
      throw TilecutError.invalidInput(path: path, reason: "names '\(Quote.value(entry.id))', which is not a building id; the file was edited")
    }
    return index
  }

  /// A building id as the project file allows it: `[a-z0-9_-]+`, so a folder name and nothing else.
  public static func isValidID(_ id: String) -> Bool {
    !id.isEmpty && id.utf8.allSatisfy { c in (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 95 || c == 45 }
  }

  /// The index as written: sorted keys, a final newline.
  public func encoded() throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array(try encoder.encode(self)) + [10]
  }
}
