import Foundation

/// The units of a world file's coordinates.
public enum WorldFileCRS: String, Sendable, Codable {
  /// Web-Mercator metres.
  case epsg3857
  /// Degrees of longitude and latitude.
  case epsg4326
}

/// ESRI world files: six numbers that place a raster, beside it as `plan.pgw` and kin.
public enum WorldFile {
  /// Parses the six lines A, D, B, E, C, F into a map from GDAL pixel corners
  /// (0,0 = top-left corner) to world coordinates. The file itself names the centre
  /// of the top-left pixel, hence the half-pixel shift.
  public static func parse(_ text: String, path: String) throws -> AffineTransform {
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard lines.count == 6 else {
      throw TilecutError.invalidInput(path: path, reason: "a world file has 6 numbers, one per line; found \(lines.count) lines")
    }
    var v: [Double] = []
    for line in lines {
      guard let x = Double(line), x.isFinite else {
        throw TilecutError.invalidInput(path: path, reason: "'\(line)' is not a number")
      }
      v.append(x)
    }
    let (a, d, b, e, c, f) = (v[0], v[1], v[2], v[3], v[4], v[5])
    guard a * e - b * d != 0 else { throw TilecutError.invalidInput(path: path, reason: "the world file has zero pixel size") }
    return AffineTransform(a: a, b: b, c: c - 0.5 * a - 0.5 * b, d: d, e: e, f: f - 0.5 * d - 0.5 * e)
  }

  /// The placement a world file's map gives in its units.
  public static func placement(transform t: AffineTransform, crs: WorldFileCRS) throws -> Placement {
    switch crs {
    case .epsg3857:
      let k = 1 / (2 * WebMercator.originShift)
      return Placement(
        method: "world-file",
        transform: AffineTransform(
          a: t.a * k, b: t.b * k, c: (t.c + WebMercator.originShift) * k, d: -t.d * k, e: -t.e * k, f: (WebMercator.originShift - t.f) * k))
    case .epsg4326:
      return Placement(method: "world-file", projection: .lonLat, transform: t)
    }
  }

  /// Sidecar names to look for, in order: plan.pgw, plan.pngw, plan.wld (and upper case).
  public static func sidecarCandidates(for imagePath: String) -> [String] {
    let name = imagePath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? imagePath
    let dot = name.lastIndex(of: ".")
    let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
    let base = ext.isEmpty ? imagePath : String(imagePath.dropLast(ext.count + 1))
    var names: [String] = []
    if let first = ext.first, let last = ext.last, ext.count >= 2 {
      names.append("\(first)\(last)w")
    }
    if !ext.isEmpty { names.append(ext + "w") }
    names.append("wld")
    var out: [String] = []
    for n in names {
      for variant in [n.lowercased(), n.uppercased()] where !out.contains(base + "." + variant) {
        out.append(base + "." + variant)
      }
    }
    return out
  }

  /// The first sidecar world file that exists beside the image.
  public static func findSidecar(for imagePath: String) -> String? {
    sidecarCandidates(for: imagePath).first { FileManager.default.fileExists(atPath: $0) }
  }
}
