#!/usr/bin/env python3
"""Compares tilecut's 256 px tiles with gdalwarp's, tile by tile.

    python3 bench/gdalwarp_compare.py SOURCE.tif TILECUT_OUTPUT [ZOOM]

For every tile tilecut wrote (`256/L1_z_x_y.png`), warps SOURCE to the same
EPSG:3857 box with `gdalwarp -r bilinear -dstalpha` (through the GDAL Python
bindings, python3-gdal) and prints per zoom: the largest and mean absolute colour
difference and the lowest PSNR over pixels opaque in both, and how many pixels are
opaque in one but not the other (misplacement shows there)."""
import glob
import math
import os
import sys

import numpy as np
from osgeo import gdal
gdal.UseExceptions()
S = 20037508.342789244
src, out = sys.argv[1], sys.argv[2]
zoom = int(sys.argv[3]) if len(sys.argv) > 3 else None
files = glob.glob(os.path.join(out, "256", "*.png"))
# a lon/lat source past ±180° (GeoTools' Pacific radar, 172..188.7°): the tiles on
# the other side of the antimeridian are compared with gdalwarp of the source moved
# one world over (what gdalwarp -te of that side gives for the wrapped copy)
base = gdal.Open(src)
gt = base.GetGeoTransform()
srs = base.GetSpatialRef()
geographic = srs is not None and srs.IsGeographic() and gt[2] == 0 and gt[4] == 0
lons = sorted([gt[0], gt[0] + gt[1] * base.RasterXSize])
def source_for(west, east):
    if not geographic: return src
    for shift in (0, -360, 360):
        if lons[0] + shift < east and lons[1] + shift > west:
            if shift == 0: return src
            moved = gdal.Translate("", src, format="VRT")
            g = list(gt); g[0] += shift
            moved.SetGeoTransform(g)
            return moved
    return src
res = []
for f in sorted(files):
    name = os.path.basename(f)[:-4]
    _, z, x, y = name.split("_"); z, x, y = int(z), int(x), int(y)
    if zoom is not None and z != zoom: continue
    size = 2 * S / (1 << z)
    w = -S + x * size; n = S - y * size
    lon_w, lon_e = -180 + x * 360 / (1 << z), -180 + (x + 1) * 360 / (1 << z)
    ref = gdal.Warp("", source_for(lon_w, lon_e), format="MEM", dstSRS="EPSG:3857", outputBounds=(w, n - size, w + size, n),
                    width=256, height=256, resampleAlg="bilinear", dstAlpha=True)
    r = ref.ReadAsArray().astype(np.int32)  # 4,256,256
    if r.shape[0] == 2: r = np.concatenate([r[:1], r[:1], r[:1], r[1:]])
    # more than 3 bands of data (an ERDAS or ENVI scene): its first three, and the alpha -dstalpha adds last
    if r.shape[0] > 4: r = np.concatenate([r[:3], r[-1:]])
    ds = gdal.Open(f)
    if ds.RasterCount == 1 and ds.GetRasterBand(1).GetColorTable() is not None:
        ds = gdal.Translate("", ds, format="MEM", rgbExpand="rgba")
    t = ds.ReadAsArray().astype(np.int32)
    if t.ndim == 2: t = t[None]
    if t.shape[0] == 1: t = np.concatenate([t, t, t, np.full((1,256,256),255)])
    elif t.shape[0] == 2: t = np.concatenate([t[:1], t[:1], t[:1], t[1:]])
    elif t.shape[0] == 3: t = np.concatenate([t, np.full((1,256,256),255)])
    both = (r[3] > 0) & (t[3] > 0)
    alpha_mismatch = int(((r[3] > 127) != (t[3] > 127)).sum())
    d = np.abs(r[:3] - t[:3])[:, both]
    mx = int(d.max()) if d.size else 0
    mean = float(d.mean()) if d.size else 0
    mse = float((d.astype(np.float64) ** 2).mean()) if d.size else 0
    psnr = 99 if mse == 0 else 10 * math.log10(255 ** 2 / mse)
    res.append((z, x, y, mx, mean, psnr, alpha_mismatch, int(both.sum())))
for z in sorted(set(r[0] for r in res)):
    rows = [r for r in res if r[0] == z]
    print(f"z{z}: {len(rows)} tiles, max abs {max(r[3] for r in rows)}, mean abs {np.mean([r[4] for r in rows]):.3f}, "
          f"min PSNR {min(r[5] for r in rows):.1f} dB, alpha mismatches (px) {sum(r[6] for r in rows)} of {sum(r[7] for r in rows)} opaque")
