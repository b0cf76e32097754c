# What a person runs: make run, make test, make bench, make install.
SWIFT ?= swift
# make install: PREFIX and DESTDIR as usual; the completions go where each shell looks
# under PREFIX (make deb overrides zsh's for Debian's fpath)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/tilecut
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(PREFIX)/share/zsh/site-functions
FISH_COMPLETION_DIR ?= $(PREFIX)/share/fish/vendor_completions.d
# the release in Sources/Tilecut/Version.swift, and the package's name for it
VERSION := $(shell sed -n 's/^public let tilecutVersion = "\(.*\)"$$/\1/p' Sources/Tilecut/Version.swift)
DEB_REVISION = 1
DEB_ARCH = $(shell dpkg --print-architecture)
DEB = tilecut_$(VERSION)-$(DEB_REVISION)_$(DEB_ARCH).deb
# The commit `tilecut --version` names (Sources/CTilecutBuildInfo): a one-symbol object
# named by the commit, .build/commit/<id>.o, linked into the release build; a new commit
# relinks and recompiles nothing, the same commit does nothing, and nothing is written
# into the tree. "-dirty": tracked files differ from the commit. No git, no object: the
# binary says "unknown commit" (as from plain `swift build` or the SwiftPM plugins).
GIT_COMMIT := $(shell git rev-parse --short=7 HEAD 2>/dev/null)
COMMIT := $(if $(GIT_COMMIT),$(GIT_COMMIT)$(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty))
COMMIT_OBJ = $(if $(COMMIT),.build/commit/$(COMMIT).o)
# On Linux the release binary carries the Swift runtime (--static-swift-stdlib): it runs,
# and installs as a .deb, where no Swift toolchain is (macOS has the runtime in the OS).
# Its code is linked by the toolchain's lld in the order of Sources/tilecut/link-order.txt
# (the functions typical jobs run, first; bench/symbol_order.py writes it: make
# link-order), each function in a section of its own so that the order can place it,
# and the relative relocations packed (DT_RELR, glibc 2.36): a job then keeps 12 MB of
# the binary resident instead of 18 (bench/README.md, "Code pages").
LINK_ORDER = Sources/tilecut/link-order.txt
LINUX := $(filter Linux,$(shell uname -s))
LINUX_COMPILE_FLAGS = -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld
LINUX_LINK_FLAGS = -Xlinker --symbol-ordering-file=$(CURDIR)/$(LINK_ORDER) -Xlinker --no-warn-symbol-ordering \
  -Xlinker -z -Xlinker pack-relative-relocs
