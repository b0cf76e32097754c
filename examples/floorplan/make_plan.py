#!/usr/bin/env python3
"""Draws the bundled example floor plans (Python standard library only).

    python3 make_plan.py            # office.svg, office.png (vips) and building.pdf (rsvg-convert)
    python3 make_plan.py --svg      # office.svg only
    python3 make_plan.py --pdf      # building.pdf only

office.svg is one office floor, 6000 x 4000 user units at 100 units per metre:
light room floors (#fafafa), dark walls, door openings with swing arcs, windows,
furniture, a stair core, a north arrow and a scale bar. Outside the building
outline nothing is drawn, so the rendered PNG is transparent there.
building.pdf has three 800 x 600 pt pages, the ground, first and second floor of a
smaller building: one outline and stair core, a different layout on each page.
The output is deterministic: no randomness, no timestamps.
"""
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FLOOR, WALL_COLOUR, LINE = "#fafafa", "#1e1e1e", "#555"
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"


class Plan:
    """An SVG drawing in user units, with the few primitives a floor plan needs."""

    def __init__(self, width, height, outer=28, inner=12, text=64, unit=""):
        self.width, self.height, self.unit = width, height, unit
        self.outer, self.inner, self.text_size = outer, inner, text
        self.body, self.defs = [], []

    def add(self, element):
        self.body.append(element)

    def rect(self, x, y, w, h, fill, stroke="none", sw=0, rx=0):
        r = f' rx="{rx}"' if rx else ""
        self.add(f'<rect x="{x}" y="{y}" width="{w}" height="{h}"{r} fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')

    def circle(self, cx, cy, r, fill, stroke="none", sw=0):
        self.add(f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}"/>')

    def line(self, x1, y1, x2, y2, stroke=LINE, sw=3, cap="butt"):
        self.add(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{stroke}" stroke-width="{sw}" stroke-linecap="{cap}"/>')

    def label(self, x, y, text, size=None, weight="normal", fill="#333"):
        size = size or self.text_size
        self.add(f'<text x="{x}" y="{y}" font-family="{FONT}" font-size="{size}" font-weight="{weight}" '
                 f'fill="{fill}" text-anchor="middle">{text}</text>')

    def room_label(self, x, y, name, w_units, h_units, per_metre):
        """The name and, below it, the floor area of a w x h room."""
        self.label(x, y, name, weight="bold")
        area = round(w_units * h_units / per_metre ** 2)
        self.label(x, y + self.text_size * 1.15, f"{area} m²", size=round(self.text_size * 0.7), fill="#666")

    def wall(self, x1, y1, x2, y2, gaps=(), width=None):
        """An axis-aligned wall, interrupted by `gaps` (start, end) along its length."""
        width = width or self.inner
        horizontal = y1 == y2
        a, b = (min(x1, x2), max(x1, x2)) if horizontal else (min(y1, y2), max(y1, y2))
        pos = a
        for g0, g1 in sorted(gaps) + [(b, b)]:
            if g0 > pos:
                if horizontal:
                    self.line(pos, y1, g0, y1, WALL_COLOUR, width, "square" if pos == a else "butt")
                else:
                    self.line(x1, pos, x1, g0, WALL_COLOUR, width, "square" if pos == a else "butt")
            pos = max(pos, g1)

    def door(self, x, y, w, along, side, hinge_end=False):
        """A leaf of width w hung in a wall at (x, y): along "h" (wall along x) or "v";
        it swings towards +1 or -1 across the wall; hinge at the far jamb if hinge_end."""
        if along == "h":
            hx = x + w if hinge_end else x
            fx = x if hinge_end else x + w
            leaf = (hx, y + side * w)
            sweep = int((side < 0) != hinge_end)
        else:
            hy = y + w if hinge_end else y
            fy = y if hinge_end else y + w
            leaf = (x + side * w, hy)
            sweep = int((side > 0) != hinge_end)
        hinge = (hx, y) if along == "h" else (x, hy)
        end = (fx, y) if along == "h" else (x, fy)
        self.line(*hinge, *leaf, "#333", 4)
        self.add(f'<path d="M{leaf[0]},{leaf[1]} A{w},{w} 0 0,{sweep} {end[0]},{end[1]}" '
                 f'fill="none" stroke="{LINE}" stroke-width="2.5" stroke-dasharray="12 8"/>')

    def window(self, x, y, length, along, thickness):
        """A window set into an outer wall: frame, sill lines and glass."""
        if along == "h":
            self.rect(x, y - thickness / 2, length, thickness, "#dcecf7", "#222", 3)
            self.line(x, y, x + length, y, "#5b7d99", 2)
        else:
            self.rect(x - thickness / 2, y, thickness, length, "#dcecf7", "#222", 3)
            self.line(x, y, x, y + length, "#5b7d99", 2)

    def svg(self):
        defs = f"<defs>{''.join(self.defs)}</defs>" if self.defs else ""
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}{self.unit}" height="{self.height}{self.unit}" '
                f'viewBox="0 0 {self.width} {self.height}">')
        return "\n".join([head, defs] + self.body + ["</svg>", ""])


