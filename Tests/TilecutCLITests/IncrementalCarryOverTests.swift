import Foundation
import Testing
import TilecutCore

@testable import Tilecut

/// Issue 38 item 3: an incremental build carries the previous tiles over through the
/// store's own verb (`StoreDriver.tileCarrier`), for every store kind there is.
@Suite("build: an incremental rebuild carries the previous tiles over, in every store")
struct IncrementalCarryOverTests {
  @Test(
    "one floor changed: the rebuild re-renders only some tiles, its output is a full build's byte for byte, and --changes lists exactly the files that differ",
    arguments: StoreKind.allCases)
  func carriedAsAFullBuild(store: StoreKind) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let (file, text) = try campusCopy(dir, store: store.rawValue)
    let campus = dir + "/campus"
    #expect(try tilecut(["build", file]) == 0)
    let before = snapshot(campus + "/tiles")
    #expect(try Manifest.decode(try #require(before["manifest.json"])).store ?? .default == store)

    // the annex's floor 1 changes (its knockout): floor 2 and the cells away from the annex are carried over
    let changed = text.replacingOccurrences(of: "#fff1dc:4", with: "#fff1dc:9")
    try changed.write(toFile: file, atomically: true, encoding: .utf8)
    let r = try runTool(["build", file, "--changes", dir + "/changes.txt"], timeout: 600)
    #expect(r.status == 0, "\(r.stderr)")
    // "annex floor 1 changed: R of T tiles re-rendered": some tiles were carried, not all rendered
    let summary = try #require(r.stderrLines.first { $0.contains("changed:") && $0.contains("re-rendered") }, "\(r.stderr)")
    let numbers =
      summary.split(separator: ":").last.map { $0.split(whereSeparator: { !$0.isNumber && $0 != "," }) }?
      .compactMap { Int($0.replacingOccurrences(of: ",", with: "")) } ?? []
    #expect(numbers.count == 2 && numbers[0] > 0 && numbers[0] < numbers[1], "\(summary)")
    let after = snapshot(campus + "/tiles")
    #expect(after != before)

    // a from-scratch build of the changed project: the same files, byte for byte
    try changed.replacingOccurrences(of: "output: tiles", with: "output: full").write(toFile: file, atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", file]) == 0)
    let full = snapshot(campus + "/full")
    #expect(full.keys.sorted() == after.keys.sorted())
    #expect(full.keys.filter { full[$0] != after[$0] }.sorted() == [], "\(store)")

    // --changes: exactly the tile files (or store files) added, modified or deleted
    let listed = try String(contentsOfFile: dir + "/changes.txt", encoding: .utf8).split(separator: "\n")
      .map { String($0.split(separator: "\t")[1]) }
    let differ = Set(before.keys).union(after.keys).filter { $0 != Manifest.fileName && before[$0] != after[$0] }
    #expect(!listed.isEmpty && Set(listed) == differ, "\(store): \(listed.sorted()) against \(differ.sorted())")
    #expect(try runTool(["verify", campus + "/tiles"]).status == 0)
  }
}
