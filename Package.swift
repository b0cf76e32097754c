// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "tilecut",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "tilecut", targets: ["tilecut"]),
    .library(name: "TilecutCore", targets: ["TilecutCore"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
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
    .target(
      name: "CVipsShim", dependencies: ["CVips", "CISAL"],
      cSettings: [.unsafeFlags(["-O3"])],
      linkerSettings: [.linkedLibrary("deflate")]),
    .target(name: "TilecutCore"),
    .target(name: "TilecutVips", dependencies: ["TilecutCore", "CVips", "CVipsShim"]),
    .target(
      name: "TilecutCLI",
      dependencies: [
        "TilecutCore", "TilecutVips",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(name: "tilecut", dependencies: ["TilecutCLI"]),
    .testTarget(name: "TilecutCoreTests", dependencies: ["TilecutCore"]),
    .testTarget(name: "ManifestClientTests", dependencies: ["TilecutCore"]),
    .testTarget(name: "TilecutVipsTests", dependencies: ["TilecutVips", "TilecutCore", "CVipsShim"]),
    .testTarget(
      name: "TilecutCLITests",
      dependencies: [
        "TilecutCLI", "TilecutCore", "TilecutVips",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]),
  ]
)
