import Foundation

/// The units of a world file's coordinates.
public enum WorldFileCRS: String, Sendable, Codable, CaseIterable {
  /// Web-Mercator metres.
  case epsg3857
  /// Degrees of longitude and latitude.
  case epsg4326
}

/// ESRI world files: six numbers that place a raster, beside it as `plan.pgw` and kin.
public enum WorldFile {
  /// Parses the six lines A, D, B, E, C, F into a map from GDAL pixel corners
  /// (0,0 = top-left corner) to world coordinates. The file itself names the centre
  /// of the top-left pixel, hence the half-pixel shift. A refusal names `path` and
  /// quotes the line at fault only when `quoting` (a file the user named: one found
  /// beside an input is described, its bytes never repeated).
  public static func parse(_ text: String, path: String, quoting: Bool = true) throws -> AffineTransform {
    let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    guard lines.count == 6 else {
      throw TilecutError.invalidInput(path: path, reason: "a world file has 6 numbers, one per line; found \(lines.count) lines")
    }
    var v: [Double] = []
    for (index, line) in lines.enumerated() {
      guard let x = Double(line), x.isFinite else {
        let which = quoting ? "'\(Quote.value(line))'" : "its number \(index + 1) of 6"
        throw TilecutError.invalidInput(path: path, reason: "\(which) is not a number (a world file holds 6 finite decimal numbers)")
      }
      v.append(x)
    }
    let (a, d, b, e, c, f) = (v[0], v[1], v[2], v[3], v[4], v[5])
    let det = a * e - b * d
    guard det.isFinite else {
      throw TilecutError.invalidInput(path: path, reason: "the world file's pixel size is out of range (its determinant A·E − B·D overflows)")
    }
    guard det != 0 else {
      throw TilecutError.invalidInput(path: path, reason: "the world file's pixel size is zero (its determinant A·E − B·D is 0)")
    }
    return AffineTransform(a: a, b: b, c: c - 0.5 * a - 0.5 * b, d: d, e: e, f: f - 0.5 * d - 0.5 * e)
  }

  /// The placement a world file's map (from `parse`) gives, read in the named units;
  /// `option`: what a refusal names (the file the map was read from).
  public static func placement(transform t: AffineTransform, crs: WorldFileCRS, option: String = "--world-file") throws -> Placement {
    guard t.determinant != 0, t.determinant.isFinite else {
      throw TilecutError.invalidOption(option: option, reason: "the pixel size of its georeference is zero")
    }
    switch crs {
    case .epsg3857:
      // u = (x + originShift) / (2·originShift), v = (originShift − y) / (2·originShift): affine, so compose.
      let s = WebMercator.originShift
      let toWorld = AffineTransform(a: 1 / (2 * s), b: 0, c: 0.5, d: 0, e: -1 / (2 * s), f: 0.5)
      return Placement(method: .worldFile, transform: toWorld.concatenating(after: t))
    case .epsg4326:
      return Placement(method: .worldFile, projection: .lonLat, transform: t)
    }
  }

  /// Sidecar names to look for, in order: for plan.png, plan.pgw, plan.pngw, plan.wld
  /// (each also in upper case).
  public static func sidecarCandidates(for imagePath: String) -> [String] {
    let name = imagePath.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? imagePath
    // A leading dot names a hidden file, not an extension.
    let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
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

  /// The first sidecar world file beside the image, matching names without regard to case.
  public static func findSidecar(for imagePath: String) -> String? {
    let fm = FileManager.default
    let candidates = sidecarCandidates(for: imagePath)
    func isFile(_ path: String) -> Bool {
      var isDirectory: ObjCBool = false
      return fm.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
    if let exact = candidates.first(where: isFile) { return exact }
    // plan.png beside Plan.Pgw: compare names case-insensitively within the directory.
    let slash = imagePath.lastIndex(of: "/")
    let prefix = slash.map { String(imagePath[...$0]) } ?? ""
    guard let entries = try? fm.contentsOfDirectory(atPath: prefix.isEmpty ? "." : prefix) else { return nil }
    let byLowercase = Dictionary(entries.map { ($0.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
    for candidate in candidates {
      let wanted = String(candidate.dropFirst(prefix.count)).lowercased()
      if let entry = byLowercase[wanted], isFile(prefix + entry) { return prefix + entry }
    }
    return nil
  }
}

extension WorldFile {
  /// The `.prj` beside an image or its world file (plan.png → plan.prj), matched without
  /// regard to case; nil when there is none.
  public static func findProjection(for paths: [String]) -> String? {
    let fm = FileManager.default
    for path in paths {
      let slash = path.lastIndex(of: "/")
      let directory = slash.map { String(path[...$0]) } ?? ""
      let name = String(path.dropFirst(directory.count))
      let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
      let base = dot.map { String(name[..<$0]) } ?? name
      for candidate in [base + ".prj", base + ".PRJ"] where fm.fileExists(atPath: directory + candidate) {
        return directory + candidate
      }
      guard let entries = try? fm.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory) else { continue }
      if let entry = entries.first(where: { $0.lowercased() == (base + ".prj").lowercased() }) { return directory + entry }
    }
    return nil
  }
}

extension WorldFile {
  /// The files beside `path` named after it, which tilecut and GDAL read as its sidecars:
  /// its stem (the name up to its last dot) followed by `.` or `_`, in any case
  /// (`plan.pgw`, `PLAN.PRJ`, `plan.png.aux.xml`, GDAL's `plan_RPC.TXT`); full paths,
  /// sorted. Nil when the folder cannot be listed.
  public static func namedSiblings(of path: String) -> [String]? {
    let url = URL(fileURLWithPath: path)
    let name = url.lastPathComponent
    let stem = (name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name).lowercased()
    let folder = url.deletingLastPathComponent()
    guard !stem.isEmpty, let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
    return entries.filter { entry in
      let lower = entry.lowercased()
      return entry != name && (lower.hasPrefix(stem + ".") || lower.hasPrefix(stem + "_"))
    }.sorted().map { folder.appendingPathComponent($0).path }
  }

  /// GDAL's `plan.png.aux.xml` beside an image, when it exists.
  public static func findAuxiliary(for imagePath: String) -> String? {
    let path = imagePath + ".aux.xml"
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue ? path : nil
  }

  /// The CRS (WKT) in the `<SRS>` element of GDAL's auxiliary XML, entities decoded;
  /// nil when there is none.
  public static func auxiliarySRS(_ xml: String) -> String? {
    guard let open = xml.range(of: "<SRS"), let close = xml.range(of: "</SRS>", range: open.upperBound..<xml.endIndex),
      let start = xml.range(of: ">", range: open.upperBound..<close.lowerBound)
    else { return nil }
    var text = String(xml[start.upperBound..<close.lowerBound])
    for (entity, character) in [("&quot;", "\""), ("&apos;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")] {
      text = text.replacingOccurrences(of: entity, with: character)
    }
    text = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? nil : text
  }
}
