import Foundation
import Testing
import Yams

@testable import TilecutProject

/// The repository's root, from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .path
let schemaPath = repositoryRoot + "/examples/json-schema/project.schema.json"

func schema() throws -> [String: Any] {
  let data = try #require(FileManager.default.contents(atPath: schemaPath))
  return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// Runs python3's jsonschema on a JSON document; the validator's message, or nil when valid.
func validateWithPython(_ json: Data) throws -> String? {
  let file = NSTemporaryDirectory() + "tilecut-project-\(UUID().uuidString.prefix(8)).json"
  try json.write(to: URL(fileURLWithPath: file))
  defer { try? FileManager.default.removeItem(atPath: file) }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  let script = """
    import json, sys, jsonschema
    schema = json.load(open(sys.argv[1]))
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
    print(errors[0].message if errors else "", end="")
    sys.exit(1 if errors else 0)
    """
  process.arguments = ["python3", "-c", script, schemaPath, file]
  let out = Pipe()
  process.standardOutput = out
  try process.run()
  let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  process.waitUntilExit()
  return process.terminationStatus == 0 ? nil : (text.isEmpty ? "python3 jsonschema failed" : text)
}

/// A YAML document as JSON.
func json(ofYAML text: String) throws -> Data {
  let value = try #require(try Yams.load(yaml: text))
  return try JSONSerialization.data(withJSONObject: value)
}

@Suite("project schema")
struct ProjectSchemaTests {
  @Test("the schema names exactly the keys the loader takes, at each level")
  func keysMatch() throws {
    let s = try schema()
    let top = try #require(s["properties"] as? [String: Any])
    #expect(Set(top.keys) == Set((ProjectKeys.top + ProjectKeys.run).map(\.name)))
    let defs = try #require(s["$defs"] as? [String: Any])
    let building = try #require((defs["building"] as? [String: Any])?["properties"] as? [String: Any])
    #expect(Set(building.keys) == Set(ProjectKeys.building.map(\.name)))
    let floorDef = try #require(defs["floor"] as? [String: Any])
    let floor = try #require(floorDef["properties"] as? [String: Any])
    #expect(Set(floor.keys) == Set((ProjectKeys.floor + ProjectKeys.floorOptions).map(\.name)))
    let band = try #require((floor["band"] as? [String: Any])?["properties"] as? [String: Any])
    #expect(Set(band.keys) == Set(ProjectKeys.band.map(\.name)))
    // every run-wide key but the alias names its CLI option in its description
    for key in ProjectKeys.run {
      let description = (top[key.name] as? [String: Any])?["description"] as? String ?? ""
      #expect(description.hasPrefix(key.cliOption ?? "-"), "\(key.name): \(description)")
    }
  }

  @Test("the example project files are valid by the schema (python3 jsonschema); mistakes are not")
  func examplesValidate() throws {
    let campus = try String(contentsOfFile: repositoryRoot + "/examples/campus/tilecut.yml", encoding: .utf8)
    for text in [campus, issueExample] {
      #expect(try validateWithPython(try json(ofYAML: text)) == nil)
    }
    let typo = issueExample.replacingOccurrences(of: "metersPerPixel", with: "metersPerPixle")
    #expect(try validateWithPython(try json(ofYAML: typo)) != nil)
    let twice = issueExample.replacingOccurrences(of: "rotation: 12.5", with: "rotation: 12.5\n        bounds: [51.5, -0.14, 51.501, -0.139]")
    #expect(try validateWithPython(try json(ofYAML: twice)) != nil)
    let badID = issueExample.replacingOccurrences(of: "id: annex", with: "id: Annex")
    #expect(try validateWithPython(try json(ofYAML: badID)) != nil)
  }
}
