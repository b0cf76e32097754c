import Foundation
import Testing
import TilecutCore
@testable import TilecutVips

/// IMDF problems reported by feature and file, all at once; level outlines drawn; hostile
/// venues refused in one line with nothing written.
@Suite("IMDF validation, level outlines and hostile venues")
struct IMDFValidationTests {
  /// A unit feature of unit.geojson on level `lvl-0`, as text.
  func unit(_ id: String, ring: String, level: String? = "lvl-0") -> String {
    let levelID = level.map { ",\"level_id\":\"\($0)\"" } ?? ""
    return #"{"type":"Feature","id":""# + id + #"","geometry":{"type":"Polygon","coordinates":["# + ring
      + #"]},"properties":{"category":"room""# + levelID + "}}"
  }

  @Test("invalid polygons (GDAL/GEOS), wrong ranges, unclosed rings, missing level_id: each by id and file, all at once")
  func everyProblemAtOnce() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let venue = try writeVenue(
      dir,
      extraUnits: [
        // a bow-tie: its edges cross at (5.0002, 52.0002)
        unit("unit-bowtie", ring: "[[5.0001,52.0001],[5.0003,52.0003],[5.0003,52.0001],[5.0001,52.0003],[5.0001,52.0001]]"),
        unit("unit-far", ring: "[[500,52],[5,52],[5,52.0001],[500,52]]"),
        unit("unit-open", ring: "[[5,52],[5.0001,52],[5.0001,52.0001],[5,52.0001]]"),
        unit("unit-nowhere", ring: "[[5,52],[5.0001,52],[5.0001,52.0001],[5,52]]", level: nil),
      ])
    let r = try runTool([venue, "--min-zoom", "18", "--max-zoom", "18", "-o", dir + "/out"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    let file = "warning: \(venue)/unit.geojson: feature "
    #expect(r.stderr.contains(file + "unit-bowtie: its polygon is not valid (GDAL/GEOS: Self-intersection at or near point 5.000"), "\(r.stderr)")
    #expect(r.stderr.contains(file + "unit-far: has a position outside WGS 84's range (500.0, 52.0)"), "\(r.stderr)")
    #expect(r.stderr.contains(file + "unit-open: has a polygon ring that is not closed"), "\(r.stderr)")
    #expect(r.stderr.contains(file + "unit-nowhere: has no \"level_id\""), "\(r.stderr)")
    // the bow-tie is drawn as given, the three others are not
    #expect(r.stderr.contains("2 features drawn, 4 problems"), "\(r.stderr)")
    #expect(try decodedTiles(dir + "/out").isEmpty == false)
  }

  @Test("the level's own polygon is drawn as the floor's outline, within its units")
  func levelOutline() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // the level a smaller square inside the unit: its outline is red, 4 px wide
    let inner = "[[[5.0001,52.0001],[5.0005,52.0001],[5.0005,52.0003],[5.0001,52.0003],[5.0001,52.0001]]]"
    let venue = try writeVenue(dir, levelGeometry: "{\"type\":\"Polygon\",\"coordinates\":\(inner)}")
    var counts: [Int] = []
    for stroke in ["#ff0000", "none"] {
      let style = "{\"level\": {\"stroke\": \"\(stroke)\", \"width\": 4}, \"label\": {\"size\": 0}}"
      try Data(style.utf8).write(
        to: URL(fileURLWithPath: dir + "/style.json"))
      let r = try runTool(
        [venue, "--venue-style", dir + "/style.json", "--tile-size", "256", "--min-zoom", "20", "--max-zoom", "20", "-o", dir + "/\(stroke.count)"],
        timeout: 120)
      #expect(r.status == 0, "\(r.stderr)")
      counts.append(redPixels(try decodedTiles(dir + "/\(stroke.count)")))
    }
    // the inner square is some 182 × 195 px at zoom 20: its outline 4 px wide about 3,000 px
    #expect(counts[0] > 2_000 && counts[0] < 4_500, "\(counts)")
    #expect(counts[1] == 0, "\(counts)")
  }

  @Test(
    "a hostile venue is refused in one line, nothing written",
    arguments: ["1e999", "NaN", "whole world"])
  func hostile(case name: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let ring: String
    let expected: String
    switch name {
    case "1e999":
      ring = "[[1e999,52],[5,52],[5,52.0001],[1e999,52]]"
      expected = "unit.geojson is not valid JSON"
    case "NaN":
      ring = "[[NaN,52],[5,52],[5,52.0001],[NaN,52]]"
      expected = "unit.geojson is not valid JSON"
    default:
      // in range, but a floor as wide as the world at zoom 20
      ring = "[[-179,-80],[179,-80],[179,80],[-179,80],[-179,-80]]"
      expected = "more than --max-pixels"
    }
    let venue = try writeVenue(dir, extraUnits: [unit("unit-\(name.count)", ring: ring)])
    let before = try FileManager.default.contentsOfDirectory(atPath: venue).sorted()
    let r = try runTool([venue, "--max-zoom", "20", "-o", dir + "/out"], timeout: 120)
    #expect(r.status != 0)
    let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: ") }
    #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && r.stderr.contains(expected), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: venue).sorted() == before)
  }

