#!/usr/bin/python3
"""The --resampling measurement behind the README's default (make bench runs it).

A plan (a crop of examples/floorplan/office.png, flattened on white) and a photo
(any RGB image given as $PHOTO; the bench uses a drone orthophoto from the GeoTIFF
corpus when ../shared is there) are placed with an EPSG:3857 world file so that
the zoom-18 grid is exactly F source pixels a tile pixel (F = 3, and 2.5), then
tiled by tilecut with each kernel. Each level is compared with the exact area mean
of the source pixels a tile pixel covers (numpy), the ideal anti-aliased picture
of a drawing: PSNR, and the share of pixels that overshoot the source values they
cover (ringing). Usage: bench/resampling.py TILECUT"""
import os, subprocess, sys, tempfile
import numpy as np
from osgeo import gdal

tilecut = sys.argv[1]
root = os.path.dirname(os.path.abspath(__file__)) + "/.."
half = 20037508.342789244
z = 18
res = 2 * half / (256 * 2 ** z)


def load(path):
    ds = gdal.Open(path)
    if ds.GetRasterBand(1).GetColorTable() is not None:  # tiles may be palette PNGs
        ds = gdal.Translate("", ds, format="MEM", rgbExpand="rgba")
    if ds.RasterCount == 2:  # grey + alpha
        ds = gdal.Translate("", ds, format="MEM", bandList=[1, 1, 1, 2])
    a = np.stack([ds.GetRasterBand(i + 1).ReadAsArray() for i in range(min(ds.RasterCount, 3))], axis=-1).astype(np.float64)
    if a.shape[2] == 1:
        a = np.repeat(a, 3, axis=2)
    if ds.RasterCount == 4:  # flatten on white
        alpha = ds.GetRasterBand(4).ReadAsArray().astype(np.float64)[..., None] / 255
        a = a * alpha + 255 * (1 - alpha)
    return a


def area_mean(src, f, n):
    """Tile pixel (i, j) covers source [f*i, f*(i+1)) on each axis: exact coverage weights."""
    h, w, _ = src.shape
    out = np.zeros((n, n, 3))
    lo_hi = []
    for i in range(n):
        a, b = f * i, f * (i + 1)
        idx = np.arange(int(np.floor(a)), min(int(np.ceil(b)), h))
        wts = np.minimum(idx + 1, b) - np.maximum(idx, a)
        lo_hi.append((idx, wts))
    for i, (iy, wy) in enumerate(lo_hi):
        rows = (src[iy] * wy[:, None, None]).sum(0) / wy.sum()
        for j, (ix, wx) in enumerate(lo_hi):
            out[i, j] = (rows[ix] * wx[:, None]).sum(0) / wx.sum()
    return out, lo_hi


def tile_level(name, crop, f, kernel):
    """Tiles `crop` placed f source pixels to a zoom-18 tile pixel; the tile its top-left is on."""
    size = crop.shape[0]
    png = f"{work}/{name}.png"
    mem = gdal.GetDriverByName("MEM").Create("", size, size, 3, gdal.GDT_Byte)
    for b in range(3):
        mem.GetRasterBand(b + 1).WriteArray(np.clip(np.rint(crop[..., b]), 0, 255).astype(np.uint8))
    gdal.GetDriverByName("PNG").CreateCopy(png, mem)
    # the tile (x0, y0) at zoom 18 whose top-left the image's top-left sits on; source pixels res/f wide
    x0, y0 = 2 ** 17 + 5, 2 ** 17 - 7
    left, top = -half + x0 * 256 * res, half - y0 * 256 * res
    with open(f"{work}/{name}.pgw", "w") as w:
        w.write(f"{res / f}\n0\n0\n{-res / f}\n{left + res / f / 2}\n{top - res / f / 2}\n")
    with open(f"{work}/{name}.prj", "w") as w:
        w.write('PROJCS["WGS 84 / Pseudo-Mercator",AUTHORITY["EPSG","3857"]]')
    out = f"{work}/out-{name}-{kernel}"
    subprocess.run([tilecut, png, "--world-file", f"{work}/{name}.pgw", "--source-crs", "EPSG:3857", "-o", out, "--min-zoom", str(z),
                    "--max-zoom", str(z), "--tile-size", "256", "--resampling", kernel, "--quiet", "--force"], check=True)
    return load(f"{out}/256/L1_{z}_{x0}_{y0}.png")


def measure(name, src, f, kernel):
    n = 256
    crop = src[:int(np.ceil(f * n)), :int(np.ceil(f * n))]
    got = tile_level(name, crop, f, kernel)
    ref, cover = area_mean(crop, f, n)
    m = 8  # leave the image's edge out
    diff = got[m:-m, m:-m] - ref[m:-m, m:-m]
    mse = (diff ** 2).mean()
    psnr = 99.0 if mse == 0 else 10 * np.log10(255 ** 2 / mse)
    over = 0
    for i in range(m, n - m):
        iy = cover[i][0]
        for j in range(m, n - m):
            ix = cover[j][0]
            block = crop[iy[0]:iy[-1] + 1, ix[0]:ix[-1] + 1].reshape(-1, 3)
            if (got[i, j] < block.min(0) - 1).any() or (got[i, j] > block.max(0) + 1).any():
                over += 1
    return psnr, over / (n - 2 * m) ** 2


work = tempfile.mkdtemp(prefix="tilecut-resampling-")
plan = load(f"{root}/examples/floorplan/office.png")[1200:2200, 1800:2800]
photo_path = os.environ.get("PHOTO", f"{root}/../shared/data/geotiff-corpus/wild/pix4d_alpha_nodata.tif")
sources = [("plan", plan)]
if os.path.exists(photo_path):
    photo = load(photo_path)
    sources.append(("photo", photo))
print("| source | F | kernel | PSNR vs area mean (dB) | pixels outside the values they cover |")
print("|---|---|---|---|---|")
only = os.environ.get("ONLY")
for name, src in sources:
    if only and name != only:
        continue
    for f in (2.5, 3.0) if name == "plan" else (2.5,):
        for kernel in ("nearest", "average", "bilinear", "lanczos3"):
            psnr, over = measure(name, src, f, kernel)
            print(f"| {name} | {f} | {kernel} | {psnr:.1f} | {100 * over:.2f} % |")

# Hatching: one black column in three on white (a plan's hatched wall), 1.667 source
# pixels to a tile pixel. Its true grey is 170 everywhere; the spread of the tile's
# values is the moiré a kernel lets through.
hatch = np.full((1200, 1200, 3), 255.0)
hatch[:, ::3] = 0
print()
print("| hatching, F = 1.667 | kernel | mean | standard deviation (moiré) |")
print("|---|---|---|---|")
for kernel in ("nearest", "average", "bilinear", "lanczos3"):
    got = tile_level("hatch", hatch[:428, :428], 1 / 0.6, kernel)[8:-8, 8:-8, 0]
    print(f"| | {kernel} | {got.mean():.1f} | {got.std():.1f} |")
