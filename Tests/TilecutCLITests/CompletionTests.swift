import ArgumentParser
import Foundation
import Testing
import TilecutCore

@testable import Tilecut
@testable import TilecutCLI

/// The command lines each shell completes in these tests: the words after `tilecut`,
/// the last one being completed.
let completedLines: [[String]] = [
  ["plan.png", "--bou"], ["tile", "plan.png", "--bou"], ["--ti"], [""], ["merge", "--"], ["verify", "--"], ["verify", ""],
  ["preview", "out", "--max"], ["plan.png", "--store", ""], ["--format", "png", "plan.png", "--quali"],
]

/// A scratch directory holding `plan.png`, `out/` and the completion script at the
/// relative path `name`; HOME, ZDOTDIR and the XDG directories (config: `home/config`)
/// of a shell started there point into it, and `tilecut` is on its PATH.
func completionSandbox(script: String, name: String, _ function: String = #function) throws -> (dir: String, env: String) {
  let dir = try scratch(function)
  let home = dir + "/home"
  let file = URL(fileURLWithPath: dir + "/" + name)
  try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
  try script.write(to: file, atomically: true, encoding: .utf8)
  #expect(FileManager.default.createFile(atPath: dir + "/plan.png", contents: Data()))
  try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
  try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
  let bin = URL(fileURLWithPath: try tilecutBinary()).deletingLastPathComponent().path
  let env =
    "cd '\(dir)' && HOME='\(home)' ZDOTDIR='\(home)' XDG_CONFIG_HOME='\(home)/config' XDG_DATA_HOME='\(home)/data'"
    + " XDG_CACHE_HOME='\(home)/cache' XDG_STATE_HOME='\(home)/state' XDG_CONFIG_DIRS='\(home)/config' PATH=\"\(bin):$PATH\""
  return (dir, env)
}

/// What zsh offers for each command line, through the script `tilecut` generates: an
/// interactive zsh without dotfiles in a pseudo-terminal (zsh/zpty), the script in its
/// fpath, types each line and a TAB bound to complete-word, with `compadd` recording the
/// matches it is given.
func zshCompletions(_ script: String, _ lines: [[String]]) throws -> [[String]] {
  var offered = try zshSession(script, lines)
  // A line typed into the pseudo-terminal while zle still finishes the previous one can
  // reach it as type-ahead that zsh drops (seen once in CI, on a loaded machine: one of
  // 10 lines came back empty): a line that offered nothing is asked again, once, alone
  // in a new session, so that what is compared is the script's answer, not the race.
  for index in offered.indices where offered[index].isEmpty {
    offered[index] = try zshSession(script, [lines[index]]).first ?? []
  }
  return offered
}

