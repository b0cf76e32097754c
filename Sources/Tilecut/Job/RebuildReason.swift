import TilecutCore
import TilecutVips

extension JobOptions {
  /// Why a previous output is made again whole, in the words a person set it with:
  /// `maxZoom changed`, `format, quality changed`, `made by tilecut 0.1.0`; nil when no
  /// option differs (a source or a floor's own keys did: the floors say so).
  static func rebuildReason(previous: Manifest, options: [String: String], tileSizes: [Int]) -> String? {
    if previous.generator.version != tilecutVersion {
      return "made by tilecut \(previous.generator.version), this is \(tilecutVersion)"
    }
    if previous.generator.libvips != Vips.version { return "made with libvips \(previous.generator.libvips), this is \(Vips.version)" }
    // written before the zooms were recorded (and sources named relative to the project)
    guard previous.options["maxZoom"] != nil else { return "made by an earlier tilecut" }
    var changed: [String] = []
    if previous.tileSizes != tileSizes { changed.append("tileSizes") }
    let keys = Set(previous.options.keys).union(options.keys).filter { !$0.hasPrefix("floor ") && !$0.contains(" floor ") && $0 != "tileSizes" }
    for key in keys.sorted() where previous.options[key] != options[key] { changed.append(key) }
    return changed.isEmpty ? nil : changed.joined(separator: ", ") + " changed"
  }
}
