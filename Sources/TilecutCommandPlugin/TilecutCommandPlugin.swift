import Foundation
import PackagePlugin

/// `swift package --allow-writing-to-package-directory tilecut build [FILE]`: runs the
/// package's `tilecut.yml` (at the package's top, else the one target directory that
/// has one) with this package's tilecut, writing where the file's `output` says;
/// `swift package tilecut ARGS…` with anything else passes ARGS to the command line
/// as they are. Paths are relative to the package directory. tilecut's failure is the
/// plugin's: its message, then its exit status.
@main
struct TilecutCommandPlugin: CommandPlugin {
  static let projectFileName = "tilecut.yml"
  /// `tilecut build`'s options that take a value as the next argument.
  static let buildOptionsWithValue: Set<String> = ["--jobs", "--depfile", "--changes", "--shard", "--output", "-o", "--store"]

  func performCommand(context: PluginContext, arguments: [String]) async throws {
    let package = context.package.directoryURL
    var arguments = arguments.isEmpty ? ["build"] : arguments
    if arguments[0] == "build", !Self.namesFile(Array(arguments.dropFirst())) {
      arguments.append(try Self.projectFile(context.package).path)
    }
    let tool = try context.tool(named: "tilecut")
    let process = Process()
    process.executableURL = tool.url
    process.arguments = arguments
    process.currentDirectoryURL = package
    try process.run()
    process.waitUntilExit()
    guard process.terminationReason == .exit, process.terminationStatus == 0 else {
      let how =
        process.terminationReason == .exit
        ? "exited with status \(process.terminationStatus)" : "was ended by signal \(process.terminationStatus)"
      Diagnostics.error("tilecut \(arguments.joined(separator: " ")) \(how)")
      throw CommandFailure(status: process.terminationStatus)
    }
  }

  /// Whether `build`'s arguments name a project file: an argument that is neither an
  /// option nor an option's value.
  static func namesFile(_ arguments: [String]) -> Bool {
    var expectValue = false
    for argument in arguments {
      if expectValue {
        expectValue = false
      } else if argument == "--" {
        return true
      } else if argument.hasPrefix("-") {
        expectValue = buildOptionsWithValue.contains(argument)
      } else {
        return true
      }
    }
    return false
  }

  /// The package's `tilecut.yml`: at its top, else in exactly one target's directory.
  static func projectFile(_ package: Package) throws -> URL {
    let top = package.directoryURL.appending(path: projectFileName)
    if FileManager.default.fileExists(atPath: top.path) { return top }
    let found = package.targets.compactMap { directory(of: $0)?.appending(path: projectFileName) }
      .filter { FileManager.default.fileExists(atPath: $0.path) }
    guard found.count == 1 else {
      let which =
        found.isEmpty
        ? "no \(projectFileName) at the package's top or in a target's directory"
        : "\(found.count) targets have a \(projectFileName) (\(found.map(\.path).joined(separator: ", ")))"
      Diagnostics.error("\(package.directoryURL.path): \(which); name the file: swift package tilecut build path/to/\(projectFileName)")
      throw CommandFailure(status: 2)
    }
    return found[0]
  }
}

/// A source target's directory (`Target.directoryURL` needs tools version 6.1).
func directory(of target: Target) -> URL? {
  switch target {
  case let t as SwiftSourceModuleTarget: t.directoryURL
  case let t as ClangSourceModuleTarget: t.directoryURL
  default: nil
  }
}

/// tilecut's exit status, as the plugin's failure.
struct CommandFailure: Error, CustomStringConvertible {
  var status: Int32
  var description: String { "tilecut failed (exit status \(status))" }
}
