import Foundation
import TilecutCore

/// One floor of a venue: every level of that ordinal (one per building), drawn on one
/// sheet in Web-Mercator pixels of zoom `zoom`, whose top-left corner is the world pixel
/// (`originX`, `originY`): an exact placement, pixel (col, row) of the sheet at world
/// pixel (originX + col, originY + row) of that zoom.
public struct IMDFFloor: Sendable {
  /// One level drawn on the floor, for the manifest.
  public struct Level: Sendable, Hashable, Codable {
    public var id: String
    public var shortName: String?
    public var name: String?
    public var buildingIDs: [String]
  }

  public var ordinal: Int
  public var levels: [Level]
  public var features: [IMDFFeature]
  public var zoom: Int
  public var originX: Int
  public var originY: Int
  public var width: Int
  public var height: Int
  /// Ground metres per sheet pixel at the floor's latitude.
  public var metersPerPixel: Double

  /// The venue's floors by ordinal, each sheet at `zoom` around its own features, its
  /// corner on a multiple of 64 pixels (so that the 6 zooms below stay on whole pixels).
  public static func floors(of venue: IMDFVenue, zoom: Int, language: String?) -> [IMDFFloor] {
    let byOrdinal = Dictionary(grouping: venue.levels.filter { $0.ordinal != nil }, by: { $0.ordinal ?? 0 })
    let world = WebMercator.worldPixels(zoom: zoom)
    var out: [IMDFFloor] = []
    for ordinal in byOrdinal.keys.sorted() {
      let levels = byOrdinal[ordinal] ?? []
      let ids = Set(levels.map(\.id))
      // the levels' own polygons are drawn too, as the floor's outer walls
      let features =
        venue.features.filter { $0.kind != "anchor" && ids.contains($0.levelID ?? "") } + levels.filter { $0.geometry != nil }
      let positions = features.flatMap { $0.geometry?.positions ?? [] } + levels.flatMap { $0.geometry?.positions ?? [] }
      guard !positions.isEmpty else { continue }
      let xs = positions.map { WebMercator.u(longitudeDegrees: $0.lon) * world }
      let ys = positions.map { WebMercator.v(latitudeDegrees: $0.lat) * world }
      let align = 64.0
      let x0 = ((xs.min() ?? 0) / align).rounded(.down) * align - align
      let y0 = ((ys.min() ?? 0) / align).rounded(.down) * align - align
      let x1 = ((xs.max() ?? 0) / align).rounded(.up) * align + align
      let y1 = ((ys.max() ?? 0) / align).rounded(.up) * align + align
      let lat = positions.map(\.lat).reduce(0, +) / Double(positions.count)
      let mpp = 2 * Double.pi * 6_378_137 * cos(lat * .pi / 180) / world
      out.append(
        IMDFFloor(
          ordinal: ordinal,
          levels: levels.map {
            Level(
              id: $0.id, shortName: $0.shortName?.text(language: language, venueLanguage: venue.language),
              name: $0.name?.text(language: language, venueLanguage: venue.language), buildingIDs: $0.references)
          }, features: features, zoom: zoom, originX: Int(x0), originY: Int(y0), width: Int(x1 - x0), height: Int(y1 - y0),
          metersPerPixel: mpp))
    }
    return out
  }

  /// The sheet pixel of a position.
  func pixel(_ p: LonLat) -> (x: Double, y: Double) {
    let world = WebMercator.worldPixels(zoom: zoom)
    return (WebMercator.u(longitudeDegrees: p.lon) * world - Double(originX), WebMercator.v(latitudeDegrees: p.lat) * world - Double(originY))
  }
}

