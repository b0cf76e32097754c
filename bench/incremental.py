#!/usr/bin/env python3
"""make bench, the incremental part: `tilecut build` of one 16384² plan (a building
floor placed by a centre and a scale), then, in alternating rounds, four runs from the
same previous output: a full build (no previous output), an unchanged rebuild (up to
date), the same pixels saved again as another PNG file (new bytes), and a rectangle
covering 1 % of the plan drawn over it. Prints each run's median wall time and its
ratio to the full build's, and the same for CPU time (user + system; issue 42's
targets: unchanged and re-saved ≤ 0.05, 1 % edit ≤ 0.15), and checks that the edited rebuild is byte-identical to a full build of the
edited plan.

Environment: TILECUT (binary), BENCH_SIZE (default 16384), BENCH_RUNS (default 3),
BENCH_OUT (where outputs go; default a folder on /dev/shm), TILECUT_BASELINE (another
binary, e.g. main's: each run is then made by both in turn, baseline first, in the same
rounds, and both are printed, each as ratios to its own full build)."""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import plan_image  # noqa: E402

TILECUT = os.environ.get("TILECUT") or sys.exit("set TILECUT to the tilecut binary")
BASELINE = os.environ.get("TILECUT_BASELINE")
SIZE = int(os.environ.get("BENCH_SIZE", "16384"))
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
WORK = os.path.join(HERE, "work")
OUT = os.environ.get("BENCH_OUT") or (f"/dev/shm/tilecut-incremental-{os.getpid()}" if os.path.isdir("/dev/shm") else os.path.join(WORK, "incremental"))


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(cmd):
    """The run's wall time and its CPU time (user + system): on a shared machine the
    wall time follows the load, the CPU time much less."""
    cpu = children_cpu()
    start = time.monotonic()
    out = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - start
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        sys.exit(f"failed: {' '.join(cmd)}")
    return wall, children_cpu() - cpu


def tree(root):
    """Every file below root (but the manifest) → its bytes."""
    found = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, root)
            if rel != "manifest.json":
                with open(p, "rb") as fh:
                    found[rel] = fh.read()
    return found


def main():
    os.makedirs(WORK, exist_ok=True)
    plan = os.path.join(WORK, f"plan-{SIZE}.png")
    plan_image(plan, SIZE, 1)
    # the same pixels, other bytes: libvips' PNG saver at another compression
    resaved = os.path.join(WORK, f"plan-{SIZE}-resaved.png")
    if not os.path.exists(resaved):
        run(["vips", "copy", plan, resaved + "[compression=9]"])
    # a rectangle of 10 % of the side (1 % of the area) over rooms near the middle
    edited = os.path.join(WORK, f"plan-{SIZE}-edited.png")
    if not os.path.exists(edited):
        side = SIZE // 10
        tmp = edited + ".v"
        run(["vips", "copy", plan, tmp])
        run(["vips", "draw_rect", tmp, "40 90 160 255", str(SIZE * 2 // 5), str(SIZE * 2 // 5), str(side), str(side), "--fill"])
        run(["vips", "copy", tmp, edited])
        os.remove(tmp)
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    project = os.path.join(OUT, "tilecut.yml")
    source = os.path.join(OUT, "plan.png")
    with open(project, "w") as f:
        f.write("output: tiles\ntileSizes: [256, 512]\nbuildings:\n  - id: hq\n    floors:\n")
        f.write("      - floor: 1\n        source: plan.png\n        center: [51.5006, -0.1396]\n        metersPerPixel: 0.05\n")
    tiles = os.path.join(OUT, "tiles")
    kept = os.path.join(OUT, "kept")

    def use(image):
        shutil.copyfile(image, source)

    def restore():
        """The full build's output, as the rebuild finds it (a copy, not links to the kept one)."""
        shutil.rmtree(tiles, ignore_errors=True)
        shutil.copytree(kept, tiles)

    binaries = ([("baseline", BASELINE)] if BASELINE else []) + [("tilecut" if not BASELINE else "this build", TILECUT)]
    use(plan)
    run([TILECUT, "build", project, "-q"])
    shutil.copytree(tiles, kept)
    names = ["full build", "unchanged", "re-saved, same pixels", "1 % area edited"]
    times = {label: {name: [] for name in names} for label, _ in binaries}
    identical = {}
    for _ in range(RUNS):
        # each run by every binary in turn, so that they share the machine's load
        for label, binary in binaries:
            use(plan)
            shutil.rmtree(tiles)
            times[label]["full build"].append(timed([binary, "build", project, "-q"]))
        for label, binary in binaries:
            restore()
            times[label]["unchanged"].append(timed([binary, "build", project, "-q"]))
        for label, binary in binaries:
            restore()
            use(resaved)
            times[label]["re-saved, same pixels"].append(timed([binary, "build", project, "-q"]))
        for label, binary in binaries:
            restore()
            use(edited)
            times[label]["1 % area edited"].append(timed([binary, "build", project, "-q"]))
            identical[label] = tree(tiles)
    shutil.rmtree(tiles)
    run([TILECUT, "build", project, "-q"])
    fresh = tree(tiles)
    print(f"incremental rebuilds of a {SIZE}² plan (one floor, 256 + 512 px tiles), medians of {RUNS} alternating runs")
    print("(wall time, then CPU time: user + system of tilecut):")
    for label, binary in binaries:
        if BASELINE:
            print(f"{label}: {binary}")
        full = statistics.median(w for w, _ in times[label]["full build"])
        full_cpu = statistics.median(c for _, c in times[label]["full build"])
        for name, values in times[label].items():
            wall = statistics.median(w for w, _ in values)
            cpu = statistics.median(c for _, c in values)
            print(f"  {name:24} {wall:7.2f} s  {wall / full:6.3f}× the full build   CPU {cpu:6.2f} s  {cpu / full_cpu:6.3f}×")
        print(f"  1 % edit byte-identical to a full build of the edited plan: {'yes' if identical[label] == fresh else 'NO'}")
    shutil.rmtree(OUT, ignore_errors=True)
    if any(got != fresh for got in identical.values()):
        sys.exit("the incremental output differs from a full build")


if __name__ == "__main__":
    main()
