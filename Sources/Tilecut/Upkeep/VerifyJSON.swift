import Foundation

/// `tilecut verify --json`: the report as one object (verify.schema.json).
struct VerifyJSON: Encodable {
  var output: String
  var intact: Bool
  var tilesChecked: Int
  /// For an archive store's output, its count of files under the key its kind names
  /// (`mbtilesFiles`, `pmtilesFiles`); nil for a directory of tiles.
  var storeFiles: (key: String, count: Int)?
  var buildings: Int?
  var problems: [String]

  init(_ report: VerifyReport) {
    (output, intact, tilesChecked, problems) = (report.directory, report.isIntact, report.tilesChecked, report.problems)
    (storeFiles, buildings) = (report.storeFiles.map { ($0.kind.rawValue + "Files", $0.count) }, report.buildings)
  }

  /// A key of the object, the store's among them.
  struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// The keys in any order (`text()` sorts them), an absent count left out.
  func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: Key.self)
    try c.encode(output, forKey: Key("output"))
    try c.encode(intact, forKey: Key("intact"))
    try c.encode(tilesChecked, forKey: Key("tilesChecked"))
    if let storeFiles { try c.encode(storeFiles.count, forKey: Key(storeFiles.key)) }
    try c.encodeIfPresent(buildings, forKey: Key("buildings"))
    try c.encode(problems, forKey: Key("problems"))
  }

  func text() throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(self), as: UTF8.self)
  }
}

extension VerifyReport {
  /// The report as `verify --json` prints it: one object (verify.schema.json).
  public func json() throws -> String { try VerifyJSON(self).text() }
}
