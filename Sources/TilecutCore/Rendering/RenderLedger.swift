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

  func blank(_ key: LevelKey, notify: Bool = true) {
    state.withLock { $0[key, default: LevelOutcome()].blank += 1 }
    if notify { onTile?(key, false) }
  }

  /// Tells `onTile` of one finished cell without recording an outcome.
  func notify(_ key: LevelKey, written: Bool) { onTile?(key, written) }

  func touch(_ key: LevelKey) { state.withLock { _ = $0[key, default: LevelOutcome()] } }

  public var outcomes: [LevelKey: LevelOutcome] { state.withLock { $0 } }
}