def chair(p, cx, cy, r=34):
    p.circle(cx, cy, r, "#d5dbe3", "#6b7785", 3)


def desk_block(p, x0, y0, cols, rows, pitch_x=260, pitch_y=320):
    """Rows of desks, each with a chair and, on most, a monitor; the pattern is fixed."""
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * pitch_x, y0 + r * pitch_y
            p.rect(x, y, 220, 110, "#e8e2d6", "#8a7f6a", 3)
            chair(p, x + 110, y + 165)
            if (c + 2 * r) % 5 != 3:
                p.rect(x + 75, y + 14, 70, 16, "#4a5568", "#222", 2)


def stairs(p, x, y, w, h, treads, flights=2, tread_line=2):
    """A dog-leg stair: `flights` side by side, a landing at the top, an UP arrow."""
    fw = w / flights
    landing = h * 0.22
    p.rect(x, y, w, h, "#ececec", "#444", tread_line + 1)
    p.line(x, y + landing, x + w, y + landing, "#444", tread_line + 1)
    step = (h - landing) / treads
    for i in range(1, treads):
        p.line(x, y + landing + i * step, x + w, y + landing + i * step, "#777", tread_line)
    for k in range(1, flights):
        p.rect(x + k * fw - w * 0.02, y + landing, w * 0.04, h - landing, "#bbb", "#444", tread_line)
    ax = x + fw / 2
    p.add(f'<path d="M{ax},{y + h - step / 2} L{ax},{y + landing / 2} L{x + w - fw / 2},{y + landing / 2} '
          f'L{x + w - fw / 2},{y + h - step * 2}" fill="none" stroke="#222" stroke-width="{tread_line + 1}" '
          f'marker-end="url(#arrow)"/>')
    p.label(ax, y + h - step * 1.6, "UP", size=round(step * 0.9), weight="bold", fill="#222")
    # the cut line where the flight leaves this floor's plane
    p.line(x, y + h * 0.62, x + fw, y + h * 0.55, "#222", tread_line + 1)


def arrow_marker(p, size=10):
    p.defs.append(f'<marker id="arrow" markerWidth="{size}" markerHeight="{size}" refX="{size / 2}" refY="{size / 2}" '
                  f'orient="auto" markerUnits="strokeWidth"><path d="M0,0 L{size},{size / 2} L0,{size} Z" fill="#222"/></marker>')


def north_arrow(p, cx, cy, r):
    p.circle(cx, cy, r, "none", "#222", r * 0.05)
    p.add(f'<path d="M{cx},{cy - r * 0.9} L{cx + r * 0.35},{cy + r * 0.6} L{cx},{cy + r * 0.35} Z" fill="#222"/>')
    p.add(f'<path d="M{cx},{cy - r * 0.9} L{cx - r * 0.35},{cy + r * 0.6} L{cx},{cy + r * 0.35} Z" '
          f'fill="#fff" stroke="#222" stroke-width="{r * 0.04}"/>')
    p.label(cx, cy - r * 1.15, "N", size=round(r * 0.6), weight="bold", fill="#222")