LINK_COMMIT = $(if $(COMMIT_OBJ),-Xlinker $(CURDIR)/$(COMMIT_OBJ))
RELEASE_FLAGS = $(if $(LINUX),--static-swift-stdlib $(LINUX_COMPILE_FLAGS) $(LINUX_LINK_FLAGS)) $(LINK_COMMIT)
# libvips (with libdeflate), libwebp and libjpeg (WebP and JPEG tiles encoded from the strip), poppler-glib, librsvg and cairo (PDF pages and SVG
# drawings rendered in bands), ISA-L (the PNG reader's inflate), PROJ with its data,
# libgeotiff, SQLite, Nettle (SHA-256), libcurl (PMTiles over http on Linux), qpdf (scanned PDF pages read from their images; every PDF checked page by page before poppler reads it), GDAL's library
# (georeferencing read as GDAL reads it), libzip (a KMZ overlay's document and image read
# from the archive in memory, never extracted), DejaVu Sans Condensed (DXF texts are drawn
# in it, as ezdxf draws SHX and missing fonts; only fonts-dejavu-extra has it), xxHash's
# header (XXH3-128, the digests of a source's pixel blocks, compiled in): what
# building and running tilecut needs (make run)
APT_PACKAGES = fonts-dejavu-extra zlib1g-dev libvips-dev libpoppler-glib-dev librsvg2-dev libcairo2-dev libdeflate-dev libwebp-dev libjpeg-dev libisal-dev libproj-dev proj-data libgeotiff-dev libsqlite3-dev libqpdf-dev libgdal-dev nettle-dev libcurl4-openssl-dev libzip-dev libxxhash-dev
# what only the tests need (make test): strace for the test that proves no other
# program is started; GDAL for the client package's tests and the browser tests' geometry;
# zsh and fish for the completion tests; Chromium, driven headless over the DevTools
# protocol (--remote-debugging-pipe) by Tests/browser/drive.py (no selenium or chromedriver);
# help2man (the man page) and dpkg-dev (dpkg-shlibdeps) for make install and make deb, which
# Tests/scripts/deb-test.sh builds, installs with apt-get and removes
APT_TEST_PACKAGES = strace gdal-bin python3-gdal zsh fish chromium help2man dpkg-dev
# from PyPI for the python3 on the path (the tests' independent PMTiles reader and writer,
# protomaps' own; make bench's rio-pmtiles; jsonschema, the independent validator of every
# --json against examples/json-schema; ezdxf's drawing add-on on matplotlib, the independent
# DXF renderer of Tests/scripts/dxf-ink-compare.py), installed where missing
PIP_TEST_PACKAGES = pmtiles==3.8.1 jsonschema==4.26.0 ezdxf==1.4.5 matplotlib==3.11.2
PIP_TEST_DEPS = python3 -c 'import pmtiles, jsonschema, ezdxf, matplotlib' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check $(PIP_TEST_PACKAGES)
# macOS (uname Darwin): the same libraries from Homebrew (gdal brings its command-line
# tools and Python bindings; zsh ships with macOS; Chromium is a cask; there is no strace,
# the test that uses it cannot run there). Never run on a Mac here: see Sources/Tilecut/Tilecut.docc/Development.md, "On macOS".
BREW_PACKAGES = pkgconf vips isa-l libdeflate webp jpeg-turbo poppler librsvg cairo proj libgeotiff sqlite qpdf gdal nettle libzip xxhash
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
# make's debug builds compile the pixel code and its suites optimised (Package.swift says
# why: the in-process pyramid suites ran 100× slower unoptimised); the packages that
# depend on tilecut by path (the client, the plugin app) are built without it
export TILECUT_OPTIMIZED_TESTS := 1

.PHONY: deps test-deps test-only-deps quiet-pc build release run test bench install uninstall deb release-check clean distclean lint format build-quiet \
  doc-test campus docs plugin-test plugin-test-niced client-build-niced notice link-order \
  test-suites test-docs-niced test-deb-niced test-client-niced

