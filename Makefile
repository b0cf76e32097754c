# What a person runs: make run, make test, make bench, make install.
SWIFT ?= swift
PREFIX ?= /usr/local
# libvips (with libdeflate), libwebp and libjpeg (WebP and JPEG tiles encoded from the strip), poppler-glib, librsvg and cairo (PDF pages and SVG
# drawings rendered in bands), ISA-L (the PNG reader's inflate), PROJ with its data,
# libgeotiff, SQLite, qpdf (scanned PDF pages read from their images; every PDF checked page by page before poppler reads it), GDAL's library
# (georeferencing read as GDAL reads it): what building
# and running tilecut needs (make run)
APT_PACKAGES = zlib1g-dev libvips-dev libpoppler-glib-dev librsvg2-dev libcairo2-dev libdeflate-dev libwebp-dev libjpeg-dev libisal-dev libproj-dev proj-data libgeotiff-dev libsqlite3-dev libqpdf-dev libgdal-dev libssl-dev
# what only the tests need (make test): strace for the test that proves no other
# program is started; GDAL for the client package's tests and the browser tests' geometry;
# zsh and fish for the completion tests; Chromium, driven headless over the DevTools
# protocol (--remote-debugging-pipe) by Tests/browser/drive.py (no selenium or chromedriver)
APT_TEST_PACKAGES = strace gdal-bin python3-gdal zsh fish chromium
# from PyPI for the python3 on the path (the tests' independent PMTiles reader and writer,
# protomaps' own; make bench's rio-pmtiles; jsonschema, the independent validator of every
# --json against examples/json-schema), installed where missing
PIP_TEST_PACKAGES = pmtiles==3.8.1 jsonschema==4.26.0
PIP_TEST_DEPS = python3 -c 'import pmtiles, jsonschema' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check $(PIP_TEST_PACKAGES)
# macOS (uname Darwin): the same libraries from Homebrew (gdal brings its command-line
# tools and Python bindings; zsh ships with macOS; Chromium is a cask; there is no strace,
# the test that uses it cannot run there). Never run on a Mac here: see README "On macOS".
BREW_PACKAGES = pkgconf vips isa-l libdeflate webp jpeg-turbo poppler librsvg cairo proj libgeotiff sqlite qpdf gdal openssl@3
BREW_TEST_PACKAGES = fish
BREW_TEST_CASKS = chromium
EXAMPLE = examples/floorplan/office.png
# the example's placement: a world file in ETRS89 / UTM zone 33N (its .prj beside it)
# putting the office on Pariser Platz 3, Berlin; the preview draws it over OpenStreetMap
EXAMPLE_PLACEMENT = --world-file examples/floorplan/office-berlin.pgw
EXAMPLE_BASEMAP = --preview-basemap 'https://tile.openstreetmap.org/{z}/{x}/{y}.png' --preview-attribution '© OpenStreetMap contributors'
# pkg-config files without -pthread, first on the path: SwiftPM warns of that flag on
# every build (quiet-pc below says why)
QUIET_PC = $(CURDIR)/.build/pkgconfig
USER_PKG_CONFIG_PATH := $(PKG_CONFIG_PATH)
export PKG_CONFIG_PATH := $(QUIET_PC)$(if $(USER_PKG_CONFIG_PATH),:$(USER_PKG_CONFIG_PATH))
# make's builds leave out the SwiftPM plugins (Package.swift says why): tilecut is then
# compiled once per configuration instead of twice; plugin-test builds with them
export TILECUT_WITHOUT_PLUGINS := 1

.PHONY: deps test-deps quiet-pc build release run test bench install clean lint format build-quiet doc-test campus docs plugin-test

