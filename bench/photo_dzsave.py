#!/usr/bin/env python3
"""Photo tiles, tilecut against vips dzsave (issue 26 item 3), alternating runs.

WebP and JPEG tiles at the same quality setting (Q 75) of an 8192² photo-like JPEG
(bench.photo_image), 256 px, no overlap: `vips dzsave --layout google` and tilecut's
pixel pyramid, BENCH_RUNS (default 3) runs each in turn. Prints median wall time, CPU
time (user + system), peak RSS and tile bytes, their ratios to dzsave, and the quality of the native
level (the same pixels into both encoders) against the source: PSNR over RGB and
SSIM of luma (BT.601; 11-tap Gaussian window, σ 1.5, as Wang et al.), computed here
with numpy. Environment: TILECUT, BENCH_RUNS, BENCH_PHOTO_SIZE (8192), BENCH_OUT, and
BENCH_PHOTO: another source instead, an RGB JPEG of n × n pixels, n a multiple of 256
(say, crops of real photographs joined with vips arrayjoin).
"""
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (photo_image, tiles, timed)

RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SIZE = int(os.environ.get("BENCH_PHOTO_SIZE", "8192"))
QUALITY = 75


def level(root, zoom):
    """(x, y) → path of the tiles of one zoom (dzsave google z/y/x or tilecut L1_z_x_y)."""
    found = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            stem, ext = os.path.splitext(f)
            if ext not in (".webp", ".jpg"):
                continue
            p = os.path.join(dirpath, f)
            if stem.startswith("L") and stem.count("_") == 3:
                _, z, x, y = stem.split("_")
            else:
                parts = os.path.relpath(p, root).split(os.sep)
                if len(parts) != 3:
                    continue
                z, y, x = parts[0], parts[1], stem
            if int(z) == zoom:
                found[(int(x), int(y))] = p
    return found


def raw_mosaic(root, zoom, n, tmp, name):
    """The level as one raw RGB8 file of n × n pixels (a row of tiles at a time, vips arrayjoin)."""
    tiles = level(root, zoom)
    across = n // 256
    if len(tiles) != across * across:
        raise SystemExit(f"{root}: zoom {zoom} has {len(tiles)} tiles, not {across * across}")
    raw = os.path.join(tmp, f"{name}.raw")
    mosaic = np.memmap(raw, np.uint8, "w+", shape=(n, n, 3))
    row, rgb, row_raw = (os.path.join(tmp, f"{name}-row{e}") for e in (".v", "-rgb.v", ".raw"))
    for y in range(across):
        subprocess.run(["vips", "arrayjoin", " ".join(tiles[(x, y)] for x in range(across)), row, "--across", str(across)], check=True)
        subprocess.run(["vips", "extract_band", row, rgb, "0", "--n", "3"], check=True)
        subprocess.run(["vips", "rawsave", rgb, row_raw], check=True)
        mosaic[y * 256:(y + 1) * 256] = np.fromfile(row_raw, np.uint8).reshape(256, n, 3)
    mosaic.flush()
    for p in (row, rgb, row_raw):
        os.remove(p)
    return np.memmap(raw, np.uint8, "r", shape=(n, n, 3))


def gauss(img):
    """An 11-tap Gaussian (σ 1.5) over both axes, valid part only."""
    k = np.exp(-0.5 * ((np.arange(11) - 5) / 1.5) ** 2).astype(np.float32)
    k /= k.sum()
    a = sum(k[i] * img[i:img.shape[0] - 10 + i] for i in range(11))
    return sum(k[i] * a[:, i:a.shape[1] - 10 + i] for i in range(11))


def quality(test, ref, band=512):
    """(PSNR over RGB in dB, mean luma SSIM), in bands of rows."""
    n = ref.shape[0]
    squares = 0.0
    ssim_sum, ssim_count = 0.0, 0
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    luma = np.array([0.299, 0.587, 0.114], np.float32)
    for r in range(0, n, band):
        a = np.asarray(test[r:r + band], np.float32)
        b = np.asarray(ref[r:r + band], np.float32)
        squares += float(((a - b) ** 2).sum(dtype=np.float64))
        # the SSIM windows centred in these rows: 5 rows of context either side
        lo, hi = max(r - 5, 0), min(r + band + 5, n)
        x = np.asarray(test[lo:hi], np.float32) @ luma
        y = np.asarray(ref[lo:hi], np.float32) @ luma
        mx, my = gauss(x), gauss(y)
        sxx, syy, sxy = gauss(x * x) - mx * mx, gauss(y * y) - my * my, gauss(x * y) - mx * my
        s = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
        ssim_sum += float(s.sum(dtype=np.float64))
        ssim_count += s.size
    mse = squares / (n * n * 3)
    return 10 * math.log10(255 ** 2 / mse), ssim_sum / ssim_count


