#!/bin/bash
# The SwiftPM plugins' test (make plugin-test, the last step of make test), on
# examples/plugin-app, an app package that depends on tilecut and TilecutClient by path:
#  1. `swift build` of the example (scratch .build-plugin-app): no warning; its resource
#     bundle holds manifest.json and one MBTiles file per floor and tile size, each a
#     sound SQLite file with the tiles the manifest counts;
#  2. the example's executable reads a tile of every floor and size back through
#     OfflineTiles(bundle: .module); each decodes (GDAL) to the tile size and is the
#     MBTiles row's bytes;
#  3. the plugin's YAML reader, built on its own, declares for project files in every
#     form it reads the MBTiles files tilecut writes and every file tilecut reads, and
#     refuses anchors, merge keys and a second document naming the line;
#  4. in a copy of the example: `swift package tilecut build --jobs 1` (the command
#     plugin, given options alone) writes
#     the output its tilecut.yml names; a missing file fails the plugin with tilecut's
#     status; a rebuild with nothing changed does not run tilecut; a changed world file
#     runs it again and the bundle's floor moves; a file tilecut refuses fails the build
#     with tilecut's message.
# Needs the quiet pkg-config files (make quiet-pc; the Makefile exports PKG_CONFIG_PATH),
# gdal-bin and python3-gdal (make test-deps). Every subprocess has a time limit.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$root/.build-plugin-app
export PKG_CONFIG_PATH="${PKG_CONFIG_PATH:-$root/.build/pkgconfig}"
# Python with GDAL's bindings, as the client's tests use it
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tilecut-plugin-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

# every subprocess has a time limit: coreutils' timeout (gtimeout with Homebrew's
# coreutils), else perl's alarm, which the command inherits across exec
if command -v timeout >/dev/null; then
  limit() { timeout "$@"; }
elif command -v gtimeout >/dev/null; then
  limit() { gtimeout "$@"; }
else
  limit() {
    local seconds=$1
    shift
    perl -e 'alarm shift; exec @ARGV or die "$ARGV[0]: $!\n"' "$seconds" "$@"
  }
fi

ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; [ -n "${2:-}" ] && tail -n 30 "$2"; }
# check "what" command...: passes when the command exits 0
check() { local what=$1; shift; if "$@" >"$tmp/check.log" 2>&1; then ok "$what"; else bad "$what" "$tmp/check.log"; fi; }
finish() {
  echo "plugin-test: $passed passed, $failed failed"
  [ "$failed" = 0 ]
  exit
}

# SwiftPM's options for every build and plugin run here: no index store and no debug
# information (what an editor or a debugger reads; nothing here does): the example's
# debug build took 116 s of CPU instead of 146 (bench/README.md, "make test's time").
# The same options everywhere, so that no run rebuilds for another's flags.
swiftpm_options=(--scratch-path "$scratch" --disable-index-store -Xswiftc -gnone -Xcc -g0)

# swift build of a package; the log in $2
build() {
  limit 1800 swift build --package-path "$1" "${swiftpm_options[@]}" >"$2" 2>&1
}

# 1. the example as it is in the repository
app=$root/examples/plugin-app
if build "$app" "$tmp/build.log"; then ok "swift build examples/plugin-app"; else bad "swift build examples/plugin-app" "$tmp/build.log"; finish; fi
if grep -n "warning:" "$tmp/build.log"; then bad "the build printed warnings (above)"; else ok "the build printed no warning"; fi
bin=$(limit 300 swift build --package-path "$app" "${swiftpm_options[@]}" --show-bin-path)
# SwiftPM's resource bundle: a directory on Linux, a .bundle on macOS
bundle=$bin/PluginApp_PluginApp.resources
[ -d "$bundle" ] || bundle=$bin/PluginApp_PluginApp.bundle
[ -d "$bundle/Contents/Resources" ] && bundle=$bundle/Contents/Resources

