import Foundation
import Synchronization

/// What was written for one level.
public struct LevelOutcome: Sendable, Codable, Equatable {
  public var tiles: [TileCoordinate] = []
  public var blank: Int = 0
  public var bytes: Int = 0
  public init() {}
}

/// Collects outcomes from every worker.
public final class RenderLedger: Sendable {
  private let state = Mutex<[LevelKey: LevelOutcome]>([:])
  private let onTile: (@Sendable (LevelKey, Bool) -> Void)?

  public init(onTile: (@Sendable (LevelKey, Bool) -> Void)? = nil) { self.onTile = onTile }

  /// `notify` false: recorded without telling `onTile` (a composited floor's cells,
  /// whose progress its layers' tiles already told: see `LayerCompositor.layerLedger`).
  func written(_ key: LevelKey, _ tile: TileCoordinate, bytes: Int, notify: Bool = true) {
    state.withLock {
      $0[key, default: LevelOutcome()].tiles.append(tile)
      $0[key, default: LevelOutcome()].bytes += bytes
    }
    if notify { onTile?(key, true) }
  }

  /// A tile carried over unchanged from the previous output.
  public func carried(_ key: LevelKey, _ tile: TileCoordinate, bytes: Int) { written(key, tile, bytes: bytes) }

  public func blank(_ key: LevelKey, notify: Bool = true) {
    state.withLock { $0[key, default: LevelOutcome()].blank += 1 }
    if notify { onTile?(key, false) }
  }

  /// Sets each level's blank count to its cells less its tiles. On a floor several
  /// layers draw, a layer's blank cell may be another's tile, so the layers' own
  /// blanks over-count; `cells` is what the floor covers, each cell once.
  public func settleBlanks(cells: [LevelKey: Int]) {
    state.withLock { outcomes in
      for (key, n) in cells {
        var outcome = outcomes[key] ?? LevelOutcome()
        outcome.blank = max(0, n - outcome.tiles.count)
        outcomes[key] = outcome
      }
    }
  }

  /// Tells `onTile` of one finished cell without recording an outcome.
  func notify(_ key: LevelKey, written: Bool) { onTile?(key, written) }

  func touch(_ key: LevelKey) { state.withLock { _ = $0[key, default: LevelOutcome()] } }

  public var outcomes: [LevelKey: LevelOutcome] { state.withLock { $0 } }
}