  /// A level's ordinal of -2^63 was read as Int.min, whose magnitude trapped (SIGILL)
  /// when it was compared with the ±1000 floors tilecut numbers.
  /// An integer ordinal past ±1000 was called "no integer ordinal"; it is named, with the range.
  @Test(
    "a level's ordinal past ±1000, even the smallest 64-bit integer, is out of range: refused in one line, no trap",
    arguments: [
      ("-9223372036854775808", "-9223372036854775808"), ("9223372036854775807", "9.223372036854776e+18"), ("-1e308", "-1e+308"),
      ("1001", "1001"), ("1e6", "1000000"), ("2147483648", "2147483648"), ("-2147483649", "-2147483649"),
    ])
  func hugeOrdinal(_ ordinal: String, _ shown: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let r = try runWithOrdinal(ordinal, dir: dir)
    #expect(!r.signalled && r.status == 1, "\(r.status) \(r.stderr)")
    let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning: ") }
    let expected = "has \"ordinal\" \(shown), outside the range tilecut draws (-1000 to 1000); the level is not drawn"
    #expect(lines.count == 1 && lines[0].hasPrefix("error: ") && r.stderr.contains(expected), "\(r.stderr)")
    #expect(!r.stderr.contains("no integer"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
  }

  /// tilecut run on a venue in `dir` whose level's ordinal is `ordinal` (JSON text).
  func runWithOrdinal(_ ordinal: String, dir: String) throws -> RunResult {
    let venue = try writeVenue(dir)
    let file = venue + "/level.geojson"
    let text = try String(contentsOfFile: file, encoding: .utf8)
    try Data(text.replacingOccurrences(of: #""ordinal":0"#, with: #""ordinal":"# + ordinal).utf8).write(to: URL(fileURLWithPath: file))
    return try runTool([venue, "--max-zoom", "18", "-o", dir + "/out"], timeout: 120)
  }

  /// An ordinal that is no integer at all keeps its message.
  @Test("a level's fractional ordinal is still no integer ordinal", arguments: ["0.5", "\"0\"", "null"])
  func fractionalOrdinal(_ ordinal: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let r = try runWithOrdinal(ordinal, dir: dir)
    #expect(!r.signalled && r.status == 1, "\(r.status) \(r.stderr)")
    #expect(r.stderr.contains("has no integer \"ordinal\"") && !r.stderr.contains("outside the range"), "\(r.stderr)")
  }

  /// Parsed, a venue's JSON takes about 540 bytes a value: 3 × 10^5 small squares in a
  /// 66 MB file peaked at 3.55 GB. Counted before any is parsed, and refused in one line
  /// past what --max-memory leaves (here 100 MB: about 61,000 values, the file 4 MB,
  /// within the 6 MB its files may hold).
  @Test("a venue whose JSON would take more than --max-memory once parsed is refused before it is parsed")
  func manyValues() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let venue = try writeVenue(dir)
    let squares = (0..<20_000).map { i in
      let x = 5 + Double(i % 200) * 1e-5
      let y = 52 + Double(i / 200) * 1e-5
      return #"{"type":"Feature","id":"u"# + "\(i)" + #"","feature_type":"unit","geometry":{"type":"Polygon","coordinates":[[["#
        + "\(x),\(y)],[\(x + 1e-5),\(y)],[\(x + 1e-5),\(y + 1e-5)],[\(x),\(y)]]]}"
        + #","properties":{"category":"room","level_id":"lvl-0"}}"#
    }
    try Data((#"{"type":"FeatureCollection","features":["# + squares.joined(separator: ",") + "]}").utf8).write(
      to: URL(fileURLWithPath: venue + "/unit.geojson"))
    let r = try runTool([venue, "--max-zoom", "19", "--max-memory", "100", "-o", dir + "/out"])
    #expect(!r.signalled && r.status == 1, "\(r.status) \(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1 && r.stderr.contains("in its unit.geojson), which take about"), "\(r.stderr)")
    #expect(r.stderr.contains("more than --max-memory allows; raise --max-memory"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"))
    // within the default budget it is read and tiled
    let fine = try runTool([venue, "--max-zoom", "17", "-o", dir + "/out", "-q"])
    #expect(fine.status == 0, "\(fine.stderr)")
  }

  /// An archive listing more entries than tilecut takes was discarded twice (once by the
  /// refusal, once by the archive's deinit): a crash in libzip (SIGSEGV), not one line.
  @Test("a venue's ZIP archive of 70,000 entries is refused in one line, no crash")
  func tooManyEntries() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let venue = try writeVenue(dir)
    try runProgram(
      "/usr/bin/python3",
      [
        "-c",
        "import zipfile,os,sys; z=zipfile.ZipFile(sys.argv[1],'w'); [z.write(os.path.join(sys.argv[2],n),n) for n in sorted(os.listdir(sys.argv[2]))]; [z.writestr('x/%d' % i, b'') for i in range(70000)]; z.close()",
        dir + "/venue.zip", venue,
      ])
    try expectZipRefused(dir, says: ["venue.zip: ", "lists 70003 entries, more than 65536"])
  }

  /// Runs `dir`/venue.zip and checks its refusal: one line holding each of `says`, no
  /// signal, no output.
  func expectZipRefused(_ dir: String, says: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let r = try runTool([dir + "/venue.zip", "--max-zoom", "18", "-o", dir + "/out"], timeout: 120)
    #expect(!r.signalled && r.status == 1, "\(r.status) \(r.stderr)", sourceLocation: sourceLocation)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].hasPrefix("error: "), "\(r.stderr)", sourceLocation: sourceLocation)
    for words in says { #expect(r.stderr.contains(words), "\(r.stderr)", sourceLocation: sourceLocation) }
    #expect(!r.stderr.contains("convert it to PNG"), "\(r.stderr)", sourceLocation: sourceLocation)
    #expect(!FileManager.default.fileExists(atPath: dir + "/out"), sourceLocation: sourceLocation)
  }

  /// A venue's archive libzip refuses was taken for a ZIP archive of some other kind:
  /// "which tilecut does not read; convert it to PNG, …". It is read as a venue, whose
  /// reading says what libzip found.
  @Test(
    "a venue's damaged ZIP archive is refused in one line that says what libzip found",
    arguments: [
      (case: "two entries of one name", says: "(File already exists); zip its files again"),
      (case: "cut short", says: "(Not a zip archive); zip its files again"),
    ])
  func damagedZip(case name: String, says: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let venue = try writeVenue(dir)
    let extra = name == "cut short" ? "" : "z.writestr('unit.geojson', b'{}'); "
    try runProgram(
      "/usr/bin/python3",
      [
        "-W", "ignore", "-c",
        "import zipfile,os,sys; z=zipfile.ZipFile(sys.argv[1],'w'); [z.write(os.path.join(sys.argv[2],n),n) for n in sorted(os.listdir(sys.argv[2]))]; "
          + extra + "z.close()",
        dir + "/venue.zip", venue,
      ])
    if name == "cut short" {
      let whole = try Data(contentsOf: URL(fileURLWithPath: dir + "/venue.zip"))
      try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: dir + "/venue.zip"))
    }
    try expectZipRefused(dir, says: ["venue.zip: is not a ZIP archive libzip can read", says])
  }

