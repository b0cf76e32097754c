#!/usr/bin/env python3
"""Draws the bundled example floor plans (standard library only).

office.svg: one office floor, 6000 x 4000 units, transparent outside the building.
building-*.svg: three small floors for the multi-page PDF fixture.
Render with libvips:  vips copy office.svg office.png
"""
import random

W, H = 6000, 4000
WALL, INNER = 28, 12


def rect(x, y, w, h, fill, stroke="none", sw=0, extra=""):
    return f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{fill}" stroke="{stroke}" stroke-width="{sw}" {extra}/>'


def wall(x1, y1, x2, y2, width=INNER):
    return f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#222" stroke-width="{width}" stroke-linecap="square"/>'


def door(x, y, size, orient):
    """An opening of `size` in a wall with a swing arc; orient h (wall along x) or v."""
    if orient == "h":
        return (rect(x, y - INNER, size, 2 * INNER, "#fafafa")
                + f'<path d="M{x},{y} L{x},{y - size} A{size},{size} 0 0,1 {x + size},{y}" fill="none" stroke="#555" stroke-width="3"/>')
    return (rect(x - INNER, y, 2 * INNER, size, "#fafafa")
            + f'<path d="M{x},{y} L{x + size},{y} A{size},{size} 0 0,1 {x},{y + size}" fill="none" stroke="#555" stroke-width="3"/>')


def label(x, y, text, size=64):
    return f'<text x="{x}" y="{y}" font-family="DejaVu Sans, sans-serif" font-size="{size}" fill="#333" text-anchor="middle">{text}</text>'


def desk_cluster(x0, y0, cols, rows, rnd):
    out = []
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * 260, y0 + r * 300
            out.append(rect(x, y, 220, 110, "#e8e2d6", "#8a7f6a", 3))
            out.append(f'<circle cx="{x + 110}" cy="{y + 160}" r="34" fill="#d5dbe3" stroke="#6b7785" stroke-width="3"/>')
            if rnd.random() < 0.5:
                out.append(rect(x + 20, y + 20, 70, 45, "#9fb3c8", "#445", 2))
    return out


def office():
    rnd = random.Random(7)
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">']
    # L-shaped building outline; everything outside stays transparent
    outline = "M300,300 L5700,300 L5700,2400 L3900,2400 L3900,3700 L300,3700 Z"
    s.append(f'<path d="{outline}" fill="#fafafa" stroke="#111" stroke-width="{WALL}"/>')
    # windows along the north facade
    for x in range(500, 5600, 400):
        s.append(rect(x, 300 - 8, 220, 16, "#bcdcf0", "#333", 2))
    # interior walls
    s += [wall(2000, 300, 2000, 1500), wall(300, 1500, 3200, 1500), wall(3200, 300, 3200, 1500),
          wall(4500, 300, 4500, 1300), wall(3200, 1300, 5700, 1300), wall(300, 2600, 2000, 2600),
          wall(2000, 2600, 2000, 3700), wall(1100, 2600, 1100, 3700), wall(2900, 2400, 2900, 3700),
          wall(2000, 2400, 3900, 2400)]
    # doors
    s += [door(1700, 1500, 160, "h"), door(2400, 1500, 160, "h"), door(3200, 900, 160, "v"),
          door(4800, 1300, 160, "h"), door(700, 2600, 160, "h"), door(1500, 2600, 160, "h"),
          door(2000, 2900, 160, "v"), door(2900, 2900, 160, "v"), door(3300, 2400, 160, "h")]
    # rooms: meeting table, kitchen counter, server racks, WC stalls, stairs
    s.append(rect(650, 600, 1000, 420, "#e8e2d6", "#8a7f6a", 4, 'rx="60"'))
    for i in range(6):
        s.append(f'<circle cx="{760 + i * 160}" cy="540" r="40" fill="#d5dbe3" stroke="#6b7785" stroke-width="3"/>')
        s.append(f'<circle cx="{760 + i * 160}" cy="1080" r="40" fill="#d5dbe3" stroke="#6b7785" stroke-width="3"/>')
    s.append(rect(2150, 380, 900, 140, "#dcdcdc", "#555", 4))
    s.append(rect(2150, 520, 140, 600, "#dcdcdc", "#555", 4))
    for i in range(5):
        s.append(rect(3350 + i * 210, 420, 160, 620, "#3a3f47", "#111", 3))
    for i in range(4):
        s.append(rect(4600 + i * 260, 360, 220, 380, "#f1f1f1", "#444", 3))
    for i in range(14):
        s.append(rect(2050, 2650 + i * 70, 800, 70, "#ececec", "#444", 2))
    s.append(f'<path d="M2450,2700 L2450,3600" stroke="#444" stroke-width="4" marker-end="url(#a)"/>')
    # open office desks
    s += desk_cluster(3400, 1500, 8, 3, rnd)
    s += desk_cluster(450, 1700, 5, 3, rnd)
    # labels
    s += [label(1150, 1350, "Meeting 1"), label(2600, 1350, "Kitchen"), label(3850, 1180, "Server"),
          label(5100, 1180, "WC"), label(4500, 2300, "Open office"), label(1150, 2500, "Lobby"),
          label(700, 3200, "Store"), label(1550, 3200, "Print"), label(2450, 2550, "Stairs", 48),
          label(3400, 3200, "Reception")]
    # north arrow and scale bar (outside the building, on transparent ground)
    s.append('<path d="M5400,2700 L5480,2950 L5400,2900 L5320,2950 Z" fill="#222"/>')
    s.append(label(5400, 2680, "N", 72))
    s.append(rect(4300, 3500, 1000, 30, "#222"))
    s.append(label(4800, 3480, "10 m", 56))
    s.append('<defs><marker id="a" markerWidth="10" markerHeight="10" refX="5" refY="5" orient="auto">'
             '<path d="M0,0 L10,5 L0,10 Z" fill="#444"/></marker></defs>')
    s.append("</svg>")
    return "\n".join(s)


def small_floor(k):
    """One 800 x 600 floor of a three-storey building; each floor differs."""
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600">',
         rect(40, 40, 720, 520, "#fafafa", "#111", 10)]
    splits = [(300,), (250, 520), (400,)][k]
    for x in splits:
        s.append(wall(x, 40, x, 560, 6))
    s.append(wall(40, 300 + 40 * k, 760, 300 + 40 * k, 6))
    names = [["Lobby", "Cafe"], ["Lab", "Office", "Store"], ["Board room", "Roof access"]][k]
    for i, name in enumerate(names):
        s.append(label(150 + i * 250, 200, name, 30))
    s.append(label(400, 520, f"Floor {k}", 36))
    s.append("</svg>")
    return "\n".join(s)


if __name__ == "__main__":
    with open("office.svg", "w") as f:
        f.write(office())
    for k in range(3):
        with open(f"building-{k}.svg", "w") as f:
            f.write(small_floor(k))
