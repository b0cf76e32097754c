import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// What bash completes for a command line, through the script `tilecut` generates:
/// the words after `tilecut`, the last one being completed.
func bashCompletions(_ script: String, _ words: [String]) throws -> [String] {
  let dir = try scratch("bashCompletions")
  defer { try? FileManager.default.removeItem(atPath: dir) }
  try script.write(toFile: dir + "/tilecut.bash", atomically: true, encoding: .utf8)
  let line = (["tilecut"] + words).map { "'\($0)'" }.joined(separator: " ")
  let driver = """
    cd '\(dir)' || exit 3
    source ./tilecut.bash || exit 3
    COMP_WORDS=(\(line)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
    _tilecut tilecut "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\\n' "${COMPREPLY[@]}"
    """
  try driver.write(toFile: dir + "/driver.sh", atomically: true, encoding: .utf8)
  let r = try runTool([], shell: "bash '\(dir)/driver.sh'")
  guard r.status == 0 else { throw TilecutError.invalidInput(path: "bash", reason: "completion failed: \(r.stderr)") }
  return r.stdout.split(separator: "\n").map(String.init)
}

@Suite("subcommands")
struct SubcommandTests {
  @Test(
    "the bash, zsh and fish completion scripts cover verify, merge, preview, show and get with their options", arguments: ["bash", "zsh", "fish"])
  func completionScripts(shell: String) throws {
    let r = try runTool(["--generate-completion-script", shell])
    #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    // fish names options without their dashes; max-side is preview's alone
    for word in ["verify", "merge", "preview", "tile", "get", "show", "max-side", "bounds", "tile-size"] {
      #expect(r.stdout.contains(word), "the \(shell) script names \(word)")
    }
  }

  @Test("bash completes subcommands, their options, and the tiling options after an input")
  func bashCompletes() throws {
    let script = try runTool(["--generate-completion-script", "bash"]).stdout
    #expect(try bashCompletions(script, ["ver"]).contains("verify"))
    #expect(try bashCompletions(script, ["me"]).contains("merge"))
    #expect(try bashCompletions(script, ["preview", "out", "--max"]) == ["--max-side"])
    #expect(Set(try bashCompletions(script, ["verify", "out", "--j"])) == ["--jobs", "--json"])
    // get's own options: the tile size and floor it reads, no tiling option
    #expect(try bashCompletions(script, ["get", "out", "--ti"]) == ["--tile-size"])
    #expect(try bashCompletions(script, ["get", "out", "--bou"]).isEmpty)
    // `tilecut plan.png …` is `tilecut tile plan.png …`: the default subcommand's words
    #expect(try bashCompletions(script, ["plan.png", "--bou"]) == ["--bounds"])
    #expect(try bashCompletions(script, ["tile", "plan.png", "--bou"]) == ["--bounds"])
    #expect(try bashCompletions(script, ["plan.png", "--store", ""]).sorted() == ["directory", "mbtiles", "pmtiles"])
  }

  @Test("--help shows the tiling help and lists every subcommand; each subcommand has its own")
  func help() throws {
    let r = try runTool(["--help"])
    #expect(r.status == 0 && r.stderr.isEmpty)
    let subcommands = try #require(r.stdout.range(of: "SUBCOMMANDS:"))
    let list = r.stdout[subcommands.lowerBound...]
    for name in ["tile (default)", "verify", "merge", "preview", "show", "get"] { #expect(list.contains(name), "--help lists \(name)") }
    #expect(r.stdout.contains("--bounds") && r.stdout.contains("USAGE: tilecut [tile]"))
    #expect(try runTool(["help"]).stdout == r.stdout)
    let merge = try runTool(["help", "merge"])
    #expect(merge.status == 0 && merge.stdout.contains("USAGE: tilecut merge"), "\(merge.stdout)")
    let version = try runTool(["--version"])
    #expect(version.status == 0 && isVersionLineOfBinaryUnderTest(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  @Test("tilecut tile INPUT tiles like tilecut INPUT; an input named like a subcommand is given as a path")
  func defaultSubcommand() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 200).writePNG(to: dir + "/plan.png")
    try FileManager.default.moveItem(atPath: dir + "/plan.png", toPath: dir + "/verify")
    let plain = try runTool([dir + "/verify", "-o", dir + "/a", "-q"])
    #expect(plain.status == 0, "\(plain.stderr)")
    let spelled = try runTool(["tile", dir + "/verify", "-o", dir + "/b", "-q"])
    #expect(spelled.status == 0, "\(spelled.stderr)")
    #expect(snapshot(dir + "/a").keys.sorted() == snapshot(dir + "/b").keys.sorted())
    #expect(try runTool(["verify", dir + "/b"]).status == 0)
    // in-process, as the tests call it: the root parses to the tile command
    #expect(try tilecut(["tile", dir + "/verify", "-o", dir + "/c"]) == 0)
    // the bare word is the subcommand, which wants a directory: a usage error, one line
    let bare = try runTool(["verify"])
    #expect(bare.status == 2 && bare.stderrLines.count == 1 && bare.stderr.hasPrefix("error: "), "\(bare.stderr)")
  }

  @Test(
    "usage errors of the tile command and of a subcommand stay one line and exit 2",
    arguments: [["--bogus"], ["preview", "out"], ["tile", "--zoom"], ["merge"]])
  func usageErrors(args: [String]) throws {
    let r = try runTool(args)
    #expect(r.status == 2 && !r.signalled, "\(args): \(r.stderr)")
    #expect(r.stderrLines.count == 1 && r.stderr.hasPrefix("error: "), "\(args): \(r.stderr)")
  }
}
