#!/usr/bin/env python3
"""tilecut vs vips dzsave vs gdal2tiles, alternating runs in one invocation.

Prints medians, ratios, peak RSS, output bytes and tile counts; see README.md."""
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")
TILECUT = os.environ.get("TILECUT", os.path.join(HERE, "..", ".build", "release", "tilecut"))
SIZE = int(os.environ.get("BENCH_SIZE", "16384"))
GEO_SIZE = int(os.environ.get("BENCH_GEO_SIZE", "8192"))
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
SKIP_GDAL = os.environ.get("BENCH_SKIP_GDAL") == "1"
# Outputs go to a RAM disk when there is one (BENCH_OUT overrides): on ext4, creating
# thousands of files right after deleting thousands (the previous run's output)
# costs seconds of kernel time in inode allocation, at random, to every contender.
OUT = os.environ.get("BENCH_OUT") or (f"/dev/shm/tilecut-bench-{os.getpid()}" if os.path.isdir("/dev/shm") else WORK)
# BENCH_SCALE=50000: also tile a 50000² plan (generated lazily by libvips) once,
# 256 only and 256+512, and print time and peak RSS
SCALE = int(os.environ.get("BENCH_SCALE", "0"))
# the photo-like source of the retina comparison (256 / 256+512 full / native)
PHOTO_SIZE = int(os.environ.get("BENCH_PHOTO_SIZE", "8192"))
# a campus in central London, about 1.5 km across: an 8192 px image is then at its
# native resolution near zoom 19, the deepest zoom gdal2tiles 3.6 handles here
BOUNDS = (51.5000, -0.1400, 51.5130, -0.1190)