# (in the recipe below: whether the target installs the build's packages, the tests')
BUILD_TOO = $(filter deps test-deps,$@)
TESTS_TOO = $(filter test-deps test-only-deps,$@)
# Every Debian package the build needs (test-deps: and the tests; test-only-deps: the
# tests' alone, which make test installs while it builds); a fresh machine gets the
# missing ones.
deps test-deps test-only-deps:
	@if [ "$$(uname)" = Darwin ]; then \
	  command -v brew >/dev/null || { echo "tilecut on macOS needs Homebrew (https://brew.sh), then: brew install" $(BREW_PACKAGES) $(if $(TESTS_TOO),$(BREW_TEST_PACKAGES) "&& brew install --cask" $(BREW_TEST_CASKS)); exit 1; }; \
	  missing=$$(for p in $(if $(BUILD_TOO),$(BREW_PACKAGES)) $(if $(TESTS_TOO),$(BREW_TEST_PACKAGES)); do \
	    brew list --formula $$p >/dev/null 2>&1 || echo $$p; done); \
	  if [ -n "$$missing" ]; then echo "installing" $$missing; brew install $$missing || exit 1; fi; \
	  $(if $(TESTS_TOO),for c in $(BREW_TEST_CASKS); do brew list --cask $$c >/dev/null 2>&1 || brew install --cask $$c || exit 1; done;) \
	  exit 0; \
	fi; \
	missing=$$(for p in $(if $(BUILD_TOO),$(APT_PACKAGES)) $(if $(TESTS_TOO),$(APT_TEST_PACKAGES)); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "installing" $$missing; \
	  $(if $(BUILD_TOO),apt-get update -qq && ,)DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null \
	    $(if $(BUILD_TOO),,|| { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }) \
	    || exit 1; \
	else \
	  echo "tilecut needs these Debian packages; run: sudo apt-get install -y" $$missing; exit 1; \
	fi$(if $(TESTS_TOO),; $(PIP_TEST_DEPS) || exit 1)

# Writes into QUIET_PC a copy of every pkg-config file that says -pthread, without it.
# SwiftPM refuses -pthread in the flags of a system library ("prohibited flag(s)") with
# a warning per target on every build; glib, OpenEXR and harfbuzz (through libvips and
# librsvg) put it there. glibc 2.34+ and macOS need no -pthread to link. gdal.pc and
# proj.pc are written without their Libs: tilecut loads libgdal when a file first asks
# for it (Sources/CTilecutGDAL/TilecutGDAL.c), and PROJ with libgeotiff when a CRS is
# first read (Sources/CGeoShim/include/TilecutProj.h), so that they cost nothing to the
# jobs that never call them; a build without QUIET_PC links them, and works
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
	    if [ "$$name" = gdal.pc ] || [ "$$name" = proj.pc ]; then \
	      sed -e 's/-pthread//g' -e 's/^Libs:.*/Libs:/' -e '/^Libs.private:/d' "$$f" >"$$dir/$$name"; \
	    elif grep -q -- '-pthread' "$$f"; then sed -e 's/-pthread//g' "$$f" >"$$dir/$$name"; fi; \
	  done; \
	done

build: deps quiet-pc
	$(SWIFT) build

# The static Foundation's one link-time note (glibc's "the use of `mktemp' is dangerous",
# for a function of Foundation's that tilecut never calls) is left out of the output.
release: deps quiet-pc $(COMMIT_OBJ)
	@echo "$(SWIFT) build -c release $(RELEASE_FLAGS)"
	@{ $(SWIFT) build -c release $(RELEASE_FLAGS) 2>&1; echo $$? >.build/release.status; } | grep -v "the use of .mktemp' is dangerous"; \
	  exit $$(cat .build/release.status)

.build/commit/%.o:
	@mkdir -p $(@D)
	@printf 'const char tc_build_commit_id[] = "%s";\n' '$*' >$(@D)/$*.c
	@$(CC) -c -fPIC -o $@ $(@D)/$*.c

# make test's build: optimised, with -enable-testing for the suites' @testable imports,
# with the release build's compile flags, in a scratch of its own (.build-test). It is
# make test's only compile. SwiftPM cannot build the suites with the Swift runtime
# static (--static-swift-stdlib compiles every module against the static resource
# directory, where Swift Testing and XCTest are not), and a second build with that flag
# compiled every module again (about as long as this one). So the tilecut under test
# (TEST_BINARY) is linked from this build's objects by Tests/scripts/link-static.py, as
# make release links it: the runtime static, lld, the symbol order, the commit. It
# differs from the release binary only in -enable-testing (internal symbols kept
# visible), which tiles nothing differently. Optimised suites also run faster than the
# debug build's, and a release build compiles in less CPU than a debug one.
TEST_SCRATCH = .build-test
TEST_FLAGS = -c release -Xswiftc -enable-testing --scratch-path $(TEST_SCRATCH) $(if $(LINUX),$(LINUX_COMPILE_FLAGS))
TEST_BINARY = $(TEST_SCRATCH)/static/tilecut

# A build prints no warning: the build log is kept and read (make test runs it).
build-quiet: deps quiet-pc
	@mkdir -p $(TEST_SCRATCH)
	@$(SWIFT) build $(TEST_FLAGS) --build-tests >$(TEST_SCRATCH)/build.log 2>&1; status=$$?; cat $(TEST_SCRATCH)/build.log; exit $$status
	@if grep -n "warning:" $(TEST_SCRATCH)/build.log; then echo "the build printed warnings (above)"; exit 1; fi

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

# Every ```sh block of README.md, the guides (Sources/Tilecut/Tilecut.docc), bench/README.md
# and the examples' READMEs, run in order in a scratch copy with the release build, in sh
# and in zsh (Tests/scripts/doc-test.sh)
doc-test: release
	sh Tests/scripts/doc-test.sh .build/release/tilecut

# The tilecut under test, linked as make release links it from make test's build
# (above); elsewhere than Linux, the build's own binary (the runtime is in the OS).
$(TEST_BINARY): build-quiet $(COMMIT_OBJ)
ifneq ($(LINUX),)
	python3 Tests/scripts/link-static.py $(TEST_SCRATCH) release tilecut $@ $(LINUX_LINK_FLAGS) $(LINK_COMMIT)
else
	@mkdir -p $(@D) && cp $(TEST_SCRATCH)/release/tilecut $@
endif

# make test's one build, the lint, the plugins' test and the client package's build run
# at the same time: the build compiles its modules one after another (each a
# whole-module job), so it keeps one of two cores idle for most of its time; the
# plugins' test (which builds tilecut for the plugin, in debug) and the client's build
# take that core (niced, so that the build's own jobs go first), and the tests'
# packages are installed meanwhile. The suites then run the tilecut linked from the
# build as the binary under test (TILECUT_TEST_BINARY: linked as the one users get),
# and so do the documentation test, the Debian package's test and the client's tests,
# beside them on the core the suites leave idle; the fuzz suite runs its 3,000 cases on
# it (a debug binary starts three times slower).
test: deps quiet-pc
	@$(MAKE) --no-print-directory -o deps -o quiet-pc -j4 --output-sync=target lint $(TEST_BINARY) plugin-test-niced client-build-niced test-only-deps
	@$(MAKE) --no-print-directory -o deps -o quiet-pc -j4 --output-sync=target test-suites test-docs-niced test-deb-niced test-client-niced

# (make test's) the suites, and beside them, niced so that the suites' own jobs go
# first, the documentation's blocks, the Debian package and the client's tests: each
# runs the tilecut under test and writes only into its own scratch. (The makes they
# start get no MAKEFLAGS: this make's jobserver is not theirs.) make test's sub-makes
# take deps and quiet-pc as made (-o): a second apt-get or a rewrite of the .pc files
# beside the build would race with it.
test-suites:
	MAKEFLAGS= TILECUT_TEST_BINARY=$(CURDIR)/$(TEST_BINARY) $(SWIFT) test $(TEST_FLAGS) --skip-build
test-docs-niced:
	MAKEFLAGS= nice -n 10 sh Tests/scripts/doc-test.sh $(TEST_BINARY)
test-deb-niced:
	MAKEFLAGS= RELEASE_BINARY=$(TEST_BINARY) nice -n 10 bash Tests/scripts/deb-test.sh
test-client-niced:
	MAKEFLAGS= TILECUT=$(CURDIR)/$(TEST_BINARY) env -u TILECUT_OPTIMIZED_TESTS nice -n 10 $(SWIFT) test --package-path examples/client --skip-build

# (make test's) the plugins' test and the client package's build, at a lower priority
plugin-test-niced: quiet-pc test-only-deps
	env -u TILECUT_WITHOUT_PLUGINS -u TILECUT_OPTIMIZED_TESTS nice -n 10 bash Tests/scripts/plugin-test.sh
client-build-niced:
	env -u TILECUT_OPTIMIZED_TESTS nice -n 10 $(SWIFT) build --package-path examples/client --build-tests

# The SwiftPM plugins on examples/plugin-app, an app package that lists the build-tool
# plugin (Tests/scripts/plugin-test.sh): its swift build (scratch .build-plugin-app, where
# tilecut is built once more for the plugin), the MBTiles in its bundle, a tile read
# back through OfflineTiles(bundle:), and `swift package tilecut build` in a copy.
plugin-test: quiet-pc
	env -u TILECUT_WITHOUT_PLUGINS -u TILECUT_OPTIMIZED_TESTS bash Tests/scripts/plugin-test.sh

# Sources/tilecut/link-order.txt anew from the release build (valgrind's callgrind on
# typical jobs: bench/symbol_order.py); the binary is removed, so that the next make
# release links it in the new order
link-order: release
	python3 bench/symbol_order.py --binary .build/release/tilecut --out $(LINK_ORDER)
	rm -f .build/release/tilecut

bench: release
	TILECUT=$(CURDIR)/.build/release/tilecut bash bench/run.sh
	TILECUT=$(CURDIR)/.build/release/tilecut bash bench/campus.sh
	TILECUT=$(CURDIR)/.build/release/tilecut python3 bench/incremental.py
	/usr/bin/python3 bench/resampling.py $(CURDIR)/.build/release/tilecut
	/usr/bin/python3 bench/pmtiles_store.py $(CURDIR)/.build/release/tilecut
	TILECUT=$(CURDIR)/.build/release/tilecut python3 bench/photo_dzsave.py
	TILECUT=$(CURDIR)/.build/release/tilecut python3 bench/dxf.py
	TILECUT=$(CURDIR)/.build/release/tilecut python3 bench/cost_curve.py

# make install / make uninstall: copy the release build, never make it: run `make release`
# as yourself first, then `sudo make install` (a build as root would leave root's files in
# .build). Installs the binary, its man page (help2man, from --help), the bash, zsh and
# fish completions it generates, and LICENSE and NOTICE.
RELEASE_BINARY = .build/release/tilecut
release-check:
	@if [ ! -x $(RELEASE_BINARY) ] || [ -n "$$(find Package.swift Sources -newer $(RELEASE_BINARY) -type f 2>/dev/null | head -1)" ]; then \
	  echo "error: $(RELEASE_BINARY) is missing or older than the sources: run make release first (as yourself)" >&2; exit 1; fi

install: release-check
	@command -v help2man >/dev/null || { echo "error: make install needs help2man for the man page: apt-get install help2man (or brew install help2man)" >&2; exit 1; }
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR) \
	  $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR) $(DESTDIR)$(FISH_COMPLETION_DIR)
	install -m 0755 $(RELEASE_BINARY) $(DESTDIR)$(BINDIR)/tilecut
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || date +%s) \
	  help2man --no-info --locale C.UTF-8 --name 'slice large images into Web-Mercator tile pyramids' $(RELEASE_BINARY) \
	  | gzip -9n >$(DESTDIR)$(MANDIR)/man1/tilecut.1.gz
	chmod 0644 $(DESTDIR)$(MANDIR)/man1/tilecut.1.gz
	$(RELEASE_BINARY) --generate-completion-script bash >$(DESTDIR)$(BASH_COMPLETION_DIR)/tilecut
	$(RELEASE_BINARY) --generate-completion-script zsh >$(DESTDIR)$(ZSH_COMPLETION_DIR)/_tilecut
	$(RELEASE_BINARY) --generate-completion-script fish >$(DESTDIR)$(FISH_COMPLETION_DIR)/tilecut.fish
	chmod 0644 $(DESTDIR)$(BASH_COMPLETION_DIR)/tilecut $(DESTDIR)$(ZSH_COMPLETION_DIR)/_tilecut $(DESTDIR)$(FISH_COMPLETION_DIR)/tilecut.fish
	install -m 0644 LICENSE NOTICE $(DESTDIR)$(DOCDIR)

