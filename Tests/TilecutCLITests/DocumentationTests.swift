import Foundation
import Testing
import TilecutCore

/// The documentation says what the code does: the exit-status guide's table lists
/// exactly the codes of `ExitStatus`. (Tests/scripts/doc-test.sh, in make test, runs the
/// commands of the README and the guides.)
@Suite struct DocumentationTests {
  static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Sources/Tilecut/Tilecut.docc/ExitStatus.md").standardized

  @Test func theExitStatusTableListsEveryExitStatus() throws {
    let text = try String(contentsOf: Self.guide, encoding: .utf8)
    let section = try #require(text.components(separatedBy: "\n## The codes\n").dropFirst().first)
    let table = section.components(separatedBy: "\n## ").first ?? section
    var documented: [Int32] = []
    for line in table.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| code") && !line.hasPrefix("| ---") {
      let cell = line.dropFirst(2).split(separator: "|").first ?? ""
      documented += cell.split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }
    #expect(documented.sorted() == ExitStatus.allCases.map(\.rawValue).sorted())
  }
}
