"""Writes DXF drawings as other CAD programs write them, for comparing tilecut's
rendering with ezdxf's (Tests/scripts/dxf-ink-compare.py).

usage: dxf-writers.py OUT_DIR [VERSION | notes_VERSION ...]

One drawing a DXF version (R12, R2000, R2010, R2018, and R12_NOHANDLES: R12 with no
entity handles, $HANDLING 0, as old programs and hand-made files write it), each with the same floor-plan
fragment in millimetres (metres in R12, which has no $INSUNITS): LWPOLYLINE walls with widths and bulges (POLYLINE in R12),
ARC, CIRCLE, ELLIPSE and SPLINE (not in R12), TEXT and MTEXT with alignments and
rotation, a door block inserted rotated, scaled and mirrored with ATTRIBs, solid and
pattern hatches (also inside the rotated and scaled inserts), a linear DIMENSION,
layers that are off and frozen, ACI and true colours, lineweights. Prints the names
of the files it wrote, one a line.

notes_VERSION (R2010 or later) writes notes_VERSION.dxf instead: MTEXT notes in
columns (R2018's embedded object, the ACAD XDATA of earlier versions): static columns,
dynamic columns of set heights and of one defined height, a column break (\\N), each
anchored differently, the text flowing from column to column.

marks_VERSION writes marks_VERSION.dxf: texts other writers' files hold that GDAL
reads only in part: TEXTs and ATTRIBs mirrored in x and y (generation flags 2 and 4)
with several alignments, MTEXTs of set line spacing and of a height set at their
start (\\H), %%d and %%p specials.
"""
import math
import os
import sys

import ezdxf
from ezdxf.entities.mtext import MTextColumns
from ezdxf.enums import TextEntityAlignment
from ezdxf.math import Matrix44

VERSIONS = ["R12", "R2000", "R2010", "R2018"]


def door_block(doc, modern):
    """A door: leaf, swing arc, a hatched frame, a tag ATTDEF."""
    block = doc.blocks.new("DOOR")
    block.add_line((0, 0), (0, 900), dxfattribs={"layer": "0"})
    block.add_arc((0, 0), 900, 0, 90, dxfattribs={"color": 1})
    block.add_line((900, 0), (1000, 0))
    if modern:
        block.add_lwpolyline([(-60, -60), (60, -60), (60, 60), (-60, 60)], close=True)
        frame = block.add_hatch()
        # set_pattern_fill sets the colour too (7 unless given)
        frame.set_pattern_fill("ANSI31", color=5, scale=12)
        frame.paths.add_polyline_path([(-60, -60), (60, -60), (60, 60), (-60, 60)], is_closed=True)
        post = block.add_hatch(color=3)
        post.paths.add_polyline_path([(900, -50), (1000, -50), (1000, 50), (900, 50)], is_closed=True)
    block.add_attdef("TAG", (200, 300), dxfattribs={"height": 120})
    return block