/// One interactive zsh session typing `lines` (see `zshCompletions`).
func zshSession(_ script: String, _ lines: [[String]]) throws -> [[String]] {
  let (dir, env) = try completionSandbox(script: script, name: "_tilecut")
  defer { try? FileManager.default.removeItem(atPath: dir) }
  let widget = """
    PS1='' RPS1=''
    bindkey -e
    unsetopt autolist listbeep automenu beep
    LISTMAX=1000000
    # installed as the README says: `_tilecut` in a directory of fpath, found by compinit
    fpath=($PWD $fpath)
    autoload -Uz compinit && compinit -u -D
    compadd() {
      # calls that only ask (-O, -A, -D: into an array) pass; the others' matches are recorded
      setopt localoptions extendedglob
      if (( ${${@[1,(i)--]}[(I)-[a-zA-Z]#[OAD]]} )); then builtin compadd "$@"; return; fi
      local -a hits
      builtin compadd -A hits "$@"
      (( $#hits )) && print -rl -- $hits >> ./offered
      builtin compadd "$@"
    }
    tc-complete() { zle complete-word; print -r -- '<<done>>' >> ./offered; zle -I; print -r -- '<<done>>' }
    zle -N tc-complete
    bindkey '^I' tc-complete
    print -r -- '<<ready>>'
    """
  let driver = """
    zmodload zsh/zpty || exit 3
    typeset -F SECONDS
    output=''
    # waits until the terminal has shown `marker` `n` times
    await() {
      local chunk deadline=$(( SECONDS + 30 ))
      local -a seen=(${(M)${(f)output}:#*"$1"*})
      while (( $#seen < $2 )); do
        (( SECONDS < deadline )) || { print -u2 "zsh completion timed out: $output"; exit 3 }
        if zpty -rt tc chunk; then output+=$chunk; else sleep 0.01; fi
        seen=(${(M)${(f)output}:#*"$1"*})
      done
    }
    : > ./offered
    zpty tc 'zsh -f -i' || exit 3
    zpty -w tc 'source ./widget.zsh'
    await '<<ready>>' 1
    n=0
    while IFS= read -r line; do
      zpty -w -n tc $'\\C-u'"$line"$'\\t'
      await '<<done>>' $(( ++n ))
      zpty -w -n tc $'\\C-u'
    done < ./lines
    zpty -d tc
    cat ./offered
    """
  try widget.write(toFile: dir + "/widget.zsh", atomically: true, encoding: .utf8)
  try driver.write(toFile: dir + "/driver.zsh", atomically: true, encoding: .utf8)
  let typed = lines.map { (["tilecut"] + $0).joined(separator: " ") + "\n" }.joined()
  try typed.write(toFile: dir + "/lines", atomically: true, encoding: .utf8)
  let r = try runTool([], shell: env + " zsh -f ./driver.zsh", timeout: 120)
  guard r.status == 0 else { throw TilecutError.invalidInput(path: "zsh", reason: "completion failed: \(r.stderr)") }
  return offeredWords(r.stdout, count: lines.count)
}

/// What fish offers for each command line (`complete -C`, the words without their
/// descriptions), through the script `tilecut` generates, installed as the README says
/// (fish loads it from its completions directory, in the sandbox's home).
func fishCompletions(_ script: String, _ lines: [[String]]) throws -> [[String]] {
  let (dir, env) = try completionSandbox(script: script, name: "home/config/fish/completions/tilecut.fish")
  defer { try? FileManager.default.removeItem(atPath: dir) }
  let calls = lines.map { "complete -C '\((["tilecut"] + $0).joined(separator: " "))'; echo '<<done>>'\n" }.joined()
  try calls.write(toFile: dir + "/driver.fish", atomically: true, encoding: .utf8)
  let r = try runTool([], shell: env + " fish ./driver.fish", timeout: 120)
  guard r.status == 0 else { throw TilecutError.invalidInput(path: "fish", reason: "completion failed: \(r.stderr)") }
  let words = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map { $0.split(separator: "\t").first.map(String.init) ?? "" }
  return offeredWords(words.joined(separator: "\n"), count: lines.count)
}

/// The words offered per command line, in lines separated by `<<done>>` lines; sorted, once each.
func offeredWords(_ output: String, count: Int) -> [[String]] {
  var groups: [[String]] = [[]]
  for line in output.split(separator: "\n") {
    if line == "<<done>>" { groups.append([]) } else { groups[groups.count - 1].append(String(line)) }
  }
  return Array(groups.prefix(count)).map { Array(Set($0)).sorted() }
}

@Suite("shell completion")
struct CompletionTests {
  @Test(
    "each shell's generated script takes the default-subcommand patch, and is what --generate-completion-script prints",
    arguments: ["bash", "zsh", "fish"])
  func patchApplies(shell: String) throws {
    let kind = try #require(CompletionShell(rawValue: shell))
    let patched = try #require(TilecutCommand.patchedCompletionScript(for: kind), "swift-argument-parser's \(shell) script is worded otherwise")
    #expect(patched != TilecutCommand.completionScript(for: kind))
    #expect(patched.contains("not a subcommand: the words of the default one"))
    for args in [["--generate-completion-script", shell], ["--generate-completion-script=\(shell)"]] {
      let r = try runTool(args)
      #expect(r.status == 0 && r.stderr.isEmpty && r.stdout == patched + "\n", "\(args): \(r.stderr)")
    }
  }

