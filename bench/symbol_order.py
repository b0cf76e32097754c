#!/usr/bin/env python3
"""Writes Sources/tilecut/link-order.txt: the functions typical jobs run, for the linker.

The release build links tilecut with lld and this list (`--symbol-ordering-file`, the
Makefile's RELEASE_FLAGS), so that the code a job runs sits together at the start of
the binary's text instead of spread over its 19 MB. The kernel maps a binary's pages
in 64 KiB runs around each page touched, so spread code is resident almost whole:
bench/README.md ("Code pages") has the measurements.

Each job below runs once under valgrind's callgrind on a copy of the release binary
(without its DWARF, which valgrind cannot read); the functions of the binary that ran
are listed, each job's hottest first, the jobs in this order. Functions missing from a
later build (renamed, inlined) are skipped by the linker; new ones land after the list,
where they cost a page or two: run this again when the list has aged
(`make link-order`; valgrind from Debian's `valgrind`).

  python3 bench/symbol_order.py [--binary .build/release/tilecut] [--out FILE]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CORPUS_DXF = os.path.join(ROOT, "..", "shared", "data", "formats-corpus", "dxf", "bjnortier_floorplan.dxf")


def jobs(out):
    """The command lines: the make run example, its world file read by GDAL and PROJ, the
    PDF and SVG examples, the campus project, a 2048² plan (plain and turned), an MBTiles store, a DXF."""
    ex = os.path.join(ROOT, "examples")
    plan = os.path.join(out, "plan.png")
    subprocess.run(
        ["vips", "crop", os.path.join(ex, "floorplan", "office.png"), plan, "1000", "1000", "2048", "2048"],
        check=True, capture_output=True)
    listed = [
        ["--version"],
        [os.path.join(ex, "floorplan", "office.png"), "--world-file", os.path.join(ex, "floorplan", "office-berlin.pgw"),
         "-o", os.path.join(out, "run"), "--preview", "--knockout", "white:8", "--retina-depth", "native"],
        [plan, "-o", os.path.join(out, "plan"), "--tile-size", "256", "--png-compression", "6", "-q"],
        [plan, "--center", "52.52,13.40", "--meters-per-pixel", "0.05", "--rotation", "20", "--store", "mbtiles",
         "-o", os.path.join(out, "plan.mbtiles"), "-q"],
        [os.path.join(ex, "floorplan", "building.pdf"), "--center", "52.52,13.40", "--meters-per-pixel", "0.1",
         "-o", os.path.join(out, "pdf"), "-q"],
        [os.path.join(ex, "floorplan", "office.svg"), "--center", "52.52,13.40", "--meters-per-pixel", "0.05",
         "-o", os.path.join(out, "svg"), "-q"],
        ["build", os.path.join(ex, "campus", "tilecut.yml"), "--output", os.path.join(out, "campus"), "-q"],
        ["verify", os.path.join(out, "plan.mbtiles")],
    ]
    if os.path.exists(CORPUS_DXF):
        listed.append([CORPUS_DXF, "--drawing-units", "in", "--center", "51.5,-0.12", "--max-zoom", "21",
                       "-o", os.path.join(out, "dxf"), "-q"])
    else:
        print(f"symbol_order: {CORPUS_DXF} is absent: no DXF job", file=sys.stderr)
    return listed


def executed(binary, args, scratch):
    """The binary's functions that ran in `binary args`, most instructions first."""
    profile = os.path.join(scratch, "callgrind.out")
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={profile}", binary] + args,
        capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"symbol_order: {' '.join(args)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    report = subprocess.run(["callgrind_annotate", "--threshold=100", profile], capture_output=True, text=True, check=True)
    names = []
    tag = f"[{binary}]"
    for line in report.stdout.splitlines():
        if not line.rstrip().endswith(tag):
            continue
        m = re.match(r"^\s*[\d,]+\s+\([\s\d.]+%\)\s+\S*?:(.*) \[[^]]*\]$", line)
        if m:
            names.append(m.group(1))
    os.remove(profile)
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "tilecut"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Sources", "tilecut", "link-order.txt"))
    a = ap.parse_args()
    for tool in ("valgrind", "callgrind_annotate", "vips"):
        if shutil.which(tool) is None:
            sys.exit(f"symbol_order: needs {tool} (apt-get install valgrind libvips-tools)")
    with tempfile.TemporaryDirectory(prefix="tilecut-order-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as scratch:
        binary = os.path.join(scratch, "tilecut")
        subprocess.run(["strip", "--strip-debug", "-o", binary, a.binary], check=True)
        # symbols the binary defines in its text: what the list may name
        nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
        defined = {p[2] for p in (l.split(None, 2) for l in nm.splitlines()) if len(p) == 3 and p[1] in "tTwW"}
        order, seen = [], set()
        for args in jobs(scratch):
            names = [n for n in executed(binary, args, scratch) if n in defined and n not in seen]
            seen.update(names)
            order += names
            print(f"{len(names):6d} new functions: tilecut {' '.join(os.path.basename(x) for x in args)}")
    with open(a.out + ".part", "w") as f:
        f.write("".join(n + "\n" for n in order))
    os.replace(a.out + ".part", a.out)
    print(f"{len(order)} functions → {os.path.relpath(a.out, ROOT)}")


if __name__ == "__main__":
    main()
