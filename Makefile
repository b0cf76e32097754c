# What a person runs: make run, make test, make bench, make install.
SWIFT ?= swift
PREFIX ?= /usr/local
# libvips (with libdeflate), poppler-glib, librsvg and cairo (PDF pages and SVG
# drawings rendered in bands), ISA-L (the PNG reader's inflate), PROJ with its data,
# libgeotiff, SQLite; strace for the test that proves no other program is started;
# GDAL for the client package's tests; zsh and fish for the completion tests
APT_PACKAGES = libvips-dev libpoppler-glib-dev librsvg2-dev libcairo2-dev libdeflate-dev libisal-dev libproj-dev proj-data libgeotiff-dev libgdal-dev libsqlite3-dev strace gdal-bin python3-gdal zsh fish
EXAMPLE = examples/floorplan/office.png

.PHONY: deps build release run test bench install clean lint format

# Every Debian package the build and the tests need; a fresh machine gets the missing ones.
deps:
	@missing=$$(for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "installing" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	else \
	  echo "tilecut needs these Debian packages; run: sudo apt-get install -y" $$missing; exit 1; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Tiles the bundled floor plan into examples/out (256 + 512 px, manifest, preview page).
run: release
	.build/release/tilecut $(EXAMPLE) -o examples/out --preview --knockout white:8
	@echo "open examples/out/preview.html to look at the tiles"

# The tool's tests, then the iOS client package's (its Linux parts), against a
# real output of the tilecut just built (gdal-bin and python3-gdal make and decode
# an MBTiles file independently of the client).
# swift format against the committed .swift-format; `make format` rewrites in place
SWIFT_SOURCES = Package.swift Sources Tests examples/client/Package.swift examples/client/Sources examples/client/Tests

lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format --in-place --recursive $(SWIFT_SOURCES)

test: deps lint
	$(SWIFT) test
	$(SWIFT) build
	TILECUT=$$($(SWIFT) build --show-bin-path)/tilecut $(SWIFT) test --package-path examples/client

bench: release
	TILECUT=$(CURDIR)/.build/release/tilecut bash bench/run.sh

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 .build/release/tilecut $(DESTDIR)$(PREFIX)/bin/tilecut

clean:
	rm -rf .build examples/out
