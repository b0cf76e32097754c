import CTilecutResources
import Foundation

/// The data files that Sources/CTilecutResources compiles into the binary (C23 `#embed`):
/// the gazetteer, the HTML pages and their shared script, read from memory, so that
/// tilecut needs no file beside it at run time.
enum EmbeddedResources {
  /// The gazetteer's files as UTF-8 bytes: read as bytes, not as Swift strings, whose
  /// splitting by characters took 50 ms of every run's start.
  static var gazetteerPlaces: [UInt8] { bytes(tc_resource_gazetteer_places) }
  static var gazetteerCountries: [UInt8] { bytes(tc_resource_gazetteer_countries) }
  static var previewPage: String { text(tc_resource_preview_page) }
  static var georefPage: String { text(tc_resource_georef_page) }
  static var mercatorScript: String { text(tc_resource_mercator_script) }

  /// A page's template: its file less the final newline (a page ends at `</html>`), the
  /// line `__MERCATOR_JS__` replaced by pages/mercator.js, the one copy of Web Mercator
  /// and the graticule that both pages run.
  static func page(_ file: String) -> String {
    let template = file.hasSuffix("\n") ? String(file.dropLast()) : file
    let script = mercatorScript.hasSuffix("\n") ? String(mercatorScript.dropLast()) : mercatorScript
    return template.replacingOccurrences(of: "\n__MERCATOR_JS__\n", with: "\n" + script + "\n")
  }

  private static func bytes(_ resource: (UnsafeMutablePointer<Int>) -> UnsafePointer<CChar>) -> [UInt8] {
    var length = 0
    let start = resource(&length)
    return Array(UnsafeRawBufferPointer(start: start, count: length))
  }

  private static func text(_ resource: (UnsafeMutablePointer<Int>) -> UnsafePointer<CChar>) -> String {
    var length = 0
    let start = resource(&length)
    return String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
  }
}
