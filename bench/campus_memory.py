#!/usr/bin/env python3
"""Issue 42 item 3: peak RSS of a campus floor against its largest building alone.

Two project files over the same sources: `all.yml`, one floor with CAMPUS_BUILDINGS
buildings (default 6), each an N² generated plan (bench/work/costN.png, as made by
cost_curve.py; CAMPUS_SIDE, default 8192) at 0.03 m per pixel, placed side by side in
a row (centres CAMPUS_SPACING plan widths apart, default 1.2; no rotation unless CAMPUS_ROTATE=1, which turns
building b by 7·b degrees); and `one.yml`, the same floor with only its largest
building: the one whose bounding box is widest (b0 unrotated; with CAMPUS_ROTATE=1,
the one turned closest to 45 degrees), so its strips are the widest. Both 256 and 512 px tiles, as bench/campus.sh.
The two builds are run alternating, CAMPUS_RUNS times each (default 2), with --force,
under `/usr/bin/time -f "%e %M"`; prints each run and the median ratio of peak RSS.

Environment: TILECUT (binary), CAMPUS_SIDE, CAMPUS_BUILDINGS, CAMPUS_RUNS,
CAMPUS_ROTATE, CAMPUS_SPACING, BENCH_OUT (where outputs go; /dev/shm by default).
"""
import math
import os
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TILECUT = os.environ.get("TILECUT", os.path.join(HERE, "..", ".build", "release", "tilecut"))
SIDE = int(os.environ.get("CAMPUS_SIDE", "8192"))
COUNT = int(os.environ.get("CAMPUS_BUILDINGS", "6"))
RUNS = int(os.environ.get("CAMPUS_RUNS", "2"))
ROTATE = os.environ.get("CAMPUS_ROTATE") == "1"
SPACING = float(os.environ.get("CAMPUS_SPACING", "1.2"))
OUT = os.environ.get("BENCH_OUT") or (f"/dev/shm/tilecut-campus-mem-{os.getpid()}" if os.path.isdir("/dev/shm") else os.path.join(HERE, "work"))
MPP = 0.03
LAT = 51.5


def rotation(b):
    return 7 * b if ROTATE else 0


def largest():
    """The building with the widest bounding box (its strips are the widest)."""
    return max(range(COUNT), key=lambda b: round(abs(math.cos(math.radians(rotation(b)))) + abs(math.sin(math.radians(rotation(b)))), 9))


def project(path, buildings, sources):
    width_m = SIDE * MPP
    # degrees of longitude per metre at LAT
    dlon = 1 / (111320 * math.cos(math.radians(LAT)))
    lines = ["output: tiles", "tileSizes: [256, 512]", "buildings:"]
    for b in buildings:
        lines += [
            f"  - id: b{b}",
            "    floors:",
            "      - floor: 1",
            f"        source: {sources[b]}",
            f"        center: [{LAT}, {-0.14 + b * SPACING * width_m * dlon:.7f}]",
            f"        metersPerPixel: {MPP}",
            f"        rotation: {rotation(b)}",
        ]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run(yml, out):
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["/usr/bin/time", "-f", "%e %M", TILECUT, "build", yml, "--output", out, "-q", "--force"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    secs, kb = p.stderr.strip().splitlines()[-1].split()
    tiles = sum(len(f) for _, _, f in os.walk(out))
    shutil.rmtree(out, ignore_errors=True)
    return float(secs), int(kb) / 1024, tiles


def main():
    source = os.path.join(HERE, "work", f"cost{SIDE}.png")
    if not os.path.exists(source):
        sys.exit(f"{source} missing: run COST_SIZES={SIDE} bench/cost_curve.py first (or vips replicate plan4096.png)")
    os.makedirs(OUT, exist_ok=True)
    # a file per building (copies, so no two floors share a source path)
    sources = []
    for b in range(COUNT):
        path = os.path.join(OUT, f"b{b}.png")
        if not os.path.exists(path):
            shutil.copyfile(source, path)
        sources.append(path)
    all_yml, one_yml = os.path.join(OUT, "all.yml"), os.path.join(OUT, "one.yml")
    alone = largest()
    project(all_yml, range(COUNT), sources)
    project(one_yml, [alone], sources)
    rss = {"all": [], "one": []}
    for i in range(RUNS):
        for name, yml in (("all", all_yml), ("one", one_yml)):
            secs, mb, tiles = run(yml, os.path.join(OUT, "out-" + name))
            rss[name].append(mb)
            print(f"run {i + 1} {name:3}: {secs:7.1f} s  peak RSS {mb:7.1f} MB  {tiles} files", flush=True)
    a, o = statistics.median(rss["all"]), statistics.median(rss["one"])
    print(
        f"{COUNT} buildings of {SIDE}² on one floor{' (turned)' if ROTATE else ''}: "
        f"{a:.1f} MB; b{alone} alone: {o:.1f} MB; ratio {a / o:.3f} (median of {RUNS})"
    )


if __name__ == "__main__":
    main()
