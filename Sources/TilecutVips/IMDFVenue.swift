import Foundation
import TilecutCore

/// A longitude and latitude in degrees (WGS 84, as IMDF stores every geometry).
public struct LonLat: Hashable, Sendable {
  public var lon: Double
  public var lat: Double
  public init(lon: Double, lat: Double) { (self.lon, self.lat) = (lon, lat) }
}

/// A feature's geometry as IMDF allows it: polygons (rings, the first the outline),
/// lines, or points.
public enum IMDFGeometry: Sendable {
  case polygons([[[LonLat]]])
  case lines([[LonLat]])
  case points([LonLat])

  /// `polygon`, `line` or `point`, for problems.
  public var kind: String {
    switch self {
    case .polygons: return "polygon"
    case .lines: return "line"
    case .points: return "point"
    }
  }

  /// Every position, for extents.
  public var positions: [LonLat] {
    switch self {
    case .polygons(let p): return p.flatMap { $0.flatMap { $0 } }
    case .lines(let l): return l.flatMap { $0 }
    case .points(let p): return p
    }
  }
}

/// A language-tagged text (IMDF's LABELS: `{"en": "Stairs", "ru": "Лестница"}`).
public struct IMDFLabels: Sendable, Hashable {
  public var texts: [String: String]

  /// The text for `language`, falling back as IMDF's localised names do: the exact
  /// tag, then the same language with any region (`en` for `en-GB`, `en-GB` for `en`),
  /// then the venue's own language (its manifest's), then the first tag in order.
  public func text(language: String?, venueLanguage: String?) -> String? {
    let usable = texts.filter { !$0.value.trimmingCharacters(in: .whitespaces).isEmpty }
    func match(_ tag: String?) -> String? {
      guard let tag = tag?.lowercased(), !tag.isEmpty else { return nil }
      if let exact = usable.first(where: { $0.key.lowercased() == tag }) { return exact.value }
      let base = tag.split(separator: "-").first.map(String.init) ?? tag
      let same = usable.filter { ($0.key.lowercased().split(separator: "-").first.map(String.init) ?? "") == base }
      return same.min { $0.key < $1.key }?.value
    }
    return match(language) ?? match(venueLanguage) ?? usable.min { $0.key < $1.key }?.value
  }
}

/// One IMDF feature as tilecut draws it: what it is, where, on which level.
public struct IMDFFeature: Sendable {
  /// Its layer: `unit`, `opening`, `fixture`, `section`, `kiosk`, `amenity`, `anchor`, `occupant`, `level`.
  public var kind: String
  public var id: String
  /// The file it came from (`unit.geojson`), for problems.
  public var file: String
  public var category: String?
  public var geometry: IMDFGeometry?
  public var levelID: String?
  public var name: IMDFLabels?
  public var shortName: IMDFLabels?
  public var displayPoint: LonLat?
  /// `unit_id` (anchor), `unit_ids` (amenity), `anchor_id` (occupant), `building_ids` (level).
  public var references: [String]
  public var ordinal: Int?
  /// A level's integer "ordinal" outside `IMDFFeature.ordinals`, kept to name it in the problem.
  public var ordinalOutOfRange: Double? = nil

  /// The level ordinals tilecut numbers floors by.
  public static let ordinals = -1000...1000
}

/// A problem with one feature (or one file), as IMDF's validators report it.
public struct IMDFProblem: Sendable, Hashable, CustomStringConvertible {
  public var file: String
  public var id: String?
  public var message: String
  public var description: String { id.map { "\(file): feature \(Quote.value($0)): \(message)" } ?? "\(file): \(message)" }
}

/// An IMDF venue (Apple's Indoor Mapping Data Format, an OGC community standard): a
/// folder or ZIP archive holding `manifest.json` and one GeoJSON file per feature type.
/// Read within a byte budget, checked feature by feature: a feature that cannot be drawn
/// (no `level_id`, a level that is not there, a broken geometry) is a problem named by
/// its id and file, and is left out; the rest is drawn.
public struct IMDFVenue: Sendable {
  /// The folder or `.zip` as given.
  public var path: String
  /// The manifest's `language` (the venue's default for labels).
  public var language: String?
  public var levels: [IMDFFeature]
  /// Every drawable feature that is not a level.
  public var features: [IMDFFeature]
  public var problems: [IMDFProblem]
  /// Digest of every file read (names and bytes), for the output's fingerprint.
  public var digest: String

