import CSQLite
import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutMBTiles

@testable import Tilecut
@testable import TilecutVips

// SVG drawings: what librsvg would open, expand or allocate is checked first (part of the suite in DamagedInputTests.swift).
extension DamagedInputTests {
  @Test("SVG: a FIFO named by <image>, CSS @import or xi:include is never opened; embedded images held to --max-memory")
  func svgReferences() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    #expect(mkfifo(dir + "/pipe.png", 0o600) == 0)
    #expect(mkfifo(dir + "/style.css", 0o600) == 0)
    let open =
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:xi="http://www.w3.org/2001/XInclude" width="100" height="100">"#
    let bodies = [
      "image": #"<image width="50" height="50" xlink:href="pipe.png"/>"#,
      "import": #"<style>@import "style.css";</style>"#,
      "url": #"<style>rect { fill: url( 'style.css#x' ) }</style>"#,
      "include": #"<text><xi:include href="./pipe.png" parse="text"/></text>"#,
    ]
    for (name, body) in bodies {
      try Data((open + body + "<rect width=\"5\" height=\"5\"/></svg>").utf8).write(to: URL(fileURLWithPath: dir + "/\(name).svg"))
      #expect(refusal(dir + "/\(name).svg")?.contains("FIFO") == true, "\(name)")
    }
    // a 17000² PNG as a data: URI: 1.2 GB once librsvg decodes it
    let png = Data(pngHeader(width: 17000, height: 17000)).base64EncodedString()
    let embedded = open + #"<image width="50" height="50" href="data:image/png;base64,"# + png + #""/></svg>"#
    try Data(embedded.utf8).write(to: URL(fileURLWithPath: dir + "/embedded.svg"))
    #expect(refusal(dir + "/embedded.svg")?.contains("17000 × 17000") == true)
    // links, fragments and directories are not image sources: the drawing reads
    let fine = open + #"<a href="/"><rect fill="url(#g)" width="5" height="5"/></a><a href="https://example.com/"/></svg>"#
    try Data(fine.utf8).write(to: URL(fileURLWithPath: dir + "/fine.svg"))
    #expect(refusal(dir + "/fine.svg") == nil)
  }

  @Test(
    "SVG: a FIFO or directory named through character references, entities, white space, CSS escapes or comments, or by a stylesheet or SVG it refers to, is refused before librsvg opens it"
  )
  func svgReferenceSpellings() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    for name in ["fifo.png", "fifo.css", "fifo.svg"] { #expect(mkfifo(c.path(name), 0o600) == 0) }
    try FileManager.default.createDirectory(atPath: c.path("folder"), withIntermediateDirectories: true)
    func write(_ text: String, _ name: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: c.path(name))) }
    let open =
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100"><rect width="50" height="50" fill="blue"/>"#
    try write(#"rect { stroke: red } @import "fifo.css";"#, "imports.css")
    try write(#"<svg xmlns="http://www.w3.org/2000/svg"><use href="fifo.svg#a"/></svg>"#, "inner.svg")
    let inner = #"<svg xmlns='http://www.w3.org/2000/svg'><image href='fifo.png'/></svg>"#
    let cases: [(name: String, prolog: String, body: String)] = [
      ("charref", "", #"<image href="fi&#102;o.png" width="5" height="5"/>"#),
      ("space", "", #"<image href=" fifo.png " width="5" height="5"/>"#),
      ("linebreak", "", #"<image href="fi&#10;fo.png" width="5" height="5"/>"#),
      ("cssescape", "", #"<style>@import url(fi\66o.css);</style>"#),
      ("csscomment", "", #"<style>@import/**/"fifo.css";</style>"#),
      ("escapedimport", "", #"<style><![CDATA[@\69mport "fifo.css";]]></style>"#),
      ("nested", "", #"<style>@import "imports.css";</style>"#),
      ("fill", "", #"<rect width="5" height="5" fill="u&#x72;l(fifo.svg#p)"/>"#),
      ("style", "", #"<rect width="5" height="5" style="filter: url(&quot;fifo.svg#f&quot;)"/>"#),
      ("feimage", "", #"<filter id="f"><feImage xlink:href="fifo.png"/></filter>"#),
      ("pattern", "", #"<pattern id="p" href="fifo.svg#q"/>"#),
      ("use", "", #"<use href="inner.svg#a"/>"#),
      (
        "datasvg", "",
        #"<image width="5" height="5" href="data:image/svg+xml,"# + (inner.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
          + #""/>"#
      ),
      ("entity", #"<!DOCTYPE svg [<!ENTITY f "fifo.png">]>"#, #"<image href="&f;" width="5" height="5"/>"#),
      ("entitymarkup", #"<!DOCTYPE svg [<!ENTITY f "<image href=&#34;fifo.png&#34; width=&#34;5&#34; height=&#34;5&#34;/>">]>"#, "&f;"),
      ("attlist", #"<!DOCTYPE svg [<!ATTLIST image href CDATA "fifo.png">]>"#, #"<image width="5" height="5"/>"#),
      ("stylesheet", #"<?xml-stylesheet type="text/css" href="fifo.css"?>"#, ""),
      ("directory", "", #"<image width="5" height="5" href="folder/"/>"#),
    ]
    for (name, prolog, body) in cases {
      try write(prolog + open + body + "</svg>", "\(name).svg")
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(name).svg: refers to")
      #expect(r.stderr.contains(name == "directory" ? "a directory" : "a FIFO"), "\(name): \(r.stderr)")
    }
    // encodings libxml2 decodes: Latin-1 and UTF-16 are read as it reads them, UTF-7 is refused
    #expect(mkfifo(c.path("fi\u{E9}o.png"), 0o600) == 0)
    let latin1 = #"<?xml version="1.0" encoding="ISO-8859-1"?>"# + open + #"<image width="5" height="5" href="fi\#u{E9}o.png"/></svg>"#
    try #require(latin1.data(using: .isoLatin1)).write(to: URL(fileURLWithPath: c.path("latin1.svg")))
    let utf16 = #"<?xml version="1.0" encoding="UTF-16"?><svg xmlns="http://www.w3.org/2000/svg"><use href="fifo.svg#a"/></svg>"#
    try (Data([0xFF, 0xFE]) + (try #require(utf16.data(using: .utf16LittleEndian)))).write(to: URL(fileURLWithPath: c.path("inner16.svg")))
    try write(open + #"<use href="inner16.svg#a"/></svg>"#, "utf16.svg")
    for name in ["latin1", "utf16"] {
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(name).svg: refers to")
      #expect(r.stderr.contains("a FIFO"), "\(name): \(r.stderr)")
    }
    try write(#"<?xml version="1.0" encoding="UTF-7"?>"# + open + #"<image width="5" height="5" href="fi+AGY-o.png"/></svg>"#, "utf7.svg")
    c.expectClean(
      try runTool([c.path("utf7.svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 30), status: 1,
      mentions: "utf7.svg: is in the UTF-7 encoding")
    // a drawing with a stylesheet importing another, an image beside it and links still tiles
    try picture(width: 40, height: 30).writePNG(to: c.path("photo.png"))
    try write("rect { stroke: green }", "plain.css")
    try write(#"@import url("plain.css"); rect { fill: url(#g) }"#, "fine.css")
    let fine =
      open
      + #"<style>@import "fine.css";</style><image href="photo.png" width="40" height="30"/><a href="folder/"><rect width="5" height="5"/></a></svg>"#
    try write(fine, "fine.svg")
    let made = try runTool([c.path("fine.svg"), "-o", c.path("fine-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
  }

  @Test("SVG: a damaged PNG, JPEG, GIF or WebP in a data: URI (or in a data: SVG) is refused naming the image; sound ones tile")
  func svgEmbeddedDamage() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    let image = picture(width: 64, height: 64)
    try image.writePNG(to: c.path("p.png"))
    let png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: c.path("p.png"))))
    let jpeg = try VipsTileEncoder(format: .jpeg).encode(rgba: image.pixels, size: 64, upsampled: false)
    let webp = try VipsTileEncoder(format: .webp).encode(rgba: image.pixels, size: 64, upsampled: false)
    let good = gif(width: 64, height: 64)
    func uri(_ type: String, _ bytes: [UInt8]) -> String { "data:image/\(type);base64," + Data(bytes).base64EncodedString() }
    func svg(_ uris: [String]) -> String {
      #"<svg xmlns="http://www.w3.org/2000/svg" width="256" height="64">"#
        + uris.enumerated().map { #"<image x="\#($0.offset * 64)" width="64" height="64" href="\#($0.element)"/>"# }.joined() + "</svg>"
    }
    var crc = png
    let idat = try #require(Damaged(c.path("p.png")).find(Array("IDAT".utf8)))
    crc[idat + 10] ^= 0x10
    let cases: [(name: String, uri: String, says: String)] = [
      ("pngcut", uri("png", Array(png.prefix(png.count / 2))), "#2 (data: PNG) is truncated"),
      ("pngcrc", uri("png", crc), "#2 (data: PNG) is damaged"),
      ("jpegcut", uri("jpeg", Array(jpeg.prefix(jpeg.count * 9 / 10))), "#2 (data: JPEG) is damaged (libjpeg"),
      ("gifcut", uri("gif", Array(good.prefix(good.count * 2 / 3))), "#2 (data: GIF) is truncated"),
      ("gifshort", uri("gif", gif(width: 64, height: 64, pixels: 100)), "#2 (data: GIF) is damaged"),
      ("webpcut", uri("webp", Array(webp.prefix(webp.count / 2))), "#2 (data: WebP) is truncated"),
      ("nested", uri("svg+xml", Array(svg([uri("png", Array(png.prefix(png.count / 2)))]).utf8)), "#2 (data: PNG, in 'data:image/svg+xml"),
    ]
    for (name, bad, says) in cases {
      try Data(svg([uri("png", png), bad]).utf8).write(to: URL(fileURLWithPath: c.path("\(name).svg")))
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 60)
      c.expectClean(r, status: 1, mentions: "\(name).svg: its embedded image")
      #expect(r.stderr.contains(says), "\(name): \(r.stderr)")
    }
    try Data(svg([uri("png", png), uri("jpeg", jpeg), uri("gif", good), uri("webp", webp)]).utf8).write(
      to: URL(fileURLWithPath: c.path("fine.svg")))
    let made = try runTool([c.path("fine.svg"), "-o", c.path("fine-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
  }

  @Test("SVG: <use> elements that expand into millions of copies (2 KB doubling 23 levels deep) are refused before librsvg draws")
  func svgUseFanOut() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    func doubling(_ levels: Int) -> String {
      let names = (0...levels).map { "g\($0)" }
      var groups = ""
      for k in 0..<levels { groups += "<g id=\"\(names[k])\"><use xlink:href=\"#\(names[k + 1])\"/><use href=\"#\(names[k + 1])\"/></g>" }
      groups += "<g id=\"\(names[levels])\"><circle r=\"40\" cx=\"50\" cy=\"50\" fill=\"red\"/></g>"
      return "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" width=\"100\" height=\"100\">"
        + "<defs>\(groups)</defs><use xlink:href=\"#g0\"/></svg>"
    }
    try doubling(23).write(toFile: dir + "/deep.svg", atomically: true, encoding: .utf8)
    let why = refusal(dir + "/deep.svg")
    #expect(why?.contains("expand into more than 500000 copies") == true, "\(why ?? "drawn")")
    // a few levels of copies draw as before
    try doubling(5).write(toFile: dir + "/few.svg", atomically: true, encoding: .utf8)
    #expect(refusal(dir + "/few.svg") == nil)
    // a cycle of <use> counts nothing more (librsvg refuses cycles itself)
    let cycle =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><g id=\"a\"><use href=\"#b\"/></g>"
      + "<g id=\"b\"><use href=\"#a\"/></g><rect width=\"5\" height=\"5\"/></svg>"
    try cycle.write(toFile: dir + "/cycle.svg", atomically: true, encoding: .utf8)
    #expect(refusal(dir + "/cycle.svg")?.contains("copies") != true)
  }

  @Test("SVG: a font size librsvg aborts on (2·10⁶ px: attribute, style, <style>, font shorthand, units) is refused in one line")
  func svgFontSize() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func svg(_ body: String) -> String {
      #"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"><rect width="50" height="50" fill="blue"/>"# + body + "</svg>"
    }
    let cases: [(name: String, body: String)] = [
      ("attribute", #"<text y="20" font-size="1e8">W</text>"#),
      ("charref", #"<text y="20" font-size="&#50;e6">W</text>"#),
      ("points", #"<text y="20" font-size="1.6e6pt">W</text>"#),
      ("em", #"<text y="20" font-size="2e5em">W</text>"#),
      ("style", #"<text y="20" style="fill:red; font-size : 1e7px">W</text>"#),
      ("sheet", #"<style>text { font-size: 3e6px }</style><text y="20">W</text>"#),
      ("shorthand", #"<style><![CDATA[text { font: italic bold 1e7px/2 sans-serif }]]></style><text y="20">W</text>"#),
      ("huge", #"<text y="20" font-size="1e39">W</text>"#),
    ]
    for (name, body) in cases {
      try Data(svg(body).utf8).write(to: URL(fileURLWithPath: c.path("\(name).svg")))
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-zoom", "1"], timeout: 60)
      c.expectClean(r, status: 1, mentions: "\(name).svg: sets a font size")
    }
    // large but drawable text, weights and families with digits still tile
    let fine = svg(#"<text y="150" font-size="1e5" style="font: 900 40px a1e9, sans-serif">W</text><text y="40" font-size="30pt">A</text>"#)
    try Data(fine.utf8).write(to: URL(fileURLWithPath: c.path("fine.svg")))
    let made = try runTool([c.path("fine.svg"), "-o", c.path("fine-out"), "--max-zoom", "1", "-q"], timeout: 60)
    #expect(made.status == 0 && made.stderrBesideUnplacedNote.isEmpty, "\(made.stderr)")
  }

  @Test("SVG: percent-encoded, entity-spelled, nested and referenced images are held to --max-memory at librsvg's 8 bytes a pixel, and together")
  func svgImageBudget() throws {
    let c = try Corpus()
    defer { c.cleanup() }
    func write(_ text: String, _ name: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: c.path(name))) }
    let open = #"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">"#
    let png = pngHeader(width: 11000, height: 11000)
    try png.write(to: URL(fileURLWithPath: c.path("big.png")))
    let percent = png.map { String(format: "%%%02X", $0) }.joined()
    let base64 = png.base64EncodedString()
    let inner = #"<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,"# + base64 + #""/></svg>"#
    let cases = [
      "percent": #"<image width="50" height="50" href="data:image/png,"# + percent + #""/>"#,
      "entity": #"<image width="50" height="50" href="data&#58;image/png;base64,"# + base64 + #""/>"#,
      "referenced": #"<image width="50" height="50" href="big.png"/>"#,
      "nested": #"<image width="50" height="50" href="data:image/svg+xml;base64,"# + Data(inner.utf8).base64EncodedString() + #""/>"#,
    ]
    for (name, body) in cases {
      try write(open + body + "</svg>", "\(name).svg")
      let r = try runTool([c.path("\(name).svg"), "-o", c.path("out"), "--max-memory", "200"], timeout: 30)
      c.expectClean(r, status: 1, mentions: "\(name).svg:")
      #expect(r.stderr.contains("11000 × 11000") && r.stderr.contains("--max-memory 200 MB"), "\(name): \(r.stderr)")
    }
    // a sparse 300 MB text file librsvg would read whole for xi:include
    #expect(FileManager.default.createFile(atPath: c.path("huge.txt"), contents: nil))
    #expect(truncate(c.path("huge.txt"), 300_000_000) == 0)
    try write(
      #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude"><text><xi:include href="huge.txt" parse="text"/></text></svg>"#,
      "include.svg")
    c.expectClean(
      try runTool([c.path("include.svg"), "-o", c.path("out"), "--max-memory", "200"], timeout: 30), status: 1,
      mentions: "include.svg: refers to 'huge.txt', a file of 300 MB")
    // gdk-pixbuf's pixels and cairo's copy: 6000² is 288 MB, more than 256 (at 4 bytes a pixel it was 144)
    // sound PNGs of zeros (tilecut inflates an embedded image's stream to check it)
    func image(_ width: Int, _ height: Int) -> String {
      let png = Data(excessPNG(width: width, height: height, interlaced: false, extra: 0).bytes)
      return #"<image width="50" height="50" href="data:image/png;base64,"# + png.base64EncodedString() + #""/>"#
    }
    try write(open + image(6000, 6000) + "</svg>", "six.svg")
    #expect(throws: TilecutError.self) { try SVGReferences.check(path: c.path("six.svg"), maxBytes: 256_000_000) }
    #expect(throws: Never.self) { try SVGReferences.check(path: c.path("six.svg"), maxBytes: 300_000_000) }
    // librsvg keeps every image it loaded: two of 128 MB are over 200 MB, one is not
    try write(open + image(4000, 4000) + "</svg>", "one.svg")
    try write(open + image(4000, 4000) + image(4000, 4001) + "</svg>", "two.svg")
    #expect(throws: Never.self) { try SVGReferences.check(path: c.path("one.svg"), maxBytes: 200_000_000) }
    #expect(refusal(c.path("two.svg"), maxMemory: 200_000_000)?.contains("with the images before it") == true)
  }
}
