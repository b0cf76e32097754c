import Foundation
import TilecutCore

/// Checks of `--preview-basemap` and `--preview-attribution` (and `georef --basemap`).
package enum PreviewBasemap {
  /// OpenStreetMap's standard tiles, the base map the examples use.
  package static let openStreetMap = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

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

  package static func validate(url: String?, attribution: String?, preview: Bool) throws {
    if let url {
      guard preview else { throw Failure.usage("--preview-basemap goes with --preview (it is drawn in preview.html)") }
      try check(url: url, option: "--preview-basemap")
    }
    if attribution != nil && url == nil {
      throw Failure.usage("--preview-attribution goes with --preview-basemap (it credits the base map)")
    }
  }
}
