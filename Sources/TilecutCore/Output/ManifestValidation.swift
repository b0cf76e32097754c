/// Checks on a manifest read from disk, made before any of its numbers sizes an
/// allocation or a loop: a manifest is input like any other file.
extension Manifest {
  /// The tile sizes a manifest may name: 256 times a power of two up to 4096, and 768 (@3x).
  public static func isTileSize(_ size: Int) -> Bool {
    size == 768 || (size >= 256 && size <= 4096 && size % 256 == 0 && (size / 256).nonzeroBitCount == 1)
  }

  /// Throws `invalidInput(path:)` with the first number that does not fit the tile
  /// grid: zooms in 0…30, ranges inside 2^z, runs sorted inside their range, counts
  /// that add up, a name template whose tiles cannot collide.
  public func validate(path: String) throws {
    func bad(_ reason: String) -> TilecutError { .invalidInput(path: path, reason: reason) }
    guard format == Manifest.formatName else { throw bad("format is '\(Quote.value(format))', not \(Manifest.formatName)") }
    guard (1...Manifest.currentVersion).contains(version) else {
      throw bad("has version \(version); this tilecut reads versions 1…\(Manifest.currentVersion)")
    }
    guard !tileSizes.isEmpty, tileSizes.count <= 8, tileSizes.allSatisfy(Manifest.isTileSize) else {
      throw bad("tile sizes \(tileSizes.prefix(8)) are not tile sizes tilecut writes")
    }
    // each floor is within ±maxFloorNumber already: `Floor` refuses any other when decoded
    guard !floors.isEmpty, floors.count <= 10_000 else {
      throw bad("floors must be 1…10000 numbers within ±\(PlanLimits.maxFloorNumber)")
    }
    let template: TileNameTemplate
    do {
      template = try TileNameTemplate(name, option: "name")
      try template.checkDistinct(sizes: tileSizes, floors: floors, option: "name")
    } catch let error as TilecutError {
      throw bad(error.description)
    }
    _ = template
    let knownFloors = Set(floors)
    let knownSizes = Set(tileSizes)
    var seen = Set<LevelKey>()
    for (i, level) in levels.enumerated() {
      func badLevel(_ reason: String) -> TilecutError { bad("level \(i): \(reason)") }
      guard (0...PlanLimits.maxZoom).contains(level.zoom) else {
        throw badLevel("zoom \(level.zoom) is outside 0…\(PlanLimits.maxZoom)")
      }
      guard knownFloors.contains(level.floor) else { throw badLevel("floor \(level.floor) is not in the manifest's floors") }
      guard knownSizes.contains(level.tileSize) else { throw badLevel("tile size \(level.tileSize) is not in the manifest's tile sizes") }
      guard seen.insert(LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: level.zoom)).inserted else {
        throw badLevel("floor \(level.floor), \(level.tileSize) px, zoom \(level.zoom) appears twice")
      }
      let side = 1 << level.zoom
      for (axis, range) in [("x", level.xRange), ("y", level.yRange)] {
        guard range.count == 2, range[0] >= 0, range[0] <= range[1], range[1] < side else {
          let shown = range.count == 2 ? "\(range[0])…\(range[1])" : "\(range)"
          throw badLevel("\(axis) range \(shown) is outside zoom \(level.zoom)'s grid")
        }
      }
      var total = 0
      var previous: (y: Int, x1: Int)? = nil
      for run in level.rows {
        guard run.count == 3 else { throw badLevel("a row run has \(run.count) numbers, not 3 (y, x0, x1)") }
        let (y, x0, x1) = (run[0], run[1], run[2])
        guard level.yRange[0] <= y, y <= level.yRange[1], level.xRange[0] <= x0, x0 <= x1, x1 <= level.xRange[1] else {
          throw badLevel(
            "run y \(y), x \(x0)…\(x1) is outside its range x \(level.xRange[0])…\(level.xRange[1]), y \(level.yRange[0])…\(level.yRange[1])")
        }
        if let p = previous, y < p.y || (y == p.y && x0 <= p.x1) {
          throw badLevel("runs are not sorted by y then x, or overlap (at y \(y), x \(x0))")
        }
        previous = (y, x1)
        // every number is below 2^30 here, so neither sum can overflow
        total += x1 - x0 + 1
      }
      guard total == level.tileCount else {
        throw badLevel("tileCount \(level.tileCount) does not match its runs (\(total) tiles)")
      }
      if let bytes = level.bytes, bytes < 0 { throw badLevel("bytes \(bytes) is negative") }
    }
    var substituted = Set<LevelKey>()
    for sub in substitutes ?? [] {
      let key = LevelKey(floor: sub.floor, tileSize: sub.tileSize, zoom: sub.zoom)
      guard knownFloors.contains(sub.floor), knownSizes.contains(sub.tileSize), knownSizes.contains(sub.servedBy), sub.servedBy < sub.tileSize,
        (0...PlanLimits.maxZoom).contains(sub.zoom)
      else {
        throw bad(
          "substitute floor \(sub.floor), \(sub.tileSize) px, zoom \(sub.zoom) served by \(sub.servedBy) px does not fit its floors and tile sizes")
      }
      guard !seen.contains(key), substituted.insert(key).inserted else {
        throw bad("floor \(sub.floor), \(sub.tileSize) px, zoom \(sub.zoom) is both a level and substituted, or substituted twice")
      }
    }
    if let shard {
      guard (1...PlanLimits.maxShards).contains(shard.count), (1...shard.count).contains(shard.index) else {
        throw bad("shard \(shard.index)/\(shard.count) is not K/N with 1 ≤ K ≤ N ≤ \(PlanLimits.maxShards)")
      }
    }
    for file in storeFiles ?? [] {
      let parts = file.split(separator: "/", omittingEmptySubsequences: false)
      guard !file.isEmpty, !file.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
        throw bad("store file '\(Quote.value(file))' is not a plain relative path")
      }
    }
    if let store, store.hasTileSets {
      var sets = Set<LevelKey>()
      for set in tileSets ?? [] {
        guard knownFloors.contains(set.floor), knownSizes.contains(set.tileSize) else {
          throw bad("tile set \(set.file) is for floor \(set.floor), \(set.tileSize) px, which the manifest does not have")
        }
        guard (storeFiles ?? []).contains(set.file), !set.file.contains("/") else {
          throw bad("tile set \(set.file) is not one of the output's store files")
        }
        guard sets.insert(LevelKey(floor: set.floor, tileSize: set.tileSize, zoom: 0)).inserted else {
          throw bad("floor \(set.floor), \(set.tileSize) px has two tile sets")
        }
      }
      for level in levels where level.tileCount > 0 && !sets.contains(LevelKey(floor: level.floor, tileSize: level.tileSize, zoom: 0)) {
        throw bad("floor \(level.floor), \(level.tileSize) px has tiles but no tile set")
      }
    }
  }

  /// The tiles the manifest lists, all levels together.
  public var totalTiles: Int { levels.reduce(0) { $0 &+ $1.tileCount } }
}

/// The bounds every number of a job is checked against, at parse time and when a manifest is read.
public enum PlanLimits {
  public static let maxZoom = 30
  /// Floor numbers name files and sit in sums; a million storeys is plenty.
  public static let maxFloorNumber = 1_000_000
  public static let maxFloors = 1_000
  public static let maxShards = 10_000
  public static let maxJobs = 1_024
}