def scale_bar(p, x, y, per_metre, metres=10, parts=4, height=40):
    """Alternating black and white blocks, 0 to `metres` m."""
    part = per_metre * metres / parts
    for i in range(parts):
        p.rect(x + i * part, y, part, height, "#222" if i % 2 == 0 else "#fff", "#222", 3)
    for i, m in [(0, 0), (parts // 2, metres * (parts // 2) // parts), (parts, metres)]:
        p.label(x + i * part, y + height + p.text_size * 0.9, f"{m}", size=round(p.text_size * 0.7))
    p.label(x + parts * part + p.text_size * 1.1, y + height * 0.8, "m", size=round(p.text_size * 0.7))


def office():
    """One office floor, 6000 x 4000 units, 100 units per metre."""
    per_m = 100
    p = Plan(6000, 4000)
    arrow_marker(p)
    t = p.outer
    # L-shaped outline: the floor fill is the only thing drawn inside it, nothing outside
    p.add(f'<path d="M300,300 H5700 V2400 H3900 V3700 H300 Z" fill="{FLOOR}"/>')

    # interior walls, with openings where the doors hang
    p.wall(2000, 300, 2000, 1500)
    p.wall(3200, 300, 3200, 1300, gaps=[(760, 920)])
    p.wall(4500, 300, 4500, 1300)
    p.wall(300, 1500, 3200, 1500, gaps=[(1680, 1860), (2350, 2530)])
    p.wall(3200, 1300, 5700, 1300, gaps=[(5480, 5660)])
    p.wall(3200, 1300, 3200, 1500)
    p.wall(300, 2600, 2000, 2600, gaps=[(650, 830), (1450, 1630)])
    p.wall(1100, 2600, 1100, 3700)
    p.wall(2000, 1500, 2000, 2400, gaps=[(1700, 2200)])
    p.wall(2000, 2400, 2000, 3700)
    p.wall(2000, 2400, 3900, 2400, gaps=[(2100, 2280), (3150, 3330)])
    p.wall(2900, 2400, 2900, 3700)

    # doors: (x, y, width, along, side, hinge at far jamb)
    for d in [(1680, 1500, 180, "h", -1, False), (2350, 1500, 180, "h", -1, True), (3200, 760, 160, "v", 1, False),
              (5480, 1300, 180, "h", -1, True), (650, 2600, 180, "h", 1, False), (1450, 2600, 180, "h", 1, True),
              (2100, 2400, 180, "h", 1, False), (3150, 2400, 180, "h", 1, True)]:
        p.door(*d)
    # main entrance: a pair of leaves in the west facade of the lobby
    p.door(300, 1900, 150, "v", 1, False)
    p.door(300, 2050, 150, "v", 1, True)

    # outer walls drawn last along the outline, broken for the entrance and the windows
    windows_n = [(x, x + 240) for x in (520, 980, 1440, 2260, 2720, 3460, 3940, 4760, 5200)]
    windows_w = [(y, y + 240) for y in (560, 1000, 2800, 3200)]
    windows_s = [(x, x + 240) for x in (560, 1420, 2300, 3300)]
    windows_e = [(y, y + 240) for y in (560, 1600, 2000)]
    windows_s2 = [(x, x + 240) for x in (4300, 5000)]
    p.wall(300, 300, 5700, 300, gaps=windows_n, width=t)
    p.wall(300, 300, 300, 3700, gaps=windows_w + [(1900, 2200)], width=t)
    p.wall(300, 3700, 3900, 3700, gaps=windows_s, width=t)
    p.wall(3900, 2400, 3900, 3700, gaps=[(2900, 3140)], width=t)
    p.wall(3900, 2400, 5700, 2400, gaps=windows_s2, width=t)
    p.wall(5700, 300, 5700, 2400, gaps=windows_e, width=t)
    for a, b in windows_n:
        p.window(a, 300, b - a, "h", t)
    for a, b in windows_s:
        p.window(a, 3700, b - a, "h", t)
    for a, b in windows_s2:
        p.window(a, 2400, b - a, "h", t)
    for a, b in windows_w:
        p.window(300, a, b - a, "v", t)
    for a, b in windows_e:
        p.window(5700, a, b - a, "v", t)
    p.window(3900, 2900, 240, "v", t)

    # Meeting 1: a long table with chairs and a screen on the wall
    p.rect(620, 620, 1060, 400, "#e8e2d6", "#8a7f6a", 4, rx=60)
    for i in range(6):
        chair(p, 730 + i * 168, 565)
        chair(p, 730 + i * 168, 1075)
    chair(p, 560, 820)
    chair(p, 1740, 820)
    p.rect(1940, 620, 30, 400, "#2d3748", "#111", 3)

    # Kitchen: an L counter with a sink and hob, a fridge, a small table
    p.rect(2050, 360, 1080, 130, "#dcdcdc", "#555", 4)
    p.rect(2050, 490, 130, 560, "#dcdcdc", "#555", 4)
    p.rect(2300, 385, 160, 80, "#c3ccd6", "#555", 3, rx=12)
    for i in range(2):
        for j in range(2):
            p.circle(2720 + i * 70, 395 + j * 60, 24, "none", "#444", 3)
    p.rect(2970, 360, 160, 160, "#eef2f5", "#555", 4)
    p.circle(2650, 980, 150, "#e8e2d6", "#8a7f6a", 4)
    for cx, cy in [(2650, 780), (2850, 980), (2650, 1180), (2450, 980)]:
        chair(p, cx, cy)

    # Server room: racks with their hot aisle
    for i in range(5):
        p.rect(3380 + i * 210, 420, 160, 560, "#3a3f47", "#111", 3)
        p.line(3400 + i * 210, 460, 3520 + i * 210, 460, "#9ae6b4", 6)
    p.rect(3300, 1100, 420, 120, "#cbd5e0", "#444", 3)

    # WC: stalls with toilets, a row of basins
    for i in range(4):
        x = 4580 + i * 275
        p.rect(x, 330, 250, 420, "#f4f4f4", "#444", 3)
        p.add(f'<ellipse cx="{x + 125}" cy="450" rx="55" ry="75" fill="#fff" stroke="#444" stroke-width="3"/>')
        p.rect(x + 80, 345, 90, 40, "#fff", "#444", 3)
    for i in range(3):
        p.add(f'<ellipse cx="{4720 + i * 250}" cy="1200" rx="70" ry="45" fill="#fff" stroke="#444" stroke-width="3"/>')
    p.rect(4600, 1230, 720, 40, "#dcdcdc", "#555", 3)

    # Lobby: reception desk, sofas, plants
    p.add('<path d="M1200,1750 h500 v120 h-380 v330 h-120 Z" fill="#e8e2d6" stroke="#8a7f6a" stroke-width="4"/>')
    chair(p, 1500, 1950)
    for y in (1700, 2300):
        p.rect(500, y, 420, 140, "#c8d3c0", "#5f6f55", 4, rx=30)
    p.rect(560, 1960, 300, 200, "#e8e2d6", "#8a7f6a", 4, rx=20)
    for cx, cy in [(400, 1620), (1880, 2480), (400, 2480)]:
        p.circle(cx, cy, 60, "#9ccc9c", "#4a7a4a", 4)

    # Open office: two desk blocks and a break-out sofa
    desk_block(p, 3380, 1460, 8, 3)
    desk_block(p, 2180, 1600, 3, 2, pitch_y=300)

    # Store and print room: shelving, a copier, cabinets
    for y in range(2700, 3600, 190):
        p.rect(340, y, 120, 150, "#d9cbb0", "#7a6a4f", 3)
        p.rect(940, y, 120, 150, "#d9cbb0", "#7a6a4f", 3)
    p.rect(1200, 3350, 260, 300, "#cbd5e0", "#444", 4)
    p.rect(1560, 3450, 400, 200, "#d9cbb0", "#7a6a4f", 4)

    # stair core and a lift
    stairs(p, 2060, 2700, 500, 960, treads=12, tread_line=3)
    p.rect(2620, 3260, 240, 400, "#e2e8f0", "#444", 4)
    p.line(2620, 3260, 2860, 3660, "#444", 3)
    p.line(2860, 3260, 2620, 3660, "#444", 3)

    # Meeting 2: a round table
    p.circle(3400, 3050, 260, "#e8e2d6", "#8a7f6a", 4)
    for k in range(8):
        a = k * math.pi / 4
        chair(p, round(3400 + 330 * math.cos(a)), round(3050 + 330 * math.sin(a)))

    # room names with their areas
    for x, y, name, w, h in [(1150, 1360, "Meeting 1", 1700, 1200), (2800, 720, "Kitchen", 1200, 1200),
                             (3850, 1080, "Server", 1300, 1000), (5100, 940, "WC", 1200, 1000),
                             (2700, 2230, "Open office", 3700, 900), (1000, 2140, "Lobby", 1700, 1100),
                             (700, 3280, "Store", 800, 1100), (1550, 3000, "Print", 900, 1100),
                             (2450, 2600, "Stairs", 900, 1300), (3400, 3520, "Meeting 2", 1000, 1300)]:
        p.room_label(x, y, name, w, h, per_m)

    # north arrow, scale bar and title in the notch of the L, on transparent ground
    north_arrow(p, 5300, 2900, 160)
    scale_bar(p, 4200, 3300, per_m)
    p.label(4800, 3650, "Level 1 — office", size=72, weight="bold", fill="#222")
    return p.svg()


def small_floor(k):
    """One 800 x 600 pt floor of a three-storey building, 20 units per metre."""
    per_m = 20
    p = Plan(800, 600, outer=8, inner=3, text=18, unit="pt")
    arrow_marker(p, 6)
    p.rect(40, 40, 720, 520, FLOOR)
    # the stair core is in the same place on every floor
    p.wall(340, 40, 340, 200)
    p.wall(460, 40, 460, 200)
    p.wall(340, 200, 460, 200, gaps=[(380, 420)])
    p.door(380, 200, 40, "h", 1)
    stairs(p, 350, 50, 100, 140, treads=8, tread_line=1)
    layouts = [
        # ground floor: lobby and café west, offices east, entrance in the south facade
        dict(walls=[(40, 300, 340, 300, [(250, 290)]), (460, 250, 760, 250, [(520, 560)]),
                    (600, 250, 600, 560, [(420, 460)]), (40, 200, 340, 200, [])],
             doors=[(250, 300, 40, "h", 1), (520, 250, 40, "h", 1), (600, 420, 40, "v", -1)],
             entrance=(360, 440),
             rooms=[(190, 150, "Café", 300, 160), (190, 420, "Lobby", 300, 260), (530, 410, "Reception", 140, 310),
                    (680, 410, "WC", 160, 310), (610, 150, "Post room", 300, 210)],
             furniture=[(80, 70, 200, 50), (420, 470, 100, 40), (630, 80, 90, 40)]),
        # first floor: a lab, two offices, a store
        dict(walls=[(40, 330, 340, 330, [(280, 320)]), (460, 200, 760, 200, [(480, 520)]),
                    (560, 200, 560, 560, [(240, 280)]), (560, 380, 760, 380, [(640, 680)]), (40, 200, 340, 200, [])],
             doors=[(280, 330, 40, "h", 1), (480, 200, 40, "h", 1), (560, 240, 40, "v", 1), (640, 380, 40, "h", -1)],
             entrance=None,
             rooms=[(190, 120, "Lab", 300, 160), (190, 450, "Office A", 300, 230), (660, 290, "Office B", 200, 180),
                    (660, 470, "Store", 200, 180), (500, 400, "Hall", 100, 360)],
             furniture=[(60, 60, 250, 40), (60, 490, 110, 40), (640, 220, 100, 40)]),
        # second floor: board room and open office
        dict(walls=[(460, 280, 760, 280, [(500, 540)]), (40, 200, 340, 200, [(280, 320)])],
             doors=[(500, 280, 40, "h", 1), (280, 200, 40, "h", 1)],
             entrance=None,
             rooms=[(610, 100, "Board room", 300, 240), (190, 130, "Roof access", 300, 160),
                    (400, 420, "Open office", 720, 280)],
             furniture=[(530, 170, 160, 60), (100, 300, 60, 30), (180, 300, 60, 30), (260, 300, 60, 30),
                        (100, 380, 60, 30), (180, 380, 60, 30), (260, 380, 60, 30), (560, 380, 60, 30),
                        (640, 380, 60, 30)]),
    ][k]
    for x1, y1, x2, y2, gaps in layout_walls(layouts):
        p.wall(x1, y1, x2, y2, gaps=gaps)
    for d in layouts["doors"]:
        p.door(*d)
    for x, y, w, h in layouts["furniture"]:
        p.rect(x, y, w, h, "#e8e2d6", "#8a7f6a", 1.5)
    south = [(x, x + 50) for x in (90, 200, 560, 680)]
    if layouts["entrance"]:
        p.door(layouts["entrance"][0], 560, 40, "h", -1)
        p.door(layouts["entrance"][0] + 40, 560, 40, "h", -1, True)
        south.append(layouts["entrance"])
    north = [(x, x + 50) for x in (90, 220, 560, 680)]
    side = [(y, y + 50) for y in (120, 380)]
    p.wall(40, 40, 760, 40, gaps=north, width=p.outer)
    p.wall(40, 560, 760, 560, gaps=south, width=p.outer)
    p.wall(40, 40, 40, 560, gaps=side, width=p.outer)
    p.wall(760, 40, 760, 560, gaps=side, width=p.outer)
    for a, b in north:
        p.window(a, 40, b - a, "h", p.outer)
    for a, b in south:
        if (a, b) != layouts["entrance"]:
            p.window(a, 560, b - a, "h", p.outer)
    for a, b in side:
        p.window(40, a, b - a, "v", p.outer)
        p.window(760, a, b - a, "v", p.outer)
    for x, y, name, w, h in layouts["rooms"]:
        p.room_label(x, y, name, w, h, per_m)
    p.label(400, 590, ["Ground floor", "First floor", "Second floor"][k], size=16, weight="bold", fill="#222")
    north_arrow(p, 785, 30, 10)
    return p.svg()


def layout_walls(layout):
    return [(x1, y1, x2, y2, gaps) for x1, y1, x2, y2, gaps in layout["walls"]]


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(args):
    svg_only, pdf_only = "--svg" in args, "--pdf" in args
    if not pdf_only:
        svg = os.path.join(HERE, "office.svg")
        write(svg, office())
        if not svg_only:
            subprocess.run(["vips", "copy", svg, os.path.join(HERE, "office.png")], check=True)
    if not svg_only:
        with tempfile.TemporaryDirectory() as tmp:
            pages = []
            for k in range(3):
                pages.append(os.path.join(tmp, f"floor-{k}.svg"))
                write(pages[-1], small_floor(k))
            # a fixed creation date keeps the PDF byte-for-byte reproducible
            env = dict(os.environ, SOURCE_DATE_EPOCH="0")
            subprocess.run(["rsvg-convert", "-f", "pdf", "-o", os.path.join(HERE, "building.pdf")] + pages, check=True, env=env)


if __name__ == "__main__":
    main(sys.argv[1:])