# Every Debian package the build needs (test-deps: and the tests); a fresh machine gets the missing ones.
deps test-deps:
	@if [ "$$(uname)" = Darwin ]; then \
	  command -v brew >/dev/null || { echo "tilecut on macOS needs Homebrew (https://brew.sh), then: brew install" $(BREW_PACKAGES) $(if $(filter test-deps,$@),$(BREW_TEST_PACKAGES) "&& brew install --cask" $(BREW_TEST_CASKS)); exit 1; }; \
	  missing=$$(for p in $(BREW_PACKAGES) $(if $(filter test-deps,$@),$(BREW_TEST_PACKAGES)); do \
	    brew list --formula $$p >/dev/null 2>&1 || echo $$p; done); \
	  if [ -n "$$missing" ]; then echo "installing" $$missing; brew install $$missing || exit 1; fi; \
	  $(if $(filter test-deps,$@),for c in $(BREW_TEST_CASKS); do brew list --cask $$c >/dev/null 2>&1 || brew install --cask $$c || exit 1; done;) \
	  exit 0; \
	fi; \
	missing=$$(for p in $(APT_PACKAGES) $(if $(filter test-deps,$@),$(APT_TEST_PACKAGES)); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "installing" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
	  echo "tilecut needs these Debian packages; run: sudo apt-get install -y" $$missing; exit 1; \
	fi$(if $(filter test-deps,$@),; $(PIP_TEST_DEPS))

# Writes into QUIET_PC a copy of every pkg-config file that says -pthread, without it.
# SwiftPM refuses -pthread in the flags of a system library ("prohibited flag(s)") with
# a warning per target on every build; glib, OpenEXR and harfbuzz (through libvips and
# librsvg) put it there. glibc 2.34+ and macOS need no -pthread to link. gdal.pc is
# written without its Libs: tilecut loads libgdal when a file first asks for it
# (Sources/CTilecutGDAL/TilecutGDAL.c), so that the hundred libraries it brings cost
# nothing to the jobs that never call it; a build without QUIET_PC links it, and works
# the same. The search order is pkg-config's: the caller's PKG_CONFIG_PATH, then its own.
quiet-pc:
	@set -eu; dir="$(QUIET_PC)"; mkdir -p "$$dir"; seen=" "; \
	for d in $$(printf '%s' "$(USER_PKG_CONFIG_PATH)" | tr ':' ' ') $$(pkg-config --variable pc_path pkg-config | tr ':' ' '); do \
	  [ "$$d" = "$$dir" ] && continue; \
	  for f in "$$d"/*.pc; do \
	    [ -f "$$f" ] || continue; \
	    name=$$(basename "$$f"); \
	    case "$$seen" in *" $$name "*) continue ;; esac; \
	    seen="$$seen$$name "; \
	    if [ "$$name" = gdal.pc ]; then \
	      sed -e 's/-pthread//g' -e 's/^Libs:.*/Libs:/' -e '/^Libs.private:/d' "$$f" >"$$dir/$$name"; \
	    elif grep -q -- '-pthread' "$$f"; then sed -e 's/-pthread//g' "$$f" >"$$dir/$$name"; fi; \
	  done; \
	done

build: deps quiet-pc
	$(SWIFT) build

release: deps quiet-pc
	$(SWIFT) build -c release

# A build prints no warning: the build log is kept and read (make test runs it).
build-quiet: deps quiet-pc
	@$(SWIFT) build --build-tests >.build/build.log 2>&1; status=$$?; cat .build/build.log; exit $$status
	@if grep -n "warning:" .build/build.log; then echo "the build printed warnings (above)"; exit 1; fi

# Tiles the bundled floor plan into examples/out (256 + 512 px, manifest, preview page).
run: release
	.build/release/tilecut $(EXAMPLE) $(EXAMPLE_PLACEMENT) -o examples/out --preview --knockout white:8 --retina-depth native $(EXAMPLE_BASEMAP)
	@echo "open examples/out/preview.html to look at the tiles"

# Builds the campus example (two buildings, one overlapping the other, floors placed
# each their own way) from examples/campus/tilecut.yml, with a preview page.
campus: release
	.build/release/tilecut build examples/campus/tilecut.yml
	@echo "open examples/campus/tiles/preview.html to look at the tiles"

# The tool's tests, then the iOS client package's (its Linux parts), against a
# real output of the tilecut just built (gdal-bin and python3-gdal make and decode
# an MBTiles file independently of the client).
# swift format against the committed .swift-format; `make format` rewrites in place
SWIFT_SOURCES = Package.swift Sources Tests examples/client/Package.swift examples/client/Sources examples/client/Tests \
  examples/plugin-app/Package.swift examples/plugin-app/Sources

lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format --in-place --recursive $(SWIFT_SOURCES)

# Every ```sh block of README.md and examples/README.md, run in order in a scratch
# copy with the release build (Tests/scripts/doc-test.sh)
doc-test: release
	sh Tests/scripts/doc-test.sh .build/release/tilecut

# The release build comes first: the documentation test needs it, and the fuzz suite
# runs its 3,000 cases on it (a debug binary starts three times slower).
test: test-deps quiet-pc lint build-quiet release
	$(SWIFT) test
	sh Tests/scripts/doc-test.sh .build/release/tilecut
	TILECUT=$$($(SWIFT) build --show-bin-path)/tilecut $(SWIFT) test --package-path examples/client
	$(MAKE) plugin-test

# The SwiftPM plugins on examples/plugin-app, an app package that lists the build-tool
# plugin (Tests/scripts/plugin-test.sh): its swift build (scratch .build-plugin-app, where
# tilecut is built once more for the plugin), the MBTiles in its bundle, a tile read
# back through OfflineTiles(bundle:), and `swift package tilecut build` in a copy.
plugin-test: quiet-pc
	env -u TILECUT_WITHOUT_PLUGINS bash Tests/scripts/plugin-test.sh

bench: release
	TILECUT=$(CURDIR)/.build/release/tilecut bash bench/run.sh
	TILECUT=$(CURDIR)/.build/release/tilecut bash bench/campus.sh
	/usr/bin/python3 bench/resampling.py $(CURDIR)/.build/release/tilecut
	/usr/bin/python3 bench/pmtiles_store.py $(CURDIR)/.build/release/tilecut
	TILECUT=$(CURDIR)/.build/release/tilecut python3 bench/photo_dzsave.py

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 .build/release/tilecut $(DESTDIR)$(PREFIX)/bin/tilecut

clean:
	rm -rf .build .build-plugin-app examples/out examples/out-* examples/campus/tiles
	$(MAKE) -C examples/make clean

# The Tilecut library's DocC documentation (swift-docc-plugin); a warning fails it.
docs: quiet-pc
	@$(SWIFT) package generate-documentation --target Tilecut >.build/docs.log 2>&1; status=$$?; cat .build/docs.log; exit $$status
	@if grep -n "warning:" .build/docs.log; then echo "the documentation build printed warnings (above)"; exit 1; fi
