import Foundation

// What TilecutBuildPlugin's YAML reader makes of a project file, for make plugin-test to
// hold against tilecut's own run of it: built with swiftc from this file and
// Sources/TilecutBuildPlugin/ProjectFileReader.swift (the plugin itself cannot run
// outside SwiftPM). Prints {"outputs": [names], "inputs": [absolute paths]}; a file the
// reader refuses: its one line on stderr, exit status 2.
let path = CommandLine.arguments[1]
let url = URL(fileURLWithPath: path).standardizedFileURL
do {
  let reader = try ProjectFileReader(text: try String(contentsOf: url, encoding: .utf8), file: path)
  let json: [String: [String]] = ["outputs": reader.outputNames, "inputs": reader.inputs(projectFile: url).map(\.path)]
  print(String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self))
} catch {
  FileHandle.standardError.write(Data("\(error)\n".utf8))
  exit(2)
}
