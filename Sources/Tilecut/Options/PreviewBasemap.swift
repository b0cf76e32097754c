import Foundation
import TilecutCore

/// The base map drawn under the tiles in preview.html: `--preview-basemap` and
/// `--preview-attribution` (and `georef --basemap`).
public struct PreviewBasemap: Sendable, Codable, Equatable {
  /// An XYZ template: http(s) or file, with {z}, {x} and {y}.
  public var urlTemplate: String
  /// Shown on the page: who the base map is by.
  public var attribution: String?

  public init(urlTemplate: String, attribution: String? = nil) {
    self.urlTemplate = urlTemplate
    self.attribution = attribution
  }

  /// OpenStreetMap's standard tiles, the base map the examples use.
  public static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

  /// The option's URL template, refused as a usage error in `option`'s words when it is none.
  public init(parsing url: String, attribution: String? = nil, option: String = "--preview-basemap") throws {
    try Self.check(url: url, option: option)
    self.init(urlTemplate: url, attribution: attribution)
  }

  /// `--preview-attribution` without `--preview-basemap`.
  public static let attributionAlone = "--preview-attribution goes with --preview-basemap (it credits the base map)"

  /// An XYZ template: http(s) or file, with {z}, {x} and {y}.
  package static func check(url: String, option: String) throws {
    let lower = url.lowercased()
    guard lower.hasPrefix("https://") || lower.hasPrefix("http://") || lower.hasPrefix("file://") else {
      throw Failure.usage("\(option): '\(Quote.value(url))' is not an http(s) or file URL; give an XYZ template such as \(openStreetMap)")
    }
    for part in ["{z}", "{x}", "{y}"] where !url.contains(part) {
      throw Failure.usage("\(option): '\(Quote.value(url))' has no \(part); give an XYZ template such as \(openStreetMap)")
    }
    if url.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "\"" || $0 == "<" || $0 == ">" || $0 == " " }) {
      throw Failure.usage("\(option): '\(Quote.value(url))' has a space, a quote, < or > or a control character; percent-encode them")
    }
  }
}
