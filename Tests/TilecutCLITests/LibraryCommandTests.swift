import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import Tilecut

/// What the subcommands print is the library's to make: a program that links the
/// library gets the same page, documents and answers without the command line.
@Suite("subcommands' work through the library")
struct LibraryCommandTests {
  @Test("a georef page from the library, as the command writes it, and over nothing but such a page")
  func georefPage() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 300, height: 200, seed: 4).writePNG(to: dir + "/plan.png")
    var request = GeorefPageRequest(dir + "/plan.png", output: dir + "/g.html")
    request.gcp = ["10.5,20,52.5,13.4"]
    let line = try request.run(printer: Printer(verbosity: .quiet))
    #expect(line.hasPrefix("wrote \(dir)/g.html (3 tiles of 300 × 200 px, ") && line.hasSuffix("); open it in a browser"))
    #expect(try tilecut(["georef", dir + "/plan.png", "-o", dir + "/cli.html", "--gcp", "10.5,20,52.5,13.4"]) == 0)
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/g.html")) == Data(contentsOf: URL(fileURLWithPath: dir + "/cli.html")))
    try Data("notes".utf8).write(to: URL(fileURLWithPath: dir + "/notes.html"))
    request.output = dir + "/notes.html"
    #expect(throws: TilecutError.self) { try request.run(printer: Printer(verbosity: .quiet)) }
    #expect(try String(contentsOfFile: dir + "/notes.html", encoding: .utf8) == "notes")
  }

  @Test("a tile's words, verify's document and show's document come from the library")
  func documents() throws {
    #expect(StoreReader.coordinate(["18/140812/86013"]) == TileCoordinate(zoom: 18, x: 140812, y: 86013))
    #expect(StoreReader.coordinate(["3", "2", "1"]) == TileCoordinate(zoom: 3, x: 2, y: 1))
    #expect(StoreReader.coordinate(["3/2"]) == nil && StoreReader.coordinate(["a/b/c"]) == nil && StoreReader.coordinate([]) == nil)
    var report = VerifyReport(directory: "out", tilesChecked: 3, problems: ["missing: a"])
    report.storeFiles = (.mbtiles, 2)
    #expect(try report.json() == #"{"intact":false,"mbtilesFiles":2,"output":"out","problems":["missing: a"],"tilesChecked":3}"#)
    #expect(try StoreReader.json(["kind": "directory", "tiles": 2]) == "{\n  \"kind\" : \"directory\",\n  \"tiles\" : 2\n}")
  }
}
