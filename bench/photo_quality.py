#!/usr/bin/env python3
"""PSNR of one pyramid level against a reference pyramid of the same level.

usage: photo_quality.py TEST_ROOT REFERENCE_ROOT ZOOM

Each root is either a dzsave --layout google tree (z/y/x.ext) or a tilecut
output (…/L1_z_x_y.ext). The tiles of ZOOM present in both are joined into one
mosaic each (vips arrayjoin, row by row) and compared with libvips: PSNR over all
bands = 10·log10(255² / mean((a − b)²)). Alpha is dropped (photos are opaque).
Only the vips CLI is needed.
"""
import math
import os
import subprocess
import sys
import tempfile


def level_tiles(root, zoom):
    """(x, y) → path for the tiles of one zoom below root, by layout."""
    found = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            stem, ext = os.path.splitext(f)
            if ext not in (".png", ".webp", ".jpg"):
                continue
            p = os.path.join(dirpath, f)
            if stem.startswith("L") and stem.count("_") == 3:  # tilecut L1_z_x_y
                _, z, x, y = stem.split("_")
            else:  # dzsave google: z/y/x
                parts = os.path.relpath(p, root).split(os.sep)
                if len(parts) != 3 or not parts[0].isdigit():
                    continue
                z, y, x = parts[0], parts[1], stem
            if int(z) == zoom:
                found[(int(x), int(y))] = p
    return found


def mosaic(tiles, keys, dest):
    """Joins the tiles at keys (a full rectangle) into dest, RGB only."""
    xs = sorted({x for x, _ in keys})
    rgb = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, k in enumerate(keys):
            v = os.path.join(tmp, f"{i}.v")
            subprocess.run(["vips", "extract_band", tiles[k], v, "0", "--n", "3"], check=True)
            rgb.append(v)
        subprocess.run(["vips", "arrayjoin", " ".join(rgb), dest, "--across", str(len(xs))], check=True)


def psnr(a, b):
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "d.v")
        sq = os.path.join(tmp, "sq.v")
        subprocess.run(["vips", "subtract", a, b, d], check=True)
        subprocess.run(["vips", "multiply", d, d, sq], check=True)
        mse = float(subprocess.run(["vips", "avg", sq], check=True, capture_output=True, text=True).stdout)
    return float("inf") if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    test, ref, zoom = sys.argv[1], sys.argv[2], int(sys.argv[3])
    t, r = level_tiles(test, zoom), level_tiles(ref, zoom)
    common = set(t) & set(r)
    if not common:
        raise SystemExit(f"no tiles of zoom {zoom} in both {test} and {ref}")
    xs = sorted({x for x, _ in common})
    ys = sorted({y for _, y in common})
    keys = [(x, y) for y in ys for x in xs]
    missing = [k for k in keys if k not in common]
    if missing:
        raise SystemExit(f"zoom {zoom}: tiles {missing[:3]} missing from one side; pick a fully covered zoom")
    with tempfile.TemporaryDirectory() as tmp:
        a, b = os.path.join(tmp, "a.v"), os.path.join(tmp, "b.v")
        mosaic(t, keys, a)
        mosaic(r, keys, b)
        print(f"zoom {zoom}: {len(keys)} tiles, PSNR {psnr(a, b):.2f} dB")


if __name__ == "__main__":
    main()
