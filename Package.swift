// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
  name: "tilecut",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "tilecut", targets: ["tilecut"]),
    .library(name: "TilecutCore", targets: ["TilecutCore"]),
    .library(name: "Tilecut", targets: ["Tilecut"]),
    .library(name: "TilecutPMTiles", targets: ["TilecutPMTiles"]),
    // `swift package tilecut build` and the app target's build-tool plugin (README "In an Xcode project")
    .plugin(name: "TilecutCommandPlugin", targets: ["TilecutCommandPlugin"]),
    .plugin(name: "TilecutBuildPlugin", targets: ["TilecutBuildPlugin"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    // `make docs`: the Tilecut library's DocC documentation
    .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
  ],
  targets: [
    .systemLibrary(
      name: "CVips",
      pkgConfig: "vips",
      providers: [.apt(["libvips-dev"]), .brew(["vips"])]
    ),
    .systemLibrary(
      name: "CISAL",
      pkgConfig: "libisal",
      providers: [.apt(["libisal-dev"]), .brew(["isa-l"])]
    ),
    .systemLibrary(
      name: "CDeflate",
      pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]
    ),
    // C targets by concern; no unsafeFlags in any: SwiftPM's release -O2 (-O3 saved
    // 3.5 % of CPU, measured), and a package with unsafe flags cannot be a dependency.
    // libvips glue, the ISA-L PNG reader (a libvips image source) and pixel operations
    // the PNG reader: ISA-L's inflate and libdeflate's checksums, a libvips image source
    .target(name: "CTilecutPNGRead", dependencies: ["CVips", "CISAL", "CDeflate", "CVipsShim", "CTilecutInputCheck", "CTilecutPNG"]),
    // the input checks: a file's structure (PNG chunks and stream, JPEG markers, GIF blocks,
    // TIFF strips, a PDF's nesting and scans) read before any decoder allocates for it
    .target(name: "CTilecutInputCheck", dependencies: ["CVips", "CISAL", "CDeflate", "CVipsShim"]),
    .target(
      name: "CVipsShim", dependencies: ["CVips", "CISAL", "CDeflate", "CTilecutPlatform", "CTilecutGDAL"],
      // libjpeg (libvips' own): a JPEG's whole scan decoded once, any warning an error (TilecutJPEGScan.h);
      // GLib's gmodule (libvips' own): the two libvips modules tilecut reads with (tc_init)
      linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("gmodule-2.0")]),
    // the PNG writer (libdeflate) and the resampler: plain C, no libvips
    .target(name: "CTilecutPNG", dependencies: ["CDeflate"]),
    .target(name: "CTilecutResample", dependencies: ["CDeflate"]),
    // WebP and JPEG tiles straight from the strip: libwebp (libwebp-dev, a libvips dependency)
    // and libjpeg (libvips' own), no libvips image per tile; CVips only for the headers' paths
    // (Homebrew's prefix, which vips' pkg-config file names)
    .target(name: "CTilecutLossy", dependencies: ["CVips"], linkerSettings: [.linkedLibrary("webp"), .linkedLibrary("jpeg")]),
    // poppler through its GLib API, with cairo: PDF pages rendered in bands (CTilecutDocument)
    .systemLibrary(
      name: "CPoppler",
      pkgConfig: "poppler-glib",
      providers: [.apt(["libpoppler-glib-dev", "libcairo2-dev"]), .brew(["poppler", "cairo"])]
    ),
    // librsvg with cairo: SVG drawings rendered in bands (CTilecutDocument)
    .systemLibrary(
      name: "CRsvg",
      pkgConfig: "librsvg-2.0",
      providers: [.apt(["librsvg2-dev", "libcairo2-dev"]), .brew(["librsvg", "cairo"])]
    ),
    // with qpdf's C API (libqpdf-dev): a PDF's objects and raw streams, for pages that are only images
    .target(
      name: "CTilecutDocument", dependencies: ["CVips", "CVipsShim", "CPoppler", "CRsvg"],
      // a CAD drawing's display list (CTilecutGDAL's TilecutDrawing.h), read through the lazily loaded libgdal
      cSettings: [.headerSearchPath("../CTilecutGDAL/include")], linkerSettings: [.linkedLibrary("qpdf")]),
    // qpdf's C++ API (libqpdf-dev): every page's content, forms and images read before poppler
    // sees a PDF, decoded through a pipeline that stops at a bound (TilecutPDFScan.h); a target
    // of its own, so that no Swift module imports libvips through C++
    .target(name: "CTilecutPDFScan", linkerSettings: [.linkedLibrary("qpdf"), .linkedLibrary("z")]),
    .systemLibrary(
      name: "CSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    // libzip (libzip-dev): a KMZ's document and image read from the archive in memory, never extracted
    .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"]), .brew(["libzip"])]),
    .systemLibrary(name: "CProj", pkgConfig: "proj", providers: [.apt(["libproj-dev", "proj-data"]), .brew(["proj"])]),
    .systemLibrary(name: "CGeoTIFF", providers: [.apt(["libgeotiff-dev"]), .brew(["libgeotiff"])]),
    // PROJ and libgeotiff are loaded when a CRS or a TIFF's tags are first read, not linked
    // (TilecutProj.h says why); make's quiet-pc writes proj.pc without its Libs
    .target(name: "CGeoShim", dependencies: ["CGeoTIFF", "CProj", "CTilecutPlatform"], linkerSettings: [.linkedLibrary("tiff")]),
    // libgdal reads georeferencing (metadata only) as GDAL does; libvips reads the pixels
    .systemLibrary(name: "CGDAL", pkgConfig: "gdal", providers: [.apt(["libgdal-dev"]), .brew(["gdal"])]),
    .target(name: "CTilecutGDAL", dependencies: ["CGDAL", "CTilecutPlatform"]),
    // every call that differs between Linux and macOS (renameat2 / renamex_np, mallopt, write)
    .target(name: "CTilecutPlatform"),
    // the commit `tilecut --version` names: "" unless `make` links in .build/commit/<id>.o (TilecutBuildInfo.h)
    .target(name: "CTilecutBuildInfo"),
    // SHA-256 of tiles, sources and store files: Nettle (nettle-dev), whose SHA-256 needs no
    // start-up (OpenSSL's first digest set up its providers: 2 MB more resident in every run)
    .systemLibrary(name: "CNettle", pkgConfig: "nettle", providers: [.apt(["nettle-dev"]), .brew(["nettle"])]),
    .target(name: "CTilecutDigest", dependencies: ["CNettle"]),
    // the gazetteer's and the HTML pages' files, compiled into the binary with C23's #embed:
    // SwiftPM's .embedInCode spelled the 330 kB gazetteer as a [UInt8] literal that took
    // 26 s of CPU to compile (the C file: under 1 s); no bundle beside the binary either way
    .target(name: "CTilecutResources", exclude: ["gazetteer", "pages"]),
    .target(name: "TilecutCore", dependencies: ["CTilecutPlatform", "CTilecutDigest", "CTilecutResources", "CTilecutResample"]),
    // HTTP range reads on Linux through libcurl (libcurl4-openssl-dev): Foundation's
    // URLSession there reads a refused answer to its end and inflates any encoding
    // (TilecutHTTP.h); Apple platforms keep URLSession
    .target(name: "CTilecutHTTP", linkerSettings: [.linkedLibrary("curl")]),
    // PMTiles v3 on Foundation and zlib (and libcurl on Linux), so the client package can read archives too
    .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(
      name: "TilecutPMTiles", dependencies: ["CZlib", .target(name: "CTilecutHTTP", condition: .when(platforms: [.linux]))]),
    // the directory store: one file per tile under the output directory
    .target(name: "TilecutDirectoryStore", dependencies: ["TilecutCore"]),
    .target(name: "TilecutMBTiles", dependencies: ["TilecutCore", "CSQLite"]),
    // the PMTiles store: the format target stays free of TilecutCore for the client package
    .target(name: "TilecutPMTilesStore", dependencies: ["TilecutCore", "TilecutPMTiles"]),
    .target(name: "TilecutGeo", dependencies: ["TilecutCore", "CProj", "CGeoShim", "CTilecutGDAL"]),
    .target(
      name: "TilecutVips",
      dependencies: [
        "TilecutCore", "CVips", "CVipsShim", "CTilecutInputCheck", "CTilecutPNGRead", "CTilecutPNG", "CTilecutLossy", "CTilecutResample",
        "CTilecutDocument",
        "CTilecutPDFScan",
        "CTilecutPlatform", "CZip",
        // GDAL's raster formats and masks: opened through TilecutGeo's folder of vetted links
        "TilecutGeo", "CTilecutGDAL",
      ]),
    // the project file (tilecut.yml) as types, its loader and its validation
    .target(name: "TilecutProject", dependencies: ["TilecutCore", .product(name: "Yams", package: "Yams")]),
    // whole jobs (tile, build, verify, merge, preview) as a library: what the CLI runs;
    // its options are plain Sendable, Codable values (OutputOptions, PyramidOptions, …)
    .target(
      name: "Tilecut",
      dependencies: [
        // the store modules: only StoreCatalogue.swift imports them
        "TilecutCore", "TilecutVips", "TilecutDirectoryStore", "TilecutMBTiles", "TilecutPMTilesStore", "TilecutGeo", "CTilecutPlatform",
        "CTilecutBuildInfo", "TilecutProject",
      ]
    ),
    // the command line: swift-argument-parser's option groups build the library's option
    // values (TileArguments.swift); no library target links the parser
    .target(
      name: "TilecutCLI",
      dependencies: [
        "Tilecut", "TilecutCore", "TilecutVips", "TilecutGeo", "CTilecutPlatform", "TilecutProject",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    // link-order.txt: the release build's function order (the Makefile's RELEASE_FLAGS)
    .executableTarget(name: "tilecut", dependencies: ["TilecutCLI"], exclude: ["link-order.txt"]),
    // fixture writers for the tests (GeoTIFFs, 16-bit and CMYK files, multi-page files): never in the binary
    .target(
      name: "CTilecutFixtures", dependencies: ["CVips", "CVipsShim", "CGeoShim", "CGeoTIFF"], path: "Tests/CTilecutFixtures",
      linkerSettings: [.linkedLibrary("geotiff"), .linkedLibrary("tiff"), .linkedLibrary("qpdf")]),
    .target(name: "TilecutFixtures", dependencies: ["TilecutCore", "TilecutVips", "CVips", "CTilecutFixtures"], path: "Tests/TilecutFixtures"),
    // runs `tilecut build` on the package's tilecut.yml (or the CLI's arguments), writing into the package
    .plugin(
      name: "TilecutCommandPlugin",
      capability: .command(
        intent: .custom(verb: "tilecut", description: "Tile the package's tilecut.yml (or run tilecut with the arguments given)"),
        permissions: [.writeToPackageDirectory(reason: "tilecut writes the tiles where the project file's output says")]),
      dependencies: ["tilecut"],
      path: "Sources/TilecutCommandPlugin"),
    // a target's tilecut.yml as MBTiles resources, one file per floor and tile size
    .plugin(name: "TilecutBuildPlugin", capability: .buildTool(), dependencies: ["tilecut"], path: "Sources/TilecutBuildPlugin"),
    .testTarget(name: "TilecutCoreTests", dependencies: ["TilecutCore"]),
    .testTarget(name: "TilecutTests", dependencies: ["TilecutFixtures", "Tilecut", "TilecutCore", "TilecutVips"]),
    .testTarget(name: "TilecutProjectTests", dependencies: ["TilecutProject", .product(name: "Yams", package: "Yams")]),
    .testTarget(name: "TilecutPMTilesTests", dependencies: ["TilecutFixtures", "TilecutPMTiles"]),
    .testTarget(name: "TilecutPMTilesStoreTests", dependencies: ["TilecutPMTilesStore", "TilecutPMTiles", "TilecutCore"]),
    .testTarget(name: "TilecutDirectoryStoreTests", dependencies: ["TilecutDirectoryStore", "TilecutCore"]),
    .testTarget(name: "TilecutMBTilesTests", dependencies: ["TilecutMBTiles", "TilecutCore", "CSQLite"]),
    .testTarget(
      name: "TilecutVipsTests",
      dependencies: ["TilecutFixtures", "TilecutVips", "TilecutCore", "CVipsShim", "CTilecutPNGRead", "CTilecutPNG", "CTilecutDocument"]),
    .testTarget(
      name: "TilecutGeoTests",
      dependencies: [
        "TilecutFixtures",
        "TilecutGeo", "TilecutCore", "TilecutVips", "Tilecut", "TilecutCLI", "CProj",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      // the suites ask PROJ itself (the independent reference), linked
      linkerSettings: [.linkedLibrary("proj")]),
    .testTarget(
      name: "TilecutCLITests",
      dependencies: [
        "TilecutFixtures",
        "Tilecut", "TilecutCLI", "TilecutCore", "TilecutVips", "TilecutDirectoryStore", "TilecutMBTiles", "TilecutPMTiles", "CSQLite",
        "CTilecutPNGRead",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
  ]
)

// make's own builds (make run, make test, make release, make install) set
// TILECUT_WITHOUT_PLUGINS=1. SwiftPM builds an executable that a plugin runs a second time,
// for the host (tilecut-tool, in Modules-tool), so every `swift build` of this package
// compiled tilecut twice. A package that depends on tilecut, and a plain `swift build`
// here, still get both plugins (make's plugin-test builds examples/plugin-app without it).
if ProcessInfo.processInfo.environment["TILECUT_WITHOUT_PLUGINS"] != nil {
  package.products.removeAll { $0 is Product.Plugin }
  package.targets.removeAll { $0.type == .plugin }
}

// make's debug builds (make build, make test) set TILECUT_OPTIMIZED_TESTS=1: the modules
// that push pixels (TilecutCore's reductions and blends, TilecutVips' readers and
// resampler, the C resampler, PNG coder and reader) and the suites and fixtures that feed
// them megapixels are compiled with optimisation in the debug build too. Unoptimised, the
// in-process suites spent most of `make test`'s time in generic SIMD code and bounds
// checks (a 900 × 2600 pattern built four times: 342 s; optimised, 2 s). The other
// modules stay unoptimised for the debugger; a package that depends on tilecut never sees
// these flags. make test builds the suites in the release configuration (Makefile,
// TEST_FLAGS): there the other suites are compiled unoptimised (their own compile: 122 s of
// CPU, against about 370 s optimised); their time is spent in the modules they call.
if ProcessInfo.processInfo.environment["TILECUT_OPTIMIZED_TESTS"] != nil {
  let optimizedSwift: Set = ["TilecutCore", "TilecutCoreTests", "TilecutVips", "TilecutVipsTests", "TilecutFixtures"]
  let optimizedC: Set = ["CTilecutResample", "CTilecutPNG", "CTilecutPNGRead", "CTilecutLossy", "CTilecutDigest"]
  for target in package.targets {
    if optimizedSwift.contains(target.name) {
      target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-O"], .when(configuration: .debug))]
    } else if optimizedC.contains(target.name) {
      target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-O2"], .when(configuration: .debug))]
    } else if target.type == .test {
      target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Onone"], .when(configuration: .release))]
    }
  }
}
