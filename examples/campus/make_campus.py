#!/usr/bin/env python3
"""Draws the two buildings of the campus example (Python standard library, plus
`vips` for the annex PNG and `projinfo` for its .prj).

    python3 make_campus.py

hq/hq.pdf: the headquarters, two 566 x 283 pt pages (floors 1 and 2), drawn at
1:200 (one point of paper is 0.0706 m on the ground: a 40 m x 20 m building).
Written by hand as PDF operators: a light floor, dark walls, rooms, a stair core.
Outside the outline nothing is drawn, so the page is transparent there.

annex/ground.png: the annex's ground floor, 300 x 200 px at 0.1 m per pixel in
EPSG:3857, placed by its world file (ground.pgw) and ground.prj, overlapping the
east end of the headquarters.
The output is deterministic: no randomness, no timestamps.
"""
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def pdf(pages, width, height):
    """A PDF of one content stream per page (no fonts, no images)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    kids = []
    for content in pages:
        data = content.encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")
        stream = len(objects)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents %d 0 R >>" % (width, height, stream))
        kids.append(len(objects))
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def hq_floor(rooms):
    """One floor of the headquarters: PDF y grows up, so rows are flipped here."""
    w, h = 566, 283
    ops = []

    def rect(x, y, rw, rh, fill=None, stroke=None, width=0):
        y = h - y - rh
        if fill:
            ops.append("%.3f %.3f %.3f rg %d %d %d %d re f" % (fill + (x, y, rw, rh)))
        if stroke:
            ops.append("%.3f %.3f %.3f RG %d w %d %d %d %d re S" % (stroke + (width, x, y, rw, rh)))

    rect(0, 0, w, h, fill=(0.92, 0.95, 1.0))
    for x, y, rw, rh, colour in rooms:
        rect(x, y, rw, rh, fill=colour, stroke=(0.25, 0.25, 0.3), width=3)
    rect(250, 100, 60, 80, fill=(0.6, 0.6, 0.65), stroke=(0.1, 0.1, 0.1), width=4)  # stair core
    rect(4, 4, w - 8, h - 8, stroke=(0.1, 0.1, 0.12), width=8)  # outer wall
    return "\n".join(ops)


def annex_svg():
    return """<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">
<rect x="0" y="0" width="300" height="200" fill="#fff1dc"/>
<rect x="20" y="20" width="120" height="160" fill="#ffd9a8" stroke="#553311" stroke-width="4"/>
<rect x="160" y="20" width="120" height="70" fill="#ffe9c8" stroke="#553311" stroke-width="4"/>
<rect x="160" y="110" width="120" height="70" fill="#f4c68a" stroke="#553311" stroke-width="4"/>
<rect x="3" y="3" width="294" height="194" fill="none" stroke="#2a1a08" stroke-width="6"/>
</svg>
"""


def main():
    os.makedirs(os.path.join(HERE, "hq"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "annex"), exist_ok=True)
    ground = hq_floor([(20, 20, 200, 120, (0.85, 0.9, 0.98)), (20, 150, 200, 110, (0.8, 0.88, 0.96)), (340, 20, 200, 240, (0.88, 0.93, 1.0))])
    first = hq_floor([(20, 20, 120, 240, (0.9, 0.85, 0.98)), (160, 20, 80, 60, (0.85, 0.8, 0.96)), (340, 20, 200, 110, (0.92, 0.88, 1.0)),
                      (340, 150, 200, 110, (0.86, 0.82, 0.95))])
    with open(os.path.join(HERE, "hq", "hq.pdf"), "wb") as f:
        f.write(pdf([ground, first], 566, 283))
    svg = os.path.join(HERE, "annex", "ground.svg")
    with open(svg, "w") as f:
        f.write(annex_svg())
    subprocess.run(["vips", "copy", svg, os.path.join(HERE, "annex", "ground.png")], check=True)
    os.remove(svg)
    # EPSG:3857 metres: 0.1 per pixel (about 0.062 m on the ground at 51.5° N); the
    # world file names the centre of the top-left pixel
    x0, y0 = -15520.2, 6710344.3
    with open(os.path.join(HERE, "annex", "ground.pgw"), "w") as f:
        f.write("0.1\n0\n0\n-0.1\n%.2f\n%.2f\n" % (x0 + 0.05, y0 - 0.05))
    wkt = subprocess.run(["projinfo", "EPSG:3857", "-o", "WKT1_ESRI", "-q"], check=True, capture_output=True, text=True).stdout
    with open(os.path.join(HERE, "annex", "ground.prj"), "w") as f:
        f.write(wkt.strip() + "\n")


if __name__ == "__main__":
    main()
