#!/bin/sh
# Writes into DIR a copy of every pkg-config file that says -pthread, without it.
# SwiftPM refuses -pthread in the flags of a system library ("prohibited flag(s)")
# with a warning per target on every build; glib, OpenEXR and harfbuzz (through
# libvips and librsvg) put it there. glibc 2.34+ and macOS need no -pthread to link.
# The Makefile puts DIR first on PKG_CONFIG_PATH. Usage: quiet-pkgconfig.sh DIR
#
# gdal.pc is written without its Libs: tilecut loads libgdal when a file first asks
# for it (Sources/CTilecutGDAL/TilecutGDAL.c), so that the hundred libraries it
# brings cost nothing to the jobs that never call it. A build without DIR links it,
# and works the same.
set -eu
dir=$1
mkdir -p "$dir"
seen=" "
# the search order pkg-config uses: PKG_CONFIG_PATH (without DIR), then its own path
for d in $(printf '%s' "${PKG_CONFIG_PATH:-}" | tr ':' ' ') $(pkg-config --variable pc_path pkg-config | tr ':' ' '); do
  [ "$d" = "$dir" ] && continue
  for f in "$d"/*.pc; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    case "$seen" in *" $name "*) continue ;; esac
    seen="$seen$name "
    if [ "$name" = gdal.pc ]; then
      sed -e 's/-pthread//g' -e 's/^Libs:.*/Libs:/' -e '/^Libs.private:/d' "$f" >"$dir/$name"
    elif grep -q -- '-pthread' "$f"; then sed -e 's/-pthread//g' "$f" >"$dir/$name"; fi
  done
done
