#!/usr/bin/env bash
# make bench: tilecut against vips dzsave and gdal2tiles on generated plans, in one run.
# Environment: TILECUT (binary), BENCH_SIZE (default 16384), BENCH_GEO_SIZE (8192),
# BENCH_RUNS (5), BENCH_SKIP_GDAL=1 to leave gdal2tiles out, BENCH_SKIP_PYPI=1 to
# leave rio-pmtiles out, BENCH_SCALE=50000 to add the large-source run (minutes),
# BENCH_SKIP_UTM=1 / BENCH_SKIP_PDF=1 to leave out the reprojection / PDF runs.
set -euo pipefail
cd "$(dirname "$0")"
need=()
command -v vips >/dev/null || need+=(libvips-tools)
command -v gdal_translate >/dev/null || need+=(gdal-bin python3-gdal)
[ -x /usr/bin/time ] || need+=(time)
command -v img2pdf >/dev/null || need+=(img2pdf)
python3 -c "import numpy" 2>/dev/null || need+=(python3-numpy)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "the benchmark needs: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi
# rio-pmtiles (PyPI) for the geo job, in a venv of its own; BENCH_SKIP_PYPI=1 leaves it out
if [ "${BENCH_SKIP_PYPI:-}" != 1 ] && [ "${BENCH_SKIP_GDAL:-}" != 1 ] && [ ! -x work/venv/bin/rio ]; then
  echo "installing rio-pmtiles (pip, into bench/work/venv)"
  mkdir -p work
  python3 -m venv work/venv && work/venv/bin/pip install -q rio-pmtiles || echo "rio-pmtiles could not be installed; the bench goes on without it"
fi
# libvips 8.18 (the pyvips-binary wheel bundles it) for a dzsave of today's libvips,
# in a venv of its own. pyvips builds its own _libvips against the system libvips
# 8.14 when libvips-dev is installed, so the wheel's module is put back over it.
if [ "${BENCH_SKIP_PYPI:-}" != 1 ] && [ ! -x work/vips818/bin/python ]; then
  echo "installing pyvips + pyvips-binary (pip, into bench/work/vips818)"
  mkdir -p work
  { python3 -m venv work/vips818 && work/vips818/bin/pip install -q pyvips pyvips-binary \
      && work/vips818/bin/pip install -q --force-reinstall --no-deps pyvips-binary; } \
    || echo "pyvips-binary could not be installed; the bench goes on without libvips 8.18"
fi
if [ -n "${BENCH_SCALE:-}" ] && ! python3 -c "import pyvips" 2>/dev/null; then
  echo "installing pyvips (pip) for the BENCH_SCALE image"
  python3 -m pip install -q pyvips
fi
exec python3 bench.py
