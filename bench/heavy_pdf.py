#!/usr/bin/env python3
"""A heavy vector PDF like a CAD floor plan export, written by hand (no dependencies).

Each page is a floor: walls as separate stroked paths, hatched fills made of single
line segments (as CAD exports write hatching), door swings and furniture as Bézier
curves, dimension lines with ticks, and text labels in Helvetica. The content stream
of every page is deflated, as exporters write it. Deterministic (seeded by the page).

  python3 heavy_pdf.py OUT.pdf [--pages 3] [--size A1] [--segments 300000]

--segments is the number of stroked segments on a page (the walls, hatching, polylines
and dimensions together; at least the walls and hatching, which do not scale with it).
Sizes: A0, A1, A2 (landscape).
"""

import argparse
import math
import random
import zlib

SIZES = {"A0": (3370, 2384), "A1": (2384, 1684), "A2": (1684, 1191)}


def fmt(v):
    return f"{v:.2f}".rstrip("0").rstrip(".")


def page_content(page, width, height, segments):
    rnd = random.Random(1000 + page)
    out = []
    emit = out.append
    count = 0
    margin = 40
    # title block frame
    emit(f"0 0 0 RG 1.4 w {margin} {margin} {fmt(width - 2 * margin)} {fmt(height - 2 * margin)} re S")
    # rooms: a grid of rectangles with jittered walls, each wall its own path
    cols, rows = 14, 9
    cw = (width - 2 * margin - 60) / cols
    rh = (height - 2 * margin - 60) / rows
    x0, y0 = margin + 30, margin + 30
    rooms = []
    for i in range(cols):
        for j in range(rows):
            x = x0 + i * cw + rnd.uniform(-2, 2)
            y = y0 + j * rh + rnd.uniform(-2, 2)
            rooms.append((x, y, cw, rh))
    # hatched rooms: crossed 45° hatching at 1.2 pt, each line a single segment (as CAD
    # exports write it), clipped to the room over a pale fill
    for x, y, w, h in rooms:
        if rnd.random() >= 0.45:
            continue
        g = rnd.uniform(0.75, 0.95)
        emit(f"q {fmt(g)} {fmt(g)} {fmt(min(1, g + 0.04))} rg {fmt(x + 4)} {fmt(y + 4)} {fmt(w - 8)} {fmt(h - 8)} re f")
        emit(f"{fmt(x + 4)} {fmt(y + 4)} {fmt(w - 8)} {fmt(h - 8)} re W n")
        emit(f"0.45 0.2 0.15 RG {fmt(rnd.choice([0.12, 0.18, 0.25]))} w")
        s = 0.0
        while s < w + h:
            emit(f"{fmt(x + s - h)} {fmt(y)} m {fmt(x + s)} {fmt(y + h)} l S")
            emit(f"{fmt(x + s)} {fmt(y)} m {fmt(x + s - h)} {fmt(y + h)} l S")
            s += 1.2
            count += 2
        emit("Q")
    # dimension strings: a line with two ticks, scattered over the plan
    emit("q 0 0 0 RG 0.2 w")
    for _ in range(int(segments * 0.04)):
        x, y, w, h = rnd.choice(rooms)
        yy = y + rnd.uniform(6, h - 6)
        xa, xb = x + rnd.uniform(4, w / 2), x + rnd.uniform(w / 2, w - 4)
        emit(
            f"{fmt(xa)} {fmt(yy)} m {fmt(xb)} {fmt(yy)} l S {fmt(xa - 1.5)} {fmt(yy - 1.5)} m {fmt(xa + 1.5)} {fmt(yy + 1.5)} l S "
            f"{fmt(xb - 1.5)} {fmt(yy - 1.5)} m {fmt(xb + 1.5)} {fmt(yy + 1.5)} l S"
        )
        count += 3
    emit("Q")
    # furniture and fittings: circles and rounded shapes exported as 16-segment
    # polylines, rectangles, each its own path, in a few pen colours
    pens = ["0.2 0.35 0.6 RG 0.3 w", "0.1 0.5 0.2 RG 0.25 w", "0.5 0.5 0.5 RG 0.18 w"]
    emit("q")
    while count < segments:
        emit(pens[rnd.randrange(len(pens))])
        x, y, w, h = rnd.choice(rooms)
        cx, cy = x + rnd.uniform(8, w - 8), y + rnd.uniform(8, h - 8)
        r = rnd.uniform(0.8, 4)
        if rnd.random() < 0.7:
            pts = [(cx + r * math.cos(t * math.pi / 8), cy + r * math.sin(t * math.pi / 8)) for t in range(16)]
            emit(f"{fmt(pts[0][0])} {fmt(pts[0][1])} m " + " ".join(f"{fmt(a)} {fmt(b)} l" for a, b in pts[1:]) + " h S")
            count += 16
        else:
            emit(f"{fmt(cx - r)} {fmt(cy - r / 2)} {fmt(2 * r)} {fmt(r)} re S")
            count += 4
    emit("Q")
    # room labels and areas
    emit("BT 0 0 0 rg")
    for n, (x, y, w, h) in enumerate(rooms):
        emit(f"/F1 9 Tf 1 0 0 1 {fmt(x + 8)} {fmt(y + h - 16)} Tm (L{page} Room {n + 1:03d}) Tj")
        emit(f"/F1 6 Tf 1 0 0 1 {fmt(x + 8)} {fmt(y + h - 25)} Tm ({w * h / 2835:.1f} m2 - finish F{n % 7}) Tj")
    emit(f"/F1 24 Tf 1 0 0 1 {fmt(width - 420)} {fmt(margin + 8)} Tm (LEVEL {page} - GENERAL ARRANGEMENT) Tj ET")
    return "\n".join(out).encode(), count


def write_pdf(path, pages, size, segments):
    width, height = SIZES[size]
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", None, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids = []
    total = 0
    for p in range(pages):
        content, count = page_content(p, width, height, segments)
        total += count
        data = zlib.compress(content, 6)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width} {height}] /Resources << /Font << /F1 3 0 R >> >> /Contents {len(objects) + 2} 0 R >>".encode()
        )
        kids.append(len(objects))
        objects.append(f"<< /Length {len(data)} /Filter /FlateDecode >>\nstream\n".encode() + data + b"\nendstream")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {pages} >>".encode()
    pdf = bytearray(b"%PDF-1.5\n%\xb5\xed\xae\xfb\n")
    offsets = []
    for i, body in enumerate(objects):
        offsets.append(len(pdf))
        pdf += f"{i + 1} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for o in offsets:
        pdf += f"{o:010d} 00000 n \n".encode()
    pdf += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    with open(path, "wb") as f:
        f.write(pdf)
    return total


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--size", choices=sorted(SIZES), default="A1")
    ap.add_argument("--segments", type=int, default=300000)
    a = ap.parse_args()
    n = write_pdf(a.out, a.pages, a.size, a.segments)
    print(f"{a.out}: {a.pages} pages {a.size}, {n} segments")