def write(version, path):
    # R12_NOHANDLES: R12 as old programs and hand-made files write it, no entity handles
    handles = version != "R12_NOHANDLES"
    version = "R12" if not handles else version
    doc = ezdxf.new(version, setup=True)
    modern = version != "R12"
    if modern:
        doc.header["$INSUNITS"] = 4
    msp = doc.modelspace()
    doc.layers.add("WALLS", color=7, lineweight=50)
    doc.layers.add("NOTES", color=3)
    doc.layers.add("HIDDEN_OFF", color=1).off()
    doc.layers.add("HIDDEN_FROZEN", color=1).freeze()
    door_block(doc, modern)

    # walls: a closed outline with widths and a bulge, and an open one
    walls = [(0, 0), (8000, 0), (8000, 6000), (4000, 6000), (0, 6000)]
    if modern:
        msp.add_lwpolyline(
            [(0, 0, 150, 150, 0), (8000, 0, 150, 150, 0), (8000, 6000, 150, 150, 0.4), (4000, 6000, 150, 150, 0), (0, 6000, 150, 150, 0)],
            format="xyseb",
            close=True,
            dxfattribs={"layer": "WALLS"},
        )
        msp.add_lwpolyline([(3000, 0), (3000, 2500), (5000, 2500)], dxfattribs={"layer": "WALLS", "const_width": 100})
    else:
        p = msp.add_polyline2d(walls, close=True, dxfattribs={"layer": "WALLS"})
        p.dxf.default_start_width = 150
        p.dxf.default_end_width = 150
        msp.add_polyline2d([(3000, 0), (3000, 2500), (5000, 2500)], dxfattribs={"layer": "WALLS"})
    # curves
    msp.add_circle((1500, 4500), 400, dxfattribs={"color": 1})
    msp.add_arc((6500, 4500), 600, 30, 240, dxfattribs={"color": 6})
    if modern:
        msp.add_ellipse((6000, 1500), major_axis=(900, 300), ratio=0.4, dxfattribs={"color": 4})
        # control points and knots, as AutoCAD, LibreCAD and netDxf write a spline
        msp.add_open_spline([(500, 500), (1200, 1600), (2000, 800), (2600, 1900)], degree=3, dxfattribs={"color": 2})
        # fit points alone, as ezdxf's add_spline and LibreCAD's spline through points write it
        msp.add_spline([(4300, 300), (4800, 1000), (5400, 500), (5900, 1100)], dxfattribs={"color": 6})
        msp.add_line((500, 3000), (2500, 3000), dxfattribs={"true_color": ezdxf.colors.rgb2int((200, 80, 20)), "lineweight": 70})
    else:
        msp.add_line((500, 3000), (2500, 3000), dxfattribs={"color": 30})
    # texts: alignments and rotation
    msp.add_text("ROOM 101", height=200, dxfattribs={"layer": "NOTES"}).set_placement((1000, 2000))
    msp.add_text("CENTRED", height=150, rotation=30).set_placement((4000, 4200), align=TextEntityAlignment.MIDDLE_CENTER)
    msp.add_text("RIGHT", height=150).set_placement((7800, 300), align=TextEntityAlignment.BOTTOM_RIGHT)
    msp.add_text("TOP LEFT", height=120, rotation=90).set_placement((7500, 3000), align=TextEntityAlignment.TOP_LEFT)
    if modern:
        msp.add_mtext("Kitchen and\\Pdining", dxfattribs={"char_height": 180, "insert": (4300, 5600), "attachment_point": 1})
        msp.add_mtext(
            "A long note that wraps at its column width",
            dxfattribs={"char_height": 120, "insert": (5400, 3900), "width": 1800, "attachment_point": 5, "rotation": 0},
        )
        msp.add_mtext("Turned", dxfattribs={"char_height": 150, "insert": (3600, 1200), "rotation": 45, "attachment_point": 9})
    # doors: plain, rotated, scaled, mirrored, each with its tag
    for n, (x, y, angle, sx, sy) in enumerate(
        [(1000, 0, 0, 1, 1), (8000, 2000, 90, 1, 1), (3000, 1200, 30, 1.5, 1.5), (6000, 6000, 180, -1, 1), (5000, 2500, 270, 0.8, -0.8)]
    ):
        insert = msp.add_blockref("DOOR", (x, y), dxfattribs={"rotation": angle, "xscale": sx, "yscale": sy})
        insert.add_auto_attribs({"TAG": f"D{n + 1}"})
    # a nested block: two doors, one turned, the pair inserted turned and scaled
    pair = doc.blocks.new("DOOR_PAIR", base_point=(500, 0))
    pair.add_blockref("DOOR", (0, 0))
    pair.add_blockref("DOOR", (2000, 0), dxfattribs={"rotation": 90, "xscale": 0.8, "yscale": 0.8})
    pair.add_line((0, -100), (2000, -100))
    msp.add_blockref("DOOR_PAIR", (1500, 3600), dxfattribs={"rotation": 20, "xscale": 1.2, "yscale": 1.2})
    # hatches in model space
    if modern:
        solid = msp.add_hatch(color=5)
        solid.paths.add_polyline_path([(200, 5000), (900, 5000), (900, 5700), (200, 5700)], is_closed=True)
        pattern = msp.add_hatch()
        pattern.set_pattern_fill("ANSI37", color=1, scale=16)
        pattern.paths.add_polyline_path([(6500, 200), (7600, 200), (7600, 1000), (6500, 1000)], is_closed=True)
        true = msp.add_hatch(dxfattribs={"true_color": ezdxf.colors.rgb2int((30, 160, 90))})
        true.paths.add_polyline_path([(2200, 5000), (2800, 5000), (2500, 5600)], is_closed=True)
    # a dimension as drawn
    dim = msp.add_linear_dim(base=(0, -600), p1=(0, 0), p2=(8000, 0), dimstyle="EZDXF", override={"dimtxt": 200, "dimasz": 150})
    dim.render()
    # what must not be drawn
    msp.add_line((0, 0), (8000, 6000), dxfattribs={"layer": "HIDDEN_OFF"})
    msp.add_circle((4000, 3000), 2000, dxfattribs={"layer": "HIDDEN_FROZEN"})
    msp.add_text("OFF", height=500, dxfattribs={"layer": "HIDDEN_OFF"}).set_placement((4000, 3000))
    hidden_door = msp.add_blockref("DOOR", (2000, 4000), dxfattribs={"layer": "HIDDEN_OFF"})
    hidden_door.add_auto_attribs({"TAG": "HIDDEN"})
    if not modern:
        # R12 has no $INSUNITS and a unitless drawing is read as metres: the R12 plan is
        # written in metres (the door block stays in millimetres, its inserts scaled)
        for entity in msp:
            entity.transform(Matrix44.scale(0.001))
    if not handles:
        doc.header["$HANDLING"] = 0
    doc.saveas(path)


