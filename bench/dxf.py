#!/usr/bin/env python3
"""DXF drawings as sources: time and peak memory.

1. A floor-plan DXF tiled to z21 against the same drawing plotted to a PNG at z21's
   density (ezdxf's drawing add-on, the plot a user would otherwise make) and tiled
   with the same placement: runs alternate, medians and their ratio are reported.
2. A generated DXF of about 100 MB and a million entities (lines, polylines, circles,
   texts on a few layers, written as text) tiled within the default memory budget:
   wall time and peak RSS (/usr/bin/time -v).

  TILECUT=.build/release/tilecut python3 bench/dxf.py [--plan PLAN.dxf] [--units in]
      [--runs 5] [--entities 1000000] [--skip-big]

Needs python3 with ezdxf and matplotlib (make test-deps) and GNU time.
"""

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TILECUT = os.environ.get("TILECUT", os.path.join(HERE, "..", ".build", "release", "tilecut"))
CORPUS = os.path.join(HERE, "..", "..", "shared", "data", "formats-corpus", "dxf")
CENTER = "51.5,-0.12"
# metres a drawing unit, as tilecut's --drawing-units reads them
UNITS = {"m": 1.0, "mm": 0.001, "cm": 0.01, "in": 0.0254, "ft": 0.3048}


def z_meters_per_pixel(z, lat):
    import math

    return 40075016.68557849 * math.cos(math.radians(lat)) / (256 * 2**z)


def plot_png(dxf, out, meters_per_unit, meters_per_pixel):
    """The model space plotted by ezdxf at `meters_per_pixel`, on white; its size."""
    import ezdxf
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from ezdxf import bbox
    from ezdxf.addons.drawing import Frontend, RenderContext
    from ezdxf.addons.drawing.matplotlib import MatplotlibBackend

    doc = ezdxf.readfile(dxf)
    box = bbox.extents(doc.modelspace(), fast=True)
    units_per_pixel = meters_per_pixel / meters_per_unit
    width = max(1, round((box.extmax.x - box.extmin.x) / units_per_pixel))
    height = max(1, round((box.extmax.y - box.extmin.y) / units_per_pixel))
    dpi = 100
    fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_axis_off()
    Frontend(RenderContext(doc), MatplotlibBackend(ax, adjust_figure=False)).draw_layout(doc.modelspace(), finalize=False)
    ax.set_xlim(box.extmin.x, box.extmin.x + width * units_per_pixel)
    ax.set_ylim(box.extmax.y - height * units_per_pixel, box.extmax.y)
    fig.savefig(out, dpi=dpi, format="png", facecolor="white")
    plt.close(fig)
    return width, height


def run(args, out):
    """Wall seconds and peak RSS (MB) of one tilecut run into a fresh `out`."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["/usr/bin/time", "-v", TILECUT] + args + ["-o", out, "--quiet"]
    start = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    return wall, rss


def count_tiles(out):
    return sum(len(files) for _, _, files in os.walk(out) if files) - 1


def write_big_dxf(path, entities):
    """A drawing of `entities` entities over a 2 km site in metres (R12-style text DXF)."""
    rnd = random.Random(40)
    layers = ["WALLS", "DOORS", "FURNITURE", "TEXT", "GRID"]
    with open(path, "w") as f:
        w = f.write
        w("0\nSECTION\n2\nHEADER\n9\n$ACADVER\n1\nAC1009\n9\n$INSUNITS\n70\n6\n0\nENDSEC\n")
        w("0\nSECTION\n2\nTABLES\n0\nTABLE\n2\nLAYER\n70\n5\n")
        for i, name in enumerate(layers):
            w(f"0\nLAYER\n2\n{name}\n70\n0\n62\n{i + 1}\n6\nCONTINUOUS\n")
        w("0\nENDTAB\n0\nENDSEC\n0\nSECTION\n2\nENTITIES\n")
        for n in range(entities):
            x, y = rnd.uniform(0, 2000), rnd.uniform(0, 2000)
            kind = n % 20
            if kind < 15:
                dx, dy = rnd.uniform(-4, 4), rnd.uniform(-4, 4)
                w(f"0\nLINE\n8\n{layers[n % 3]}\n10\n{x:.4f}\n20\n{y:.4f}\n30\n0.0\n11\n{x + dx:.4f}\n21\n{y + dy:.4f}\n31\n0.0\n")
            elif kind < 18:
                w(f"0\nPOLYLINE\n8\nFURNITURE\n66\n1\n70\n1\n10\n0.0\n20\n0.0\n30\n0.0\n")
                for cx, cy in ((0, 0), (1.2, 0), (1.2, 0.8), (0, 0.8)):
                    w(f"0\nVERTEX\n8\nFURNITURE\n10\n{x + cx:.4f}\n20\n{y + cy:.4f}\n30\n0.0\n")
                w("0\nSEQEND\n8\nFURNITURE\n")
            elif kind < 19:
                w(f"0\nCIRCLE\n8\nDOORS\n10\n{x:.4f}\n20\n{y:.4f}\n30\n0.0\n40\n{rnd.uniform(0.2, 1.5):.3f}\n")
            else:
                w(f"0\nTEXT\n8\nTEXT\n10\n{x:.4f}\n20\n{y:.4f}\n30\n0.0\n40\n0.4\n1\nROOM {n}\n")
        w("0\nENDSEC\n0\nEOF\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", default=os.path.join(CORPUS, "bjnortier_floorplan.dxf"))
    ap.add_argument("--units", default="in", help="the plan's true unit (the corpus plan: inches, whatever $INSUNITS says)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--entities", type=int, default=1_000_000)
    ap.add_argument("--big-zoom", type=int, default=17)
    ap.add_argument("--skip-big", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tilecut-bench-dxf-")
    report = {"tilecut": os.path.realpath(TILECUT)}
    try:
        lat = float(CENTER.split(",")[0])
        mpp = z_meters_per_pixel(21, lat)
        png = os.path.join(tmp, "plan.png")
        width, height = plot_png(a.plan, png, UNITS[a.units], mpp)
        dxf_args = [a.plan, "--drawing-units", a.units, "--center", CENTER, "--max-zoom", "21"]
        png_args = [png, "--center", CENTER, "--meters-per-pixel", f"{mpp:.9f}", "--max-zoom", "21"]
        times = {"dxf": [], "png": []}
        rss = {"dxf": 0.0, "png": 0.0}
        for _ in range(a.runs):
            for kind, args in (("dxf", dxf_args), ("png", png_args)):
                t, r = run(args, os.path.join(tmp, "out-" + kind))
                times[kind].append(t)
                rss[kind] = max(rss[kind], r)
        med = {k: statistics.median(v) for k, v in times.items()}
        report["plan"] = {
            "drawing": os.path.basename(a.plan),
            "png_pixels": [width, height],
            "tiles": {k: count_tiles(os.path.join(tmp, "out-" + k)) for k in times},
            "median_s": med,
            "ratio_dxf_over_png": med["dxf"] / med["png"],
            "peak_rss_mb": rss,
            "dxf_command": " ".join([TILECUT] + dxf_args),
        }
        if not a.skip_big:
            big = os.path.join(tmp, "big.dxf")
            write_big_dxf(big, a.entities)
            t, r = run([big, "--center", CENTER, "--max-zoom", str(a.big_zoom)], os.path.join(tmp, "out-big"))
            report["big"] = {
                "entities": a.entities,
                "megabytes": os.path.getsize(big) / 1e6,
                "max_zoom": a.big_zoom,
                "tiles": count_tiles(os.path.join(tmp, "out-big")),
                "wall_s": t,
                "peak_rss_mb": r,
            }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
