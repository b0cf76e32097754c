import Foundation
import Testing
import TilecutFixtures

/// A page poppler cannot draw in 3 GB: a dash array of a million entries (8 MB as
/// poppler holds it), then 1000 nested `q`, each copying the graphics state with its
/// dash array, 8 GB in all. Nothing in it is refused beforehand (1000 deep is far
/// below the nesting tilecut refuses); poppler's `new` throws std::bad_alloc, which
/// unwinds into C frames and reaches std::terminate.
private func dashCopies() -> [UInt8] {
  let dash = "[" + String(repeating: "1 ", count: 1_000_000) + "] 0 d\n"
  let nested = String(repeating: "q ", count: 1000) + "0 0 m 200 100 l S\n" + String(repeating: "Q ", count: 1000)
  return PDFWriter().document(content: Array((dash + nested).utf8))
}

#if os(Linux)
  private let isLinux = true
#else
  private let isLinux = false
#endif

/// Runs tilecut with `arguments` under a 3 GB address-space limit (`ulimit -v`, as a
/// container's memory limit or a CI runner's would stop it). Two glibc arenas and one
/// libvips thread keep tilecut's own reservations the same on any number of cores
/// (each arena reserves 64 MB of address space, each thread's stack 8 MB): a plain
/// page tiles in about 0.3 GB of it, measured.
private func limited(_ arguments: [String]) throws -> RunResult {
  let quoted = arguments.map { "'" + $0 + "'" }.joined(separator: " ")
  return try runTool([], shell: "export MALLOC_ARENA_MAX=2 VIPS_CONCURRENCY=1; ulimit -v 3000000 && exec TILECUT \(quoted)", timeout: 240)
}

/// Linux only: macOS does not enforce `ulimit -v`, and the page would take its 8 GB.
@Suite("a library that runs out of memory or aborts ends the run in one line", .serialized, .enabled(if: isLinux))
struct LibraryAbortTests {
  @Test("poppler's std::bad_alloc under an address-space limit: one line naming the PDF, exit 1, staging removed, the previous output byte for byte")
  func popplerBadAlloc() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try Data(dashCopies()).write(to: URL(fileURLWithPath: c.path("dash.pdf")))
    // the limit leaves tilecut room to tile a page: what fails is poppler's allocation
    try Data(PDFWriter().document(content: Array("1 0 0 rg 10 10 180 80 re f".utf8))).write(to: URL(fileURLWithPath: c.path("plain.pdf")))
    let control = try limited([c.path("plain.pdf"), "-o", c.path("control"), "--max-zoom", "3", "-q"])
    #expect(control.status == 0 && control.stderrBesideUnplacedNote.isEmpty, "\(control.stderr)")
    let run = try limited([c.path("dash.pdf"), "-o", c.path("out"), "--max-zoom", "3", "-q"])
    c.expectClean(run, status: 1, mentions: "dash.pdf: a library ran out of memory (std::bad_alloc); the previous output is unchanged")
    #expect(!run.stderr.contains("terminate called") && !run.stderr.contains("Program crashed"), "\(run.stderr)")
  }

  @Test("with a PNG floor drawn beside it, the line names the PDF whose render failed, and staging goes with what the floors wrote")
  func namesTheDocument() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try Data(dashCopies()).write(to: URL(fileURLWithPath: c.path("dash.pdf")))
    let run = try limited([c.path("good.png"), c.path("dash.pdf"), "-o", c.path("out"), "--max-zoom", "4", "-q"])
    c.expectClean(run, status: 1, mentions: c.path("dash.pdf") + ": a library ran out of memory (std::bad_alloc)")
  }
}