  /// The layers tilecut reads; the others (address, detail, footprint, geofence, relationship, venue, building, and
  /// a writer's own) are left alone.
  static let layers = ["level", "unit", "opening", "fixture", "section", "kiosk", "amenity", "anchor", "occupant"]

  /// The geometry each drawn layer has in IMDF.
  static let geometryKind = [
    "unit": "polygon", "section": "polygon", "fixture": "polygon", "kiosk": "polygon", "opening": "line", "amenity": "point",
  ]

  /// The most JSON nesting a file may have (a polygon is 4 deep, a feature some 8).
  static let maxDepth = 64

  /// Whether `path` is a venue: a folder holding `manifest.json` beside IMDF layers
  /// (`level.geojson`), or a ZIP archive holding both. A tilecut output (also a folder with
  /// a `manifest.json`) has no `level.geojson`.
  public static func isVenue(_ path: String) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0 else { return false }
    if st.st_mode & S_IFMT == S_IFDIR {
      return FileManager.default.fileExists(atPath: path + "/level.geojson") && FileManager.default.fileExists(atPath: path + "/manifest.json")
    }
    guard st.st_mode & S_IFMT == S_IFREG, let handle = FileHandle(forReadingAtPath: path) else { return false }
    let head = [UInt8]((try? handle.read(upToCount: 4)) ?? Data())
    try? handle.close()
    guard KMZArchive.looksLikeZip(head) else { return false }
    // a .zip libzip refuses (damaged, cut short, past the entries tilecut takes): read as
    // a venue, whose reading says why, not as a format tilecut does not read
    guard let archive = try? KMZArchive(path: path) else { return path.lowercased().hasSuffix(".zip") }
    return archive.names.contains { entryLayer($0) == "level" }
  }

  /// The files of a venue folder tilecut reads (`manifest.json` and the layers it
  /// draws from), those that exist, named below `path`; none for a ZIP or a folder that
  /// is no venue.
  public static func files(inFolder path: String) -> [String] {
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR, isVenue(path) else { return [] }
    let folder = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
    return (["manifest.json"] + layers.map { $0 + ".geojson" }).map { folder + "/" + $0 }.filter {
      FileManager.default.fileExists(atPath: $0)
    }
  }

  /// Why a `.zip` that is no venue (`isVenue`) is not one, for a file named as a venue
  /// (a ZIP tilecut reads is a venue): nil when it is not a ZIP archive libzip reads.
  static func zipProblem(_ path: String) -> String? {
    guard let archive = try? KMZArchive(path: path) else { return nil }
    let names = archive.names
    let layout = "an IMDF venue's ZIP holds manifest.json and its .geojson files at its top (or in one folder)"
    if names.isEmpty { return "is an empty ZIP archive (no entries); \(layout)" }
    if let inner = names.first(where: { $0.lowercased().hasSuffix(".zip") }) {
      return "holds another ZIP archive (\(Quote.value(inner))) but no IMDF level.geojson; name the inner ZIP instead (unzip it): \(layout)"
    }
    return "holds no IMDF manifest.json or layers (no level.geojson); \(layout)"
  }

  /// A folder of IMDF layers (`level.geojson`) without the `manifest.json` IMDF requires.
  public static func isVenueWithoutManifest(_ path: String) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return false }
    return FileManager.default.fileExists(atPath: path + "/level.geojson") && !FileManager.default.fileExists(atPath: path + "/manifest.json")
  }

  /// `level` for `level.geojson` or `venue/level.geojson` (archives often hold one folder).
  static func entryLayer(_ name: String) -> String? {
    let last = name.split(separator: "/").last.map(String.init) ?? name
    guard last.lowercased().hasSuffix(".geojson") else { return nil }
    return String(last.dropLast(".geojson".count))
  }

  /// Bytes a JSON value (an object, array, number or string) takes once parsed, at
  /// most: 6.6 million values (3 × 10^5 small squares, 66 MB) peaked at 3.55 GB, 807,250
  /// (the same squares, 7.95 MB) at 492 MB; a real 8-level campus takes about 0.5 KB a
  /// value too, one ring of 10^6 positions about half that.
  static let parsedValueBytes = 540

  /// Reads the venue. `maxBytes`: what its files may hold together; `maxParsedBytes`:
  /// what their JSON may take once parsed (counted from its commas, brackets and braces
  /// at `parsedValueBytes` each, before any is parsed), or nil for no bound.
  public static func load(path: String, maxBytes: Int, maxParsedBytes: Int? = nil) throws -> IMDFVenue {
    do {
      let files = try IMDFFiles.read(path: path, layers: ["manifest"] + layers, maxBytes: maxBytes)
      if let maxParsedBytes {
        var values: [String: Int] = [:]
        for (layer, bytes) in files {
          values[layer] = bytes.reduce(0) { $0 + ($1 == UInt8(ascii: ",") || $1 == UInt8(ascii: "[") || $1 == UInt8(ascii: "{") ? 1 : 0) }
        }
        let total = values.values.reduce(0, +)
        if total > maxParsedBytes / parsedValueBytes, let most = values.max(by: { $0.value < $1.value }) {
          let file = most.key == "manifest" ? "manifest.json" : most.key + ".geojson"
          throw KMLProblem(
            "its files hold \(total) JSON values (\(most.value) in its \(file)), which take about \((total * parsedValueBytes) >> 20) MB once read, more than --max-memory allows; raise --max-memory or simplify its features (fewer positions)"
          )
        }
      }
      return try parse(path: path, files: files)
    } catch let problem as KMLProblem {
      throw TilecutError.invalidInput(path: path, reason: problem.reason)
    }
  }

  static func parse(path: String, files: [String: [UInt8]]) throws -> IMDFVenue {
    var digestText: [UInt8] = []
    for name in files.keys.sorted() {
      digestText += Array("\(name) \(Vips.sha256(of: files[name] ?? []))\n".utf8)
    }
    guard let manifestBytes = files["manifest"] else {
      throw KMLProblem(
        "is an IMDF venue without manifest.json (IMDF requires one, with its version and language); add it, e.g. {\"version\": \"1.0.0\", \"language\": \"en\"}"
      )
    }
    let manifest = try object(manifestBytes, file: "manifest.json")
    guard let root = manifest as? [String: Any] else { throw KMLProblem("its manifest.json is not a JSON object") }
    var venue = IMDFVenue(
      path: path, language: root["language"] as? String, levels: [], features: [], problems: [], digest: Vips.sha256(of: digestText))
    guard files["level"] != nil else { throw KMLProblem("holds no level.geojson: an IMDF venue's floors are its levels") }
    for layer in layers {
      guard let bytes = files[layer] else { continue }
      let file = layer + ".geojson"
      let json = try object(bytes, file: file)
      guard let collection = json as? [String: Any], let list = collection["features"] as? [Any] else {
        venue.problems.append(IMDFProblem(file: file, id: nil, message: "is not a GeoJSON FeatureCollection (no \"features\" array); skipped"))
        continue
      }
      for (index, item) in list.enumerated() {
        if let feature = IMDFFeatureReader.read(item, kind: layer, file: file, index: index, problems: &venue.problems) {
          if layer == "level" { venue.levels.append(feature) } else { venue.features.append(feature) }
        }
      }
    }
    venue.check()
    venue.checkPolygons()
    return venue
  }

  /// JSON within `maxDepth`, or a one-line refusal naming the file.
  static func object(_ bytes: [UInt8], file: String) throws(KMLProblem) -> Any {
    if let depth = IMDFFiles.depth(bytes), depth > maxDepth {
      throw KMLProblem("its \(file) nests JSON \(depth) deep, more than \(maxDepth); GeoJSON is a few levels deep")
    }
    // a byte-order mark, as Windows editors write one, is not JSON's
    let text = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(bytes.dropFirst(3)) : Data(bytes)
    do {
      return try JSONSerialization.jsonObject(with: text, options: [.fragmentsAllowed])
    } catch {
      throw KMLProblem("its \(file) is not valid JSON (\((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "unreadable"))")
    }
  }

  /// The checks across files: levels with an ordinal and no other level of their building
  /// at the same ordinal, features on a level that is there.
  mutating func check() {
    var kept: [IMDFFeature] = []
    var seen: [String: String] = [:]
    for level in levels {
      guard level.ordinal != nil else {
        if let value = level.ordinalOutOfRange {
          let shown = Int(exactly: value).map(String.init) ?? "\(value)"
          let range = IMDFFeature.ordinals
          problems.append(
            IMDFProblem(
              file: level.file, id: level.id,
              message:
                "has \"ordinal\" \(shown), outside the range tilecut draws (\(range.lowerBound) to \(range.upperBound)); the level is not drawn"
            ))
        } else {
          problems.append(IMDFProblem(file: level.file, id: level.id, message: "has no integer \"ordinal\"; the level is not drawn"))
        }
        continue
      }
      let buildings = level.references.isEmpty ? [""] : level.references
      var clash: String?
      for building in buildings {
        let key = "\(building)\u{0}\(level.ordinal ?? 0)"
        if let other = seen[key] { clash = other } else { seen[key] = level.id }
      }
      if let clash {
        problems.append(
          IMDFProblem(
            file: level.file, id: level.id,
            message:
              "has ordinal \(level.ordinal ?? 0), as level \(Quote.value(clash)) of the same building has; both are drawn on floor \(level.ordinal ?? 0)"
          ))
      }
      kept.append(level)
    }
    levels = kept
    let levelIDs = Set(levels.map(\.id))
    let units = Dictionary(features.filter { $0.kind == "unit" }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    let anchors = Dictionary(features.filter { $0.kind == "anchor" }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    var drawn: [IMDFFeature] = []
    for var feature in features {
      switch feature.kind {
      case "amenity":
        // on the level of the first unit it names
        feature.levelID = feature.references.lazy.compactMap { units[$0]?.levelID }.first
      case "anchor":
        feature.levelID = feature.references.first.flatMap { units[$0]?.levelID }
      case "occupant":
        // drawn at its anchor
        guard let anchor = feature.references.first.flatMap({ anchors[$0] }) else {
          problems.append(IMDFProblem(file: feature.file, id: feature.id, message: "names no anchor that is there (\"anchor_id\"); not drawn"))
          continue
        }
        feature.levelID = anchor.references.first.flatMap { units[$0]?.levelID }
        feature.geometry = anchor.geometry
        feature.references += anchor.references
      default:
        break
      }
      guard let level = feature.levelID else {
        let why: String
        switch feature.kind {
        case "amenity", "anchor": why = "names no unit that is there (\"unit_id\"/\"unit_ids\")"
        case "occupant": why = "is at an anchor whose unit is not there"
        default: why = "has no \"level_id\""
        }
        problems.append(IMDFProblem(file: feature.file, id: feature.id, message: "\(why); not drawn"))
        continue
      }
      guard levelIDs.contains(level) else {
        problems.append(
          IMDFProblem(file: feature.file, id: feature.id, message: "is on level \(Quote.value(level)), which level.geojson does not hold; not drawn"))
        continue
      }
      guard let geometry = feature.geometry else {
        if feature.kind != "anchor" {
          problems.append(IMDFProblem(file: feature.file, id: feature.id, message: "has no geometry; not drawn"))
        }
        continue
      }
      if let wanted = Self.geometryKind[feature.kind], wanted != geometry.kind {
        problems.append(
          IMDFProblem(file: feature.file, id: feature.id, message: "has \(geometry.kind) geometry; IMDF's \(feature.kind) is \(wanted); not drawn"))
        continue
      }
      drawn.append(feature)
    }
    features = drawn
  }
}