def plan_image(path, n, seed):
    """A floor-plan-like RGBA PNG: an irregular building (transparent outside),
    light rooms, thick walls, doors, desks and text-like marks."""
    if os.path.exists(path):
        return
    rng = np.random.default_rng(seed)
    img = np.zeros((n, n, 4), np.uint8)
    m = n // 16
    # building: an L plus a wing, transparent elsewhere
    for (y0, x0, y1, x1) in [(m, m, 9 * m, 15 * m), (9 * m, m, 15 * m, 8 * m), (2 * m, 15 * m - 2, 6 * m, 15 * m)]:
        img[y0:y1, x0:x1] = (250, 250, 248, 255)
    inside = img[:, :, 3] > 0
    step = max(n // 24, 64)
    wall = max(n // 1200, 4)
    for k in range(m, n - m, step):
        jitter = int(rng.integers(-step // 5, step // 5))
        c = min(max(k + jitter, 0), n - wall)
        img[:, c:c + wall, :3] = 40
        img[c:c + wall, :, :3] = 40
        # door openings
        for d in range(m, n - m, step):
            if rng.random() < 0.5:
                img[d + step // 3:d + step // 3 + step // 6, c:c + wall, :3] = 250
                img[c:c + wall, d + step // 3:d + step // 3 + step // 6, :3] = 250
    # desks and text-like marks inside rooms
    for _ in range(n * n // 60000):
        y, x = int(rng.integers(0, n - 80)), int(rng.integers(0, n - 120))
        if rng.random() < 0.5:
            img[y:y + 40, x:x + 90, :3] = (225, 218, 200)
            img[y:y + 40, x:x + 3, :3] = 120
            img[y:y + 3, x:x + 90, :3] = 120
        else:
            for t in range(int(rng.integers(3, 9))):
                img[y:y + 9, x + t * 12:x + t * 12 + 8, :3] = 70
    img[~inside] = 0
    raw = path + ".raw"
    img.tofile(raw)
    del img
    subprocess.run(["vips", "rawload", raw, path + ".v", str(n), str(n), "4"], check=True)
    os.remove(raw)
    subprocess.run(["vips", "copy", path + ".v", path, "--interpretation", "srgb"], check=True)
    os.remove(path + ".v")


def scale_image(path, n):
    """A huge plan-like RGBA PNG made by a lazy libvips pipeline (never whole in
    memory): a transparent margin, rooms in three pale tints, walls every 700/500 px."""
    if os.path.exists(path):
        return
    import pyvips
    xy = pyvips.Image.xyz(n, n)
    x, y = xy[0], xy[1]
    walls = ((x % 700) < 6) | ((y % 500) < 6)
    tint = ((x / 700).floor() + (y / 500).floor()) % 3
    r = walls.ifthenelse(40, tint.ifthenelse(235, 250))
    g = walls.ifthenelse(40, (tint == 1).ifthenelse(228, 248))
    b = walls.ifthenelse(40, (tint == 2).ifthenelse(215, 245))
    margin = n // 20
    inside = (x >= margin) & (x < n - margin) & (y >= margin) & (y < n - margin)
    a = inside.ifthenelse(255, 0)
    img = r.bandjoin([g, b, a]).cast("uchar").copy(interpretation="srgb")
    img.pngsave(path, compression=1)


def photo_image(path, n, seed):
    """A photo-like RGB JPEG: smooth colour fields (noise enlarged 16×, bicubic)
    under a fine grain, so that no tile is a palette tile (what a photograph does
    to the retina pyramid: its upsampled 512 px tiles are RGB PNGs)."""
    if os.path.exists(path):
        return
    tmp = path + ".d"
    os.makedirs(tmp, exist_ok=True)
    bands = []
    for b in range(3):
        c = lambda name: os.path.join(tmp, f"{name}{b}.v")
        subprocess.run(["vips", "gaussnoise", c("s"), str(n // 16), str(n // 16), "--mean", "128", "--sigma", "60", "--seed", str(seed * 3 + b)], check=True)
        subprocess.run(["vips", "resize", c("s"), c("l"), "16", "--kernel", "cubic"], check=True)
        subprocess.run(["vips", "gaussnoise", c("g"), str(n), str(n), "--mean", "0", "--sigma", "8", "--seed", str(seed * 3 + b + 100)], check=True)
        subprocess.run(["vips", "add", c("l"), c("g"), c("b")], check=True)
        bands.append(c("b"))
    joined = os.path.join(tmp, "rgb.v")
    subprocess.run(["vips", "bandjoin", " ".join(bands), joined], check=True)
    subprocess.run(["vips", "cast", joined, os.path.join(tmp, "u.v"), "uchar"], check=True)
    subprocess.run(["vips", "copy", os.path.join(tmp, "u.v"), path + "[Q=90]", "--interpretation", "srgb"], check=True)
    shutil.rmtree(tmp)


def merc(lon, lat):
    return lon * 20037508.342789244 / 180, math.log(math.tan((90 + lat) * math.pi / 360)) * 6378137


def timed(cmd):
    """Runs a command; returns (wall seconds, peak RSS in MB)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    wall, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) / 1024


def tiles(root, exts=(".png", ".webp", ".jpg")):
    """(z, x, y) → bytes for every tile file below root, by layout."""
    found = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith(exts) or f == "blank.png":
                continue
            p = os.path.join(dirpath, f)
            rel = os.path.relpath(p, root)
            stem = os.path.splitext(rel)[0]
            parts = stem.split(os.sep)
            if parts[-1].startswith("L"):  # tilecut: 256/L1_z_x_y
                _, z, x, y = parts[-1].split("_")
                key = (int(z), int(x), int(y), parts[0])
            elif len(parts) == 3 and root.endswith("dz"):  # dzsave google: z/y/x
                key = (int(parts[0]), int(parts[2]), int(parts[1]), "256")
            else:  # gdal2tiles --xyz: z/x/y
                key = (int(parts[0]), int(parts[1]), int(parts[2]), "256")
            found[key] = os.path.getsize(p)
    return found


def floor_contenders(big):
    """The decode-only floor: libvips reading the same PNG top to bottom and
    averaging it (nothing written), what tilecut is measured against."""
    return {"vips avg (decode)": ["vips", "avg", big]}


def vips818_contender(big, out):
    """dzsave of libvips 8.18 (pyvips-binary, bench/work/vips818), sequential access,
    when bench/run.sh could install it and it really loads 8.18."""
    py = os.path.join(WORK, "vips818", "bin", "python")
    if not os.access(py, os.X_OK):
        return {}
    probe = subprocess.run([py, "-c", "import pyvips; print(pyvips.version(0), pyvips.version(1))"], capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout.split()[:2] != ["8", "18"]:
        return {}
    script = ("import sys, pyvips; pyvips.Image.new_from_file(sys.argv[2], access='sequential').dzsave("
              "sys.argv[1], layout='google', suffix='.png[compression=6]', tile_size=256, overlap=0, background=0)")
    return {"dzsave 8.18 256": [py, "-c", script, out("dz818"), big]}


def pmtiles_contender(geotiff3857, zooms, out):
    """rio-pmtiles on the geo job, when bench/run.sh could install it (a venv in
    bench/work): 256 px RGBA PNG tiles over the same zooms, two workers."""
    rio = os.path.join(WORK, "venv", "bin", "rio")
    if SKIP_GDAL or not os.access(rio, os.X_OK):
        return {}
    return {"rio-pmtiles geo": [rio, "pmtiles", geotiff3857, out("rio") + ".pmtiles", "--format", "PNG", "--rgba",
                                "--tile-size", "256", "--zoom-levels", f"{zooms[0]}..{zooms[-1]}", "-j", "2", "--silent"]}


def floor_report(med, rss, sets):
    """The ratios issue 17 sets targets for: to dzsave, to the decode floor, 256+512
    to 256, and peak memory to dzsave's."""
    ratio = lambda a, b: med[a] / med[b]
    floor = "vips avg (decode)"
    print(f"tilecut 256 / dzsave time             {ratio('tilecut 256', 'dzsave 256'):.2f}  (target ≤ 0.15)")
    print(f"tilecut 256 / decode floor (vips avg) {ratio('tilecut 256', floor):.2f}  (target ≤ 0.6)")
    print(f"tilecut 256 / dzsave peak RSS         {rss['tilecut 256'] / rss['dzsave 256']:.2f}  (target ≤ 1.2)")
    print(f"tilecut 256+512 / 256 time            {ratio('tilecut 256+512', 'tilecut 256'):.2f}  (--retina-depth full)")
    print(f"tilecut 256+512 native / 256 time     {ratio('tilecut 256+512 native', 'tilecut 256'):.2f}  (target ≤ 1.5)")
    b = lambda k: sum(sets[k].values())
    print(f"256+512 bytes full / native / 256     {b('tilecut 256+512') / 1e6:.1f} / {b('tilecut 256+512 native') / 1e6:.1f} / {b('tilecut 256') / 1e6:.1f} MB")
    if "tilecut photo 256" in med:
        print(f"photo 256+512 / 256 time, full        {ratio('tilecut photo 256+512', 'tilecut photo 256'):.2f}")
        print(f"photo 256+512 / 256 time, native      {ratio('tilecut photo 256+512 native', 'tilecut photo 256'):.2f}")
        print(f"photo bytes full / native / 256       {b('tilecut photo 256+512') / 1e6:.1f} / {b('tilecut photo 256+512 native') / 1e6:.1f} / "
              f"{b('tilecut photo 256') / 1e6:.1f} MB")
    print(f"tilecut / dzsave bytes                {sum(sets['tilecut 256'].values()) / sum(sets['dzsave 256'].values()):.2f}")
    print(f"palette / plain bytes                 {sum(sets['tilecut 256 palette'].values()) / sum(sets['tilecut 256'].values()):.2f}")
    if "dzsave 8.18 256" in med:
        print(f"tilecut 256 / dzsave 8.18 time        {ratio('tilecut 256', 'dzsave 8.18 256'):.2f}")
        print(f"tilecut 256 / dzsave 8.18 peak RSS    {rss['tilecut 256'] / rss['dzsave 8.18 256']:.2f}")
    if "rio-pmtiles geo" in med:
        print(f"tilecut geo / rio-pmtiles geo time    {ratio('tilecut geo', 'rio-pmtiles geo'):.3f}")


def main():
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    if not os.access(TILECUT, os.X_OK):
        raise SystemExit(f"no tilecut binary at {TILECUT}; run make bench")
    big = os.path.join(WORK, f"plan{SIZE}.png")
    geo = os.path.join(WORK, f"geo{GEO_SIZE}.png")
    photo = os.path.join(WORK, f"photo{PHOTO_SIZE}.jpg")
    t0 = time.time()
    plan_image(big, SIZE, 1)
    if PHOTO_SIZE:
        photo_image(photo, PHOTO_SIZE, 3)
    plan_image(geo, GEO_SIZE, 2)
    if SCALE:
        huge = os.path.join(WORK, f"plan{SCALE}.png")
        t = time.time()
        scale_image(huge, SCALE)
        print(f"{huge}: {os.path.getsize(huge) / 1e6:.0f} MB, made in {time.time() - t:.0f}s")
        for sizes in ("256", "256,512"):
            dest = os.path.join(OUT, "out-scale")
            if os.path.isfile(dest):
                os.remove(dest)
            elif os.path.exists(dest):
                shutil.rmtree(dest)
            wall, peak = timed([TILECUT, huge, "-o", dest, "--tile-size", sizes, "-q"])
            print(f"tilecut {SCALE}² --tile-size {sizes}: {wall:.1f} s, peak RSS {peak:.0f} MB, {len(tiles(dest))} tiles")
            shutil.rmtree(dest)
    s, w, n, e = BOUNDS

    def geotiff(srs, ul, lr):
        """The geo plan as a GeoTIFF in `srs` with corners ul, lr (made again when
        this script changes)."""
        path = geo.replace(".png", f"-{srs.split(':')[1]}.tif")
        if not SKIP_GDAL and (not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(__file__)):
            subprocess.run(["gdal_translate", "-q", "-of", "GTiff", "-a_srs", srs, "-a_ullr", *map(str, ul + lr), geo, path], check=True)
        return path
    geotiff3857 = geotiff("EPSG:3857", merc(w, n), merc(e, s))
    # the same image as a plain lon/lat raster, which gdal2tiles warps
    geotiff4326 = geotiff("EPSG:4326", (w, n), (e, s))
    print(f"inputs ready in {time.time() - t0:.0f}s: {big} ({os.path.getsize(big) / 1e6:.1f} MB), {geo}")

    # the georeferenced zoom range tilecut chooses, given to gdal2tiles too
    plan = subprocess.run([TILECUT, geo, "--bounds", f"{s},{w},{n},{e}", "--tile-size", "256", "--dry-run", "--json", "-q", "-o", os.path.join(WORK, "unused")],
                          check=True, capture_output=True, text=True).stdout
    import json
    zooms = sorted({lv["zoom"] for lv in json.loads(plan)["levels"]})
    # gdal2tiles 3.6 fails ("Illegal values for buffer size") at zooms 20 and 21
    # on finer sources, so both stop at 19 at most
    zooms = [z for z in zooms if z <= 19]
    zr = f"{zooms[0]}-{zooms[-1]}"

    out = lambda name: os.path.join(OUT, "out-" + name)
    contenders = {
        "tilecut 256": [TILECUT, big, "-o", out("tc256"), "--tile-size", "256", "--png-compression", "6", "-q", "--force"],
        "dzsave 256": ["vips", "dzsave", big, out("dz"), "--layout", "google", "--suffix", ".png[compression=6]", "--tile-size", "256", "--overlap", "0", "--background", "0"],
        **floor_contenders(big),
        "tilecut 256+512": [TILECUT, big, "-o", out("tc256512"), "--tile-size", "256,512", "-q", "--force"],
        "tilecut 256+512 native": [TILECUT, big, "-o", out("tc256512n"), "--tile-size", "256,512", "--retina-depth", "native", "-q", "--force"],
        "tilecut 256 palette": [TILECUT, big, "-o", out("tcpal"), "--tile-size", "256", "--palette", "-q", "--force"],
        "tilecut geo": [TILECUT, geo, "--bounds", f"{s},{w},{n},{e}", "--tile-size", "256", "--min-zoom", str(zooms[0]), "--max-zoom", str(zooms[-1]), "-o", out("tcgeo"), "-q", "--force"],
    }
    if PHOTO_SIZE:
        for name, extra in [("256", ["--tile-size", "256"]), ("256+512", ["--tile-size", "256,512"]),
                            ("256+512 native", ["--tile-size", "256,512", "--retina-depth", "native"])]:
            contenders[f"tilecut photo {name}"] = [TILECUT, photo, "-o", out("photo" + name.replace(" ", "").replace("+", "")), *extra, "-q", "--force"]
    if not SKIP_GDAL:
        g2t = shutil.which("gdal2tiles.py") or shutil.which("gdal2tiles")
        contenders["gdal2tiles geo"] = [g2t, "--xyz", "-z", zr, "-w", "none", "--processes=2", "-q", geotiff3857, out("g2t")]
        contenders["tilecut geo lon/lat"] = [TILECUT, geo, "--bounds", f"{s},{w},{n},{e}", "--source-projection", "lonlat", "--tile-size", "256",
                                             "--min-zoom", str(zooms[0]), "--max-zoom", str(zooms[-1]), "-o", out("tcgeoll"), "-q", "--force"]
        contenders["gdal2tiles geo lon/lat"] = [g2t, "--xyz", "-z", zr, "-w", "none", "--processes=2", "-q", geotiff4326, out("g2tll")]
    contenders.update(pmtiles_contender(geotiff3857, zooms, out))
    contenders.update(vips818_contender(big, out))
    # where each contender writes: tilecut's -o, dzsave's second argument, gdal2tiles' last
    outputs = {name: cmd[cmd.index("-o") + 1] if "-o" in cmd else (cmd[3] if name.startswith("dzsave") else cmd[-1])
               for name, cmd in contenders.items()}
    outputs.update({k: os.path.join(OUT, "none") for k in floor_contenders(big)})
    outputs.update({k: v[3] for k, v in pmtiles_contender(geotiff3857, zooms, out).items()})
    results = {k: [] for k in contenders}
    for r in range(RUNS):
        for name, cmd in contenders.items():
            dest = outputs[name]
            if os.path.isfile(dest):
                os.remove(dest)
            elif os.path.exists(dest):
                shutil.rmtree(dest)
            if name.startswith("dzsave") and os.path.exists(dest + ".dzi"):
                os.remove(dest + ".dzi")
            results[name].append(timed(cmd))
            print(f"  run {r + 1}/{RUNS} {name}: {results[name][-1][0]:.2f} s", flush=True)

    sets = {k: tiles(v) for k, v in outputs.items()}
    med = {k: statistics.median(t for t, _ in v) for k, v in results.items()}
    rss = {k: max(m for _, m in v) for k, v in results.items()}
    print()
    print(f"machine: {os.cpu_count()} cores, libvips {subprocess.run(['vips', '--version'], capture_output=True, text=True).stdout.strip()}, "
          f"tilecut {subprocess.run(['git', 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True, cwd=HERE).stdout.strip()}, runs {RUNS}, outputs in {OUT}, "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'contender':30} {'median s':>9} {'min s':>7} {'peak MB':>8} {'bytes':>12} {'tiles':>7}")
    for k in contenders:
        size = os.path.getsize(outputs[k]) if os.path.isfile(outputs[k]) else sum(sets[k].values())
        count = len(sets[k]) if os.path.isdir(outputs[k]) else "-"
        print(f"{k:30} {med[k]:9.2f} {min(t for t, _ in results[k]):7.2f} {rss[k]:8.0f} {size:12d} {count:>7}")
    print()
    ratio = lambda a, b: med[a] / med[b]
    floor_report(med, rss, sets)

    def same_cells(ours, theirs, label):
        a = {k[:3] for k in sets[ours]}
        b = {k[:3] for k in sets[theirs]}
        other = theirs.split()[0]
        print(f"tile sets {label}: {'MATCH' if a == b else f'{len(a - b)} only in tilecut, {len(b - a)} only in {other}'} ({len(a)} tiles)")

    same_cells("tilecut 256", "dzsave 256", "tilecut vs dzsave")
    if not SKIP_GDAL:
        print(f"tilecut geo / gdal2tiles     {ratio('tilecut geo', 'gdal2tiles geo'):.3f}  (target ≤ 0.1), zooms {zr}")
        same_cells("tilecut geo", "gdal2tiles geo", "tilecut vs gdal2tiles")
        print(f"tilecut / gdal2tiles, lon/lat source (EPSG:4326)  {ratio('tilecut geo lon/lat', 'gdal2tiles geo lon/lat'):.3f}")
        same_cells("tilecut geo lon/lat", "gdal2tiles geo lon/lat", "tilecut vs gdal2tiles, lon/lat")
    if OUT.startswith("/dev/shm/"):
        shutil.rmtree(OUT, ignore_errors=True)


def reprojection():
    """A GEO_SIZE² GeoTIFF in UTM zone 30N (London is 3° east of its meridian, so the
    grid bends against Web Mercator) tiled by tilecut straight from its tags, against
    the same file placed by --bounds on its footprint (the option overrides the tags),
    and gdal2tiles --processes 2 on the GeoTIFF; same zooms for all three. Deflated,
    as GeoTIFFs from GIS tools usually are (tilecut digests its inputs: an
    uncompressed 268 MB file costs 0.8 s of SHA-256 alone). BENCH_SKIP_UTM=1 leaves it out."""
    os.makedirs(OUT, exist_ok=True)  # main() removes a RAM-disk OUT when it ends
    import json
    geo = os.path.join(WORK, f"geo{GEO_SIZE}.png")
    plan_image(geo, GEO_SIZE, 2)
    utm = geo.replace(".png", "-32630.tif")
    s, w, n, e = BOUNDS
    if not os.path.exists(utm) or os.path.getmtime(utm) < os.path.getmtime(__file__):
        # the north-west corner in UTM, square pixels spanning the box's width
        pts = subprocess.run(["gdaltransform", "-s_srs", "EPSG:4326", "-t_srs", "EPSG:32630", "-output_xy"],
                             input=f"{w} {n}\n{e} {n}\n", capture_output=True, text=True, check=True).stdout.split()
        x0, y0, x1 = float(pts[0]), float(pts[1]), float(pts[2])
        side = x1 - x0
        subprocess.run(["gdal_translate", "-q", "-of", "GTiff", "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2", "-a_srs", "EPSG:32630",
                        "-a_ullr", str(x0), str(y0), str(x0 + side), str(y0 - side), geo, utm], check=True)
    dry = json.loads(subprocess.run([TILECUT, utm, "--tile-size", "256", "--dry-run", "--json", "-q", "-o", os.path.join(WORK, "unused")],
                                    check=True, capture_output=True, text=True).stdout)
    fp = dry["placements"][0]
    zooms = sorted({lv["zoom"] for lv in dry["levels"] if lv["zoom"] <= 19})
    # UTM's grid turns 2.3° from north here: the same turn by --center separates the cost
    # of reprojecting from the cost of encoding turned (anti-aliased, many-coloured) tiles
    info = json.loads(subprocess.run(["gdalinfo", "-json", utm], check=True, capture_output=True, text=True).stdout)
    corners = info["wgs84Extent"]["coordinates"][0]  # lon, lat: upper left, lower left, lower right, upper right, upper left
    (ulx, uly), (urx, ury) = merc(*corners[0]), merc(*corners[3])
    turn = -math.degrees(math.atan2(ury - uly, urx - ulx))
    centre = info["cornerCoordinates"]["center"]
    clon, clat = map(float, subprocess.run(["gdaltransform", "-s_srs", "EPSG:32630", "-t_srs", "EPSG:4326", "-output_xy"],
                                           input=f"{centre[0]} {centre[1]}\n", capture_output=True, text=True, check=True).stdout.split()[:2])
    zr = ["--min-zoom", str(zooms[0]), "--max-zoom", str(zooms[-1])]
    out = lambda name: os.path.join(OUT, "out-" + name)
    contenders = {
        "tilecut UTM GeoTIFF": [TILECUT, utm, "--tile-size", "256", *zr, "-o", out("tcutm"), "-q", "--force"],
        "tilecut same by bounds": [TILECUT, utm, "--bounds", f"{fp['south']},{fp['west']},{fp['north']},{fp['east']}", "--tile-size", "256",
                                   *zr, "-o", out("tcutmb"), "-q", "--force"],
        "tilecut same turned": [TILECUT, utm, "--center", f"{clat},{clon}", "--meters-per-pixel", str(fp["metersPerPixel"]),
                                "--rotation", f"{turn:.6f}", "--tile-size", "256", *zr, "-o", out("tcutmc"), "-q", "--force"],
    }
    if not SKIP_GDAL:
        g2t = shutil.which("gdal2tiles.py") or shutil.which("gdal2tiles")
        contenders["gdal2tiles UTM GeoTIFF"] = [g2t, "--xyz", "-z", f"{zooms[0]}-{zooms[-1]}", "-w", "none", "--processes=2", "-q",
                                                utm, out("g2tutm")]
    results = {k: [] for k in contenders}
    for r in range(RUNS):
        for name, cmd in contenders.items():
            dest = cmd[cmd.index("-o") + 1] if "-o" in cmd else cmd[-1]
            if os.path.exists(dest):
                shutil.rmtree(dest)
            results[name].append(timed(cmd))
            print(f"  run {r + 1}/{RUNS} {name}: {results[name][-1][0]:.2f} s", flush=True)
    med = {k: statistics.median(t for t, _ in v) for k, v in results.items()}
    print()
    print(f"reprojection ({utm}, {fp['crs']}, zooms {zooms[0]}-{zooms[-1]}):")
    for k in contenders:
        print(f"{k:24} {med[k]:9.2f} s median, peak RSS {max(m for _, m in results[k]):.0f} MB")
    print(f"UTM GeoTIFF / same by --bounds   {med['tilecut UTM GeoTIFF'] / med['tilecut same by bounds']:.2f}  (target ≤ 1.3)")
    print(f"UTM GeoTIFF / same turned {turn:.2f}° by --center   {med['tilecut UTM GeoTIFF'] / med['tilecut same turned']:.2f}")
    if not SKIP_GDAL:
        print(f"gdal2tiles / tilecut, UTM        {med['gdal2tiles UTM GeoTIFF'] / med['tilecut UTM GeoTIFF']:.1f}×  (target ≥ 10)")
    if OUT.startswith("/dev/shm/"):
        shutil.rmtree(OUT, ignore_errors=True)


def documents():
    """PDF floors at zoom 23 (the bundled three-page example, and a generated CAD-like
    PDF: three A1 pages of 300 000 stroked segments each, hatching and text, made by
    heavy_pdf.py) rendered in bands: time and peak RSS. BENCH_SKIP_PDF=1 leaves it out."""
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(WORK, exist_ok=True)
    heavy = os.path.join(WORK, "heavy-a1x3.pdf")
    generator = os.path.join(HERE, "heavy_pdf.py")
    if not os.path.exists(heavy) or os.path.getmtime(heavy) < os.path.getmtime(generator):
        subprocess.run([sys.executable, generator, heavy, "--pages", "3", "--size", "A1", "--segments", "300000"], check=True)
    # building.pdf: 800 × 600 pt pages at 0.1 m a point; the A1 sheets at 1:100 (0.03528 m a point)
    jobs = {
        "building.pdf 3 floors z23": [os.path.join(HERE, "..", "examples", "floorplan", "building.pdf"), "0.1"],
        "heavy A1 PDF 3 floors z23": [heavy, "0.03528"],
    }
    results = {k: [] for k in jobs}
    for r in range(RUNS):
        for name, (pdf, mpp) in jobs.items():
            dest = os.path.join(OUT, "out-pdf")
            shutil.rmtree(dest, ignore_errors=True)
            results[name].append(timed([TILECUT, pdf, "--floors", "3", "--max-zoom", "23", "--center", "51.5,-0.14",
                                        "--meters-per-pixel", mpp, "-o", dest, "-q"]))
            print(f"  run {r + 1}/{RUNS} {name}: {results[name][-1][0]:.2f} s", flush=True)
    print()
    for k in jobs:
        target = "  (target ≤ 500 MB)" if k.startswith("building") else ""
        print(f"{k:28} {statistics.median(t for t, _ in results[k]):9.2f} s median, peak RSS {max(m for _, m in results[k]):.0f} MB{target}")
    if OUT.startswith("/dev/shm/"):
        shutil.rmtree(OUT, ignore_errors=True)


def alternate(jobs):
    """Runs each job RUNS times, alternating, into a fresh output; prints and returns
    the median time and peak RSS of each."""
    results = {k: [] for k in jobs}
    for r in range(RUNS):
        for name, cmd in jobs.items():
            dest = os.path.join(OUT, "out-scan")
            shutil.rmtree(dest, ignore_errors=True)
            results[name].append(timed(cmd + ["-o", dest]))
            print(f"  run {r + 1}/{RUNS} {name}: {results[name][-1][0]:.2f} s", flush=True)
    print()
    med = {k: statistics.median(t for t, _ in v) for k, v in results.items()}
    rss = {k: statistics.median(m for _, m in v) for k, v in results.items()}
    for k in jobs:
        print(f"{k:28} {med[k]:9.2f} s median, peak RSS {rss[k]:.0f} MB median")
    return med, rss


def scanned_pdf():
    """A scanned plan set: three 8192² JPEGs (plans flattened on white paper, Q85) as the
    pages of an A1 PDF made by img2pdf (each image fitted into the page, centred),
    against the same JPEG files placed where the pages put them (same centre, the
    image's width in points times 0.03528 m a point over 8192 px), at z23: time and
    peak RSS. BENCH_SKIP_PDF=1 leaves it out."""
    os.makedirs(OUT, exist_ok=True)
    jpegs = []
    for seed in range(3):
        png = os.path.join(WORK, f"scan{seed}.png")
        jpg = os.path.join(WORK, f"scan{seed}.jpg")
        plan_image(png, 8192, 40 + seed)
        if not os.path.exists(jpg):
            subprocess.run(["vips", "flatten", png, jpg + "[Q=85,strip]", "--background", "255 255 255"], check=True)
        jpegs.append(jpg)
    pdf = os.path.join(WORK, "scan-a1x3.pdf")
    if not os.path.exists(pdf):
        subprocess.run(["img2pdf", "--pagesize", "A1", "-o", pdf, *jpegs], check=True)
    # img2pdf's A1 is 594 × 841 mm; a square image fitted into it is the page's width
    image_pt = 594 / 25.4 * 72
    place = ["--center", "51.5,-0.14", "--max-zoom", "23", "--tile-size", "256", "-q"]
    jobs = {
        "scanned A1 PDF 3 floors z23": [TILECUT, pdf, "--floors", "3", "--meters-per-pixel", "0.03528", *place],
        "same JPEGs 3 floors z23": [TILECUT, *jpegs, "--meters-per-pixel", f"{0.03528 * image_pt / 8192:.8f}", *place],
    }
    med, rss = alternate(jobs)
    a, b = "scanned A1 PDF 3 floors z23", "same JPEGs 3 floors z23"
    print(f"scanned PDF / JPEGs: time {med[a] / med[b]:.2f} (target ≤ 1.3), peak RSS {rss[a] / rss[b]:.2f} (target ≤ 1.5, and ≤ 500 MB)")
    mixed_pdf_page(jpegs[0], image_pt, place)
    if OUT.startswith("/dev/shm/"):
        shutil.rmtree(OUT, ignore_errors=True)


def mixed_pdf_page(jpg, image_pt, place):
    """One of the scans with a drawing over it (200 red lines of markup after the
    image in the page's content), against the same JPEG alone, at z23: a mixed
    page's images are read directly and poppler renders only the lines."""
    pdf = os.path.join(WORK, "scan-a1-marked.pdf")
    if not os.path.exists(pdf):
        data = open(jpg, "rb").read()
        w_pt, h_pt = 594 / 25.4 * 72, 841 / 25.4 * 72
        y0 = (h_pt - image_pt) / 2
        rnd = random.Random(7)
        lines = "".join(f"{rnd.uniform(0, w_pt):.2f} {rnd.uniform(y0, y0 + image_pt):.2f} m "
                        f"{rnd.uniform(0, w_pt):.2f} {rnd.uniform(y0, y0 + image_pt):.2f} l S\n" for _ in range(200))
        content = f"q {image_pt:.4f} 0 0 {image_pt:.4f} 0 {y0:.4f} cm /Im0 Do Q\n1 0 0 RG 2 w\n{lines}".encode()
        objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                   f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {w_pt:.4f} {h_pt:.4f}] "
                   "/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".encode(),
                   b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
                   b"<< /Type /XObject /Subtype /Image /Width 8192 /Height 8192 /ColorSpace /DeviceRGB "
                   b"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"]
        out = bytearray(b"%PDF-1.4\n")
        offsets = []
        for i, body in enumerate(objects):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % (i + 1) + body + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
        out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
        out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
        open(pdf, "wb").write(bytes(out))
    jobs = {
        "marked scan page z23": [TILECUT, pdf, "--meters-per-pixel", "0.03528", *place],
        "same JPEG 1 floor z23": [TILECUT, jpg, "--meters-per-pixel", f"{0.03528 * image_pt / 8192:.8f}", *place],
    }
    med, rss = alternate(jobs)
    a, b = "marked scan page z23", "same JPEG 1 floor z23"
    print(f"marked scan / JPEG: time {med[a] / med[b]:.2f}, peak RSS {rss[a] / rss[b]:.2f} (a mixed page: images read directly)")


if __name__ == "__main__":
    main()
    if os.environ.get("BENCH_SKIP_UTM") != "1":
        reprojection()
    if os.environ.get("BENCH_SKIP_PDF") != "1":
        documents()
        scanned_pdf()
