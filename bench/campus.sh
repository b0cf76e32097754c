#!/usr/bin/env bash
# make bench, the campus part: `tilecut build` of 6 buildings x 3 floors (one PNG
# per floor, each placed on its own), then the same after one floor changed: prints
# both times and their ratio (the incremental rebuild should take at most 0.35x).
# Environment: TILECUT (binary), CAMPUS_SIZE (the side of each floor, default 3000 px).
set -euo pipefail
cd "$(dirname "$0")"
tilecut=${TILECUT:?set TILECUT to the tilecut binary}
size=${CAMPUS_SIZE:-3000}
work=work/campus
rm -rf "$work" && mkdir -p "$work"
vips resize ../examples/floorplan/office.png "$work/plan.png" "$(python3 -c "print($size / 6000)")"
{
  echo "output: tiles"
  echo "tileSizes: [256, 512]"
  echo "buildings:"
  for b in 0 1 2 3 4 5; do
    echo "  - id: b$b"
    echo "    floors:"
    for f in 1 2 3; do
      cp "$work/plan.png" "$work/b${b}_L$f.png"
      echo "      - floor: $f"
      echo "        source: b${b}_L$f.png"
      # a row of buildings 200 m apart, each turned its own way, 0.03 m per pixel
      echo "        center: [51.5, $(python3 -c "print(-0.14 + $b * 0.0029)")]"
      echo "        metersPerPixel: 0.03"
      echo "        rotation: $((b * 7 + f))"
    done
  done
} >"$work/tilecut.yml"
start=$(date +%s.%N)
"$tilecut" build "$work/tilecut.yml" -q
full=$(python3 -c "import time; print(round(time.time() - $start, 2))")
# one floor changes: b2's floor 2 mirrored
vips flip "$work/b2_L2.png" "$work/flipped.png" horizontal && mv "$work/flipped.png" "$work/b2_L2.png"
start=$(date +%s.%N)
"$tilecut" build "$work/tilecut.yml"
one=$(python3 -c "import time; print(round(time.time() - $start, 2))")
echo "campus 6 buildings x 3 floors ($size px each): full build ${full} s, one floor changed ${one} s, ratio $(python3 -c "print(round($one / $full, 3))")"
