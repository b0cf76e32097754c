import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

/// The pixels of `image` whose colour `matches` (RGB, alpha over white).
private func count(_ image: RGBAImage, _ matches: (Int, Int, Int) -> Bool) -> Int {
  var n = 0
  for i in stride(from: 0, to: image.pixels.count, by: 4) {
    let a = Int(image.pixels[i + 3])
    let over = { (c: UInt8) in Int(c) * a / 255 + 255 - a }
    if matches(over(image.pixels[i]), over(image.pixels[i + 1]), over(image.pixels[i + 2])) { n += 1 }
  }
  return n
}

@Suite(
  "DXF MTEXT colours, paragraphs and strokes against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingMTextFormatTests {
  /// Words coloured in mid-note by an ACI (\C1; red, \C5; blue, \C7; drawn dark) and
  /// by a true colour (\c33023;, AutoCAD's BGR order: orange 255,128,0), in braces and
  /// not, and \C256; back to the note's own colour (green, its layer's): GDAL 3.6
  /// drops the codes and draws the whole note in its own colour; ezdxf draws each word
  /// in its colour (seen: no red, blue or orange pixel without them).
  @Test("colour changes inside an MTEXT are drawn in their colours, as ezdxf draws them")
  func colours() throws {
    let script = """
      import ezdxf, sys
      doc = ezdxf.new("R2010")
      doc.header["$INSUNITS"] = 4
      doc.layers.add("NOTES", color=3)
      msp = doc.modelspace()
      msp.add_lwpolyline([(0, 0), (6000, 0), (6000, 3000), (0, 3000)], close=True)
      notes = [
          ("Plain \\\\C1;red words {\\\\C5;blue} and \\\\c33023;orange\\\\C256; back to green", (200, 2800)),
          ("{\\\\C1;RED} {\\\\C7;dark} {\\\\c33023;ORANGE} green \\\\C5;BLUE BLUE", (200, 1800)),
      ]
      for text, point in notes:
          msp.add_mtext(text, dxfattribs={"char_height": 150, "insert": point, "width": 5600, "layer": "NOTES"})
      doc.saveas(sys.argv[1])
      """
    try withScriptedDXF("mtext-colours", script) { path in
      let (image, _, _) = try renderDrawing(path, columns: 1000)
      let red = count(image) { r, g, b in r > 200 && g < 60 && b < 60 }
      let blue = count(image) { r, g, b in b > 200 && r < 60 && g < 60 }
      let orange = count(image) { r, g, b in r > 200 && g > 90 && g < 170 && b < 60 }
      let green = count(image) { r, g, b in g > 200 && r < 60 && b < 60 }
      print("MTEXT colours: red \(red), blue \(blue), orange \(orange), green \(green) pixels")
      #expect(red > 200 && blue > 200 && orange > 200 && green > 200, "red \(red), blue \(blue), orange \(orange), green \(green)")
      let result = try compareWithEzdxf(path, columns: 1000)
      result.expectAsEzdxf("MTEXT colours", least: 0.95)
    }
  }

  /// A note of a block, 700 wide, inserted twice as large, turned and scaled 1.5 times,
  /// mirrored, and nested in a block inserted at half size: ezdxf scales its width with
  /// the insert; GDAL gives the block's width unscaled, and a note inserted twice as
  /// large wrapped at half its width (seen 0.573/0.579 recall/precision).
  @Test("a note in a scaled insert wraps at its width scaled by the insert, as ezdxf wraps it")
  func scaledInserts() throws {
    let result = try compareOnSheet(
      "mtext-scaled-inserts", height: 4000,
      body: """
        block = doc.blocks.new("NOTE")
        block.add_mtext("a long note in a block that wraps at its width inside the insert", dxfattribs={"char_height": 50, "insert": (0, 0), "width": 700})
        block.add_mtext("{\\C1;a red note} with a code, \\S1/2; wide, wrapped too", dxfattribs={"char_height": 50, "insert": (0, -400), "width": 600})
        outer = doc.blocks.new("OUTER")
        outer.add_blockref("NOTE", (0, 0), dxfattribs={"xscale": 4, "yscale": 4})
        msp.add_blockref("NOTE", (200, 3800), dxfattribs={"xscale": 2, "yscale": 2})
        msp.add_blockref("NOTE", (3200, 3800), dxfattribs={"xscale": 1.5, "yscale": 1.5, "rotation": 10})
        msp.add_blockref("NOTE", (5800, 1800), dxfattribs={"xscale": -1.5, "yscale": 1.5})
        msp.add_blockref("OUTER", (200, 1500), dxfattribs={"xscale": 0.5, "yscale": 0.5})
        msp.add_blockref("NOTE", (3200, 1000))
        """)
    result.expectAsEzdxf("MTEXT in scaled inserts", least: 0.95)
  }

  /// Paragraphs justified (\pqj;, each line but the last spread to the width), centred
  /// and set right within a note anchored elsewhere, indented (\pi-2,l3,r1;: a first
  /// line hanging out of the others, in units of the note's height), with tab stops
  /// (\pt8,c20,r30;, tabs written ^I) and tabs at the default stops (every 4 times the
  /// note's height) in a justified note, as ezdxf lays them out. (A note with tabs and
  /// no code ezdxf draws as plain text, its tabs as matplotlib draws them.) Seen
  /// 0.922/0.911/0.892 when justified notes were set left, indents and stops ignored.
  @Test("justified, indented and tabbed paragraphs are laid out as ezdxf lays them out")
  func paragraphs() throws {
    let result = try compareOnSheet(
      "mtext-paragraphs", height: 4000,
      body: """
        notes = [
            ("\\\\pxqj;justified text that wraps over several lines of the note so that the spaces grow wide between its words\\\\Pthe last line not", 80, (200, 3800), 2500, 1),
            ("\\\\pxi-2,l3,r1;an indented paragraph with a hanging first line that wraps around a few times here\\\\P\\\\pi0,l0,r0;and one that is not", 80, (3200, 3800), 2500, 1),
            ("\\\\pqc;centred lines in a note anchored left and wrapped\\\\P\\\\pqr;lines set right in the same note, wrapped too", 80, (200, 2600), 2000, 1),
            ("\\\\pxt8,c20,r30;A^IB^ICC^IDDD\\\\Pxx^Iyyyy^Izz^Iw", 80, (3200, 2600), 3000, 1),
            ("\\\\pxqj;default stops^Ia^Ibb^Iccc and words to wrap^Iat the width, justified", 80, (3200, 1400), 2500, 1),
        ]
        for text, height, point, width, attachment in notes:
            msp.add_mtext(text, dxfattribs={"char_height": height, "insert": point, "width": width, "attachment_point": attachment})
        """)
    result.expectAsEzdxf("MTEXT paragraphs", least: 0.95)
  }

  /// Words underlined (\L … \l), overlined (\O … \o) and struck through (\K … \k), each
  /// stroke running on over the spaces that follow a stroked word, as ezdxf draws them:
  /// a line a fifth of the text's height under its baseline, over its capitals, or
  /// through their middle (seen 0.871 recall, 0.835 text recall without strokes).
  @Test("underlined, overlined and struck-through words are drawn as ezdxf draws them")
  func strokes() throws {
    let result = try compareOnSheet(
      "mtext-strokes", height: 3000,
      body: """
        notes = [
            ("\\\\Lunderlined words\\\\l then \\\\Ooverlined\\\\o and \\\\Kstruck through\\\\k plain", (200, 2800)),
            ("{\\\\L\\\\Oboth at once} and {\\\\Kout} \\\\LNOTE\\\\l", (200, 2000)),
            ("\\\\L\\\\pqc;an underlined note wrapped at its width and centred", (3000, 1200)),
        ]
        for text, point in notes:
            msp.add_mtext(text, dxfattribs={"char_height": 150, "insert": point, "width": 2600})
        """)
    result.expectAsEzdxf("MTEXT strokes", least: 0.95)
  }

  /// MTEXTs without inline codes anchored in the middle (attachments 4-6), as LibreCAD
  /// writes its labels: ezdxf draws such a plain note with its middle halfway between
  /// its first line's x-height and its last baseline, not at its capitals' middle (seen
  /// 0.780/0.871/0.567 on LibreCAD's library drawing elektro/electronics/trig.dxf and
  /// 0.829/0.841/0.770 here, capitals an eighth of their height low); a note with an
  /// inline code GDAL reads (\A) is a rich text to ezdxf, its box's middle at the
  /// anchor. With `coded`, the file holds such a note too, so its MTEXTs are read for
  /// their codes.
  @Test("plain MTEXTs anchored in the middle are placed as ezdxf places them", arguments: [false, true])
  func plainMiddles(coded: Bool) throws {
    let result = try compareOnSheet(
      "mtext-middles", height: 3000,
      body: """
        notes = [("S", (500, 2400), 5), ("Q", (1500, 2400), 4), ("R", (2500, 2400), 6),
                 ("Room\\\\Plabel", (4000, 2400), 5), ("KITCHEN\\\\P12 m2\\\\Ptiles", (1000, 1000), 4)]
        if \(coded ? "True" : "False"):
            notes.append(("\\\\A1;OFFICE", (4000, 1000), 5))
        for text, point, attachment in notes:
            msp.add_circle(point, 20)
            msp.add_mtext(text, dxfattribs={"char_height": 300, "insert": point, "attachment_point": attachment})
        """)
    result.expectAsEzdxf("MTEXT middles", least: 0.95)
  }

  /// Tabs in notes without inline codes, as drawings keep small tables of rooms: ezdxf
  /// draws each tab as eight spaces; GDAL keeps the tab character, which tilecut drew
  /// as a missing glyph's box (seen 0.784/0.685/0.622).
  @Test("tabs in notes without inline codes are drawn as ezdxf draws them")
  func tabs() throws {
    let result = try compareOnSheet(
      "mtext-tabs", height: 3000,
      body: """
        table = "Room\\tArea\\tFloor\\\\PKitchen\\t12.5\\tTile\\\\POffice\\t20\\tCarpet\\\\PHall\\t\\t8"
        msp.add_mtext(table, dxfattribs={"char_height": 150, "insert": (200, 2800), "width": 5000})
        msp.add_mtext("A\\tB\\t\\tC", dxfattribs={"char_height": 150, "insert": (200, 600)})
        """)
    result.expectAsEzdxf("MTEXT tabs", least: 0.95)
  }

  /// MTEXTs whose extrusion points down (0, 0, -1), as a drawing mirrored in 3D holds
  /// them: seen from above each runs along its direction (its rotation, or its text
  /// direction) with its up turned over, mirrored about its insertion point, as ezdxf
  /// draws it; GDAL 3.6 leaves the extrusion and draws them unmirrored (seen
  /// 0.512/0.519/0.326 here, and 0.534/0.853/0.507 on ezdxf's
  /// examples_dxf/mtext_complex_inline_codes.dxf).
  @Test("MTEXTs whose extrusion points down are drawn mirrored, as ezdxf draws them")
  func downExtrusions() throws {
    let result = try compareOnSheet(
      "mtext-extrusion", height: 3000,
      body: """
        notes = [
            ("Mirrored note\\\\Pwith a second line", (1000, 2000), {}),
            ("Turned mirrored note", (3500, 1200), {"rotation": 30}),
            ("Along its direction\\\\Pnote", (1500, 1400), {"text_direction": (0.7071, 0.7071, 0)}),
            ("Width \\\\S1/2; m and {\\\\C1;red}", (3500, 2400), {}),
            ("Upright note, not mirrored", (200, 400), {"extrusion": (0, 0, 1)}),
        ]
        for text, point, attributes in notes:
            attributes = {"char_height": 150, "insert": point, "extrusion": (0, 0, -1), **attributes}
            msp.add_mtext(text, dxfattribs=attributes)
        """)
    result.expectAsEzdxf("MTEXT extrusions", least: 0.95)
  }
}
