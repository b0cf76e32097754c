#if canImport(GoogleMaps) && canImport(UIKit)
  import GoogleMaps
  import UIKit

  /// A floor plan on a Google map: fetches only the cells the manifest lists,
  /// 512 px tiles on retina screens, and switches floors.
  @MainActor
  final class FloorPlanTileLayer {
    private let manifest: TileManifest
    private let base: URL
    private var layer: GMSURLTileLayer?

    /// `base` is where the output directory is served, e.g. https://cdn.example.com/floorplans/
    init(manifest: TileManifest, base: URL) {
      self.manifest = manifest
      self.base = base
    }

    func show(floor: Int, on map: GMSMapView) {
      layer?.map = nil
      let size = UIScreen.main.scale >= 2 && manifest.tileSizes.contains(512) ? 512 : 256
      let manifest = self.manifest
      let base = self.base
      let urls: GMSTileURLConstructor = { x, y, zoom in
        // nil means "no tile here": the SDK draws nothing and sends no request
        manifest.tileURL(base: base, floor: floor, zoom: Int(zoom), x: Int(x), y: Int(y), tileSize: size)
      }
      let layer = GMSURLTileLayer(urlConstructor: urls)
      layer.tileSize = size
      layer.zIndex = 100
      layer.map = map
      self.layer = layer
    }
  }
#endif
