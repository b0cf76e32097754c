import Foundation
import Synchronization
import TilecutCore

/// Counts finished tiles per level and tells the printer: a redrawn bar on a
/// terminal; elsewhere (a log) one line per finished floor, in floor order.
final class ProgressTracker: Sendable {
  private let printer: Printer
  private let planned: [LevelKey: Int]
  private let total: Int
  private let state = Mutex<State>(State())
  private let startTime = Date()

  struct State {
    var done: [LevelKey: Int] = [:]
    var finished = 0
    var floorDone: [Floor: Int] = [:]
    /// Floors whose line was printed: the first `printedFloors` of `floors`.
    var printedFloors = 0
  }

  /// The floors with cells, in order, and each one's cells.
  private let floors: [Floor]
  private let floorCells: [Floor: Int]

  /// `planned`: the cells to expect per level when not every layer's every cell is
  /// rendered (an incremental rebuild); nil: all of `plan`'s.
  init(plan: TileJobPlan, printer: Printer, planned: [LevelKey: Int]? = nil) {
    self.printer = printer
    let expected = planned ?? Self.planned(plan.plans, shard: plan.settings.shard)
    self.planned = expected
    total = expected.values.reduce(0, +)
    var floorCells: [Floor: Int] = [:]
    for (key, n) in expected { floorCells[key.floor, default: 0] += n }
    self.floorCells = floorCells
    floors = floorCells.keys.sorted()
  }

  /// Cells each floor's builders finish per size and zoom: a floor several buildings
  /// have counts every building's cells (each layer's tile tells progress once).
  /// `only`: count just the cells in it (the dirty cells of an incremental rebuild).
  static func planned(_ plans: [FloorPlan], shard: ShardSelector?, only: CellSet? = nil) -> [LevelKey: Int] {
    var planned: [LevelKey: Int] = [:]
    for plan in plans {
      for level in plan.levels {
        for cut in level.cuts {
          let key = LevelKey(floor: plan.floor, tileSize: cut.tileSize, zoom: cut.zoom)
          planned[key, default: 0] += count(cut.range, key, shard: shard, only: only)
        }
      }
    }
    return planned
  }

  /// The cells of `range` this run makes: with `shard`, only its own; with `only`, only those.
  static func count(_ range: TileRange, _ key: LevelKey, shard: ShardSelector?, only: CellSet? = nil) -> Int {
    guard shard != nil || only != nil else { return range.count }
    var n = 0
    for y in range.yRange {
      for x in range.xRange {
        let tile = TileCoordinate(zoom: key.zoom, x: x, y: y)
        if let shard, !shard.owns(floor: key.floor, tileSize: key.tileSize, tile: tile) { continue }
        if let only, !only.contains(key, tile) { continue }
        n += 1
      }
    }
    return n
  }

  func start(jobs: Int) {
    let floors = Set(planned.keys.map(\.floor)).count
    printer.info("tiling \(total) cells on \(floors) floor\(floors == 1 ? "" : "s") with \(jobs) worker\(jobs == 1 ? "" : "s")")
  }

  func tileDone(_ key: LevelKey) {
    let (finished, lines) = state.withLock { s -> (Int, [String]) in
      s.done[key, default: 0] += 1
      s.finished += 1
      s.floorDone[key.floor, default: 0] += 1
      // a floor's line once it and every floor before it are done: floor order in any
      // log; one floor has none (the summary's `done:` line says as much)
      guard !printer.isTerminal, floors.count > 1 else { return (s.finished, []) }
      var lines: [String] = []
      while s.printedFloors < floors.count {
        let floor = floors[s.printedFloors]
        let cells = floorCells[floor] ?? 0
        guard s.floorDone[floor, default: 0] >= cells else { break }
        let zooms = planned.keys.filter { $0.floor == floor }.map(\.zoom)
        lines.append("  floor \(floor) done: \(cells) cells, zooms \(zooms.min() ?? 0)-\(zooms.max() ?? 0)")
        s.printedFloors += 1
      }
      return (s.finished, lines)
    }
    if printer.isTerminal {
      printer.progress(bar(finished, current: key), force: finished == total)
    } else {
      for line in lines { printer.info(line) }
    }
  }

  func finish() { printer.endProgress() }

  private func bar(_ done: Int, current: LevelKey) -> String {
    let width = 28
    let fraction = total == 0 ? 1 : Double(done) / Double(total)
    let filled = Int(fraction * Double(width))
    let elapsed = Date().timeIntervalSince(startTime)
    let rate = elapsed > 0 ? Double(done) / elapsed : 0
    let eta = rate > 0 ? Double(total - done) / rate : 0
    return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "] "
      + "\(done)/\(total) tiles  \(Int(rate))/s  ETA \(Format.seconds(eta))  floor \(current.floor) · \(current.tileSize) px · z\(current.zoom)"
  }
}
