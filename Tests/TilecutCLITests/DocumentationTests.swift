import Foundation
import Testing
import TilecutCore

/// The README says what the code does: its exit-status table lists exactly the codes
/// of `ExitStatus`. (Tests/scripts/doc-test.sh, in make test, runs the README's commands.)
@Suite struct DocumentationTests {
  static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md").standardized

  @Test func theExitStatusTableListsEveryExitStatus() throws {
    let text = try String(contentsOf: Self.readme, encoding: .utf8)
    let section = try #require(text.components(separatedBy: "\n## Exit status\n").dropFirst().first)
    let table = section.components(separatedBy: "\n## ").first ?? section
    var documented: [Int32] = []
    for line in table.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| code") && !line.hasPrefix("| ---") {
      let cell = line.dropFirst(2).split(separator: "|").first ?? ""
      documented += cell.split(separator: ",").compactMap { Int32($0.trimmingCharacters(in: .whitespaces)) }
    }
    #expect(documented.sorted() == ExitStatus.allCases.map(\.rawValue).sorted())
  }
}
