import Foundation
import Testing
import TilecutFixtures

@testable import Tilecut

/// The repository's root, for its examples.
private let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().path

/// Validates each document against its schema in examples/json-schema with python3's
/// `jsonschema` (Draft 2020-12, the schemas' `$ref`s across files resolved by their
/// `$id`): a validator tilecut's authors did not write. Returns one line per
/// violation, by document; the schemas themselves are checked first.
private func violations(_ documents: [(label: String, schema: String, json: String)], in dir: String) throws -> [String] {
  let script = """
    import json, pathlib, sys
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource
    folder = pathlib.Path(sys.argv[1])
    schemas = {p.name: json.loads(p.read_text()) for p in folder.glob("*.schema.json")}
    for name, schema in schemas.items():
        Draft202012Validator.check_schema(schema)
    registry = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in schemas.values()])
    bad = 0
    for pair in sys.argv[2:]:
        name, label, path = pair.split("=", 2)
        document = json.loads(pathlib.Path(path).read_text())
        for e in Draft202012Validator(schemas[name], registry=registry).iter_errors(document):
            bad += 1
            print(f"{label} against {name}: {e.json_path}: {e.message[:300]}")
    print(f"checked {len(sys.argv) - 2} documents against {len(schemas)} schemas")
    sys.exit(1 if bad else 0)
    """
  var arguments = [repositoryRoot + "/examples/json-schema"]
  for (i, document) in documents.enumerated() {
    let path = dir + "/document-\(i).json"
    try document.json.write(toFile: path, atomically: true, encoding: .utf8)
    arguments.append("\(document.schema)=\(document.label)=\(path)")
  }
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
  process.arguments = ["python3", "-c", script] + arguments
  let out = Pipe()
  process.standardOutput = out
  process.standardError = out
  try process.run()
  let data = out.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  let text = String(decoding: data, as: UTF8.self)
  let lines = text.split(separator: "\n").map(String.init)
  guard lines.last?.hasPrefix("checked \(documents.count) documents") == true else {
    // no verdict: python3 or jsonschema missing (make test-deps installs it), or a schema is not valid
    return ["the validator did not run: \(text.suffix(600))"]
  }
  return process.terminationStatus == 0 ? [] : Array(lines.dropLast())
}

