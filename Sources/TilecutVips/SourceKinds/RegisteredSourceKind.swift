import TilecutCore

/// A source kind found before any bytes are read: the job that opened the source (a
/// tile store, an IMDF venue) registered what it found, and the renderer asks each of
/// these kinds, in `SourceKinds.registered`, whether the source is one of theirs
/// before it asks the format's kind (`SourceKind`). Their headers are the job's
/// (`TileStoreSource`, `VenueSource` in Tilecut); their pixels are theirs.
package protocol RegisteredSourceKind: Sendable {
  /// What the kind is, for messages and the documentation.
  var name: String { get }

  /// Drawn at the density each level needs (a venue's floors), or read from stored
  /// pixels (a tile store's tiles).
  var isDrawnPerZoom: Bool { get }

  /// The kind holding `source` (its path and `storeFloor`), when one was registered.
  static func registered(for source: SourceDescription) -> Self?

  /// The source's pixels as sRGB RGBA8, cropped to its band, at `scale`; `bands`: a
  /// drawing read strictly top to bottom (`sequential`) is rendered in bands.
  func pixels(of source: SourceDescription, sequential: Bool, scale: Double, bands: Bool) throws -> VipsImageHandle
}

extension SourceKinds {
  /// The kinds a job registers sources of, asked in this order.
  package static let registered: [any RegisteredSourceKind.Type] = [TileStoreKind.self, VenueKind.self]

  /// The registered kind holding `source`, if any.
  package static func registered(for source: SourceDescription) -> (any RegisteredSourceKind)? {
    for kind in registered {
      if let found = kind.registered(for: source) { return found }
    }
    return nil
  }
}