# What install wrote, and nothing else (the directories only when left empty).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tilecut $(DESTDIR)$(MANDIR)/man1/tilecut.1.gz \
	  $(DESTDIR)$(BASH_COMPLETION_DIR)/tilecut $(DESTDIR)$(ZSH_COMPLETION_DIR)/_tilecut $(DESTDIR)$(FISH_COMPLETION_DIR)/tilecut.fish \
	  $(DESTDIR)$(DOCDIR)/LICENSE $(DESTDIR)$(DOCDIR)/NOTICE
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null

# tilecut_<version>-1_<arch>.deb (Debian 12 and its kin) from the release build, with
# dpkg-deb: what make install puts under /usr, LICENSE and NOTICE as the copyright file,
# Depends computed by dpkg-shlibdeps from the binary, and from a probe linked with the
# libgdal, libproj and libgeotiff that tilecut loads at run time (dlopen: invisible in the binary's needs).
DEB_DIR = .build/deb
deb: release-check
	@command -v dpkg-shlibdeps >/dev/null || { echo "error: make deb needs dpkg-dev: apt-get install dpkg-dev" >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/root/DEBIAN $(DEB_DIR)/debian
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(DEB_DIR)/root PREFIX=/usr ZSH_COMPLETION_DIR=/usr/share/zsh/vendor-completions
	rm $(DEB_DIR)/root/usr/share/doc/tilecut/LICENSE $(DEB_DIR)/root/usr/share/doc/tilecut/NOTICE
	# stripped as Debian strips (92 MB → 65 MB here); the build keeps its symbols
	strip --strip-unneeded --remove-section=.comment --remove-section=.note $(DEB_DIR)/root/usr/bin/tilecut
	{ echo "tilecut is under the MIT License:"; echo; cat LICENSE; echo; cat NOTICE; } >$(DEB_DIR)/root/usr/share/doc/tilecut/copyright
	mkdir -p $(DEB_DIR)/probe/DEBIAN
	printf 'void GDALAllRegister(void);\nvoid *proj_context_create(void);\nvoid *GTIFNew(void *);\nint main(void) { GDALAllRegister(); proj_context_create(); GTIFNew(0); return 0; }\n' \
	  | $(CC) -x c -o $(DEB_DIR)/probe/gdal-probe - $$(pkg-config --libs-only-L gdal 2>/dev/null) -lgdal -lproj -lgeotiff
	printf 'Source: tilecut\n\nPackage: tilecut\nArchitecture: any\n' >$(DEB_DIR)/debian/control
	# --warnings=1: not the note that librsvg's flags link gdk-pixbuf, which tilecut never calls.
	# dpkg 1.21's "binaries to analyze should already be installed in their package's
	# directory" is printed for every binary (its check reads an empty variable): left out.
	cd $(DEB_DIR) && dpkg-shlibdeps --warnings=1 -O -e root/usr/bin/tilecut -e probe/gdal-probe 2>shlibdeps.log \
	  | sed -n 's/^shlibs:Depends=//p' >depends; grep -v "binaries to analyze should already be installed" shlibdeps.log >&2; true
	test -s $(DEB_DIR)/depends
	# packed relocations (DT_RELR, RELEASE_FLAGS) need glibc 2.36, which dpkg-shlibdeps does not see
	if readelf -V $(DEB_DIR)/root/usr/bin/tilecut | grep -q GLIBC_ABI_DT_RELR; then \
	  v=$$(sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p' $(DEB_DIR)/depends); \
	  if [ -n "$$v" ] && dpkg --compare-versions "$$v" lt 2.36; then sed -i 's/libc6 (>= [^)]*)/libc6 (>= 2.36)/' $(DEB_DIR)/depends; fi; \
	fi
	{ echo "Package: tilecut"; echo "Version: $(VERSION)-$(DEB_REVISION)"; echo "Architecture: $(DEB_ARCH)"; \
	  echo "Maintainer: tilecut contributors <tilecut@users.noreply.github.com>"; \
	  echo "Installed-Size: $$(du -sk --exclude=DEBIAN $(DEB_DIR)/root | cut -f1)"; \
	  echo "Depends: $$(cat $(DEB_DIR)/depends), fonts-dejavu-extra"; echo "Section: graphics"; echo "Priority: optional"; \
	  echo "Homepage: https://github.com/example/tilecut"; \
	  echo "Description: slice large images into Web-Mercator tile pyramids"; \
	  echo " tilecut slices floor plans, overlays, GeoTIFFs, PDFs and SVGs into XYZ tile"; \
	  echo " pyramids (a directory, MBTiles or PMTiles) with a manifest, for map apps."; \
	} >$(DEB_DIR)/root/DEBIAN/control
	dpkg-deb --root-owner-group -Zgzip -z6 --build $(DEB_DIR)/root $(DEB)
	@echo "$(DEB): install with apt-get install ./$(DEB)"

# Sources/TilecutCLI/Notice.swift from NOTICE (VersionTests checks that they agree)
notice:
	@{ printf '%s\n' '// Generated from NOTICE by `make notice`; do not edit (VersionTests checks that the two agree).' '' \
	  '/// The NOTICE file, printed by `tilecut --version --verbose`.' 'package let noticeText = #"""'; \
	  sed -e 's/^./  &/' NOTICE; printf '%s\n' '  """#'; } >Sources/TilecutCLI/Notice.swift

# The outputs: what make run, campus, deb and the plugin test wrote. The build stays
# (a rebuild takes minutes); make distclean removes it too.
clean:
	rm -rf .build-plugin-app examples/out examples/out-* examples/campus/tiles .build/deb tilecut_*.deb
	$(MAKE) -C examples/make clean

distclean: clean
	rm -rf .build $(TEST_SCRATCH)

# The Tilecut library's DocC documentation (swift-docc-plugin); a warning fails it.
docs: quiet-pc
	@$(SWIFT) package generate-documentation --target Tilecut >.build/docs.log 2>&1; status=$$?; cat .build/docs.log; exit $$status
	@if grep -n "warning:" .build/docs.log; then echo "the documentation build printed warnings (above)"; exit 1; fi
