import Foundation
import TilecutCore

/// What gdal2tiles, dzsave (vips) and MapTiler users type, answered with tilecut's
/// spelling when the parser does not know it: one line, exit 2.
package enum PeerSpellings {
  /// The hint for the first argument a peer tool would take, or nil.
  package static func hint(_ args: [String]) -> String? {
    // `preview` has its own --zoom; other subcommands are not tiling
    if let first = args.first, ["preview", "verify", "merge"].contains(first) { return nil }
    var i = 0
    while i < args.count {
      let arg = args[i]
      if arg == "--" { return nil }
      let (name, inline) = split(arg)
      let value = inline ?? (i + 1 < args.count ? args[i + 1] : nil)
      if let text = answer(name: name, value: value) { return text }
      i += 1
    }
    return nil
  }

  /// "--zoom=10-18" → ("--zoom", "10-18"); "-z10-18" → ("-z", "10-18").
  static func split(_ arg: String) -> (String, String?) {
    if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
      return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
    }
    if arg.hasPrefix("-"), !arg.hasPrefix("--"), arg.count > 2, ["-z", "-r"].contains(String(arg.prefix(2))) {
      return (String(arg.prefix(2)), String(arg.dropFirst(2)))
    }
    return (arg, nil)
  }

  /// gdal2tiles' -r value as tilecut's --resampling kernel, or the list of them.
  static func kernel(_ value: String?) -> String {
    if let value, let k = Resampling(optionValue: value) { return k.rawValue }
    let known = Resampling.allCases.map(\.rawValue).joined(separator: "|")
    guard let value, !value.hasPrefix("-") else { return known }
    return "\(known) (tilecut has no \(value))"
  }

  static func answer(name: String, value: String?) -> String? {
    switch name {
    case "--zoom", "-z":
      return "\(name) is gdal2tiles' spelling: tilecut takes " + zooms(value)
    case "-r", "--resampling-method", "--resample":
      return "\(name) is gdal2tiles' spelling: tilecut takes --resampling \(kernel(value))"
    case "--processes", "--threads":
      return "\(name) is gdal2tiles' spelling: tilecut takes --jobs \(value.flatMap { Int($0) }.map(String.init) ?? "N")"
    case "--xyz", "--tms":
      return "\(name): tiles are always XYZ (z/x/y, y counted down from the north, as Leaflet, MapLibre and Google Maps read them); drop \(name)"
    case "--layout":
      return
        "--layout is dzsave's spelling: tilecut's tiles are always XYZ; name their files with --name TEMPLATE (--name '{z}/{x}/{y}.png' for Google's layout; default \(TileNameTemplate.defaultPattern))"
    case "--tilesize", "--tile_size", "--tile-width", "--tile-height":
      return "\(name) is a peer's spelling: tilecut takes --tile-size \(value.flatMap { Int($0) }.map(String.init) ?? "256,512")"
    case "--s_srs", "-s":
      return "\(name) is gdal2tiles' spelling: tilecut takes --source-crs \(value ?? "CRS")"
    case "--profile", "-p":
      return "\(name): tilecut's tiles are always Web-Mercator (EPSG:3857, the mercator profile); drop \(name)"
    case "--suffix":
      return "--suffix is dzsave's spelling: tilecut takes --format png, webp or jpeg"
    case "--webviewer", "-w":
      return "\(name) is gdal2tiles' spelling: tilecut writes a viewer page with --preview"
    default:
      return nil
    }
  }

  /// "10-18" → "--min-zoom 10 --max-zoom 18"; "15" → "--max-zoom 15".
  static func zooms(_ value: String?) -> String {
    guard let value else { return "--min-zoom Z --max-zoom Z" }
    let parts = value.split(separator: "-", omittingEmptySubsequences: false)
    if parts.count == 2, let lo = Int(parts[0]), let hi = Int(parts[1]) { return "--min-zoom \(lo) --max-zoom \(hi)" }
    if let z = Int(value) { return "--min-zoom \(z) --max-zoom \(z)" }
    return "--min-zoom Z --max-zoom Z"
  }

  /// A positional argument that names where output goes (`tilecut plan.png out/`):
  /// after the first input, a directory, or a last path that does not exist and ends
  /// in "/" or has no extension (a lone directory is refused as an input, exit 1).
  package static func positionalOutput(_ inputs: [String]) -> String? {
    for (i, input) in inputs.enumerated() {
      var isDirectory: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory)
      let looksLikeOutput =
        !exists && i > 0 && i == inputs.count - 1 && !input.contains("[")
        && (input.hasSuffix("/") || !(input.split(separator: "/").last ?? "").contains("."))
      if (i > 0 && exists && isDirectory.boolValue) || looksLikeOutput {
        let what = exists ? "is a directory, not an image" : "does not exist"
        let dir = input.hasSuffix("/") ? String(input.dropLast()) : input
        return "\(input) \(what); tilecut's output is an option (gdal2tiles and dzsave take it positionally): did you mean -o \(dir)?"
      }
    }
    return nil
  }
}
