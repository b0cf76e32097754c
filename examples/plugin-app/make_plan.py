#!/usr/bin/env python3
"""Draws the plugin-app example's two floors (Python standard library only):

    python3 make_plan.py

Sources/PluginApp/plan/ground.svg: floor 0, a 30 m x 20 m building drawn at 10 user
units per metre (300 x 200), placed in tilecut.yml by its centre and metres per pixel.

Sources/PluginApp/plan/upper.png: floor 1, the same outline with other rooms, 150 x 100
px at 0.2 m per pixel in EPSG:3857, placed by its world file (upper.pgw) and upper.prj.

Both stand on the Rathausmarkt in Hamburg (53.5503 N, 9.9925 E). The output is
deterministic: no randomness, no timestamps.
"""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
PLAN = os.path.join(HERE, "Sources", "PluginApp", "plan")
LAT, LON = 53.5503, 9.9925
R = 6378137.0
PRJ = ('PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",'
       'SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],'
       'PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",0.0],PARAMETER["False_Northing",0.0],'
       'PARAMETER["Central_Meridian",0.0],PARAMETER["Standard_Parallel_1",0.0],PARAMETER["Auxiliary_Sphere_Type",0.0],'
       'UNIT["Meter",1.0]]')


def ground_svg():
    """Walls, three rooms and a stair core; outside the outline nothing is drawn."""
    body = [
        '<rect x="5" y="5" width="290" height="190" fill="#f4f1ea" stroke="#222" stroke-width="4"/>',
        '<line x1="110" y1="5" x2="110" y2="120" stroke="#222" stroke-width="2"/>',
        '<line x1="5" y1="120" x2="200" y2="120" stroke="#222" stroke-width="2"/>',
        '<line x1="200" y1="5" x2="200" y2="195" stroke="#222" stroke-width="2"/>',
        '<rect x="230" y="140" width="45" height="40" fill="#c9d8e8" stroke="#222" stroke-width="2"/>',
        '<rect x="30" y="30" width="60" height="30" fill="#e8c9c9"/>',
    ]
    head = '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200" viewBox="0 0 300 200">'
    return "\n".join([head] + body + ["</svg>", ""])


def png(width, height, pixel):
    """An RGBA PNG, pixel(x, y) -> (r, g, b, a), written with zlib."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            raw += bytes(pixel(x, y))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")


def upper(x, y):
    """150 x 100 px: a dark outline, a corridor, two rooms."""
    if x < 2 or y < 2 or x >= 148 or y >= 98:
        return (34, 34, 34, 255)
    if 45 <= y < 55:
        return (255, 255, 255, 255)
    if x in (60, 61) or x in (110, 111):
        return (34, 34, 34, 255)
    return (214, 232, 214, 255) if y < 45 else (240, 226, 200, 255)


def main():
    os.makedirs(PLAN, exist_ok=True)
    with open(os.path.join(PLAN, "ground.svg"), "w") as f:
        f.write(ground_svg())
    with open(os.path.join(PLAN, "upper.png"), "wb") as f:
        f.write(png(150, 100, upper))
    # EPSG:3857 metres of the top-left corner: the centre less half the 30 m x 20 m;
    # at 53.55 N a ground metre is 1/cos(lat) Mercator metres
    k = 1 / math.cos(math.radians(LAT))
    cx = R * math.radians(LON)
    cy = R * math.log(math.tan(math.pi / 4 + math.radians(LAT) / 2))
    size = 0.2 * k
    left, top = cx - 75 * size, cy + 50 * size
    # a world file names the centre of the top-left pixel
    with open(os.path.join(PLAN, "upper.pgw"), "w") as f:
        f.write("%.6f\n0\n0\n%.6f\n%.3f\n%.3f\n" % (size, -size, left + size / 2, top - size / 2))
    with open(os.path.join(PLAN, "upper.prj"), "w") as f:
        f.write(PRJ)


if __name__ == "__main__":
    main()
