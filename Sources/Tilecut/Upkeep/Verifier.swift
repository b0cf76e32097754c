import Foundation
import TilecutCore
import TilecutVips

/// `tilecut verify DIR`: checks that an output's files match its manifest.
///
/// Every cell the manifest lists must exist, decode and have the tile size; no other
/// tile file may exist. Each store checks its own output (`StoreDriver.verifyOutput`).
public struct Verifier: Sendable {
  /// The output directory written by tilecut.
  public var directory: String
  /// Worker threads for decoding (nil: all cores).
  public var jobs: Int?

  /// A check of the output in `directory`.
  public init(_ directory: String, jobs: Int? = nil) {
    self.directory = directory
    self.jobs = jobs
  }

  /// Reads the manifest and checks every file against it.
  ///
  /// - Returns: what was checked and every problem found (none: the output is intact).
  /// - Throws: `TilecutError` when the directory has no readable, valid manifest.
  public func run() throws -> VerifyReport {
    // a root of per-building pyramids: each building's output checked against its own manifest
    if !FileManager.default.fileExists(atPath: directory + "/" + Manifest.fileName), let index = try BuildingIndex.load(directory) {
      var all = VerifyReport(directory: directory, tilesChecked: 0, problems: [])
      all.buildings = index.buildings.count
      for building in index.buildings {
        let one = try Verifier(directory + "/" + building.id, jobs: jobs).run()
        all.tilesChecked += one.tilesChecked
        if let files = one.storeFiles { all.storeFiles = (files.kind, (all.storeFiles?.count ?? 0) + files.count) }
        all.problems += one.problems.map { "\(building.id): \($0)" }
      }
      return all
    }
    return try withVips {
      let manifest = try loadManifest(directory)
      let driver = StoreCatalogue.driver(for: manifest.store)
      let context = StoreVerification(
        directory: directory, changedFiles: changedStoreFiles(manifest),
        decode: { bytes in
          let image = try RGBAImage.decode(bytes: bytes)
          return (image.width, image.height)
        }, digest: { Vips.sha256(of: $0) }, contentVersion: { manifest, digest in try? ContentVersion.of(manifest, digest: digest) },
        workers: max(1, min(jobs ?? ProcessInfo.processInfo.activeProcessorCount, PlanLimits.maxJobs)))
      let found = try driver.verifyOutput(manifest, context)
      var report = VerifyReport(directory: directory, tilesChecked: found.tilesChecked, problems: found.problems.sorted())
      report.storeFiles = found.storeFiles.map { (driver.kind, $0) }
      return report
    }
  }
}

extension Verifier {
  /// Store files whose bytes are not those the manifest's digests record.
  func changedStoreFiles(_ manifest: Manifest) -> [String] {
    (manifest.storeFileDigests ?? [:]).keys.sorted().filter { file in
      guard let digest = SHA256Digest.hex(ofFile: directory + "/" + file) else { return false }
      return digest != manifest.storeFileDigests?[file]
    }
  }
}

extension Verifier {
  /// Problems `verify` lists for one archive before it stops reading it (the archive stores').
  static let problemsPerArchive = ArchiveVerification.problemsPerArchive
}

/// What ``Verifier/run()`` found.
public struct VerifyReport: Sendable, Equatable {
  /// The output directory checked.
  public var directory: String
  /// The tiles the manifest lists (all of them were looked at).
  public var tilesChecked: Int
  /// For an archive store's output, its kind and how many files it has; nil for a directory of tiles.
  public var storeFiles: (kind: StoreKind, count: Int)?
  /// One line per problem ("missing: …", "wrong size: …"), sorted; empty when the output is intact.
  public var problems: [String]
  /// For a root of per-building pyramids (`{building}` in the name), how many buildings
  /// were checked; nil for a single output.
  public var buildings: Int?

  public init(directory: String, tilesChecked: Int, problems: [String]) {
    self.directory = directory
    self.tilesChecked = tilesChecked
    self.problems = problems
  }

  public static func == (a: VerifyReport, b: VerifyReport) -> Bool {
    (a.directory, a.tilesChecked, a.problems, a.buildings) == (b.directory, b.tilesChecked, b.problems, b.buildings)
      && a.storeFiles?.kind == b.storeFiles?.kind && a.storeFiles?.count == b.storeFiles?.count
  }

  /// The count of the store's files, when the output is of `kind`.
  public func storeFileCount(_ kind: StoreKind) -> Int? { storeFiles?.kind == kind ? storeFiles?.count : nil }

  /// True when the files match the manifest.
  public var isIntact: Bool { problems.isEmpty }

  /// The one line `tilecut verify` prints: "ok: …" or the count of problems.
  public var summary: String {
    guard problems.isEmpty else {
      return "\(directory): \(problems.count) problem\(problems.count == 1 ? "" : "s") (listed on stdout)"
    }
    let noun = StoreCatalogue.archive(for: storeFiles?.kind)?.filesNoun
    if let buildings {
      let files = storeFiles.map { " (\($0.count) \(noun ?? ""))" } ?? ""
      return "ok: \(tilesChecked) tiles\(files) in the \(buildings) building\(buildings == 1 ? "" : "s") of \(directory) match their manifests"
    }
    if let files = storeFiles { return "ok: \(tilesChecked) tiles in \(files.count) \(noun ?? "") of \(directory) match its manifest" }
    return "ok: \(tilesChecked) tiles in \(directory) match its manifest"
  }
}
