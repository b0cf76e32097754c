import Foundation
import Synchronization
import TilecutCore

/// Counts finished tiles per level and tells the printer: a redrawn bar on a
/// terminal, a line per finished level elsewhere.
final class ProgressTracker: Sendable {
  private let printer: Printer
  private let planned: [LevelKey: Int]
  private let total: Int
  private let state = Mutex<State>(State())
  private let startTime = Date()

  struct State {
    var done: [LevelKey: Int] = [:]
    var finished = 0
  }

  init(plan: TileJobPlan, printer: Printer) {
    self.printer = printer
    var planned: [LevelKey: Int] = [:]
    for (key, cut) in plan.cells {
      if let shard = plan.settings.shard {
        var n = 0
        for y in cut.range.yRange {
          for x in cut.range.xRange where shard.owns(floor: key.floor, tileSize: key.tileSize, tile: TileCoordinate(zoom: key.zoom, x: x, y: y)) {
            n += 1
          }
        }
        planned[key] = n
      } else {
        planned[key] = cut.range.count
      }
    }
    self.planned = planned
    total = planned.values.reduce(0, +)
  }

  func start(jobs: Int) {
    let floors = Set(planned.keys.map(\.floor)).count
    printer.info("tiling \(total) cells on \(floors) floor\(floors == 1 ? "" : "s") with \(jobs) worker\(jobs == 1 ? "" : "s")")
  }

  func tileDone(_ key: LevelKey) {
    let (finished, zoomComplete) = state.withLock { s -> (Int, Bool) in
      s.done[key, default: 0] += 1
      s.finished += 1
      guard s.done[key] == planned[key] else { return (s.finished, false) }
      // a zoom of a floor is done when every tile size of it is
      let siblings = planned.keys.filter { $0.floor == key.floor && $0.zoom == key.zoom }
      return (s.finished, siblings.allSatisfy { s.done[$0, default: 0] == planned[$0] })
    }
    if printer.isTerminal {
      printer.progress(bar(finished, current: key), force: finished == total)
    } else if zoomComplete {
      let cells = planned.filter { $0.key.floor == key.floor && $0.key.zoom == key.zoom }.values.reduce(0, +)
      printer.info("  floor \(key.floor), zoom \(key.zoom) done: \(cells) cells (\(finished)/\(total))")
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
