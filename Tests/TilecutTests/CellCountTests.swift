import Testing
import TilecutCore

@testable import Tilecut

/// The cells of a level a run makes: every one, a shard's own, or those an incremental rebuild redoes.
@Suite("cells a run makes, counted for progress and blank cells")
struct CellCountTests {
  let range = TileRange(zoom: 5, xRange: 3...9, yRange: 2...6)

  func key() throws -> LevelKey { LevelKey(floor: try Floor(2, option: "floor"), tileSize: 256, zoom: 5) }

  @Test("without a shard or a set of cells, every cell of the range")
  func whole() throws {
    #expect(ProgressTracker.count(range, try key(), shard: nil) == 35)
  }

  @Test("the shards of a run split the range's cells between them, each counting those it owns")
  func shards() throws {
    let key = try key()
    let counts = (1...3).map { ProgressTracker.count(range, key, shard: ShardSelector(index: $0, count: 3)) }
    #expect(counts.reduce(0, +) == 35)
    #expect(counts.filter { $0 > 0 }.count > 1, "\(counts)")
    for (k, count) in counts.enumerated() {
      let shard = ShardSelector(index: k + 1, count: 3)
      var owned = 0
      for y in range.yRange {
        for x in range.xRange where shard.owns(floor: key.floor, tileSize: 256, tile: TileCoordinate(zoom: 5, x: x, y: y)) { owned += 1 }
      }
      #expect(count == owned)
    }
  }

  @Test("with a set of cells, only those in it (and in the shard)")
  func only() throws {
    let key = try key()
    var only = CellSet()
    only.insert(key, TileCoordinate(zoom: 5, x: 4, y: 4))
    only.insert(key, TileCoordinate(zoom: 5, x: 20, y: 4))
    #expect(ProgressTracker.count(range, key, shard: nil, only: only) == 1)
    let split = (1...2).map { ProgressTracker.count(range, key, shard: ShardSelector(index: $0, count: 2), only: only) }
    #expect(split.sorted() == [0, 1])
  }
}
