import Foundation
import TilecutCore

/// `merge` of the shards of a build with `{building}` in the name: each shard is a root
/// of per-building shard outputs (`tilecut-buildings.json`); each building's shards are
/// merged into `<output>/<id>` as any shards are, and the root gets the index.
struct BuildingMerge {
  var shards: [String]
  var output: String
  var buildings: [BuildingIndex.Entry]

  /// Nil when no shard is a root of buildings (a plain merge).
  init?(shards: [String], output: String) throws {
    let fm = FileManager.default
    let indexes = try shards.map { dir in fm.fileExists(atPath: dir + "/" + Manifest.fileName) ? nil : try BuildingIndex.load(dir) }
    guard let firstIndex = indexes.first(where: { $0 != nil }) ?? nil else { return nil }
    let ids = firstIndex.buildings.map(\.id)
    for (dir, index) in zip(shards, indexes) {
      guard let index else {
        throw TilecutError.invalidInput(path: dir, reason: "is not a shard of a build with {building} in the name, as the others are")
      }
      guard index.buildings.map(\.id) == ids else {
        throw TilecutError.invalidInput(
          path: dir,
          reason:
            "holds the buildings \(index.buildings.map(\.id).joined(separator: ", ")), not \(ids.joined(separator: ", ")): merge the shards of one build"
        )
      }
    }
    self.shards = shards
    self.output = output
    self.buildings = firstIndex.buildings
  }

  func run(printer: Printer) throws -> MergeReport {
    try OptionPaths.check(outputs: [], inputs: shards, outputDirectory: output, outputOption: "out")
    var st = stat()
    let fm = FileManager.default
    if lstat(output, &st) == 0 {
      guard (st.st_mode & S_IFMT) == S_IFDIR else { throw TilecutError.output(path: output, reason: "is not a directory") }
      if fm.fileExists(atPath: output + "/" + Manifest.fileName) {
        throw TilecutError.output(path: output, reason: "holds a single pyramid; the merged buildings need a folder of their own")
      }
      _ = try BuildingIndex.load(output)
    } else {
      do { try fm.createDirectory(atPath: output, withIntermediateDirectories: true) } catch {
        throw TilecutError.output(path: output, reason: "cannot be made (\(error.localizedDescription))")
      }
    }
    var copied = 0
    var manifests: [String: Manifest] = [:]
    for building in buildings {
      let one = try Merger(shards.map { $0 + "/" + building.id }, into: output + "/" + building.id).run(printer: printer)
      copied += one.tilesCopied
      manifests[building.id] = one.manifest
    }
    let path = output + "/" + BuildingIndex.fileName
    do { try Data(BuildingIndex(buildings: buildings).encoded()).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
      throw TilecutError.output(path: path, reason: "cannot be written (\(error.localizedDescription))")
    }
    guard let first = buildings.first, let manifest = manifests[first.id] else {
      throw TilecutError.invalidInput(path: shards[0], reason: "names no building")
    }
    var report = MergeReport(output: output, shards: shards.count, tilesCopied: copied, manifest: manifest)
    report.buildingManifests = manifests
    return report
  }
}
