#!/bin/sh
# The documentation test (make test): runs every ```sh block of README.md, then of the
# guides (the DocC articles in Sources/Tilecut/Tilecut.docc, by name), bench/README.md,
# examples/README.md and each example folder's README.md, in that order, in a scratch
# copy of the repository, with the tilecut given as $1 on PATH and as
# .build/release/tilecut. A block runs with `sh -e` in the copy's root, then with
# `zsh -e` where zsh is installed; it must exit 0 in both, or N when the line before it
# says <!-- exits N -->. A block after
# <!-- not run: why --> is skipped (it needs what a test cannot have, or is make test).
set -eu
tilecut=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/tilecut-doc-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
guides=Sources/Tilecut/Tilecut.docc
# (nor the example packages' SwiftPM scratch: no block reads it, and make test runs the
# client's tests in examples/client/.build beside this test: 86 MB, changing while read)
(cd "$root" && tar cf - --exclude='examples/out*' --exclude='examples/make/tiles*' --exclude='examples/campus/tiles' \
  --exclude='examples/*/.build' --exclude='bench/work' README.md "$guides" bench/README.md examples) | (cd "$scratch" && tar xf -)
mkdir -p "$scratch/.build/release" "$scratch/bin"
ln -s "$tilecut" "$scratch/.build/release/tilecut"
ln -s "$tilecut" "$scratch/bin/tilecut"
PATH="$scratch/bin:$PATH"
export PATH

# each block in sh, then again in zsh (macOS's shell, which stops at an unquoted
# file.pdf[page=N] that sh passes on) where zsh is installed (make test-deps installs it)
shells=sh
if command -v zsh >/dev/null 2>&1; then shells="sh zsh"; else echo "doc-test: no zsh here, the blocks run in sh only"; fi
ran=0
failed=0
docs="README.md $(cd "$root" && ls "$guides"/*.md | LC_ALL=C sort) bench/README.md examples/README.md $(cd "$root" && ls examples/*/README.md | LC_ALL=C sort)"
for doc in $docs; do
  # each block to its own file, with the status it must end with
  awk -v dir="$scratch/blocks" -v doc="$doc" '
    BEGIN { n = 0; system("mkdir -p \"" dir "\"") }
    /^```sh[ \t]*$/ && !inblock {
      inblock = 1; skip = (prev ~ /^<!-- not run/); n++
      status = 0; if (match(prev, /<!-- exits [0-9]+ -->/)) { status = substr(prev, RSTART + 11, RLENGTH - 15) + 0 }
      file = sprintf("%s/%s.%03d", dir, doc, n); gsub("/", "_", file); file = dir "/" substr(file, length(dir) + 2)
      if (!skip) { printf "" > file; print status > (file ".status"); print FNR > (file ".line") }
      next
    }
    /^```/ && inblock { inblock = 0; if (!skip) close(file); next }
    inblock { if (!skip) print >> file; next }
    { if ($0 != "") prev = $0 }
  ' "$root/$doc"
  for block in $(ls "$scratch/blocks" | grep -v '\.\(status\|line\)$' | sort); do
    want=$(cat "$scratch/blocks/$block.status")
    line=$(cat "$scratch/blocks/$block.line")
    ran=$((ran + 1))
    for shell in $shells; do
      set +e
      (cd "$scratch" && $shell -e "$scratch/blocks/$block") >"$scratch/out.txt" 2>&1
      got=$?
      set -e
      if [ "$got" != "$want" ]; then
        failed=$((failed + 1))
        echo "doc-test: $doc:$line exited $got in $shell, the documentation says $want:"
        sed 's/^/    /' "$scratch/blocks/$block"
        echo "  output:"
        tail -n 20 "$scratch/out.txt" | sed 's/^/    /'
        break
      fi
    done
    rm -f "$scratch/blocks/$block" "$scratch/blocks/$block.status" "$scratch/blocks/$block.line"
  done
done
echo "doc-test: $ran shell blocks of README.md, the guides and the examples' READMEs run (in $shells), $failed failed"
[ "$failed" = 0 ]
