// swift-tools-version:6.0
import Foundation
import PackageDescription

// The client side of tilecut: read its manifest, build tile URLs, read tiles
// offline (a directory, MBTiles or PMTiles, or PMTiles over http), and show them with Google Maps or MapKit.
// The Foundation and SQLite parts build everywhere (and are tested on Linux);
// the UIKit, MapKit and GoogleMaps parts are compiled where those modules exist.
//
// Google Maps: set TILECUT_CLIENT_GOOGLEMAPS=1 when resolving (or copy the files
// into an app that already links GoogleMaps) to compile the GoogleMaps layers.
let withGoogleMaps = ProcessInfo.processInfo.environment["TILECUT_CLIENT_GOOGLEMAPS"] == "1"

var dependencies: [Target.Dependency] = [
  .target(name: "CTilecutClientSQLite", condition: .when(platforms: [.linux, .android, .windows])),
  // the PMTiles reader of the repository's package: Foundation and zlib only, no libvips
  .product(name: "TilecutPMTiles", package: "tilecut"),
]
if withGoogleMaps {
  dependencies.append(.product(name: "GoogleMaps", package: "ios-maps-sdk", condition: .when(platforms: [.iOS])))
}

let package = Package(
  name: "TilecutClient",
  platforms: [.iOS(.v16), .macOS(.v13)],
  products: [
    .library(name: "TilecutClient", targets: ["TilecutClient"])
  ],
  dependencies: [.package(name: "tilecut", path: "../..")]
    + (withGoogleMaps ? [.package(url: "https://github.com/googlemaps/ios-maps-sdk", from: "9.0.0")] : []),
  targets: [
    // Apple platforms have the SQLite3 module; elsewhere the system library (libsqlite3-dev).
    .systemLibrary(
      name: "CTilecutClientSQLite",
      pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"])]
    ),
    .target(name: "TilecutClient", dependencies: dependencies),
    .testTarget(name: "TilecutClientTests", dependencies: ["TilecutClient"]),
  ],
  // UIKit, MapKit and GoogleMaps subclasses are written for the Swift 5 mode most
  // apps still build in; nothing here shares mutable state across threads unguarded.
  swiftLanguageModes: [.v5]
)
