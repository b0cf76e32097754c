import Foundation
import Synchronization
import Testing
import TilecutFixtures

@testable import Tilecut
@testable import TilecutCore

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 37, "still short": a user's folder put in place of the output between
/// tilecut's last check and its swap is never replaced.
@Suite("output swap race")
struct SwapRaceTests {
  /// plan.png with its world file: a first output `out` in `dir`.
  func firstOutput(_ dir: String) throws -> TileRequest {
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    try "0.5\n0\n0\n-0.5\n-14000\n6711000\n".write(toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
    try webMercatorESRI.write(toFile: dir + "/plan.prj", atomically: true, encoding: .utf8)
    var request = TileRequest(inputs: [dir + "/plan.png"], output: dir + "/out")
    request.pyramid.maxZoom = 17
    try TileJob(request).run()
    request.output.force = true
    return request
  }

  @Test(
    "a user's folder put in place of the output between the last check and the swap survives with its contents; the run fails in one line",
    arguments: [false, true])
  func userFolderAtSwap(deleteOutput: Bool) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let request = try firstOutput(dir)
    let out = dir + "/out"
    let hooked = Mutex<Int>(0)
    // the user's move, made exactly between tilecut's last inspection and its swap
    OutputHold.beforeSwap.withLock {
      $0[out] = {
        hooked.withLock { $0 += 1 }
        if deleteOutput {
          // the output deleted: its inode number is free for the next folder, unless tilecut holds it
          try? FileManager.default.removeItem(atPath: out)
        } else {
          _ = rename(out, dir + "/moved")
        }
        mkdir(out, 0o755)
        _ = FileManager.default.createFile(atPath: out + "/mine.txt", contents: Data("the user's\n".utf8))
      }
    }
    defer { _ = OutputHold.beforeSwap.withLock { $0.removeValue(forKey: out) } }
    var failure: Failure?
    do { try TileJob(request).run() } catch { failure = Failure(error) }
    #expect(hooked.withLock { $0 } == 1)
    let failed = try #require(failure)
    #expect(failed.status != 0 && !failed.line.contains("\n"), "\(failed.line)")
    #expect(failed.line.contains("\(out): was replaced during the run"), "\(failed.line)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: out) == ["mine.txt"])
    #expect(try String(contentsOfFile: out + "/mine.txt", encoding: .utf8) == "the user's\n")
    // no staging left behind, and the moved output as it was
    let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    #expect(left == (deleteOutput ? ["out", "plan.pgw", "plan.png", "plan.prj"] : ["moved", "out", "plan.pgw", "plan.png", "plan.prj"]))
    if !deleteOutput { #expect(FileManager.default.fileExists(atPath: dir + "/moved/manifest.json")) }
  }

  @Test("without a move the hook sees the swap go through: the check is what refuses, not the hook")
  func swapWithoutMove() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let request = try firstOutput(dir)
    let out = dir + "/out"
    let hooked = Mutex<Int>(0)
    OutputHold.beforeSwap.withLock { $0[out] = { hooked.withLock { $0 += 1 } } }
    defer { _ = OutputHold.beforeSwap.withLock { $0.removeValue(forKey: out) } }
    let result = try TileJob(request).run()
    #expect(hooked.withLock { $0 } == 1)
    #expect(result.manifest != nil)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["out", "plan.pgw", "plan.png", "plan.prj"])
  }
}
