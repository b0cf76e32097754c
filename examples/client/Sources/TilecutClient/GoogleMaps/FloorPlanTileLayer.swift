#if canImport(GoogleMaps) && canImport(UIKit)
  import Foundation
  import GoogleMaps
  import UIKit

  /// A floor plan on a Google map, served by a CDN: fetches only the cells the
  /// manifest lists, at the tile size for the screen (256, 512 or 768 px on the same
  /// z/x/y grid), switches floors, and reloads its tiles when a newer manifest's
  /// content version differs.
  @MainActor
  public final class FloorPlanTileLayer {
    /// Read by the URL constructor off the main thread; replaced by `update`.
    private let manifest: LockedValue<TileManifest>
    private let base: URL
    private var version: TileCacheVersion
    private var layer: GMSURLTileLayer?
    public private(set) var floor: Int?

    /// `base` is where the output directory is served, with or without a trailing
    /// slash, e.g. https://cdn.example.com/floorplans
    public init(manifest: TileManifest, base: URL) {
      self.manifest = LockedValue(manifest)
      self.base = base
      version = TileCacheVersion(manifest)
    }

    /// Shows one floor, fitting the camera to it.
    public func show(floor: Int, on map: GMSMapView) {
      layer?.map = nil
      let current = manifest.value
      // a map not yet in a window has no display scale of its own
      let scale = map.traitCollection.displayScale > 0 ? map.traitCollection.displayScale : UITraitCollection.current.displayScale
      let size = current.tileSize(forScreenScale: Double(scale))
      let manifest = self.manifest
      let base = self.base
      let urls: GMSTileURLConstructor = { x, y, zoom in
        // nil means "no tile here": the SDK draws nothing and sends no request
        manifest.value.tileURL(base: base, floor: floor, zoom: Int(zoom), x: Int(x), y: Int(y), tileSize: size, versioned: true)
      }
      let layer = GMSURLTileLayer(urlConstructor: urls)
      layer.tileSize = size
      layer.zIndex = 100
      layer.map = map
      self.layer = layer
      self.floor = floor
      FloorPlanCamera.fit(map, to: current, floor: floor)
    }

    /// Takes a freshly downloaded manifest; when its tiles changed, the layer drops
    /// its cached tiles and asks again (with the new `?v=` in every URL).
    public func update(_ newer: TileManifest) {
      let changed = version.accept(newer)
      manifest.value = newer
      if changed { layer?.clearTileCache() }
    }
  }

  /// A floor plan read offline (tiles in the app bundle, a directory, MBTiles or
  /// PMTiles) or from PMTiles archives on a server (`OfflineTiles(manifest:pmtilesBase:)`):
  /// `kGMSTileLayerNoTile` for the manifest's no-tile cells, nil only when a listed
  /// tile cannot be read right now.
  public final class OfflineFloorPlanTileLayer: GMSSyncTileLayer {
    private let tiles: LockedValue<OfflineTiles>
    private let versionLock = NSLock()
    private var version: TileCacheVersion
    private let size: Int
    public let floor: Int

    /// `screenScale`: the map's `traitCollection.displayScale`, which picks the tile size.
    public init(tiles: OfflineTiles, floor: Int, screenScale: CGFloat) {
      self.tiles = LockedValue(tiles)
      version = TileCacheVersion(tiles.manifest)
      size = tiles.manifest.tileSize(forScreenScale: Double(screenScale))
      self.floor = floor
      super.init()
      tileSize = size
      zIndex = 100
    }

    /// Called by the SDK off the main thread. At a zoom whose 512 px tiles the 256 px
    /// ones serve (`--retina-depth native`) the image is 256 px: the SDK scales it
    /// into the 512 px tile.
    public override func tileFor(x: UInt, y: UInt, zoom: UInt) -> UIImage? {
      switch tiles.value.tile(floor: floor, zoom: Int(zoom), x: Int(x), y: Int(y), tileSize: size) {
      case .tile(let data): return UIImage(data: data)
      case .noTile: return kGMSTileLayerNoTile
      case .unavailable: return nil
      }
    }

    /// Takes an updated copy (say, a newer bundle downloaded on demand); when its
    /// content version differs, the cached tiles go.
    public func update(_ newer: OfflineTiles) {
      let changed = versionLock.withLock { version.accept(newer.manifest) }
      tiles.value = newer
      if changed { clearTileCache() }
    }
  }

  /// The camera limits a floor plan wants: its footprint and zoom range.
  public enum FloorPlanCamera {
    /// Fits the camera to the floor's footprint, keeps it there, and limits zoom to
    /// the manifest's range (plus `overzoom` levels of stretched tiles).
    @MainActor
    public static func fit(_ map: GMSMapView, to manifest: TileManifest, floor: Int, overzoom: Float = 1) {
      if let zooms = manifest.zoomRange(floor: floor) {
        map.setMinZoom(Float(zooms.lowerBound), maxZoom: Float(zooms.upperBound) + overzoom)
      }
      guard let box = manifest.bounds(floor: floor) else { return }
      let bounds = GMSCoordinateBounds(
        coordinate: CLLocationCoordinate2D(latitude: box.south, longitude: box.west),
        coordinate: CLLocationCoordinate2D(latitude: box.north, longitude: box.east))
      map.cameraTargetBounds = bounds
      map.moveCamera(GMSCameraUpdate.fit(bounds))
    }
  }
#endif