/// A floor drawn as SVG for one rendering scale: fills and outlines in sheet pixels,
/// line widths, symbols and labels in tile pixels (divided by `scale`), so that they
/// stay legible where the floor is small; labels that would overlap a label of higher
/// priority (occupants, then named units by area, then amenities) are left out.
public enum IMDFDrawing {
  public static func svg(_ floor: IMDFFloor, scale: Double, style: IMDFStyle, language: String?, venueLanguage: String?) -> String {
    let s = max(scale, 1e-9)
    var out = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(floor.width)" height="\(floor.height)" viewBox="0 0 \(floor.width) \(floor.height)">

      """
    // nothing is drawn outside the floor's units (no label, door or outline past its walls)
    let outline = floor.features.filter { $0.kind == "unit" }.compactMap { path($0.geometry, floor: floor) }.joined()
    if !outline.isEmpty {
      out +=
        "<defs><clipPath id=\"units\"><path clip-rule=\"nonzero\" d=\"\(outline)\"/></clipPath></defs>\n<g clip-path=\"url(#units)\">\n"
    }
    // the level's outline over the rooms, under the doors (a door in an outer wall is a gap)
    let order = ["unit", "section", "fixture", "kiosk", "level", "opening"]
    for layer in order {
      let mine = floor.features.filter { $0.kind == layer }
      let groups = Dictionary(grouping: mine, by: { $0.category?.lowercased() ?? "" })
      for category in groups.keys.sorted() {
        let paint = style.paint(layer, category: category)
        let lines = layer == "opening"
        out += "<g\(attributes(paint, scale: s, lines: lines))>\n"
        for feature in groups[category] ?? [] {
          guard let d = path(feature.geometry, floor: floor) else { continue }
          out += "<path d=\"\(d)\"/>\n"
        }
        out += "</g>\n"
      }
    }
    out += symbols(floor, scale: s, style: style)
    out += labels(floor, scale: s, style: style, language: language, venueLanguage: venueLanguage)
    if !outline.isEmpty { out += "</g>\n" }
    out += "</svg>\n"
    return out
  }

  static func attributes(_ paint: IMDFPaint, scale s: Double, lines: Bool) -> String {
    var a = ""
    let fill = lines ? ("none", 1.0) : (paint.fill.flatMap(IMDFStyle.svgColour) ?? ("none", 1))
    a += " fill=\"\(fill.0)\""
    if fill.1 < 1 { a += " fill-opacity=\"\(number(fill.1))\"" }
    if !lines { a += " fill-rule=\"evenodd\"" }
    if let stroke = paint.stroke.flatMap(IMDFStyle.svgColour), stroke.0 != "none", let width = paint.width, width > 0 {
      a += " stroke=\"\(stroke.0)\" stroke-width=\"\(number(width / s))\" stroke-linejoin=\"round\" stroke-linecap=\"round\""
      if stroke.1 < 1 { a += " stroke-opacity=\"\(number(stroke.1))\"" }
    }
    return a
  }

  /// A number for SVG: thousandths of a sheet pixel, never in exponent form.
  static func number(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let r = (v * 1000).rounded() / 1000
    if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
    if abs(r) < 1e-3 { return "0" }
    return String(format: "%.3f", r)
  }

  static func path(_ geometry: IMDFGeometry?, floor: IMDFFloor) -> String? {
    guard let geometry else { return nil }
    var d = ""
    func run(_ line: [LonLat], close: Bool) {
      for (i, p) in line.enumerated() {
        let q = floor.pixel(p)
        d += (i == 0 ? "M" : "L") + number(q.x) + " " + number(q.y)
      }
      if close { d += "Z" }
    }
    switch geometry {
    case .polygons(let polygons): for polygon in polygons { for ring in polygon { run(ring, close: true) } }
    case .lines(let lines): for line in lines { run(line, close: false) }
    case .points: return nil
    }
    return d.isEmpty ? nil : d
  }

  /// Amenities and occupants' anchors as small circles of a fixed size in tile pixels.
  static func symbols(_ floor: IMDFFloor, scale s: Double, style: IMDFStyle) -> String {
    var out = ""
    for layer in ["occupant", "amenity"] {
      let paint = style.paint(layer)
      guard let radius = paint.size, radius > 0 else { continue }
      let mine = floor.features.filter { $0.kind == layer }
      guard !mine.isEmpty else { continue }
      out += "<g\(attributes(paint, scale: s, lines: false))>\n"
      for feature in mine {
        guard case .points(let points)? = feature.geometry else { continue }
        for p in points {
          let q = floor.pixel(p)
          out += "<circle cx=\"\(number(q.x))\" cy=\"\(number(q.y))\" r=\"\(number(radius / s))\"/>\n"
        }
      }
      out += "</g>\n"
    }
    return out
  }

  /// A label that may be drawn: where, what, how important.
  struct Candidate {
    var x: Double
    var y: Double
    var text: String
    var priority: Double
    /// The box of the unit it names or stands in (sheet pixels), which it must not leave; nil for no limit.
    var room: Box?
  }

  /// A box in sheet or tile pixels.
  struct Box {
    var x0, y0, x1, y1: Double
    func contains(_ b: Box) -> Bool { b.x0 >= x0 && b.x1 <= x1 && b.y0 >= y0 && b.y1 <= y1 }
    func overlaps(_ b: Box) -> Bool { x0 < b.x1 && b.x0 < x1 && y0 < b.y1 && b.y0 < y1 }
  }

  /// Each unit's outline's box, in sheet pixels, by id.
  static func unitBoxes(_ floor: IMDFFloor) -> [String: Box] {
    var out: [String: Box] = [:]
    for feature in floor.features where feature.kind == "unit" {
      guard case .polygons(let polygons)? = feature.geometry else { continue }
      let points = polygons.flatMap { $0.first ?? [] }.map(floor.pixel)
      guard let x0 = points.map(\.x).min(), let x1 = points.map(\.x).max(), let y0 = points.map(\.y).min(), let y1 = points.map(\.y).max()
      else { continue }
      out[feature.id] = Box(x0: x0, y0: y0, x1: x1, y1: y1)
    }
    return out
  }

  static func candidates(_ floor: IMDFFloor, language: String?, venueLanguage: String?) -> [Candidate] {
    var out: [Candidate] = []
    let boxes = unitBoxes(floor)
    for feature in floor.features {
      guard let text = feature.name?.text(language: language, venueLanguage: venueLanguage) else { continue }
      // an occupant's references end with its anchor's unit, an amenity's are its units
      let room = feature.references.lazy.compactMap { boxes[$0] }.first
      switch feature.kind {
      case "occupant":
        guard case .points(let p)? = feature.geometry, let first = p.first else { continue }
        out.append(Candidate(x: floor.pixel(first).x, y: floor.pixel(first).y, text: text, priority: 3, room: room))
      case "unit":
        guard let box = boxes[feature.id] else { continue }
        let at: (x: Double, y: Double) = feature.displayPoint.map(floor.pixel) ?? ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
        let area = (box.x1 - box.x0) * (box.y1 - box.y0)
        // bigger units first, all below occupants
        out.append(Candidate(x: at.x, y: at.y, text: text, priority: 2 + min(0.99, area / 1e9), room: box))
      case "amenity":
        guard case .points(let p)? = feature.geometry, let first = p.first else { continue }
        out.append(Candidate(x: floor.pixel(first).x, y: floor.pixel(first).y, text: text, priority: 1, room: room))
      default: continue
      }
    }
    return out
  }

  /// Labels in priority order, each kept only when it fits its unit and overlaps no label kept before.
  static func labels(_ floor: IMDFFloor, scale s: Double, style: IMDFStyle, language: String?, venueLanguage: String?) -> String {
    let paint = style.paint("label")
    guard let size = paint.size, size > 0, let fill = paint.fill.flatMap(IMDFStyle.svgColour), fill.0 != "none" else { return "" }
    let sorted = candidates(floor, language: language, venueLanguage: venueLanguage).sorted {
      $0.priority != $1.priority ? $0.priority > $1.priority : ($0.x, $0.y, $0.text) < ($1.x, $1.y, $1.text)
    }
    var kept: [Box] = []
    var out = ""
    var halo = ""
    if let stroke = paint.stroke.flatMap(IMDFStyle.svgColour), stroke.0 != "none", let width = paint.width, width > 0 {
      halo = " stroke=\"\(stroke.0)\" stroke-width=\"\(number(width / s))\" stroke-linejoin=\"round\" paint-order=\"stroke\""
    }
    out +=
      "<g font-family=\"DejaVu Sans, sans-serif\" font-size=\"\(number(size / s))\" text-anchor=\"middle\" fill=\"\(fill.0)\"\(halo)>\n"
    for c in sorted {
      let text = c.text.count > 60 ? String(c.text.prefix(59)) + "…" : c.text
      // an estimate of the text's extent in tile pixels (DejaVu Sans averages 0.6 em)
      let width = Double(text.count) * size * 0.6
      let (cx, cy) = (c.x * s, c.y * s)
      let box = Box(x0: cx - width / 2 - 2, y0: cy - size * 0.8, x1: cx + width / 2 + 2, y1: cy + size * 0.5)
      // within its unit's box and a fifth of it around (thin walls may be crossed; a label
      // far past the unit, where the building's outline would cut it, is left out)
      if let room = c.room {
        let (mx, my) = ((room.x1 - room.x0) * s / 5 + 1, (room.y1 - room.y0) * s / 5 + 1)
        if !Box(x0: room.x0 * s - mx, y0: room.y0 * s - my, x1: room.x1 * s + mx, y1: room.y1 * s + my).contains(box) { continue }
      }
      if kept.contains(where: { $0.overlaps(box) }) { continue }
      kept.append(box)
      out += "<text x=\"\(number(c.x))\" y=\"\(number(c.y + size * 0.35 / s))\">\(escaped(text))</text>\n"
    }
    out += "</g>\n"
    return kept.isEmpty ? "" : out
  }

  /// Text for XML character data: markup characters escaped, control characters dropped.
  static func escaped(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      default:
        if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) { continue }
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