# the files a bundle must hold for tilecut.yml's floors 0 and 1 at 256 and 512 px, each
# a sound MBTiles file with as many rows per zoom as the manifest lists
bundle_check=$(
  cat <<'EOF'
import json, os, sqlite3, sys
bundle = sys.argv[1]
expected = {"manifest.json"} | {"L%d_%d.mbtiles" % (f, s) for f in (0, 1) for s in (256, 512)}
have = set(os.listdir(bundle)) - {"Info.plist"}
assert have == expected, "bundle holds %s, expected %s" % (sorted(have), sorted(expected))
m = json.load(open(os.path.join(bundle, "manifest.json")))
assert m["store"] == "mbtiles" and m["floors"] == [0, 1] and m["tileSizes"] == [256, 512], m
assert {t["file"] for t in m["tileSets"]} == expected - {"manifest.json"}, m["tileSets"]
for t in m["tileSets"]:
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(bundle, t["file"]), uri=True)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", t["file"]
    rows = dict(db.execute("SELECT zoom_level, count(*) FROM tiles GROUP BY zoom_level").fetchall())
    listed = {l["zoom"]: l["tileCount"] for l in m["levels"] if l["floor"] == t["floor"] and l["tileSize"] == t["tileSize"]}
    assert rows == listed and sum(rows.values()) > 0, "%s: rows per zoom %s, manifest %s" % (t["file"], rows, listed)
    print(t["file"], "rows per zoom", rows)
EOF
)
check "the bundle holds manifest.json and L{0,1}_{256,512}.mbtiles, sound, with the manifest's tiles" \
  "$python" -c "$bundle_check" "$bundle"

# 2. the example reads a tile of each floor and size back through OfflineTiles(bundle:)
mkdir -p "$tmp/read"
if limit 120 "$bin/PluginApp" "$tmp/read" >"$tmp/run.log" 2>&1; then ok "PluginApp reads the tiles back"; else bad "PluginApp reads the tiles back" "$tmp/run.log"; fi
cat "$tmp/run.log"
read_check=$(
  cat <<'EOF'
import os, re, sqlite3, sys
from osgeo import gdal
gdal.UseExceptions()
bundle, read = sys.argv[1], sys.argv[2]
names = sorted(os.listdir(read))
assert len(names) == 4, names
for name in names:
    floor, size, z, x, y = map(int, re.fullmatch(r"L(-?\d+)_(\d+)_(\d+)_(\d+)_(\d+)\.png", name).groups())
    data = open(os.path.join(read, name), "rb").read()
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(bundle, "L%d_%d.mbtiles" % (floor, size)), uri=True)
    row = db.execute("SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?", (z, x, (1 << z) - 1 - y)).fetchone()
    assert row is not None and bytes(row[0]) == data, "%s is not the MBTiles row's bytes" % name
    image = gdal.Open(os.path.join(read, name))
    assert (image.RasterXSize, image.RasterYSize) == (size, size), (name, image.RasterXSize, image.RasterYSize)
    pixels = image.ReadAsArray()
    if pixels.ndim == 2:  # one band: a palette or grey PNG
        pixels = pixels[None]
    colours = {tuple(pixels[:, j, i]) for j in range(0, size, 8) for i in range(0, size, 8)}
    assert len(colours) >= 2, "%s is one colour" % name
    print(name, "decodes to", size, "x", size, "with", len(colours), "colours on an 8 px grid")
EOF
)
check "each tile read back is the MBTiles row, a PNG of its tile size with a drawing in it" "$python" -c "$read_check" "$bundle" "$tmp/read"

# 3. the plugin's YAML reader against tilecut's own reading of project files written in
# every form the reader takes: the MBTiles files it declares are the ones tilecut
# writes, and every file tilecut reads (its --depfile) is among the declared inputs
# the tilecut the plugins run (SwiftPM names the host's build of it tilecut-tool here)
tool=$bin/tilecut-tool
[ -x "$tool" ] || tool=$bin/tilecut
reader=$tmp/reader
mkdir -p "$reader/hq" "$reader/annex" "$reader/plan" "$reader/world"
if limit 300 swiftc -module-name ReaderCheck "$root/Sources/TilecutBuildPlugin/ProjectFileReader.swift" \
  "$root/Tests/scripts/plugin-reader/main.swift" -o "$reader/read" >"$tmp/swiftc.log" 2>&1; then
  ok "the reader builds on its own (swiftc)"