NOTE = (
    "Walls are drawn with their widths and doors with their swings; every note on "
    "this plan flows through its columns as the drawing says, wrapped at the column "
    "width, and goes on in the next column when one is full. "
) * 2


def write_notes(version, path):
    doc = ezdxf.new(version)
    doc.header["$INSUNITS"] = 4
    msp = doc.modelspace()
    msp.add_lwpolyline([(0, 0), (9000, 0), (9000, 7000), (0, 7000)], close=True)
    # three static columns 900 high: the note fills two and part of the third
    note = msp.add_mtext(NOTE, dxfattribs={"char_height": 100, "insert": (200, 6800), "attachment_point": 1})
    note.setup_columns(MTextColumns.new_static_columns(3, 1500, 200, 900))
    # dynamic columns of set heights, the last as high as the rest of the text
    note = msp.add_mtext(NOTE, dxfattribs={"char_height": 90, "insert": (200, 3800), "attachment_point": 1})
    note.setup_columns(MTextColumns.new_dynamic_manual_height_columns(1600, 150, [500, 800, 0]))
    # a column break, the layout centred on its insertion point
    note = msp.add_mtext(
        "First column\\NSecond column after a break\\PAnd its second paragraph",
        dxfattribs={"char_height": 110, "insert": (6000, 1500), "attachment_point": 5},
    )
    note.setup_columns(MTextColumns.new_static_columns(2, 1200, 300, 800))
    # dynamic columns of one defined height, anchored at the bottom right
    note = msp.add_mtext(NOTE, dxfattribs={"char_height": 80, "insert": (8800, 200), "attachment_point": 9})
    note.setup_columns(MTextColumns.new_dynamic_auto_height_columns(2, 1300, 100, 1000))
    doc.saveas(path)


def write_marks(version, path):
    doc = ezdxf.new(version)
    doc.header["$INSUNITS"] = 4
    msp = doc.modelspace()
    msp.add_lwpolyline([(0, 0), (6000, 0), (6000, 4000), (0, 4000)], close=True)
    # mirrored about their alignment point: backward, upside down, both
    placements = [
        (2, (600, 3600), TextEntityAlignment.LEFT, 0),
        (2, (3000, 3600), TextEntityAlignment.MIDDLE_CENTER, 0),
        (4, (600, 3000), TextEntityAlignment.LEFT, 0),
        (4, (3000, 3000), TextEntityAlignment.BOTTOM_RIGHT, 30),
        (6, (600, 2400), TextEntityAlignment.LEFT, 0),
        (6, (4600, 2400), TextEntityAlignment.TOP_CENTER, 0),
    ]
    for flags, point, align, angle in placements:
        text = msp.add_text(f"MIRRORED {flags}", height=150, rotation=angle)
        text.set_placement(point, align=align)
        text.dxf.text_generation_flag = flags
    block = doc.blocks.new("TAGGED")
    block.add_circle((0, 0), 100)
    block.add_attdef("TAG", (150, 0), dxfattribs={"height": 120})
    insert = msp.add_blockref("TAGGED", (4800, 3600))
    attrib = insert.add_attrib("TAG", "BACKWARD", (4950, 3600), dxfattribs={"height": 120})
    attrib.dxf.text_generation_flag = 2
    # specials GDAL turns into their characters (ezdxf draws \~ as it is written: not here)
    msp.add_text("Angle 90%%d, 5%%p0.1", height=120).set_placement((300, 1700))
    msp.add_mtext("Turn 45%%d and back %%p1", dxfattribs={"char_height": 120, "insert": (3200, 1850)})
    # a height set for the whole note at its start, as AutoCAD writes it (absolute, relative)
    # (with the width AutoCAD gives a note: ezdxf wraps one of width 0 at a guess made
    # from its own height, and draws \f's fonts in faces of its own choosing)
    msp.add_mtext("{\\H180;LIVING ROOM}", dxfattribs={"char_height": 100, "insert": (300, 500), "width": 2000})
    msp.add_mtext("\\A1;\\H0.6x;Small print\\Pin two lines", dxfattribs={"char_height": 150, "insert": (3200, 500), "width": 2000})
    # line spacing: tight and loose
    for x, factor in ((300, 0.8), (3200, 1.6)):
        msp.add_mtext(
            "Spacing of the lines\\Pset by the note\\Pitself",
            dxfattribs={"char_height": 110, "insert": (x, 1200), "line_spacing_factor": factor},
        )
    doc.saveas(path)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for version in sys.argv[2:] or VERSIONS:
        if version.startswith("marks_"):
            path = os.path.join(out, f"{version}.dxf")
            write_marks(version[len("marks_") :], path)
        elif version.startswith("notes_"):
            path = os.path.join(out, f"{version}.dxf")
            write_notes(version[len("notes_") :], path)
        else:
            path = os.path.join(out, f"plan_{version}.dxf")
            write(version, path)
        print(path)


if __name__ == "__main__":
    main()
