#if canImport(MapKit)
  import Foundation
  import MapKit

  /// A floor plan as a MapKit tile overlay. MapKit asks for z/x/y (XYZ, like
  /// Google) with the screen's scale; the overlay answers with the tile size for
  /// that scale (512 px on 2×, 768 px on 3× when the output has it) and says "no
  /// tile" for cells the manifest lacks without any request.
  public final class FloorPlanTileOverlay: MKTileOverlay {
    public let manifest: TileManifest
    public let floor: Int
    public let source: FloorPlanTileSource

    public init(manifest: TileManifest, floor: Int, source: FloorPlanTileSource) {
      self.manifest = manifest
      self.floor = floor
      self.source = source
      super.init(urlTemplate: nil)
      canReplaceMapContent = false
      if let zooms = manifest.zoomRange(floor: floor) {
        minimumZ = zooms.lowerBound
        maximumZ = zooms.upperBound
      }
      if let box = manifest.bounds(floor: floor) {
        let nw = MKMapPoint(CLLocationCoordinate2D(latitude: box.north, longitude: box.west))
        let se = MKMapPoint(CLLocationCoordinate2D(latitude: box.south, longitude: box.east))
        footprint = MKMapRect(x: nw.x, y: nw.y, width: se.x - nw.x, height: se.y - nw.y)
      }
    }

    /// The floor's footprint, for `setVisibleMapRect` and as the overlay's extent.
    public private(set) var footprint: MKMapRect = .world

    public override var boundingMapRect: MKMapRect { footprint }

    private func size(for path: MKTileOverlayPath) -> Int {
      manifest.tileSize(forScreenScale: Double(path.contentScaleFactor))
    }

    public override func url(forTilePath path: MKTileOverlayPath) -> URL {
      guard case .remote(let base) = source,
        let url = manifest.tileURL(base: base, floor: floor, zoom: path.z, x: path.x, y: path.y, tileSize: size(for: path), versioned: true)
      else { return URL(fileURLWithPath: "/dev/null") }
      return url
    }

    /// Offline sources include PMTiles archives, bundled or read over http(s) with Range
    /// requests (`FloorPlanTileSource.pmtiles(manifest:base:)`).
    /// At a zoom whose 512 px tiles the 256 px ones serve (`--retina-depth native`),
    /// the URL and the offline bytes are the 256 px tile's; MapKit draws it scaled.
    public override func loadTile(at path: MKTileOverlayPath, result: @escaping (Data?, Error?) -> Void) {
      let size = size(for: path)
      guard manifest.hasTile(floor: floor, zoom: path.z, x: path.x, y: path.y, tileSize: size) else {
        result(nil, nil)  // no tile: nothing drawn, nothing fetched
        return
      }
      switch source {
      case .remote:
        super.loadTile(at: path, result: result)
      case .offline(let tiles):
        // a PMTiles archive on a server is read with a request: off the caller's thread
        let floor = self.floor
        DispatchQueue.global(qos: .userInitiated).async {
          switch tiles.tile(floor: floor, zoom: path.z, x: path.x, y: path.y, tileSize: size) {
          case .tile(let data): result(data, nil)
          case .noTile: result(nil, nil)
          case .unavailable(let reason): result(nil, TileUnavailable(reason))
          }
        }
      }
    }
  }
#endif
