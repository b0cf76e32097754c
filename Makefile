# What a person runs: make run, make test, make bench, make install.
SWIFT ?= swift
PREFIX ?= /usr/local
APT_PACKAGES = libvips-dev libdeflate-dev libisal-dev
EXAMPLE = examples/floorplan/office.png

.PHONY: deps build release run test bench install clean

# libvips (and libdeflate, which libvips' TIFF support brings anyway) and ISA-L
# (the inflate of the PNG reader) from Debian.
deps:
	@if pkg-config --exists vips && [ -f /usr/include/libdeflate.h ] && pkg-config --exists libisal; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  echo "installing $(APT_PACKAGES)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES) >/dev/null; \
	else \
	  echo "tilecut needs libvips, libdeflate and ISA-L; run: sudo apt-get install -y $(APT_PACKAGES)"; exit 1; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

# Tiles the bundled floor plan into examples/out (256 + 512 px, manifest, preview page).
run: release
	.build/release/tilecut $(EXAMPLE) -o examples/out --preview --knockout white:8
	@echo "open examples/out/preview.html to look at the tiles"

test: deps
	$(SWIFT) test

bench: release
	TILECUT=$(CURDIR)/.build/release/tilecut bash bench/run.sh

install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 .build/release/tilecut $(DESTDIR)$(PREFIX)/bin/tilecut

clean:
	rm -rf .build examples/out