  /// A ZIP named as a venue that libzip reads but that holds no venue (empty, or a ZIP in
  /// a ZIP) was "a ZIP archive, which tilecut does not read; convert it to PNG, …".
  @Test(
    "a .zip without a venue in it says what an IMDF venue's ZIP holds",
    arguments: [
      (case: "empty", says: "venue.zip: is an empty ZIP archive (no entries); "),
      (case: "nested", says: "venue.zip: holds another ZIP archive (inner.zip) but no IMDF level.geojson; name the inner ZIP instead"),
      (case: "other", says: "venue.zip: holds no IMDF manifest.json or layers (no level.geojson); "),
    ])
  func zipWithoutVenue(case name: String, says: String) throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let venue = try writeVenue(dir)
    let body =
      switch name {
      case "empty": ""
      case "nested":
        "i=zipfile.ZipFile(sys.argv[1]+'.in','w'); [i.write(os.path.join(sys.argv[2],n),n) for n in os.listdir(sys.argv[2])]; "
          + "i.close(); z.write(sys.argv[1]+'.in','inner.zip'); "
      default: "z.writestr('notes.txt', b'x'); "
      }
    try runProgram(
      "/usr/bin/python3",
      ["-W", "ignore", "-c", "import zipfile,os,sys; z=zipfile.ZipFile(sys.argv[1],'w'); " + body + "z.close()", dir + "/venue.zip", venue])
    try expectZipRefused(dir, says: [says, "an IMDF venue's ZIP holds manifest.json and its .geojson files at its top (or in one folder)"])
  }

  /// The run's report looked up each level's planned cells in a table it built anew for
  /// every level: a venue of 1,001 floors (8,008 levels) wrote its output in 13 s, then
  /// spent minutes on its report (killed at 120 s; 19 s with the table built once). Its
  /// time is the benchmark's to measure, not a test's: this checks that a venue of
  /// hundreds of levels is tiled and reported whole, a floor for each.
  @Test("a venue of 201 levels is tiled and reported, a floor for each")
  func manyLevels() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let venue = try writeVenue(dir)
    let square = "[[[5.0,52.0],[5.0006,52.0],[5.0006,52.0004],[5.0,52.0004],[5.0,52.0]]]"
    let levels = (0...200).map { n in
      #"{"type":"Feature","id":"lvl-"# + "\(n)"
        + #"","feature_type":"level","geometry":{"type":"Polygon","coordinates":"# + square
        + #"},"properties":{"ordinal":"# + "\(n)" + #","category":"unspecified"}}"#
    }
    try Data((#"{"type":"FeatureCollection","features":["# + levels.joined(separator: ",") + "]}").utf8).write(
      to: URL(fileURLWithPath: venue + "/level.geojson"))
    let r = try runTool([venue, "--max-zoom", "19", "-o", dir + "/out"])
    #expect(!r.signalled && r.status == 0, "\(r.status) \(r.stderr)")
    #expect(r.stderr.contains("201 levels on 201 floors"), "\(r.stderr)")
    let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/out/manifest.json")))
    let floors = Set(((manifest as? [String: Any])?["levels"] as? [[String: Any]] ?? []).compactMap { $0["floor"] as? Int })
    #expect(floors == Set(0...200), "floors in the manifest: \(floors.count)")
  }

  /// A floor's units are one clip path in its sheet: past libxml2's 10,000,000 bytes in
  /// one attribute, librsvg refused the sheet mid-run ("render /tmp//tilecut-venue-…/
  /// floor2.svg: svgload: XML parse error …"), naming neither the venue nor what to do.
  @Test("a floor whose outlines pass 10 MB in one SVG element is refused by the venue's name")
  func outlinePastLibxml2() throws {
    let count = 700_000
    var ring = (0..<count).map { i in
      LonLat(lon: 5 + 0.001 * cos(Double(i) * 2 * .pi / Double(count)), lat: 52 + 0.001 * sin(Double(i) * 2 * .pi / Double(count)))
    }
    ring.append(ring[0])
    let unit = IMDFFeature(
      kind: "unit", id: "unit-round", file: "unit.geojson", category: "room", geometry: .polygons([[ring]]), levelID: "lvl-0", name: nil,
      shortName: nil, displayPoint: nil, references: [], ordinal: nil)
    let path = "/nowhere/round-venue"
    let venue = IMDFVenue(path: path, language: "en", levels: [], features: [unit], problems: [], digest: "")
    func floor(_ features: [IMDFFeature]) -> IMDFFloor {
      IMDFFloor(ordinal: 0, levels: [], features: features, zoom: 19, originX: 0, originY: 0, width: 512, height: 512, metersPerPixel: 0.3)
    }
    VenueSheets.register(.init(venue: venue, floors: [floor([unit])], style: .standard, language: nil))
    do {
      VenueSheets.discard(try VenueSheets.document(path: path, ordinal: 0, scale: 1))
      Issue.record("a sheet of 10 MB in one element was written")
    } catch {
      guard case .invalidInput(path, let reason) = error as? TilecutError else { throw error }
      #expect(reason.hasPrefix("floor L0 draws ") && reason.contains("more than the 10 MB librsvg reads in one; simplify its units"), "\(reason)")
    }
    // a few hundred positions: the sheet is written
    var small = unit
    small.geometry = .polygons([[Array(ring[0..<300]) + [ring[0]]]])
    VenueSheets.register(.init(venue: venue, floors: [floor([small])], style: .standard, language: nil))
    let sheet = try VenueSheets.document(path: path, ordinal: 0, scale: 1)
    VenueSheets.discard(sheet)
  }

  @Test("a name of a million characters is drawn cut short, in the run's time and memory")
  func millionCharacterName() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let name = String(repeating: "Ж", count: 1_000_000)
    let long =
      #"{"type":"Feature","id":"unit-long","geometry":{"type":"Polygon","coordinates":[[[5.0001,52.0001],[5.0002,52.0001],[5.0002,52.0002],[5.0001,52.0002],[5.0001,52.0001]]]},"properties":{"category":"room","level_id":"lvl-0","name":{"en":""#
      + name + #""}}}"#
    let venue = try writeVenue(dir, extraUnits: [long])
    let r = try runTool([venue, "--min-zoom", "19", "--max-zoom", "19", "-o", dir + "/out"], timeout: 120)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try decodedTiles(dir + "/out").isEmpty == false)
    let label = IMDFDrawing.svg(
      try #require(IMDFFloor.floors(of: try IMDFVenue.load(path: venue, maxBytes: 64 << 20), zoom: 19, language: nil).first), scale: 1,
      style: .standard, language: nil, venueLanguage: "en")
    #expect(!label.contains(String(repeating: "Ж", count: 61)))
  }
}