else
  bad "the reader builds on its own (swiftc)" "$tmp/swiftc.log"
fi
campus=$root/examples/campus
cp "$campus/hq/hq.pdf" "$reader/hq/"
cp "$campus/annex/ground.png" "$campus/annex/ground.prj" "$reader/annex/"
cp "$campus/annex/ground.pgw" "$reader/annex/ground.PGW"
cp "$campus/annex/ground.png" "$reader/plan/a.png"
cp "$campus/annex/ground.pgw" "$reader/world/placement.pgw"
cp "$campus/annex/ground.prj" "$reader/world/placement.prj"
cat >"$reader/forms.yml" <<'YAML'
# every form the plugin's reader takes, held against tilecut's own reading
"output": 'out # not a comment'
tileSizes:
- 512
- 256
maxZoom: 19   # a comment
buildings:
  - name: "Head: quarters"
    id: hq
    floors:
      - source: hq/hq.pdf
        floor: -1
        page: 0
        center: [51.50060,
                 -0.13960]
        drawingScale: '1:200'
      - floor: 2
        source: "hq/hq.pdf"
        page: 1
        gcp: [[0, 0, 51.50082, -0.13994],
              [566, 0, 51.50069, -0.13918],
              [566, 283, 51.50038, -0.13926]]
  - {id: annex, floors: [{floor: 1, source: annex/ground.png}]}
YAML
cat >"$reader/worldfile.yml" <<'YAML'
---
tileSize: "768"
maxZoom: 19
buildings:
- id: plan
  floors:
  - floor: 3
    source: 'plan/a.png'
    worldFile: world/placement.pgw
YAML
compare=$(
  cat <<'PY'
import json, os, sys
said, out, depfile, project = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
m = json.load(open(os.path.join(out, "manifest.json")))
written = {"manifest.json"} | {t["file"] for t in m["tileSets"]}
files = {f for f in os.listdir(out) if not f.startswith(".")}
assert set(said["outputs"]) == written == files, (said["outputs"], sorted(written), sorted(files))
declared = {os.path.realpath(p) for p in said["inputs"]}
line = open(depfile).read().split("\n")[0]
# a project's depfile names files relative to the project file, as the file does
read = [os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(project)), p)) for p in line.split(":", 1)[1].split()]
missing = [p for p in read if p not in declared]
assert read and not missing, "tilecut read %s, not declared" % missing
print("outputs", sorted(written), "- inputs:", len(declared), "declared,", len(read), "read by tilecut")
PY
)
# a floor given as a KML beside its image: the image is read, so it is an input too
mkdir -p "$reader/overlay/img"
cp "$campus/annex/ground.png" "$reader/overlay/img/plan.png"
cat >"$reader/overlay/doc.kml" <<'KML'
<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><GroundOverlay><name>Plan</name>
<Icon><href> img/plan.png </href></Icon>
<LatLonBox><north>51.501</north><south>51.500</south><east>-0.139</east><west>-0.141</west></LatLonBox>
</GroundOverlay></kml>
KML
printf 'tileSizes: [256]\nmaxZoom: 18\nbuildings:\n  - id: o\n    floors:\n      - floor: 1\n        source: overlay/doc.kml\n' >"$reader/kml.yml"
cp "$campus/tilecut.yml" "$reader/campus.yml"
for label in forms worldfile campus kml; do
  file=$reader/$label.yml
  if ! said=$(limit 60 "$reader/read" "$file" 2>"$tmp/said.log"); then
    bad "the reader reads $label.yml" "$tmp/said.log"
    continue
  fi
  if limit 300 "$tool" build "$file" --output "$reader/out-$label" --store mbtiles --depfile "$reader/$label.d" --quiet >"$tmp/tc.log" 2>&1; then
    check "$label.yml: the reader declares the files tilecut writes and every file it reads" \
      "$python" -c "$compare" "$said" "$reader/out-$label" "$reader/$label.d" "$file"
  else
    bad "tilecut build $label.yml" "$tmp/tc.log"
  fi
