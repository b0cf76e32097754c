#!/usr/bin/env python3
"""The PMTiles store (issue 28): tilecut --store pmtiles against tilecut's directory
store on the same job, and against rio-pmtiles (PyPI) on the same GeoTIFF, zooms,
tile size and format: an 8100 × 4050 scan in EPSG:3857, z10–17, 256 px PNG.

Usage: /usr/bin/python3 bench/pmtiles_store.py [TILECUT]. Environment: BENCH_RUNS (3),
BENCH_OUT (a directory for the outputs; /dev/shm by default), RIO (the rio binary;
bench/work/venv/bin/rio, which bench/run.sh installs, else rio on the PATH)."""
import os
import shutil
import statistics
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
TILECUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", ".build", "release", "tilecut")
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
OUT = os.environ.get("BENCH_OUT") or (f"/dev/shm/tilecut-pmtiles-bench-{os.getpid()}" if os.path.isdir("/dev/shm") else WORK)
WIDTH, HEIGHT = 8100, 4050
ZOOMS = (10, 17)
# z17's Web Mercator pixel (156543.03392804097 / 2^17 m): the scan is native at z17,
# its north-west corner in central London
PIXEL = 156543.03392804097 / 2**17
WEST, NORTH = -15800.0, 6712000.0


def scan(path):
    """A scanned plan: off-white paper with grain, dark walls and marks, opaque RGBA
    (a scanner's paper is no transparency), as a GeoTIFF in EPSG:3857."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(28)
    img = np.empty((HEIGHT, WIDTH, 4), np.uint8)
    img[:, :, :3] = (rng.integers(236, 246, (HEIGHT, WIDTH), dtype=np.uint8))[:, :, None]
    img[:, :, 3] = 255
    for k in range(150, WIDTH - 150, 340):
        c = k + int(rng.integers(-60, 60))
        img[120:HEIGHT - 120, c:c + 7, :3] = 45
    for k in range(150, HEIGHT - 150, 300):
        c = k + int(rng.integers(-50, 50))
        img[c:c + 7, 120:WIDTH - 120, :3] = 45
    for _ in range(WIDTH * HEIGHT // 40000):
        y, x = int(rng.integers(0, HEIGHT - 40)), int(rng.integers(0, WIDTH - 120))
        for t in range(int(rng.integers(3, 9))):
            img[y:y + 9, x + t * 12:x + t * 12 + 8, :3] = 70
    raw = path + ".raw"
    img.tofile(raw)
    # raw → GeoTIFF: a VRT describing the bytes
    vrt = path + ".vrt"
    bands = "".join(
        f'<VRTRasterBand dataType="Byte" band="{b + 1}" subClass="VRTRawRasterBand"><SourceFilename relativetoVRT="0">{raw}</SourceFilename>'
        f"<ImageOffset>{b}</ImageOffset><PixelOffset>4</PixelOffset><LineOffset>{WIDTH * 4}</LineOffset>"
        f"<ColorInterp>{['Red', 'Green', 'Blue', 'Alpha'][b]}</ColorInterp></VRTRasterBand>"
        for b in range(4))
    with open(vrt, "w") as f:
        f.write(f'<VRTDataset rasterXSize="{WIDTH}" rasterYSize="{HEIGHT}">{bands}</VRTDataset>')
    east, south = WEST + WIDTH * PIXEL, NORTH - HEIGHT * PIXEL
    subprocess.run(["gdal_translate", "-q", "-of", "GTiff", "-co", "COMPRESS=DEFLATE", "-co", "TILED=YES", "-a_srs", "EPSG:3857",
                    "-a_ullr", str(WEST), str(NORTH), str(east), str(south), vrt, path], check=True)
    os.remove(vrt)
    os.remove(raw)


def timed(cmd):
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) / 1024


def size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs if f != "manifest.json")


def tile_count(path):
    """Tiles in an output: files of a directory store, or the addressed-tiles count of
    every archive's header (bytes 72–79, little-endian)."""
    files = [path] if os.path.isfile(path) else [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f != "manifest.json"]
    archives = [f for f in files if f.endswith(".pmtiles")]
    if not archives:
        return len(files)
    total = 0
    for a in archives:
        with open(a, "rb") as f:
            total += int.from_bytes(f.read(127)[72:80], "little")
    return total


def main():
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    tif = os.path.join(WORK, f"scan{WIDTH}x{HEIGHT}-3857.tif")
    scan(tif)
    rio = os.environ.get("RIO") or (os.path.join(WORK, "venv", "bin", "rio") if os.access(os.path.join(WORK, "venv", "bin", "rio"), os.X_OK)
                                    else shutil.which("rio"))
    z0, z1 = ZOOMS
    job = [tif, "--tile-size", "256", "--min-zoom", str(z0), "--max-zoom", str(z1), "-q", "--force"]
    out = lambda name: os.path.join(OUT, name)
    contenders = {
        "tilecut directory": [TILECUT, *job, "-o", out("dir")],
        "tilecut pmtiles": [TILECUT, *job, "--store", "pmtiles", "-o", out("pm")],
    }
    outputs = {"tilecut directory": out("dir"), "tilecut pmtiles": out("pm")}
    if rio:
        contenders["rio-pmtiles"] = [rio, "pmtiles", tif, out("rio.pmtiles"), "--format", "PNG", "--rgba", "--tile-size", "256",
                                     "--zoom-levels", f"{z0}..{z1}", "-j", "2", "--silent"]
        outputs["rio-pmtiles"] = out("rio.pmtiles")
    else:
        print("rio-pmtiles is not installed (bench/run.sh puts it in bench/work/venv); it is left out")
    results = {k: [] for k in contenders}
    for r in range(RUNS):
        for name, cmd in contenders.items():
            dest = outputs[name]
            if os.path.isfile(dest):
                os.remove(dest)
            elif os.path.exists(dest):
                shutil.rmtree(dest)
            results[name].append(timed(cmd))
            print(f"  run {r + 1}/{RUNS} {name}: {results[name][-1][0]:.2f} s", flush=True)
    med = {k: statistics.median(t for t, _ in v) for k, v in results.items()}
    print()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; {tif}, z{z0}–{z1}, 256 px PNG, runs {RUNS}")
    print(f"{'contender':20} {'median s':>9} {'min s':>7} {'peak MB':>8} {'bytes':>12} {'tiles':>7}")
    for k in contenders:
        print(f"{k:20} {med[k]:9.2f} {min(t for t, _ in results[k]):7.2f} {max(m for _, m in results[k]):8.0f} {size(outputs[k]):12d} "
              f"{tile_count(outputs[k]):7d}")
    print()
    print(f"tilecut pmtiles / directory time   {med['tilecut pmtiles'] / med['tilecut directory']:.2f}  (target ≤ 1.1)")
    if rio:
        print(f"tilecut pmtiles / rio-pmtiles time  {med['tilecut pmtiles'] / med['rio-pmtiles']:.3f}  (target ≤ 0.2)")
        print(f"tilecut pmtiles / rio-pmtiles bytes {size(outputs['tilecut pmtiles']) / size(outputs['rio-pmtiles']):.2f}  (target ≤ 1.1)")
    if OUT.startswith("/dev/shm/"):
        shutil.rmtree(OUT, ignore_errors=True)


if __name__ == "__main__":
    main()
