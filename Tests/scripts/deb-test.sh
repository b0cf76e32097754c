#!/usr/bin/env bash
# The Debian package as a team would use it: make deb from the existing release build,
# its control data and contents read back with dpkg-deb, installed into this system with
# apt-get, run (--version, the example tiled and verified), removed, and nothing of it
# left. Also make install / make uninstall into a DESTDIR, and install's refusal to
# build. Needs root (apt-get) and a release build that is up to date (make release), or
# the binary to package in RELEASE_BINARY (make test's, linked as make release links it).
#
#   bash Tests/scripts/deb-test.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() { echo "deb-test: FAILED: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root: it installs the package with apt-get (run as root, or in CI)"
command -v dpkg-deb >/dev/null || fail "needs dpkg-deb (dpkg)"

version=$(sed -n 's/^public let tilecutVersion = "\(.*\)"$/\1/p' Sources/Tilecut/Version.swift)
deb="tilecut_${version}-1_$(dpkg --print-architecture).deb"
binary=${RELEASE_BINARY:-.build/release/tilecut}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }

# make install copies, never builds: a missing binary is one line and a failure
if out=$(make -s install DESTDIR="$scratch/none" RELEASE_BINARY="$scratch/no-such-tilecut" 2>&1); then
  fail "make install with no release binary succeeded"
fi
grep -q "run make release first (as yourself)" <<<"$out" || fail "make install without a binary said: $out"
[ ! -e "$scratch/none" ] || fail "make install without a binary wrote into DESTDIR"
ok "make install without a release build refuses, writes nothing"

# make install and make uninstall into a DESTDIR, with a PREFIX
make -s install DESTDIR="$scratch/dest" PREFIX=/opt/tc RELEASE_BINARY="$binary" >/dev/null
for f in bin/tilecut share/man/man1/tilecut.1.gz share/bash-completion/completions/tilecut \
  share/zsh/site-functions/_tilecut share/fish/vendor_completions.d/tilecut.fish share/doc/tilecut/LICENSE share/doc/tilecut/NOTICE; do
  [ -s "$scratch/dest/opt/tc/$f" ] || fail "make install did not write /opt/tc/$f"
done
line=$("$scratch/dest/opt/tc/bin/tilecut" --version)
[[ "$line" == "tilecut $version ("* ]] || fail "the installed binary's --version: $line"
man=$(gzip -dc "$scratch/dest/opt/tc/share/man/man1/tilecut.1.gz")
grep -q '^\.TH TILECUT' <<<"$man" || fail "the man page has no .TH line"
make -s uninstall DESTDIR="$scratch/dest" PREFIX=/opt/tc >/dev/null
left=$(find "$scratch/dest" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
ok "make install / uninstall with DESTDIR and PREFIX: 7 files written, then none left"

# the package
rm -f "$deb"
make -s deb RELEASE_BINARY="$binary" >/dev/null
[ -f "$deb" ] || fail "make deb wrote no $deb"
info=$(dpkg-deb -I "$deb")
grep -q "^ Package: tilecut$" <<<"$info" || fail "control: no Package: tilecut"
grep -q "^ Version: ${version}-1$" <<<"$info" || fail "control: the version is not ${version}-1"
depends=$(sed -n 's/^ Depends: //p' <<<"$info")
for lib in libc6 libvips42 libpoppler-glib8 librsvg2-2 libproj25 libgeotiff5 libsqlite3-0 libqpdf29 libnettle8 libgdal; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
! grep -q swift <<<"$depends" || fail "Depends names a Swift library (the runtime must be static): $depends"
# a binary with packed relocations (DT_RELR) runs on glibc 2.36 or later only
if readelf -V "$binary" | grep -q GLIBC_ABI_DT_RELR; then
  v=$(sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p' <<<"$depends")
  dpkg --compare-versions "${v:-0}" ge 2.36 || fail "the binary needs glibc 2.36 (DT_RELR), Depends says libc6 (>= ${v:-?})"
fi
contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/tilecut ./usr/share/man/man1/tilecut.1.gz ./usr/share/bash-completion/completions/tilecut \
  ./usr/share/zsh/vendor-completions/_tilecut ./usr/share/fish/vendor_completions.d/tilecut.fish ./usr/share/doc/tilecut/copyright; do
  grep -qx "$f" <<<"$contents" || fail "$deb lacks $f"
done
dpkg-deb -c "$deb" | awk '$2 != "root/root" { bad = 1 } END { exit bad }' || fail "files not owned by root/root"
copyright=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/doc/tilecut/copyright)
grep -q "GeoNames" <<<"$copyright" || fail "the copyright file lacks the GeoNames attribution"
ok "dpkg-deb -I/-c: tilecut ${version}-1, Depends from dpkg-shlibdeps ($(tr ',' '\n' <<<"$depends" | wc -l) packages), 6 files"
if command -v lintian >/dev/null; then
  lintian --no-tag-display-limit "$deb" || echo "lintian: tags above (not a failure)"
fi

# installed from the file by apt, run, removed. --reinstall: a tilecut of the same
# version left installed (a run stopped before its removal) would otherwise stay, and
# the old binary be tested; a failure from here on removes the package too
apt-get install -y -qq --reinstall "./$deb" >/dev/null
trap 'apt-get remove -y -qq tilecut >/dev/null 2>&1; rm -rf "$scratch"' EXIT
line=$(/usr/bin/tilecut --version)
[[ "$line" =~ ^tilecut\ ${version//./\\.}\ \([0-9a-f]{7}(-dirty)?\)$ ]] || fail "/usr/bin/tilecut --version: $line"
# (captured first: with pipefail, grep -q closing the pipe early would fail the run)
notices=$(/usr/bin/tilecut --version --verbose)
grep -q "CC BY 4.0" <<<"$notices" || fail "--version --verbose shows no notices"
files=$(dpkg -L tilecut)
/usr/bin/tilecut examples/floorplan/office.png --world-file examples/floorplan/office-berlin.pgw -o "$scratch/tiles" -q
/usr/bin/tilecut verify "$scratch/tiles" >/dev/null 2>&1 || fail "tilecut verify of the installed binary's output"
tiles=$(find "$scratch/tiles" -name '*.png' | wc -l)
[ "$tiles" -gt 0 ] || fail "the installed tilecut wrote no tiles"
ok "apt-get install ./$deb: $line; the example placed in Berlin (PROJ), tiled ($tiles tiles) and verified"

apt-get remove -y -qq tilecut >/dev/null
trap 'rm -rf "$scratch"' EXIT
! dpkg -L tilecut >/dev/null 2>&1 || fail "dpkg -L tilecut still lists files after apt-get remove"
[ ! -e /usr/bin/tilecut ] || fail "/usr/bin/tilecut is still there"
while read -r f; do
  [ -d "$f" ] || [ ! -e "$f" ] || fail "$f is still there after apt-get remove"
done <<<"$files"
ok "apt-get remove tilecut: nothing of the package left"
echo "deb-test: $passed passed, 0 failed"