  @Test("a script worded otherwise is left as generated")
  func fallback() throws {
    let script = "complete -c tilecut\n"
    #expect(TilecutCommand.patch(script, [("switch", "case", 1)]) == nil)
    #expect(TilecutCommand.patch(script + script, [("complete", "x", 1)]) == nil)
    #expect(TilecutCommand.patch(script, [("complete", "x", 1)]) == "x -c tilecut\n")
  }

  /// The expectations shared by zsh and fish, one per line of `completedLines`: each
  /// one that fails, as its message.
  func defaultSubcommandProblems(_ offered: [[String]], shell: String) -> [String] {
    var problems: [String] = []
    func check(_ holds: Bool, _ message: String) { if !holds { problems.append(message) } }
    let byLine = Dictionary(uniqueKeysWithValues: zip(completedLines.map { $0.joined(separator: " ") }, offered))
    check(offered.count == completedLines.count, "\(shell): \(offered)")
    // `tilecut plan.png …` is `tilecut tile plan.png …`: the default subcommand's words
    check(byLine["plan.png --bou"] == ["--bounds"], "\(shell)")
    check(byLine["tile plan.png --bou"] == ["--bounds"], "\(shell)")
    check(byLine["--format png plan.png --quali"] == ["--quality"], "\(shell)")
    check(byLine["plan.png --store "] == ["directory", "mbtiles", "pmtiles"], "\(shell)")
    // the first word: the subcommands, the tiling options and files
    check(byLine["--ti"] == ["--tile-size"], "\(shell)")
    let first = Set(byLine[""] ?? [])
    check(first.isSuperset(of: ["tile", "verify", "merge", "preview", "show", "get", "plan.png"]), "\(shell): \(first.sorted())")
    // the other subcommands keep their own words
    check(byLine["merge --"] == ["--help", "--version"], "\(shell)")
    check(byLine["verify --"] == ["--help", "--jobs", "--json", "--version"], "\(shell)")
    check(byLine["verify "]?.contains("plan.png") == false && byLine["verify "]?.contains("tile") == false, "\(shell)")
    // verify's argument is a directory: `out/` is offered
    check(byLine["verify "]?.contains { $0.hasPrefix("out") } == true, "\(shell): \(byLine["verify "] ?? [])")
    check(byLine["preview out --max"] == ["--max-side"], "\(shell)")
    return problems
  }

  func expectDefaultSubcommand(_ offered: [[String]], shell: String) {
    let problems = defaultSubcommandProblems(offered, shell: shell)
    #expect(problems.isEmpty, "\(problems.joined(separator: "; ")): \(zip(completedLines, offered).map { "\($0) → \($1)" })")
  }

  @Test("zsh completes the tiling options after an input and on the first word, and each subcommand's own")
  func zshCompletes() throws {
    let script = try runTool(["--generate-completion-script", "zsh"]).stdout
    // on a loaded machine zsh can lose the kill-line typed behind a completion, and the
    // next line then lands in the old one (a CI run once read "verify --" after
    // "merge --" as merge's): a session whose words are off is run once more
    var offered = try zshCompletions(script, completedLines)
    if !defaultSubcommandProblems(offered, shell: "zsh").isEmpty { offered = try zshCompletions(script, completedLines) }
    expectDefaultSubcommand(offered, shell: "zsh")
  }

  @Test("fish completes the tiling options after an input and on the first word, and each subcommand's own")
  func fishCompletes() throws {
    let script = try runTool(["--generate-completion-script", "fish"]).stdout
    expectDefaultSubcommand(try fishCompletions(script, completedLines), shell: "fish")
  }
}