done
# what it does not read, it refuses in one line with the file and line
printf '# sizes once, used twice\ntileSizes: &sizes [256]\nbuildings: []\n' >"$reader/anchor.yml"
printf 'buildings:\n  - id: a\n    floors:\n      - <<: *base\n        floor: 1\n' >"$reader/merge.yml"
printf 'tileSizes: [256]\n---\nbuildings: []\n' >"$reader/documents.yml"
for case in anchor:2 merge:4 documents:2; do
  file=$reader/${case%:*}.yml
  if limit 60 "$reader/read" "$file" >"$tmp/refused.log" 2>&1; then
    bad "the reader refuses ${case%:*}.yml" "$tmp/refused.log"
  else
    check "the reader refuses ${case%:*}.yml naming line ${case#*:}" grep -q "^$file:${case#*:}: " "$tmp/refused.log"
  fi
done

# 4. a copy of the example, its path dependencies pointed at this checkout
copy=$tmp/plugin-app
cp -R "$app" "$copy"
rm -rf "$copy/.build" "$copy/Package.resolved" "$copy/tiles"
sed -i.orig -e "s#path: \"../..\"#path: \"$root\"#" -e "s#path: \"../client\"#path: \"$root/examples/client\"#" "$copy/Package.swift"
rm -f "$copy/Package.swift.orig"
plugin() {
  limit 1200 swift package --package-path "$copy" "${swiftpm_options[@]}" --allow-writing-to-package-directory tilecut "$@"
}
# options alone still name no file (--jobs takes the next argument): the package's
# tilecut.yml is added, and its output is written into the package. (One run for both:
# SwiftPM builds the plugin's tool again for every `swift package` run,
# swift-package-manager#7210, about 26 s of CPU here.)
if plugin build --jobs 1 >"$tmp/command.log" 2>&1; then
  ok "swift package tilecut build --jobs 1 runs the package's tilecut.yml"
else
  bad "swift package tilecut build --jobs 1 runs the package's tilecut.yml" "$tmp/command.log"
fi
manifest_check=$(
  cat <<'EOF'
import json, os, sys
out = sys.argv[1]
m = json.load(open(os.path.join(out, "manifest.json")))
assert m["format"] == "tilecut-manifest" and m["floors"] == [0, 1] and m["tileSizes"] == [256, 512], m
assert [b["id"] for b in m["buildings"]] == ["townhall"], m["buildings"]
assert "store" not in m or m["store"] == "directory", m.get("store")
files = sum(len(fs) for _, _, fs in os.walk(os.path.join(out, "256"))) + sum(len(fs) for _, _, fs in os.walk(os.path.join(out, "512")))
listed = sum(l["tileCount"] for l in m["levels"])
assert files == listed > 0, "%d tile files, manifest lists %d" % (files, listed)
print("tiles/manifest.json: floors", m["floors"], "sizes", m["tileSizes"], files, "tiles")
EOF
)
check "the command plugin wrote the project file's output into the package (tiles/manifest.json)" \
  "$python" -c "$manifest_check" "$copy/tiles"

# without the permission SwiftPM refuses, with the plugin's reason
if limit 1200 swift package --package-path "$copy" "${swiftpm_options[@]}" tilecut build </dev/null >"$tmp/denied.log" 2>&1; then
  bad "without --allow-writing-to-package-directory the plugin must not run" "$tmp/denied.log"
else
  check "without --allow-writing-to-package-directory SwiftPM refuses, giving the plugin's reason" \
    grep -q "tilecut writes the tiles where the project file's output says" "$tmp/denied.log"
fi
if plugin build nosuch.yml >"$tmp/fail.log" 2>&1; then
  bad "swift package tilecut build nosuch.yml must fail" "$tmp/fail.log"
