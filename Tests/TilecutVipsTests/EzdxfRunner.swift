import Dispatch
import Foundation
import Synchronization

/// Tests/scripts/ezdxf-runner.py: ezdxf's scripts run in long-lived python3 processes
/// that imported ezdxf, matplotlib and numpy once, instead of a new python3 for each
/// (about a second of CPU each). Two of them, one a core, started when first asked;
/// each ends when the test process does (its standard input closes).
enum EzdxfRunner {
  /// What a script gave: the exit status `python3` would have returned, and what it printed.
  struct Outcome: Decodable {
    var status: Int32
    var stdout: String
  }

  /// Runs the script at `path` as `python3 path arguments…` would.
  static func run(script path: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data) {
    try ask(Request(script: path, code: nil, argv: arguments))
  }

  /// Runs `code` as `python3 -c code arguments…` would.
  static func run(code: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data) {
    try ask(Request(script: nil, code: code, argv: arguments))
  }

  struct Request: Encodable {
    var script: String?
    var code: String?
    var argv: [String]
  }

  static let runnerScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("scripts/ezdxf-runner.py").path

  /// The processes not in use; `slots` counts them.
  static let idle = Mutex<[Process?]>([nil, nil])
  static let slots = DispatchSemaphore(value: 2)

  static func ask(_ request: Request) throws -> (status: Int32, stdout: Data) {
    slots.wait()
    defer { slots.signal() }
    var runner = idle.withLock { $0.removeLast() }
    defer { idle.withLock { $0.append(runner) } }
    if runner?.isRunning != true { runner = try start() }
    guard let process = runner, let input = process.standardInput as? Pipe, let output = process.standardOutput as? Pipe else {
      throw CocoaError(.featureUnsupported)
    }
    var line = try JSONEncoder().encode(request)
    line.append(0x0A)
    try input.fileHandleForWriting.write(contentsOf: line)
    var answer = Data()
    while answer.last != 0x0A {
      let more = output.fileHandleForReading.availableData
      if more.isEmpty {
        runner = nil
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "ezdxf-runner.py ended without an answer"])
      }
      answer.append(more)
    }
    let outcome = try JSONDecoder().decode(Outcome.self, from: answer)
    return (outcome.status, Data(outcome.stdout.utf8))
  }

  static func start() throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", runnerScript]
    process.standardInput = Pipe()
    process.standardOutput = Pipe()
    try process.run()
    return process
  }
}
