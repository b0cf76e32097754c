#!/usr/bin/env python3
"""The cost curve (issue 42 item 4): time per megapixel and peak RSS of tilecut and
`vips dzsave` on the same job, at 4096², 8192², 16384², 32768² and 65536².

The same job for both: 256 px PNG tiles (compression 6), every zoom from the whole
image down to 0 up to the native one, no overlap (tilecut's --max-pixels raised to the 65536² image's
4.3 Gpx). Each size's pair is run
alternating, `COST_RUNS` times (default 3; `COST_RUNS_LARGE`, default 1, at 65536²,
where one dzsave takes many minutes on two shared cores), measured by
`/usr/bin/time -f "%e %M"`; the table gives medians. Prints a Markdown table.

Environment: TILECUT (binary), COST_SIZES (default "4096 8192 16384 32768 65536"),
COST_RUNS, COST_RUNS_LARGE, BENCH_OUT (where outputs go; /dev/shm by default).

The sources: line-drawing-like RGBA PNGs (a transparent margin, pale rooms, 6 px
dark walls on an irregular grid, doors, desk and text marks), made by libvips from a
4096² numpy-drawn plan (bench.py's plan_image) replicated to the size and saved as
PNG at compression 1 in one streaming pass (`vips replicate`): never whole in memory.
Both tools then decode the same PNG top to bottom. PNG (not a tiled TIFF or .v) is
the format a plan comes in, and it gives neither tool random access: each must
inflate every row once. Deflate's 32 KiB window sees nothing of the repetition (one
period is 16 KiB of a row at 4096 px, but 4096 rows apart), so the file is as costly
to inflate as a drawing of its size.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import plan_image, timed  # noqa: E402

WORK = os.path.join(HERE, "work")
TILECUT = os.environ.get("TILECUT", os.path.join(HERE, "..", ".build", "release", "tilecut"))
SIZES = [int(s) for s in os.environ.get("COST_SIZES", "4096 8192 16384 32768 65536").split()]
RUNS = int(os.environ.get("COST_RUNS", "3"))
RUNS_LARGE = int(os.environ.get("COST_RUNS_LARGE", "1"))
OUT = os.environ.get("BENCH_OUT") or (f"/dev/shm/tilecut-cost-{os.getpid()}" if os.path.isdir("/dev/shm") else WORK)


def source(n):
    """The n² plan PNG: the 4096² plan replicated, at PNG compression 1."""
    base = os.path.join(WORK, "plan4096.png")
    plan_image(base, 4096, 1)
    if n == 4096:
        return base
    path = os.path.join(WORK, f"cost{n}.png")
    if not os.path.exists(path):
        k = n // 4096
        t = time.time()
        subprocess.run(["vips", "replicate", base, path + ".part.png[compression=1]", str(k), str(k)], check=True)
        os.rename(path + ".part.png", path)
        print(f"{path}: {os.path.getsize(path) / 1e6:.0f} MB, made in {time.time() - t:.0f} s", file=sys.stderr)
    return path


def clear(path):
    if os.path.isfile(path):
        os.remove(path)
    elif os.path.exists(path):
        shutil.rmtree(path)


def main():
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    rows = []
    try:
        for n in SIZES:
            src = source(n)
            tc, dz = os.path.join(OUT, "tc"), os.path.join(OUT, "dz")
            jobs = {
                "tilecut": ([TILECUT, src, "-o", tc, "--tile-size", "256", "--png-compression", "6", "-q", "--force",
                             "--max-pixels", str(max(n * n, 4_000_000_000))], tc),
                "dzsave": (["vips", "dzsave", src, dz, "--layout", "google", "--suffix", ".png[compression=6]",
                            "--tile-size", "256", "--overlap", "0", "--background", "0"], dz),
            }
            results = {k: [] for k in jobs}
            for _ in range(RUNS_LARGE if n >= 65536 else RUNS):
                for name, (cmd, dest) in jobs.items():
                    clear(dest)
                    results[name].append(timed(cmd))
                    clear(dest)
                    print(f"{n}² {name}: {results[name][-1][0]:.1f} s, {results[name][-1][1]:.0f} MB", file=sys.stderr)
            mpx = n * n / 1e6
            med = {k: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v), len(v)) for k, v in results.items()}
            rows.append((n, mpx, med))
    finally:
        shutil.rmtree(OUT, ignore_errors=True)
    print("| side | Mpx | runs | tilecut s | dzsave s | tilecut ms/Mpx | dzsave ms/Mpx | time ratio | tilecut RSS MB | dzsave RSS MB | RSS ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, mpx, med in rows:
        (tt, tm, runs), (dt, dm, _) = med["tilecut"], med["dzsave"]
        print(f"| {n} | {mpx:.0f} | {runs} | {tt:.2f} | {dt:.2f} | {1000 * tt / mpx:.2f} | {1000 * dt / mpx:.2f} | {tt / dt:.2f} "
              f"| {tm:.0f} | {dm:.0f} | {tm / dm:.2f} |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
