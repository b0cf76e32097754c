import Foundation

extension ArchiveStoreDriver {
  /// An archive store's output: its files checked by the store (`verify`), every level
  /// with tiles in a tile set, every store file as the manifest's digests say, nothing
  /// else in the directory.
  public func verifyOutput(_ manifest: Manifest, _ context: StoreVerification) throws -> (
    problems: [String], tilesChecked: Int, storeFiles: Int?
  ) {
    var tileSetMissing = false
    var problems = archiveOutputStrays(manifest, in: context.directory) + context.changedFileProblems
    for level in manifest.levels where level.tileCount > 0 {
      if !(manifest.tileSets ?? []).contains(where: { $0.floor == level.floor && $0.tileSize == level.tileSize }) {
        problems.append("missing: no tile set for floor \(level.floor), \(level.tileSize) px")
        tileSetMissing = true
      }
    }
    let found = try verify(manifest, context, tileSetMissing: tileSetMissing)
    return (problems + found.problems, found.tilesChecked, (manifest.tileSets ?? []).count)
  }
}

/// What the archive stores' `verify` shares.
public enum ArchiveVerification {
  /// Problems `verify` lists for one archive before it stops reading it.
  public static let problemsPerArchive = 20
}

/// What an archive output's directory holds beyond the manifest and its store
/// files: links, non-regular files and files the manifest does not name.
private func archiveOutputStrays(_ manifest: Manifest, in directory: String) -> [String] {
  let own = Set([Manifest.fileName] + (manifest.storeFiles ?? []))
  var problems: [String] = []
  for entry in entriesBelow(directory) {
    if entry.isSymlink {
      problems.append("symbolic link: \(entry.path)")
    } else if !entry.isRegular {
      problems.append("not a regular file: \(entry.path)")
    } else if !own.contains(entry.path) {
      problems.append("not in the manifest: \(entry.path)")
    }
  }
  return problems
}
