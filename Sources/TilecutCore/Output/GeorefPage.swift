import Foundation

/// `georef.html`: one self-contained page to place a plan by eye. The plan (a pyramid
/// of its own pixels, embedded as data URLs) sits beside a map (a base map, or a
/// graticule); the user clicks pairs of points, and the page fits them as
/// `Georeference.fit` does, shows the residuals, previews the placed plan on the map
/// and gives the `--gcp` arguments and a `tilecut.yml` entry to copy.
/// `window.tilecutGeoref` exposes the fit and the screen positions.
public enum GeorefPage {
  /// What marks a page this command wrote (and may replace).
  public static let marker = "<meta name=\"generator\" content=\"tilecut georef\">"

  /// What the page shows.
  public struct Config: Codable, Sendable, Equatable {
    /// The source as the user named it, and its page.
    public var source: String
    public var page: Int?
    /// The source's size in pixels (the --gcp pixel coordinates' space).
    public var width: Int
    public var height: Int
    /// The pyramid's deepest zoom: there one tile pixel is one source pixel.
    public var maxZoom: Int
    /// "z/x/y" to a data URL, 256 px tiles of the source's pixel space.
    public var tiles: [String: String]
    /// An XYZ template, or "" for a graticule.
    public var basemap: String
    public var attribution: String
    /// Control points to start with: [x, y, latitude, longitude].
    public var gcp: [[Double]]
    /// Where the map opens without control points: [latitude, longitude].
    public var view: [Double]?

    public init(
      source: String, page: Int?, width: Int, height: Int, maxZoom: Int, tiles: [String: String], basemap: String = "",
      attribution: String = "", gcp: [[Double]] = [], view: [Double]? = nil
    ) {
      self.source = source
      self.page = page
      self.width = width
      self.height = height
      self.maxZoom = maxZoom
      self.tiles = tiles
      self.basemap = basemap
      self.attribution = attribution
      self.gcp = gcp
      self.view = view
    }
  }

  /// A PNG's bytes as a data URL.
  public static func dataURL(png bytes: [UInt8]) -> String {
    "data:image/png;base64," + Data(bytes).base64EncodedString()
  }

  public static func html(config: Config) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let json = String(decoding: try encoder.encode(config), as: UTF8.self)
    // inside <script>, "</" would end the element and "<!--" start a comment state
    let embedded = json.replacingOccurrences(of: "</", with: "<\\/").replacingOccurrences(of: "<!--", with: "\\u003c!--")
    return template.replacingOccurrences(of: "__CONFIG__", with: embedded)
  }

  /// True when the start of a file (its first kilobytes) is a page this command wrote.
  public static func isGeorefPage(start: [UInt8]) -> Bool {
    String(decoding: start, as: UTF8.self).contains(marker)
  }

  /// The page, Sources/CTilecutResources/pages/georef.html, with the shared Mercator script in place.
  static let template = EmbeddedResources.page(EmbeddedResources.georefPage)
}
