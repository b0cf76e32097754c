import Foundation
import TilecutCore

/// read(2), from outside `IMDFFiles`, whose own `read` hides it there.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }

/// The bytes of a venue's files, from its folder or its ZIP archive, within one budget:
/// the files together may hold `maxBytes`; a file that is no regular file, or a link
/// out of the venue's folder, is refused before it is opened; a ZIP entry is read
/// through `KMZArchive` (declared size, compression ratio, exact length).
enum IMDFFiles {
  /// Layer name → bytes (`manifest` for `manifest.json`), for the layers asked for that are there.
  static func read(path: String, layers: [String], maxBytes: Int) throws(KMLProblem) -> [String: [UInt8]] {
    var st = stat()
    guard stat(path, &st) == 0 else { throw KMLProblem("no such file or folder") }
    var out: [String: [UInt8]] = [:]
    var left = maxBytes
    if st.st_mode & S_IFMT == S_IFDIR {
      for layer in layers {
        let name = layer == "manifest" ? "manifest.json" : layer + ".geojson"
        let file = path + "/" + name
        guard FileManager.default.fileExists(atPath: file) else { continue }
        if SidecarPath.escape(file) != nil {
          throw KMLProblem(
            "its \(name) is a link that leads out of the venue's folder (or into /proc, /sys or /dev); tilecut reads a venue's files only from its folder: copy the file there"
          )
        }
        let bytes = try readFile(file, name: name, maxBytes: left)
        left -= bytes.count
        out[layer] = bytes
      }
      return out
    }
    let archive = try KMZArchive(path: path)
    let names = archive.names
    for layer in layers {
      let wanted = layer == "manifest" ? "manifest.json" : layer + ".geojson"
      // the shallowest entry of that name (an archive of a venue's folder holds it one level down)
      let matches = names.filter { ($0.split(separator: "/").last.map(String.init) ?? $0) == wanted && !$0.hasSuffix("/") }
      guard let entry = matches.min(by: { $0.split(separator: "/").count < $1.split(separator: "/").count }) else { continue }
      let bytes = try archive.read(entry, maxBytes: max(0, left), what: "the venue's \(wanted)")
      left -= bytes.count
      out[layer] = bytes
    }
    return out
  }

  /// A regular file's bytes, up to `maxBytes` (a FIFO or device is never opened for reading).
  static func readFile(_ file: String, name: String, maxBytes: Int) throws(KMLProblem) -> [UInt8] {
    let fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { throw KMLProblem("its \(name) cannot be read (\(String(cString: strerror(errno))))") }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      throw KMLProblem("its \(name) is not a regular file (a FIFO, socket or device); give the venue's files as files")
    }
    guard Int(st.st_size) <= maxBytes else {
      throw KMLProblem(
        "its \(name) is \(DecodeBudget.megabytes(UInt64(st.st_size))), more than the \(DecodeBudget.megabytes(UInt64(max(0, maxBytes)))) left of what a venue's files may take in memory; raise --max-memory if this is intended"
      )
    }
    var bytes = [UInt8](repeating: 0, count: Int(st.st_size))
    var filled = 0
    while filled < bytes.count {
      let n = bytes.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress.map { $0 + filled }, $0.count - filled) }
      guard n > 0 else { break }
      filled += n
    }
    guard filled == bytes.count else { throw KMLProblem("its \(name) changed while it was read; run again when it is complete") }
    return bytes
  }

  /// The deepest nesting of arrays and objects in JSON text (strings skipped), or nil when
  /// it is not balanced (the parser then says what is wrong).
  static func depth(_ bytes: [UInt8]) -> Int? {
    var depth = 0
    var deepest = 0
    var inString = false
    var escaped = false
    for b in bytes {
      if inString {
        if escaped {
          escaped = false
        } else if b == UInt8(ascii: "\\") {
          escaped = true
        } else if b == UInt8(ascii: "\"") {
          inString = false
        }
        continue
      }
      switch b {
      case UInt8(ascii: "\""): inString = true
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        deepest = max(deepest, depth)
      case UInt8(ascii: "]"), UInt8(ascii: "}"):
        depth -= 1
        if depth < 0 { return nil }
      default: break
      }
    }
    return deepest
  }
}

