#if canImport(SwiftUI) && canImport(MapKit) && canImport(UIKit)
  import MapKit
  import SwiftUI

  /// A floor plan on an `MKMapView` for SwiftUI: SwiftUI's `Map` has no tile
  /// overlays, so this wraps the UIKit view. The bound floor picks the overlay.
  public struct FloorPlanMap: UIViewRepresentable {
    public let manifest: TileManifest
    public let source: FloorPlanTileSource
    @Binding public var floor: Int

    public init(manifest: TileManifest, source: FloorPlanTileSource, floor: Binding<Int>) {
      self.manifest = manifest
      self.source = source
      _floor = floor
    }

    public func makeCoordinator() -> Coordinator { Coordinator() }

    public func makeUIView(context: Context) -> MKMapView {
      let map = MKMapView()
      map.delegate = context.coordinator
      return map
    }

    /// Swaps the overlay when the floor changes, or when a newer manifest brings
    /// different tiles (a new overlay: MapKit keeps no tiles of the old one).
    public func updateUIView(_ map: MKMapView, context: Context) {
      let coordinator = context.coordinator
      guard coordinator.shownFloor != floor || coordinator.shownVersion != manifest.contentVersion else { return }
      map.removeOverlays(map.overlays.filter { $0 is FloorPlanTileOverlay })
      let overlay = FloorPlanTileOverlay(manifest: manifest, floor: floor, source: source)
      map.addOverlay(overlay, level: .aboveLabels)
      if coordinator.shownFloor == nil, !overlay.footprint.isNull {
        map.setVisibleMapRect(overlay.footprint, edgePadding: UIEdgeInsets(top: 24, left: 24, bottom: 80, right: 24), animated: false)
      }
      coordinator.shownFloor = floor
      coordinator.shownVersion = manifest.contentVersion
    }

    /// The map's delegate: draws tile overlays.
    public final class Coordinator: NSObject, MKMapViewDelegate {
      var shownFloor: Int?
      var shownVersion: String?

      public func mapView(_ mapView: MKMapView, rendererFor overlay: MKOverlay) -> MKOverlayRenderer {
        if let tiles = overlay as? MKTileOverlay { return MKTileOverlayRenderer(tileOverlay: tiles) }
        return MKOverlayRenderer(overlay: overlay)
      }
    }
  }

  /// The map with a floor picker under it (basements first, as the manifest lists floors).
  public struct FloorPlanMapScreen: View {
    public let manifest: TileManifest
    public let source: FloorPlanTileSource
    @State private var floor: Int

    public init(manifest: TileManifest, source: FloorPlanTileSource) {
      self.manifest = manifest
      self.source = source
      _floor = State(initialValue: manifest.floors.first ?? 0)
    }

    public var body: some View {
      FloorPlanMap(manifest: manifest, source: source, floor: $floor)
        .ignoresSafeArea()
        .overlay(alignment: .bottom) {
          if manifest.floors.count > 1 {
            Picker("Floor", selection: $floor) {
              ForEach(manifest.floors.sorted(), id: \.self) { Text(FloorPlanMapScreen.label($0)).tag($0) }
            }
            .pickerStyle(.segmented)
            .padding()
            .background(.thinMaterial)
          }
        }
    }

    /// "B1" for floor -1, "0" for the ground floor, the number otherwise.
    public static func label(_ floor: Int) -> String { floor < 0 ? "B\(-floor)" : String(floor) }
  }
#endif
