import CTilecutBuildInfo

/// The release, written into manifests and printed by `--version`. Raised for each
/// release, with its section in CHANGELOG.md.
public let tilecutVersion = "0.19.0"

/// The renderer's revision: raise it by one, in the same commit, for every change
/// that could alter an output's bytes for the same inputs and options (tiles'
/// pixels, an encoder or its settings, a store's layout, names, the manifest's
/// fields). Outputs carry it in their fingerprint and in the manifest's
/// `generator.renderer`: an output made by a build of another revision (or another
/// version) is rendered again, never taken as up to date. CHANGELOG.md says the same
/// under "Versions and the renderer revision".
public let rendererRevision = 16

/// The commit the binary was built from ("290a01b", "290a01b-dirty"), or nil from a
/// build that did not name it (plain `swift build`, the SwiftPM plugins).
public var tilecutCommit: String? {
  let id = String(cString: tc_build_commit())
  return id.isEmpty ? nil : id
}

/// What `tilecut --version` prints: `tilecut 0.5.0 (290a01b)`.
public var tilecutVersionLine: String { "tilecut \(tilecutVersion) (\(tilecutCommit ?? "unknown commit"))" }