/// One GeoJSON feature of an IMDF layer read into an `IMDFFeature`, or a problem.
enum IMDFFeatureReader {
  static func read(_ item: Any, kind: String, file: String, index: Int, problems: inout [IMDFProblem]) -> IMDFFeature? {
    guard let object = item as? [String: Any] else {
      problems.append(IMDFProblem(file: file, id: nil, message: "feature \(index + 1) is not a JSON object; skipped"))
      return nil
    }
    let id = (object["id"] as? String) ?? (object["id"] as? NSNumber)?.stringValue
    guard let id, !id.isEmpty else {
      problems.append(IMDFProblem(file: file, id: nil, message: "feature \(index + 1) has no \"id\"; skipped"))
      return nil
    }
    let properties = object["properties"] as? [String: Any] ?? [:]
    var feature = IMDFFeature(
      kind: kind, id: id, file: file, category: properties["category"] as? String, geometry: nil,
      levelID: properties["level_id"] as? String, name: labels(properties["name"]),
      shortName: labels(properties["short_name"]) ?? labels(properties["shortName"]), displayPoint: nil, references: [], ordinal: nil)
    switch kind {
    case "level":
      if let n = properties["ordinal"] as? NSNumber {
        let double = n.doubleValue
        if let value = Int(exactly: double), IMDFFeature.ordinals.contains(value) {
          feature.ordinal = value
        } else if double.isFinite, double.rounded() == double {
          feature.ordinalOutOfRange = double
        }
      }
      feature.references = properties["building_ids"] as? [String] ?? []
    case "anchor": feature.references = (properties["unit_id"] as? String).map { [$0] } ?? []
    case "amenity": feature.references = properties["unit_ids"] as? [String] ?? []
    case "occupant": feature.references = (properties["anchor_id"] as? String).map { [$0] } ?? []
    default: break
    }
    if let display = properties["display_point"] as? [String: Any], case .points(let p)? = try? geometry(display), let first = p.first {
      feature.displayPoint = first
    }
    if let g = object["geometry"], !(g is NSNull) {
      do {
        feature.geometry = try geometry(g)
      } catch {
        problems.append(IMDFProblem(file: file, id: id, message: "\(error.reason); not drawn"))
        feature.geometry = nil
        if kind != "level" { return nil }
      }
    }
    return feature
  }

  /// IMDF's LABELS object: language tag → text.
  static func labels(_ value: Any?) -> IMDFLabels? {
    guard let object = value as? [String: Any] else { return nil }
    let texts = object.compactMapValues { $0 as? String }
    return texts.isEmpty ? nil : IMDFLabels(texts: texts)
  }

  static func position(_ value: Any?) throws(KMLProblem) -> LonLat {
    guard let array = value as? [Any], array.count >= 2, let lon = (array[0] as? NSNumber)?.doubleValue,
      let lat = (array[1] as? NSNumber)?.doubleValue
    else { throw KMLProblem("has a position that is not [longitude, latitude]") }
    guard lon.isFinite, lat.isFinite, abs(lon) <= 180, abs(lat) <= 90 else {
      throw KMLProblem("has a position outside WGS 84's range (\(lon), \(lat)): IMDF's coordinates are longitude, latitude in degrees")
    }
    return LonLat(lon: lon, lat: lat)
  }

  static func line(_ value: Any?, minimum: Int) throws(KMLProblem) -> [LonLat] {
    guard let array = value as? [Any] else { throw KMLProblem("has coordinates that are not an array of positions") }
    var out: [LonLat] = []
    for p in array { out.append(try position(p)) }
    guard out.count >= minimum else { throw KMLProblem("has a line or ring of \(out.count) positions, fewer than \(minimum)") }
    return out
  }

  static func polygon(_ value: Any?) throws(KMLProblem) -> [[LonLat]] {
    guard let rings = value as? [Any], !rings.isEmpty else { throw KMLProblem("has a polygon without rings") }
    var out: [[LonLat]] = []
    for r in rings {
      let ring = try line(r, minimum: 4)
      guard ring.first == ring.last else { throw KMLProblem("has a polygon ring that is not closed (its last position is not its first)") }
      out.append(ring)
    }
    return out
  }

  static func geometry(_ value: Any) throws(KMLProblem) -> IMDFGeometry {
    guard let object = value as? [String: Any], let type = object["type"] as? String else {
      throw KMLProblem("has a geometry without a \"type\"")
    }
    let c = object["coordinates"]
    switch type {
    case "Point": return .points([try position(c)])
    case "MultiPoint":
      guard let list = c as? [Any] else { throw KMLProblem("has a MultiPoint without coordinates") }
      var out: [LonLat] = []
      for p in list { out.append(try position(p)) }
      return .points(out)
    case "LineString": return .lines([try line(c, minimum: 2)])
    case "MultiLineString":
      guard let list = c as? [Any] else { throw KMLProblem("has a MultiLineString without coordinates") }
      var out: [[LonLat]] = []
      for l in list { out.append(try line(l, minimum: 2)) }
      return .lines(out)
    case "Polygon": return .polygons([try polygon(c)])
    case "MultiPolygon":
      guard let list = c as? [Any] else { throw KMLProblem("has a MultiPolygon without coordinates") }
      var out: [[[LonLat]]] = []
      for p in list { out.append(try polygon(p)) }
      return .polygons(out)
    default: throw KMLProblem("has a geometry of type \(Quote.value(type)), which IMDF does not use")
    }
  }
}
