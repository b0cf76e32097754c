import Foundation
import Synchronization
import TilecutCore
import TilecutVips

/// Encodes one tile in `every` to estimate output bytes; returns nothing for the rest.
final class SamplingEncoder: TileEncoder, Sendable {
  let inner: any TileEncoder
  let every: Int
  private let counter = Atomic<Int>(0)
  private let sampled = Mutex<(count: Int, bytes: Int)>((0, 0))

  init(_ inner: any TileEncoder, every: Int = 16) {
    self.inner = inner
    self.every = every
  }

  var fileExtension: String { inner.fileExtension }

  func encode(rgba: [UInt8], size: Int, upsampled: Bool) throws -> [UInt8] {
    let n = counter.add(1, ordering: .relaxed).newValue
    guard n % every == 1 || every == 1 else { return [] }
    let bytes = try inner.encode(rgba: rgba, size: size, upsampled: upsampled)
    sampled.withLock {
      $0.count += 1
      $0.bytes += bytes.count
    }
    return []
  }

  /// Mean bytes per encoded tile of the sample.
  var meanBytes: Double {
    sampled.withLock { $0.count == 0 ? 0 : Double($0.bytes) / Double($0.count) }
  }
}

/// Drops tiles: a dry run decides which cells have a tile without writing one.
struct NullWriter: TileWriter {
  func put(_ bytes: [UInt8], floor: Int, tileSize: Int, tile: TileCoordinate) throws {}
}

extension TileJob {
  /// Plans, reads the pixels to find exactly which cells would get a file, and prints it.
  func dryRun(_ plan: TileJobPlan, started: Date) throws -> Int32 {
    let pool = WorkPool(jobs: run.jobs ?? ProcessInfo.processInfo.activeProcessorCount)
    let sampler = SamplingEncoder(encoding.encoder())
    let ledger = RenderLedger()
    try render(plan, encoder: sampler, writer: NullWriter(), pool: pool, ledger: ledger)
    let outcomes = ledger.outcomes
    let mean = sampler.meanBytes
    var rows: [String] = []
    var json: [String] = []
    var totalCells = 0
    var totalTiles = 0
    for key in plan.cells.keys.sorted() {
      guard let cut = plan.cells[key] else { continue }
      let tiles = outcomes[key]?.tiles.count ?? 0
      totalCells += cut.range.count
      totalTiles += tiles
      let r = cut.range
      rows.append(
        "  floor \(key.floor)  \(key.tileSize) px  z\(key.zoom)  x \(r.xRange.lowerBound)…\(r.xRange.upperBound)  y \(r.yRange.lowerBound)…\(r.yRange.upperBound)  \(r.count) cells, \(tiles) tiles"
      )
      json.append(
        #"{"floor": \#(key.floor), "tileSize": \#(key.tileSize), "zoom": \#(key.zoom), "xRange": [\#(r.xRange.lowerBound), \#(r.xRange.upperBound)], "yRange": [\#(r.yRange.lowerBound), \#(r.yRange.upperBound)], "cells": \#(r.count), "tiles": \#(tiles)}"#
      )
    }
    let estimate = Int(mean * Double(totalTiles))
    printer.info("plan for \(output.output) (dry run: nothing written)")
    for p in plan.plans {
      let f = Manifest.Footprint(floor: p.floor, rect: p.footprint)
      printer.info(
        String(
          format: "floor %d: %@, %d × %d px, placement %@, CRS %@, footprint S %.7f W %.7f N %.7f E %.7f, %.3g m per source pixel",
          p.floor, p.source.path, p.source.width, p.source.height, p.placement.method, PlacementOptions.crsName(p.placement),
          f.south, f.west, f.north, f.east, p.placement.groundMetersPerPixel(width: p.source.width, height: p.source.height)))
    }
    for row in rows { printer.info(row) }
    printer.info("total: \(totalTiles) tiles in \(totalCells) cells, about \(Format.bytes(estimate))")
    if run.json {
      let footprints = plan.plans.map { p -> String in
        let f = Manifest.Footprint(floor: p.floor, rect: p.footprint)
        return #"{"floor": \#(p.floor), "south": \#(f.south), "west": \#(f.west), "north": \#(f.north), "east": \#(f.east)}"#
      }
      Printer.result(
        #"{"dryRun": true, "output": \#(jsonString(output.output)), "tiles": \#(totalTiles), "cells": \#(totalCells), "estimatedBytes": \#(estimate), "footprints": [\#(footprints.joined(separator: ", "))], "placements": \#(Self.placementsJSON(plan)), "levels": [\#(json.joined(separator: ", "))]}"#
      )
    }
    return 0
  }
}

extension TileJob {
  /// Per floor: how it was placed, in which CRS, its footprint in degrees, its ground
  /// resolution and the sidecar files read, as a JSON array.
  static func placementsJSON(_ plan: TileJobPlan) -> String {
    let items = plan.plans.map { p -> String in
      let f = Manifest.Footprint(floor: p.floor, rect: p.footprint)
      let metres = p.placement.groundMetersPerPixel(width: p.source.width, height: p.source.height)
      let sidecars = p.placement.sidecars.map(jsonString).joined(separator: ", ")
      return
        #"{"floor": \#(p.floor), "method": \#(jsonString(p.placement.method)), "crs": \#(jsonString(PlacementOptions.crsName(p.placement))), "south": \#(f.south), "west": \#(f.west), "north": \#(f.north), "east": \#(f.east), "metersPerPixel": \#(metres.isFinite ? metres : 0), "sidecars": [\#(sidecars)]}"#
    }
    return "[" + items.joined(separator: ", ") + "]"
  }
}

extension TileJob {
  /// What else shapes a floor's pixels: the source CRS and its map, the pixel conversion.
  static func geoShaping(_ p: FloorPlan) -> String {
    var text = ""
    if let crs = p.placement.crs, let t = p.placement.crsTransform {
      text += " crs=\(crs) toCRS=[\(t.a), \(t.b), \(t.c), \(t.d), \(t.e), \(t.f)]"
    }
    if let c = p.source.conversion {
      text += " bands=\(c.bands.map { $0.map(String.init).joined(separator: ",") } ?? "-")"
      text += " scale=\(c.scale.map { "\($0.lowerBound),\($0.upperBound)" } ?? "-") nodata=\(c.nodata.map { "\($0)" } ?? "-")"
    }
    return text
  }
}
