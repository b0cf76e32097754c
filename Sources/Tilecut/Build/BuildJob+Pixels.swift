import Foundation
import TilecutCore
import TilecutVips

extension BuildJob {
  /// Each layer's decoded-pixel digests in blocks (`PixelBlocks`), for the manifest and
  /// for the rebuild after this one: the previous manifest's where the layer's file and
  /// options are those it recorded, else, with `decode`, read from the source (without,
  /// nil: a full build hashes them as its render reads the source, `digestsAfterRender`).
  /// Nil for layers whose pixels are rendered (PDF, SVG). A `--shard` run records them
  /// too, so that the parts `merge` joins are what one run makes, byte for byte.
  func pixelBlocks(
    _ plan: TileJobPlan, layers: [BuildLayer], sources: [Manifest.Source], options: [String: String], previous: Manifest?,
    decode: Bool = true
  ) throws -> [PixelBlocks?] {
    var recorded: [String: (sha256: String, pixels: PixelBlocks)] = [:]
    for building in previous?.buildings ?? [] {
      for f in building.floors {
        if let pixels = f.pixels { recorded[Self.layerName(building.id, f.floor)] = (f.sha256, pixels) }
      }
    }
    return try layers.indices.map { i in
      let floor = plan.floors[i]
      let name = Self.layerName(layers[i].building.id, floor.plan.floor)
      if let before = recorded[name], before.sha256 == sources[i].sha256, previous?.options[name] == options[name] {
        return before.pixels
      }
      return decode ? try SourcePixelBlocks.digests(of: floor.plan.source, format: floor.format) : nil
    }
  }

  /// A hasher for each layer whose digests are still to be made (`pixels` nil, a
  /// raster source), for the render's reader to feed.
  func pixelTaps(_ plan: TileJobPlan, pixels: [PixelBlocks?]) throws -> [Int: PixelBlockHasher] {
    var taps: [Int: PixelBlockHasher] = [:]
    for i in pixels.indices where pixels[i] == nil {
      taps[i] = try SourcePixelBlocks.hasher(for: plan.floors[i].plan.source, format: plan.floors[i].format)
    }
    return taps
  }

  /// The digests the render's reader made, or, for a layer it did not read whole
  /// (pre-shrunk, scaled, a band of a shared sheet, a shard's part), read from the
  /// source after all.
  func digestsAfterRender(_ plan: TileJobPlan, pixels: [PixelBlocks?], taps: [Int: PixelBlockHasher]) throws -> [PixelBlocks?] {
    var out = pixels
    for (i, tap) in taps {
      let floor = plan.floors[i]
      out[i] = try tap.result() ?? SourcePixelBlocks.digests(of: floor.plan.source, format: floor.format)
    }
    return out
  }
}
