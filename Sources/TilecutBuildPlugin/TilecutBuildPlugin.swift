import Foundation
import PackagePlugin

/// A target that lists this plugin gets the floor plans of the `tilecut.yml` in its
/// directory as resources: `manifest.json` and one MBTiles file per floor and tile size
/// (`L1_256.mbtiles`, …), made by `tilecut build --store mbtiles` into the plugin's
/// work directory and copied by SwiftPM into the target's resource bundle, where
/// `OfflineTiles(bundle: .module)` (TilecutClient) reads them.
///
/// The command declares the project file, every drawing it names, the world files it
/// names and the files beside each drawing that share its name (`plan.pgw`,
/// `plan.prj`, `plan.png.aux.xml`) as inputs, so the build runs it again only when one
/// of them changes; a sidecar added later is seen once another input changes.
@main
struct TilecutBuildPlugin: BuildToolPlugin {
  static let projectFileName = "tilecut.yml"

  func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
    guard let directory = Self.directory(of: target) else {
      throw PluginFailure("TilecutBuildPlugin: \(target.name) is not a Swift or C target; list the plugin on the app's own target")
    }
    return try Self.commands(
      project: directory.appending(path: Self.projectFileName), targetName: target.name, workDirectory: context.pluginWorkDirectoryURL,
      tool: try context.tool(named: "tilecut").url)
  }

  /// The one command that tiles `project` into `workDirectory/tiles`, with its inputs and outputs.
  static func commands(project: URL, targetName: String, workDirectory: URL, tool: URL) throws -> [Command] {
    guard let data = FileManager.default.contents(atPath: project.path) else {
      throw PluginFailure(
        "\(project.path): no such file; the target \(targetName) lists TilecutBuildPlugin, which tiles the tilecut.yml in its directory")
    }
    let reader = try ProjectFileReader(text: String(decoding: data, as: UTF8.self), file: project.path)
    let output = workDirectory.appending(path: "tiles")
    let outputs = reader.outputNames.map { output.appending(path: $0) }
    return [
      .buildCommand(
        displayName: "Tiling \(projectFileName) of \(targetName) into MBTiles",
        executable: tool,
        // one MBTiles file per floor and size, as declared: a `{building}/…` name in the
        // file (a pyramid per building) is for the file's own output, not the bundle's
        arguments: [
          "build", project.path, "--output", output.path, "--store", "mbtiles", "--name", "{size}/L{floor}_{z}_{x}_{y}.png", "--quiet",
        ],
        inputFiles: reader.inputs(projectFile: project),
        outputFiles: outputs)
    ]
  }

  /// A source target's directory (`Target.directoryURL` needs tools version 6.1).
  static func directory(of target: Target) -> URL? {
    switch target {
    case let t as SwiftSourceModuleTarget: t.directoryURL
    case let t as ClangSourceModuleTarget: t.directoryURL
    default: nil
    }
  }
}

#if canImport(XcodeProjectPlugin)
  import XcodeProjectPlugin

  // An app target of an Xcode project (Build Phases ▸ Run Build Tool Plug-ins): the
  // tilecut.yml among the target's files, else in the folder named as the target.
  // Written to XcodeProjectPlugin's documented API; not compiled here (Linux has no Xcode).
  extension TilecutBuildPlugin: XcodeBuildToolPlugin {
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
      let listed = target.inputFiles.first { $0.url.lastPathComponent == Self.projectFileName }?.url
      let project =
        listed ?? context.xcodeProject.directoryURL.appending(path: target.displayName).appending(path: Self.projectFileName)
      return try Self.commands(
        project: project, targetName: target.displayName, workDirectory: context.pluginWorkDirectoryURL,
        tool: try context.tool(named: "tilecut").url)
    }
  }
#endif

/// Why the plugin cannot plan the build: one line naming the file and what to do.
struct PluginFailure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
