import CSQLite
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutMBTiles

@testable import Tilecut
@testable import TilecutVips

// PDFs, MBTiles and the libraries that read them: damage and chatter end in one line (part of the suite in DamagedInputTests.swift).
extension DamagedInputTests {
  @Test("a PDF whose scan (a DCT image under vector lines, drawn by poppler) has one flipped bit is refused in one line")
  func damagedJPEGInPDF() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    try noisy(width: 640, height: 480).writePNG(to: c.path("scan.jpg[Q=90]"))
    let jpeg = try Damaged(c.path("scan.jpg")).bytes
    func pdf(_ image: [UInt8]) -> Data {
      let content = "q 320 0 0 240 0 0 cm /Im0 Do Q 1 0 0 RG 2 w 0 0 m 320 240 l S"
      let objects: [[UInt8]] = [
        Array("<< /Type /Catalog /Pages 2 0 R >>".utf8), Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
        Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 320 240] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".utf8),
        Array("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream".utf8),
        Array(
          "<< /Type /XObject /Subtype /Image /Width 640 /Height 480 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length \(image.count) >>\nstream\n"
            .utf8) + image + Array("\nendstream".utf8),
      ]
      return pdfDocument(objects)
    }
    try pdf(jpeg).write(to: URL(fileURLWithPath: c.path("mixed.pdf")))
    #expect(refusal(c.path("mixed.pdf")) == nil)
    var damaged = jpeg
    damaged[damaged.count - 2 - damaged.count / 100] ^= 0x01
    try pdf(damaged).write(to: URL(fileURLWithPath: c.path("damaged.pdf")))
    #expect(refusal(c.path("damaged.pdf"))?.contains("has a damaged JPEG image on page 1, object") == true)
    c.expectClean(
      try runTool([c.path("damaged.pdf"), "-o", c.path("out"), "--max-zoom", "2"]), status: 1,
      mentions: "damaged.pdf: cannot be decoded: it has a damaged JPEG image")
  }

  @Test(
    "a PDF inline image (BI … ID … EI) whose Flate data zlib finds corrupt is refused in one line; whole ones, and ones whose pixels hold ' EI ', are drawn"
  )
  func damagedInlineImage() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func pdf(_ zlib: [UInt8]) -> Data {
      let content =
        Array("q 1 0 0 RG 2 w 0 0 m 320 240 l S Q q 320 0 0 240 0 0 cm BI /W 16 /H 16 /CS /RGB /BPC 8 /F [/Fl] ID ".utf8) + zlib
        + Array("\nEI Q".utf8)
      let objects: [[UInt8]] = [
        Array("<< /Type /Catalog /Pages 2 0 R >>".utf8), Array("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
        Array("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 320 240] /Contents 4 0 R >>".utf8),
        Array("<< /Length \(content.count) >>\nstream\n".utf8) + content + Array("\nendstream".utf8),
      ]
      return pdfDocument(objects)
    }
    var pixels = (0..<(16 * 16 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 40) }
    let whole = PDFWriter.zlibStored(pixels)
    try pdf(whole).write(to: URL(fileURLWithPath: c.path("whole.pdf")))
    #expect(refusal(c.path("whole.pdf")) == nil)
    // " EI " inside the pixels: where the scan's guess cuts the data, poppler reads on
    pixels.replaceSubrange(100..<104, with: Array(" EI ".utf8))
    try pdf(PDFWriter.zlibStored(pixels)).write(to: URL(fileURLWithPath: c.path("ei.pdf")))
    #expect(refusal(c.path("ei.pdf")) == nil)
    // and what looks like another inline image after it: never judged, since the cut was a guess
    let fake = Array(" EI BI /W 2 /H 2 /CS /RGB /BPC 8 /F /Fl ID xxxxxxxxxxxx EI ".utf8)
    pixels.replaceSubrange(200..<(200 + fake.count), with: fake)
    try pdf(PDFWriter.zlibStored(pixels)).write(to: URL(fileURLWithPath: c.path("fake.pdf")))
    #expect(refusal(c.path("fake.pdf")) == nil)
    // the checksum wrong, and a stored block's length that disagrees with its complement
    var adler = whole
    adler[adler.count - 1] ^= 0x01
    var lengths = whole
    lengths[4] ^= 0x01
    for (name, bytes, says) in [("adler", adler, "incorrect data check"), ("lengths", lengths, "invalid stored block lengths")] {
      try pdf(bytes).write(to: URL(fileURLWithPath: c.path(name + ".pdf")))
      let why = refusal(c.path(name + ".pdf"))
      #expect(why?.contains("an inline image's Flate data is corrupt (zlib: \(says))") == true, "\(name): \(why ?? "drawn")")
    }
    c.expectClean(
      try runTool([c.path("adler.pdf"), "-o", c.path("out"), "--max-zoom", "2"]), status: 1,
      mentions: "adler.pdf: cannot be decoded")
  }

  @Test("a PDF of 12,000 pages has 12,000 pages, not libvips' 1 above 10,000")
  func manyPages() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let pages = 12_000
    var objects = ["<< /Type /Catalog /Pages 2 0 R >>"]
    objects.append("<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0) 0 R" }.joined(separator: " "))] /Count \(pages) >>")
    for _ in 0..<pages { objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] >>") }
    try pdfDocument(objects).write(to: URL(fileURLWithPath: dir + "/pages.pdf"))
    let header = try SourceImage.header(of: InputName(path: dir + "/pages.pdf"), maxPixels: 1 << 30)
    #expect(header.pages == pages)
    let last = try SourceImage.header(of: InputName(path: dir + "/pages.pdf", page: pages - 1), maxPixels: 1 << 30)
    #expect(last.width == 200 && last.height == 100)
  }

  @Test("MBTiles: an endless recursive view, a view over one, and a 100 MB blob end with one reason")
  func hostileMBTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let spec = """
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
      CREATE TABLE images (tile_data BLOB, tile_id TEXT);
      INSERT INTO map VALUES (0, 0, 0, 'a');
      INSERT INTO images VALUES (x'89504E47', 'a');
      """
    let cases = [
      "spec":
        "CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;",
      "recursive":
        "CREATE VIEW tiles AS WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r) SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r WHERE n < 0;",
      "hidden":
        "CREATE VIEW forever AS WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r; CREATE VIEW tiles AS SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM forever WHERE n < 0;",
      "blob":
        "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB); INSERT INTO tiles VALUES (0, 0, 0, zeroblob(100000000));",
    ]
    let reasons = try mbtilesRefusals(dir, spec: spec, cases: cases, specRows: 1)
    #expect(reasons["spec"] == nil)
    #expect(reasons["recursive"]?.contains("recursive") == true)
    #expect(reasons["hidden"]?.contains("SQLite steps") == true)
    #expect(reasons["blob"]?.contains("larger than 64 MiB") == true)
  }

  @Test("MBTiles: a cross join padded to 40 MB is stopped by steps that follow the tables' rows, not the file's size; verify says it in a line")
  func crossJoinMBTiles() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let values = (0..<8).map { "(3, \($0), 0, 'i\($0)')" }.joined(separator: ", ")
    let images = (0..<8).map { "(x'89504E47', 'i\($0)')" }.joined(separator: ", ")
    let spec = """
      CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT);
      CREATE TABLE images (tile_data BLOB, tile_id TEXT);
      INSERT INTO map VALUES \(values);
      INSERT INTO images VALUES \(images);
      CREATE TABLE pad (b BLOB);
      WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r LIMIT 40) INSERT INTO pad SELECT zeroblob(1000000) FROM r;
      """
    let columns = "a.zoom_level AS zoom_level, a.tile_column AS tile_column, a.tile_row AS tile_row, i.tile_data AS tile_data"
    let cases = [
      "spec":
        "CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;",
      // 8⁸ rows looked at, none given: only the step budget ends it
      "filtered":
        "CREATE VIEW tiles AS SELECT \(columns) FROM map a, map b, map c, map d, map e, map f, map g, images i WHERE i.tile_id = a.tile_id AND a.tile_column + b.tile_column + c.tile_column + d.tile_column + e.tile_column + f.tile_column + g.tile_column < 0;",
      // every row given again and again
      "repeating": "CREATE VIEW tiles AS SELECT \(columns) FROM map a, map b, map c, map d, map e, images i WHERE i.tile_id = a.tile_id;",
    ]
    let reasons = try mbtilesRefusals(dir, spec: spec, cases: cases, specRows: 8)
    #expect(reasons["spec"] == nil, "\(reasons)")
    // 16 steps a byte gave this file 640 M steps; its 57 rows give a few million
    let filtered = try #require(reasons["filtered"])
    let limit = filtered.split(separator: " ").first { Int($0) != nil }.flatMap { Int($0) }
    #expect(filtered.contains("SQLite steps") && (limit ?? .max) < 10_000_000, "\(filtered)")
    #expect(reasons["repeating"]?.contains("yields more rows than its tables hold") == true, "\(reasons)")

    // verify of an output whose tiles view became a cross join: the file is not the one
    // tilecut wrote, one line; without the digest, one line of why its rows cannot be read
    try picture(width: 600, height: 400).writePNG(to: dir + "/plan.png")
    #expect(try runTool([dir + "/plan.png", "-o", dir + "/out", "-q", "--store", "mbtiles", "--max-zoom", "3"]).status == 0)
    var db: OpaquePointer?
    #expect(sqlite3_open(dir + "/out/L1_256.mbtiles", &db) == SQLITE_OK)
    let join = "SELECT \(columns) FROM map a, map b, map c, map d, map e, map f, images i WHERE i.tile_id = a.tile_id"
    #expect(sqlite3_exec(db, "DROP VIEW tiles; CREATE VIEW tiles AS \(join);", nil, nil, nil) == SQLITE_OK)
    sqlite3_close(db)
    let changed = try runTool(["verify", dir + "/out"])
    #expect(changed.status == 1 && changed.stderrLines.count == 1, "\(changed.stderr)")
    #expect(changed.stdout == "changed: L1_256.mbtiles (its bytes differ from the digest in the manifest)\n", "\(changed.stdout)")
    let manifestPath = dir + "/out/manifest.json"
    var older = try Manifest.decode(try #require(FileManager.default.contents(atPath: manifestPath)))
    older.storeFileDigests = nil
    try older.encoded().write(to: URL(fileURLWithPath: manifestPath))
    let unread = try runTool(["verify", dir + "/out"])
    let lines = unread.stdout.split(separator: "\n")
    #expect(unread.status == 1 && lines.count <= Verifier.problemsPerArchive + 2, "\(lines.count) lines")
    let stopped = "stopped: L1_256.mbtiles after its first \(Verifier.problemsPerArchive) problems"
    #expect(unread.stdout.contains(stopped) || unread.stdout.contains("yields more rows than its tables hold"), "\(unread.stdout.prefix(2000))")
  }

  @Test("GeoKeys naming an EPSG code PROJ does not know say which code, and nothing else reaches stderr")
  func unknownEPSG() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoTIFFWriter.write(
      path: dir + "/unknown.tif", width: 4, height: 4, bands: 3, pixels: [UInt8](repeating: 9, count: 48),
      tiepoint: [0, 0, 0, 500_000, 6_000_000, 0],
      scale: [1, 1, 0], shortKeys: [(.modelType, 1), (.rasterType, 1), (.projectedCSType, 3)])
    let tags = try #require(GeoTIFFTags.read(path: dir + "/unknown.tif"))
    #expect(tags.crs == nil)
    #expect(tags.crsProblem?.contains("EPSG:3") == true, "\(tags.crsProblem ?? "no problem")")
  }

  @Test("a PDF nesting a million 'q' is refused before poppler copies its graphics state a million times")
  func nestedSaves() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func page(_ content: String, filter: String = "") -> Data {
      let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R >>",
        "<< /Length \(content.utf8.count) \(filter) >>\nstream\n\(content)\nendstream",
      ]
      return pdfDocument(objects)
    }
    try page(String(repeating: "q ", count: 1_000_000) + String(repeating: "Q ", count: 1_000_000))
      .write(to: URL(fileURLWithPath: dir + "/nested.pdf"))
    #expect(refusal(dir + "/nested.pdf")?.contains("1000000 deep") == true)
    // the same million in ASCII layers, alone or in a filter array, which poppler decodes (1.6 GB before)
    let saves = Array((String(repeating: "q ", count: 1_000_000) + String(repeating: "Q ", count: 1_000_000)).utf8)
    let digits = Array("0123456789abcdef".utf8)
    var hexBytes = [UInt8](repeating: 0, count: saves.count * 2)
    for (k, b) in saves.enumerated() {
      hexBytes[2 * k] = digits[Int(b >> 4)]
      hexBytes[2 * k + 1] = digits[Int(b & 15)]
    }
    let hex = String(decoding: hexBytes, as: UTF8.self) + ">"
    // "q " and "Q " in fours: each group of 4 bytes is the same 5 base-85 digits
    func base85(_ four: [UInt8]) -> [UInt8] {
      var group = four.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      var out = [UInt8](repeating: 33, count: 5)
      for k in (0..<5).reversed() {
        out[k] = UInt8(33 + group % 85)
        group /= 85
      }
      return out
    }
    let a85 =
      String(decoding: Array([[UInt8]](repeating: base85(Array("q q ".utf8)), count: 500_000).joined()), as: UTF8.self)
      + String(decoding: Array([[UInt8]](repeating: base85(Array("Q Q ".utf8)), count: 500_000).joined()), as: UTF8.self) + "~>"
    for (name, content, filter) in [
      ("hex", hex, "/Filter /ASCIIHexDecode"), ("a85", a85, "/Filter [/A85]"), ("both", hex, "/Filter [ /AHx ]"),
    ] {
      try page(content, filter: filter).write(to: URL(fileURLWithPath: dir + "/\(name).pdf"))
      #expect(refusal(dir + "/\(name).pdf")?.contains("1000000 deep") == true, "\(name)")
    }
    try page("71 20 51>", filter: "/Filter /ASCIIHexDecode").write(to: URL(fileURLWithPath: dir + "/few.pdf"))
    #expect(refusal(dir + "/few.pdf") == nil)
    try page("q 1 0 0 rg (q q q) Tj 0 0 10 10 re f Q % q q").write(to: URL(fileURLWithPath: dir + "/plain.pdf"))
    #expect(refusal(dir + "/plain.pdf") == nil)
  }

  @Test("poppler's syntax errors never reach stderr, even with G_MESSAGES_DEBUG=all: a clean run prints nothing, a refused one one line")
  func popplerChatter() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func pdf(_ content: String, filter: String = "") -> Data {
      let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        "<< /Length \(content.utf8.count) \(filter) >>\nstream\n\(content)\nendstream",
        "<< /Type /Font /Subtype /TrueType /BaseFont /Nope /FontFile2 6 0 R >>",
        "<< /Length 10 >>\nstream\n0123456789\nendstream",
      ]
      return pdfDocument(objects)
    }
    // an unknown XObject, unknown operators, a stray ')' and ']', a font that is not one: poppler says so for each
    let noisy = "BT /F1 12 Tf 10 10 Td (plan) Tj ET /Im9 Do 1 0 0 RG 4 w 0 0 m 200 100 l S ] ) foo 1 2 bar"
    try pdf(noisy).write(to: URL(fileURLWithPath: c.path("noisy.pdf")))
    let clean = try runTool([], shell: "G_MESSAGES_DEBUG=all TILECUT \(c.path("noisy.pdf")) -o \(c.path("noisy-out")) --max-zoom 3 -q")
    #expect(clean.status == 0, "\(clean.stderr)")
    #expect(clean.stderrBesideUnplacedNote.isEmpty, "stderr: \(clean.stderr)")
    let deep = String(repeating: "q ", count: 200_000) + noisy + String(repeating: " Q", count: 200_000)
    let hex = deep.utf8.map { String(format: "%02x", $0) }.joined() + ">"
    try pdf(hex, filter: "/Filter /AHx").write(to: URL(fileURLWithPath: c.path("deep.pdf")))
    c.expectClean(
      try runTool([], shell: "G_MESSAGES_DEBUG=all TILECUT \(c.path("deep.pdf")) -o \(c.path("out")) --max-zoom 3"), status: 1,
      mentions: "deep.pdf: nests 'q' (save graphics state) 200000 deep")
  }

  @Test("a library's own stderr lines (poppler's font engine) never reach stderr; TILECUT_LIBRARY_MESSAGES=1 shows them")
  func libraryStderr() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let content = "BT /F1 48 Tf 100 100 Td (Hello) Tj ET 0 0 1 rg 10 10 200 200 re f"
    let font = String(repeating: "garbage font bytes", count: 10)
    let objects = [
      "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
      "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
      "<< /Type /Font /Subtype /TrueType /BaseFont /Broken /FirstChar 32 /LastChar 126 /Widths [] /FontDescriptor 6 0 R >>",
      "<< /Type /FontDescriptor /FontName /Broken /Flags 32 /FontBBox [0 0 1000 1000] /ItalicAngle 0 /Ascent 800 "
        + "/Descent -200 /CapHeight 700 /StemV 80 /FontFile2 7 0 R >>",
      "<< /Length \(font.utf8.count) >>\nstream\n\(font)\nendstream",
    ]
    try pdfDocument(objects).write(to: URL(fileURLWithPath: c.path("font.pdf")))
    let place = "--center 51.5,-0.14 --meters-per-pixel 0.5 --max-zoom 18 -q"
    let quiet = try runTool([], shell: "TILECUT \(c.path("font.pdf")) \(place) -o \(c.path("quiet"))")
    #expect(quiet.status == 0, "\(quiet.stderr)")
    #expect(quiet.stderr.isEmpty, "stderr: \(quiet.stderr)")
    #expect(FileManager.default.fileExists(atPath: c.path("quiet/manifest.json")))
    // the same run with the libraries' lines passed on: the font engine did print
    // (the variable's name quoted in two parts: runTool puts the binary's path for TILECUT)
    let library = "TILE''CUT_LIBRARY_MESSAGES"
    let told = try runTool([], shell: "env \(library)=1 TILECUT \(c.path("font.pdf")) \(place) -o \(c.path("told"))")
    #expect(told.status == 0, "\(told.stderr)")
    #expect(!told.stderrLines.isEmpty && told.stderrLines.allSatisfy { $0.hasPrefix("library: ") }, "stderr: \(told.stderr)")
    // tilecut's own writes to /dev/stderr go to the real stderr, not into the pipe
    let changes = try runTool([], shell: "TILECUT \(c.path("font.pdf")) \(place) -o \(c.path("changes")) --changes /dev/stderr")
    #expect(changes.status == 0, "\(changes.stderr)")
    #expect(changes.stderrLines.contains { $0.hasPrefix("A\t256/") }, "stderr: \(changes.stderr)")
    #expect(!changes.stderr.contains("font"), "stderr: \(changes.stderr)")
  }
}