def timed(cmd):
    """Runs a command; returns (wall s, CPU s (user + system), peak RSS MB)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    wall, user, system, rss = out.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss) / 1024


def main():
    tilecut = bench.TILECUT
    if not os.access(tilecut, os.X_OK):
        raise SystemExit(f"no tilecut binary at {tilecut}; run make release")
    os.makedirs(bench.WORK, exist_ok=True)
    photo = os.environ.get("BENCH_PHOTO")
    n = SIZE
    if photo:
        width, height = (int(subprocess.run(["vipsheader", "-f", f, photo], check=True, capture_output=True, text=True).stdout) for f in ("width", "height"))
        if width != height or width % 256:
            raise SystemExit(f"BENCH_PHOTO {photo}: {width} × {height}; crop it to n × n pixels, n a multiple of 256")
        n = width
    else:
        photo = os.path.join(bench.WORK, f"photo{SIZE}.jpg")
        bench.photo_image(photo, SIZE, 3)
    out_root = os.environ.get("BENCH_OUT") or (f"/dev/shm/tilecut-photo-{os.getpid()}" if os.path.isdir("/dev/shm") else bench.WORK)
    os.makedirs(out_root, exist_ok=True)
    out = lambda name: os.path.join(out_root, "out-" + name)
    tc = lambda name, fmt, *extra: [tilecut, photo, "-o", out(name), "--tile-size", "256", "--format", fmt, "--quality", str(QUALITY), *extra, "-q", "--force"]
    dz = lambda name, suffix: ["vips", "dzsave", photo, out(name), "--layout", "google", "--suffix", suffix, "--tile-size", "256", "--overlap", "0"]
    contenders = {
        "dzsave webp": dz("dzwebp", f".webp[Q={QUALITY}]"),
        "tilecut webp": tc("tcwebp", "webp"),
        "tilecut webp effort 2": tc("tcwebp2", "webp", "--webp-effort", "2"),
        "dzsave jpeg": dz("dzjpeg", f".jpg[Q={QUALITY}]"),
        "tilecut jpeg": tc("tcjpeg", "jpeg"),
    }
    dests = {k: (v[v.index("-o") + 1] if "-o" in v else v[3]) for k, v in contenders.items()}
    results = {k: [] for k in contenders}
    for r in range(RUNS):
        for name, cmd in contenders.items():
            dest = dests[name]
            shutil.rmtree(dest, ignore_errors=True)
            results[name].append(timed(cmd))
        print(f"run {r + 1}/{RUNS}: " + ", ".join(f"{k} {v[-1][0]:.2f}s" for k, v in results.items()), flush=True)

    med = {k: statistics.median(w for w, _, _ in v) for k, v in results.items()}
    cpu = {k: statistics.median(c for _, c, _ in v) for k, v in results.items()}
    rss = {k: statistics.median(m for _, _, m in v) for k, v in results.items()}
    size = {k: sum(bench.tiles(dests[k]).values()) for k in contenders}
    count = {k: len(bench.tiles(dests[k])) for k in contenders}
    zoom = int(math.log2(n // 256))
    with tempfile.TemporaryDirectory(dir=out_root) as tmp:
        ref_raw = os.path.join(tmp, "ref.raw")
        subprocess.run(["vips", "rawsave", photo, ref_raw], check=True)
        ref = np.memmap(ref_raw, np.uint8, "r", shape=(n, n, 3))
        q = {}
        for k in contenders:
            m = raw_mosaic(dests[k], zoom, n, tmp, k.replace(" ", "-"))
            q[k] = quality(m, ref)
            del m
    print(f"\n{os.path.basename(photo)} {n}² Q={QUALITY}, 256 px tiles, medians of {RUNS} alternating runs; quality of zoom {zoom} (native) against the source")
    print(f"{'':24} {'wall':>7} {'CPU':>7} {'peak RSS':>9} {'tiles':>6} {'bytes':>11} {'PSNR':>9} {'SSIM(Y)':>8}")
    for k in contenders:
        print(f"{k:24} {med[k]:6.2f}s {cpu[k]:6.2f}s {rss[k]:6.0f} MB {count[k]:6d} {size[k]:11,d} {q[k][0]:6.3f} dB {q[k][1]:8.4f}")
    for fmt, base, others in [("webp", "dzsave webp", ["tilecut webp", "tilecut webp effort 2"]), ("jpeg", "dzsave jpeg", ["tilecut jpeg"])]:
        for k in others:
            print(f"{k} / {base}: time {med[k] / med[base]:.2f} (target ≤ 0.7), CPU {cpu[k] / cpu[base]:.2f}, bytes {size[k] / size[base]:.3f} (≤ 1.05), "
                  f"peak RSS {rss[k] / rss[base]:.2f} (≤ 1.2), PSNR {q[k][0] - q[base][0]:+.3f} dB, SSIM {q[k][1] - q[base][1]:+.4f} (≥ 0)")
    if out_root.startswith("/dev/shm/"):
        shutil.rmtree(out_root, ignore_errors=True)


if __name__ == "__main__":
    main()
