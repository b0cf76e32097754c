import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

@Suite(
  "DXF MTEXT inline codes against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingMTextCodesTests {
  /// Notes with stacked fractions (\S1/2; over a line, \S3#4; slanted, \S2^; and
  /// \S1^ 2; without a line, a tolerance \S+0.1^-0.2;) and heights changed in
  /// mid-note (\H250; absolute, \H1.5x; relative, in braces and not), left, centred
  /// and right, wrapped at their width; paragraphs centred and set right (\pxqc;,
  /// \pxqr;, seen 0.48/0.50/0.15 alone), width factors (\W) and oblique text (\Q): GDAL 3.6 reads "\S1/2; and" as "12and" and
  /// drops the mid-note \H, so tilecut reads the raw content and lays its runs out as
  /// ezdxf's MTEXT renderer does (seen 0.48/0.60/0.18 from GDAL's text).
  @Test("stacked fractions and heights changed in mid-note are laid out as ezdxf lays them out")
  func stackedAndHeights() throws {
    let result = try compareOnSheet(
      "mtext-codes", height: 4000,
      body: """
        notes = [
            ("Door \\\\S1/2; and \\\\S3#4; wide, 10\\\\S2^; m, tolerance 5\\\\S+0.1^-0.2; mm and \\\\S1^ 2;", 100, (200, 3800), 5000, 1),
            ("Title \\\\H250;BIG\\\\H80; small and \\\\H1.5x;larger text here\\\\Pand a second paragraph", 80, (200, 2900), 5500, 1),
            ("Room {\\\\H1.5x;SIZE} 3 \\\\S1/2; m\\\\Pnext line here, wrapped at the width of the note", 90, (3000, 1500), 2500, 5),
            ("Right {\\\\H120;tall} and \\\\S7/8; inch", 70, (5800, 300), 2000, 9),
            ("\\\\pxqc;Centred in a note anchored left\\\\P\\\\pxqr;and right, \\\\W0.7;narrow, \\\\W1;\\\\Q15;slanted", 80, (200, 1000), 3000, 1),
        ]
        for text, height, point, width, attachment in notes:
            msp.add_mtext(text, dxfattribs={"char_height": height, "insert": point, "width": width, "attachment_point": attachment})
        """)
    result.expectAsEzdxf("MTEXT codes", least: 0.9)
  }

  /// A block holding MTEXTs whose height a \H at their start sets (absolute and
  /// relative) and one with a stacked fraction, inserted plain, scaled and turned,
  /// and nested in another block: GDAL gives their features the insert's handle, so
  /// each is found by that handle and its place among the insert's MTEXTs (seen
  /// 0.833/0.967 drawn at the MTEXTs' own height), an absolute height scaled as the
  /// insert scales the text.
  @Test("MTEXTs in inserted blocks keep their heights and codes, as ezdxf draws them")
  func blockMTexts() throws {
    let result = try compareOnSheet(
      "mtext-blocks", height: 4000,
      body: """
        label = doc.blocks.new("LABEL")
        label.add_circle((0, 0), 50)
        label.add_mtext("\\\\H150;ROOM", dxfattribs={"char_height": 60, "insert": (80, 0), "width": 1000})
        label.add_mtext("plain words", dxfattribs={"char_height": 60, "insert": (80, -250), "width": 1000})
        label.add_mtext("{\\\\H0.6x;small print}", dxfattribs={"char_height": 100, "insert": (80, -400), "width": 1000})
        label.add_mtext("width \\\\S1/2; m", dxfattribs={"char_height": 60, "insert": (80, -550), "width": 1000})
        pair = doc.blocks.new("PAIR")
        pair.add_blockref("LABEL", (0, 0))
        pair.add_blockref("LABEL", (0, -900), dxfattribs={"xscale": 0.8, "yscale": 0.8})
        msp.add_blockref("LABEL", (300, 3600))
        msp.add_blockref("LABEL", (2000, 3600), dxfattribs={"xscale": 2, "yscale": 2})
        msp.add_blockref("LABEL", (4200, 3000), dxfattribs={"rotation": 20, "xscale": 1.5, "yscale": 1.5})
        msp.add_blockref("PAIR", (600, 1900))
        msp.add_mtext("\\\\H120;MODEL", dxfattribs={"char_height": 50, "insert": (3000, 800), "width": 1500})
        """)
    result.expectAsEzdxf("MTEXT in blocks", least: 0.95)
  }

  /// An R12 drawing without handles ($HANDLING 0), as old programs write it: doors
  /// inserted on an off layer and on a frozen one, their tags (ATTRIBs on layer 0) with
  /// them, and a tag of its own on an off layer. GDAL gives an insert's ATTRIBs on
  /// their own layer, and without handles they cannot be told apart by handle: they are
  /// known by where they stand, and left out whole with their insert, as ezdxf does.
  @Test("ATTRIBs of inserts on off and frozen layers in an R12 file without handles are hidden, as ezdxf hides them")
  func hiddenAttribsWithoutHandles() throws {
    let result = try compareScripted(
      "r12-attribs", columns: 800,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R12")
        msp = doc.modelspace()
        doc.layers.add("DOORS_OFF", color=1).off()
        doc.layers.add("DOORS_FROZEN", color=1).freeze()
        doc.layers.add("TAGS_OFF", color=2).off()
        door = doc.blocks.new("DOOR")
        door.add_line((0, 0), (0, 0.9))
        door.add_arc((0, 0), 0.9, 0, 90)
        door.add_attdef("TAG", (0.2, 0.3), dxfattribs={"height": 0.3})
        msp.add_line((0, -0.5), (10, -0.5))
        for n, (x, layer, tag_layer) in enumerate(
            [(0, "0", "0"), (2, "DOORS_OFF", "0"), (4, "DOORS_FROZEN", "0"), (6, "0", "TAGS_OFF"), (8, "DOORS_OFF", "0")]
        ):
            insert = msp.add_blockref("DOOR", (x, 0), dxfattribs={"layer": layer})
            insert.add_attrib("TAG", f"DOOR {n} TAG", (x + 0.2, 0.3), dxfattribs={"height": 0.3, "layer": tag_layer})
        doc.header["$HANDLING"] = 0
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("R12 attribs", least: 0.95)
  }
}
