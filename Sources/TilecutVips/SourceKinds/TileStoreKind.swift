import TilecutCore

/// A tile store read as a source (a tilecut output of any store, an MBTiles or PMTiles
/// file): its deepest zoom's tiles joined into one raster (`TileMosaic`), registered by
/// the job (`TileStoreSource`), placed on its own Web-Mercator cells and re-tiled like
/// any placed image.
struct TileStoreKind: RegisteredSourceKind {
  var mosaic: TileMosaic

  var name: String { "tile store" }
  var isDrawnPerZoom: Bool { false }

  static func registered(for source: SourceDescription) -> TileStoreKind? {
    TileMosaics.mosaic(path: source.path, floor: source.storeFloor).map { TileStoreKind(mosaic: $0) }
  }

  func pixels(of source: SourceDescription, sequential: Bool, scale: Double, bands: Bool) throws -> VipsImageHandle {
    try SourceImage.cropped(SourceImage.convert(mosaic.image(), source: source), source: source, scale: scale)
  }
}
