// swift-tools-version:6.0
import PackageDescription

// An app package as an app team writes one: its floor plans (Sources/PluginApp/tilecut.yml
// and plan/) become MBTiles resources at build time through tilecut's build-tool plugin,
// and the code reads them back with TilecutClient's OfflineTiles(bundle:).
let package = Package(
  name: "PluginApp",
  platforms: [.macOS(.v15), .iOS(.v16)],
  dependencies: [
    // in an app of your own: .package(url: "https://…/tilecut", from: "…") and the client likewise
    .package(name: "tilecut", path: "../.."),
    .package(name: "TilecutClient", path: "../client"),
  ],
  targets: [
    .executableTarget(
      name: "PluginApp",
      dependencies: [.product(name: "TilecutClient", package: "TilecutClient")],
      // the project file and the drawings are the plugin's inputs, not the target's sources
      exclude: ["tilecut.yml", "plan"],
      plugins: [.plugin(name: "TilecutBuildPlugin", package: "tilecut")]
    )
  ]
)