else
  check "a missing project file fails the plugin with tilecut's message and status" \
    grep -q "nosuch.yml: no such file" "$tmp/fail.log"
  check "the plugin names tilecut's exit status" grep -q "exited with status 2" "$tmp/fail.log"
fi

# the build-tool plugin runs tilecut again only when an input changed
if build "$copy" "$tmp/copy.log"; then ok "swift build of the copy"; else bad "swift build of the copy" "$tmp/copy.log"; fi
if build "$copy" "$tmp/again.log" && ! grep -q "Tiling tilecut.yml" "$tmp/again.log"; then
  ok "a rebuild with no input changed does not run tilecut"
else
  bad "a rebuild with no input changed does not run tilecut" "$tmp/again.log"
fi
bounds() { "$python" -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM metadata WHERE name=\"bounds\"").fetchone()[0])' "$1"; }
before0=$(bounds "$bundle/L0_256.mbtiles")
before1=$(bounds "$bundle/L1_256.mbtiles")
# floor 1 moved 40 m east: only its world file changes (line 5, the x of the first
# pixel's centre, in EPSG:3857 metres: 40 m of ground are 40 / cos(53.55°) of them)
awk 'NR == 5 { printf "%.3f\n", $1 + 40 / cos(53.5503 * 3.14159265358979 / 180); next } { print }' \
  "$copy/Sources/PluginApp/plan/upper.pgw" >"$tmp/upper.pgw"
cp "$tmp/upper.pgw" "$copy/Sources/PluginApp/plan/upper.pgw"
if build "$copy" "$tmp/moved.log" && grep -q "Tiling tilecut.yml" "$tmp/moved.log"; then
  ok "a changed world file (a sidecar the YAML does not name) runs tilecut again"
else
  bad "a changed world file (a sidecar the YAML does not name) runs tilecut again" "$tmp/moved.log"
fi
after0=$(bounds "$bundle/L0_256.mbtiles")
after1=$(bounds "$bundle/L1_256.mbtiles")
echo "floor 0 bounds $before0 -> $after0; floor 1 bounds $before1 -> $after1"
# 40 m east at 53.5503 N: 40 / (6378137 cos φ) radians of longitude on WGS 84's sphere as
# Web Mercator uses it; the latitudes stay
moved=$(
  cat <<'EOF2'
import math, sys
a = [float(v) for v in sys.argv[1].split(",")]
b = [float(v) for v in sys.argv[2].split(",")]
east = math.degrees(40 / (6378137 * math.cos(math.radians(53.5503))))
print("west %+.7f east %+.7f south %+.7f north %+.7f (expected %+.7f)" % (b[0] - a[0], b[2] - a[2], b[1] - a[1], b[3] - a[3], east))
assert abs(b[0] - a[0] - east) < 2e-6 and abs(b[2] - a[2] - east) < 2e-6, "not moved 40 m east"
assert abs(b[1] - a[1]) < 2e-7 and abs(b[3] - a[3]) < 2e-7, "moved north or south"
EOF2
)
check "the bundle's floor 1 moved 40 m east" "$python" -c "$moved" "$before1" "$after1"
if [ "$before0" = "$after0" ]; then ok "the bundle's floor 0 stayed"; else bad "the bundle's floor 0 stayed"; fi
# a project file tilecut refuses (a key the reader does not look at) fails the build
# with tilecut's own line
sed -i.orig 's/^maxZoom: 20/maxZoom: 99/' "$copy/Sources/PluginApp/tilecut.yml"
rm -f "$copy/Sources/PluginApp/tilecut.yml.orig"
if build "$copy" "$tmp/refused-build.log"; then
  bad "a project file tilecut refuses fails the build" "$tmp/refused-build.log"
else
  check "a project file tilecut refuses fails the build with tilecut's message (file, line, key)" \
    grep -q "tilecut.yml:6:1: maxZoom: 99 is outside" "$tmp/refused-build.log"
fi
finish
