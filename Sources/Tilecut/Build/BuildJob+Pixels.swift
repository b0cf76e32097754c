import Foundation
import TilecutCore
import TilecutVips

extension BuildJob {
  /// Each layer's decoded-pixel digests in blocks (`PixelBlocks`), for the manifest and
  /// for the rebuild after this one: the previous manifest's where the layer's file and
  /// options are those it recorded, else read from the source. Nil for layers whose
  /// pixels are rendered (PDF, SVG). A `--shard` run records them too, so that the
  /// parts `merge` joins are what one run makes, byte for byte.
  func pixelBlocks(_ plan: TileJobPlan, layers: [BuildLayer], sources: [Manifest.Source], options: [String: String], previous: Manifest?)
    throws -> [PixelBlocks?]
  {
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
      return try SourcePixelBlocks.digests(of: floor.plan.source, format: floor.format)
    }
  }
}