@Suite("JSON against its schemas (python3 jsonschema)")
struct JSONSchemaTests {
  @Test(
    "every --json of a single run and a dry run, on the make run example (a world file in UTM) and on a plan placed by a centre, fits its schema"
  )
  func singleRuns() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    for name in ["office.png", "office-berlin.pgw", "office-berlin.prj"] {
      try FileManager.default.copyItem(atPath: repositoryRoot + "/examples/floorplan/" + name, toPath: dir + "/" + name)
    }
    try picture(width: 600, height: 300, transparentLeft: 100).writePNG(to: dir + "/a.png")
    // a KML GroundOverlay placing a.png: its placement carries a note
    let overlay =
      "<kml><GroundOverlay><name>A</name><Icon><href>a.png</href></Icon><LatLonBox><north>51.501</north><south>51.5</south>"
      + "<east>-0.118</east><west>-0.12</west><rotation>20</rotation></LatLonBox></GroundOverlay></kml>"
    try overlay.write(toFile: dir + "/a.kml", atomically: true, encoding: .utf8)
    // the make run example's placement, to zoom 18 (its own zooms take longer to render)
    let office = [dir + "/office.png", "--world-file", dir + "/office-berlin.pgw", "--knockout", "white:8", "--retina-depth", "native"]
    let cases: [(String, [String], String)] = [
      ("make run --dry-run", office + ["-o", dir + "/office", "--dry-run", "--json"], "dry-run.schema.json"),
      ("make run --dry-run --exact", office + ["-o", dir + "/office", "--max-zoom", "18", "--dry-run", "--exact", "--json"], "dry-run.schema.json"),
      ("make run", office + ["-o", dir + "/office", "--max-zoom", "18", "--preview", "--json"], "run.schema.json"),
      ("make run again", office + ["-o", dir + "/office", "--max-zoom", "18", "--preview", "--json"], "run.schema.json"),
      (
        "centre --dry-run", [dir + "/a.png", "-o", dir + "/a", "--center", "51.5,-0.12", "--meters-per-pixel", "0.1", "--dry-run", "--json"],
        "dry-run.schema.json"
      ),
      (
        "gcp", [dir + "/a.png", "-o", dir + "/a", "--gcp", "0,0,51.5,-0.12", "--gcp", "600,0,51.5,-0.11", "--gcp", "0,300,51.499,-0.12", "--json"],
        "run.schema.json"
      ),
      ("kml --dry-run", [dir + "/a.kml", "-o", dir + "/k", "--dry-run", "--json"], "dry-run.schema.json"),
      ("mbtiles", [dir + "/a.png", "-o", dir + "/m", "--store", "mbtiles", "--json"], "run.schema.json"),
      ("pmtiles", [dir + "/a.png", "-o", dir + "/p", "--store", "pmtiles", "--json"], "run.schema.json"),
      ("show directory", ["show", dir + "/office", "--json"], "show.schema.json"),
      ("show mbtiles output", ["show", dir + "/m", "--json"], "show.schema.json"),
      ("show pmtiles output", ["show", dir + "/p", "--json"], "show.schema.json"),
    ]
    var documents: [(label: String, schema: String, json: String)] = []
    for (label, arguments, schema) in cases {
      let run = try runTool(arguments, timeout: 300)
      #expect(run.status == 0, "\(label): \(run.stderr)")
      documents.append((label, schema, run.stdout))
    }
    // a lone MBTiles or PMTiles file
    let mbtiles: [String] = filesBelow(dir + "/m").filter { $0.hasSuffix(".mbtiles") }.map { dir + "/m/" + $0 }
    let pmtiles: [String] = filesBelow(dir + "/p").filter { $0.hasSuffix(".pmtiles") }.map { dir + "/p/" + $0 }
    let files = mbtiles + pmtiles
    #expect(files.count == 4, "\(files)")
    for file in files {
      let run = try runTool(["show", file, "--json"])
      #expect(run.status == 0, "\(file): \(run.stderr)")
      documents.append(("show " + file, "show.schema.json", run.stdout))
    }
    // verify, intact and not: a tile gone from the office output
    for output in ["office", "m", "p"] {
      let run = try runTool(["verify", dir + "/" + output, "--json"])
      #expect(run.status == 0, "\(output): \(run.stderr)")
      documents.append(("verify " + output, "verify.schema.json", run.stdout))
      // an archive output's count of files under the key its store names; none for tile files
      let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any] ?? [:]
      let counts = ["m": ("mbtilesFiles", mbtiles.count), "p": ("pmtilesFiles", pmtiles.count)]
      let expected = Set(["output", "intact", "tilesChecked", "problems"] + [counts[output]?.0].compactMap { $0 })
      #expect(Set(object.keys) == expected, "\(output): \(run.stdout)")
      if let (key, count) = counts[output] { #expect(object[key] as? Int == count, "\(output): \(run.stdout)") }
    }
    let tile = try #require(filesBelow(dir + "/office").first { $0.hasSuffix(".png") })
    try FileManager.default.removeItem(atPath: dir + "/office/" + tile)
    let damaged = try runTool(["verify", dir + "/office", "--json"])
    #expect(damaged.status == 1, "\(damaged.stderr)")
    let report = try #require(try JSONSerialization.jsonObject(with: Data(damaged.stdout.utf8)) as? [String: Any])
    #expect(report["intact"] as? Bool == false && (report["problems"] as? [String])?.count == 1, "\(damaged.stdout)")
    documents.append(("verify damaged", "verify.schema.json", damaged.stdout))
    let found = try violations(documents, in: dir)
    #expect(found.isEmpty, "\(found.prefix(8).joined(separator: "\n"))")
  }

  @Test("build's --json and --dry-run --json fit their schemas; the dry run names each building and each placement's")
  func builds() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let file = try campusCopy(dir)
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(of: "maxZoom: 21", with: "maxZoom: 19")
      .write(toFile: file, atomically: true, encoding: .utf8)
    let split = dir + "/campus/split.yml"
    try String(contentsOfFile: file, encoding: .utf8).replacingOccurrences(
      of: "output: tiles", with: "output: split\nname: \"{building}/{size}/L{floor}_{z}_{x}_{y}.png\""
    )
    .write(toFile: split, atomically: true, encoding: .utf8)
    let cases: [(String, [String], String)] = [
      ("build --dry-run", ["build", file, "--dry-run", "--json"], "dry-run.schema.json"),
      ("build", ["build", file, "--json"], "run.schema.json"),
      ("build again", ["build", file, "--json"], "run.schema.json"),
      ("build {building} --dry-run", ["build", split, "--dry-run", "--json"], "buildings.schema.json"),
      ("build {building}", ["build", split, "--json"], "buildings.schema.json"),
      ("show campus", ["show", dir + "/campus/tiles", "--json"], "show.schema.json"),
      ("verify campus", ["verify", dir + "/campus/tiles", "--json"], "verify.schema.json"),
      ("verify {building}", ["verify", dir + "/campus/split", "--json"], "verify.schema.json"),
    ]
    var documents: [(label: String, schema: String, json: String)] = []
    for (label, arguments, schema) in cases {
      let run = try runTool(arguments, timeout: 300)
      #expect(run.status == 0, "\(label): \(run.stderr)")
      documents.append((label, schema, run.stdout))
    }
    let found = try violations(documents, in: dir)
    #expect(found.isEmpty, "\(found.prefix(8).joined(separator: "\n"))")
    // the building ids: the project's, in its order, and each placement's own
    let dry = try #require(try JSONSerialization.jsonObject(with: Data(documents[0].json.utf8)) as? [String: Any])
    let buildings = try #require(dry["buildings"] as? [[String: Any]])
    #expect(buildings.compactMap { $0["id"] as? String } == ["hq", "annex"])
    #expect(buildings.compactMap { $0["floors"] as? [Int] } == [[1, 2], [1]])
    let placements = try #require(dry["placements"] as? [[String: Any]])
    #expect(placements.compactMap { $0["building"] as? String } == ["hq", "hq", "annex"])
    let each = try #require(try JSONSerialization.jsonObject(with: Data(documents[3].json.utf8)) as? [String: Any])
    #expect(((each["buildings"] as? [String: Any])?.keys).map(Set.init) == ["hq", "annex"])
  }
}
