import Foundation
import TilecutCore

/// How one kind of feature is painted: colours as `#rrggbb` (or `#rrggbbaa`), `none`
/// for no paint; widths in output pixels.
public struct IMDFPaint: Sendable, Hashable, Codable {
  public var fill: String?
  public var stroke: String?
  /// The stroke's width in pixels of the tile (at every zoom: legible when the drawing is small).
  public var width: Double?
  /// A symbol's radius or a label's size, in pixels of the tile.
  public var size: Double?
}

/// The indoor style: a paint per layer (`level`, its outline; `unit`, `opening`, `fixture`, `section`, `kiosk`,
/// `amenity`, `occupant`, `label`) and per layer and category (`unit.restroom`), the
/// latter over the former. A style file (`--venue-style`, JSON) holds the same keys; each
/// paint it gives replaces the default's fields it names.
public struct IMDFStyle: Sendable, Hashable {
  public var paints: [String: IMDFPaint]

  /// The default indoor style: rooms warm white, circulation white, restrooms blue,
  /// vertical circulation lavender, structure grey, doors as gaps in the walls.
  public static let standard = IMDFStyle(paints: [
    "unit": IMDFPaint(fill: "#f6f1e7", stroke: "#8a8178", width: 0.6),
    "unit.walkway": IMDFPaint(fill: "#ffffff"),
    "unit.lobby": IMDFPaint(fill: "#fbfaf7"),
    "unit.ramp": IMDFPaint(fill: "#ffffff"),
    "unit.footbridge": IMDFPaint(fill: "#ffffff"),
    "unit.restroom": IMDFPaint(fill: "#d9e8f5"),
    "unit.restroom.male": IMDFPaint(fill: "#d9e8f5"),
    "unit.restroom.female": IMDFPaint(fill: "#d9e8f5"),
    "unit.restroom.unisex": IMDFPaint(fill: "#d9e8f5"),
    "unit.restroom.family": IMDFPaint(fill: "#d9e8f5"),
    "unit.restroom.transgender": IMDFPaint(fill: "#d9e8f5"),
    "unit.stairs": IMDFPaint(fill: "#e4def0"),
    "unit.steps": IMDFPaint(fill: "#e4def0"),
    "unit.elevator": IMDFPaint(fill: "#e4def0"),
    "unit.escalator": IMDFPaint(fill: "#e4def0"),
    "unit.movingwalkway": IMDFPaint(fill: "#e4def0"),
    "unit.structure": IMDFPaint(fill: "#b9b4ad"),
    "unit.column": IMDFPaint(fill: "#9e9890"),
    "unit.shaft": IMDFPaint(fill: "#b9b4ad"),
    "unit.nonpublic": IMDFPaint(fill: "#e2ded8"),
    "unit.storage": IMDFPaint(fill: "#e2ded8"),
    "unit.serverroom": IMDFPaint(fill: "#e2ded8"),
    "unit.parking": IMDFPaint(fill: "#e6e6e6"),
    "unit.opentobelow": IMDFPaint(fill: "#ffffff80"),
    "unit.vegetation": IMDFPaint(fill: "#d5e8c8"),
    "unit.foodservice": IMDFPaint(fill: "#f8e3cf"),
    "unit.kitchen": IMDFPaint(fill: "#f8e3cf"),
    "unit.firstaid": IMDFPaint(fill: "#f6d5d5"),
    // the level's own outline: none by default (stroked over the units' edges, it
    // thickens their coverage, where edge pixels take its paint as well as theirs);
    // a style file gives it a stroke, e.g. {"level": {"stroke": "#6b635b", "width": 1.2}}
    "level": IMDFPaint(fill: "none", stroke: "none", width: 1.2),
    "opening": IMDFPaint(stroke: "#ffffff", width: 1.5),
    "section": IMDFPaint(fill: "none", stroke: "#b0a89c", width: 0.6),
    "fixture": IMDFPaint(fill: "#ddd5c8", stroke: "#a59c8f", width: 0.5),
    "kiosk": IMDFPaint(fill: "#efd9a7", stroke: "#a58c57", width: 0.5),
    "amenity": IMDFPaint(fill: "#3b7dd8", stroke: "#ffffff", width: 1, size: 3.5),
    "occupant": IMDFPaint(fill: "#8a6d3b", stroke: "#ffffff", width: 0.8, size: 2.5),
    "label": IMDFPaint(fill: "#3d3a36", stroke: "#ffffff", width: 2, size: 11),
  ])

  /// The paint of a layer's feature of `category`: the most specific key's fields over
  /// the layer's (`unit.restroom.female`, then `unit.restroom`, then `unit`).
  public func paint(_ layer: String, category: String? = nil) -> IMDFPaint {
    var keys = [layer]
    if let category, !category.isEmpty {
      let parts = category.lowercased().split(separator: ".")
      for n in 1...parts.count { keys.append(layer + "." + parts.prefix(n).joined(separator: ".")) }
    }
    var out = IMDFPaint()
    for key in keys {
      guard let p = paints[key] else { continue }
      out.fill = p.fill ?? out.fill
      out.stroke = p.stroke ?? out.stroke
      out.width = p.width ?? out.width
      out.size = p.size ?? out.size
    }
    return out
  }

  /// This style with a style file's paints over it: JSON, `{"unit.classroom": {"fill": "#fde"}}`.
  public func overlaid(file path: String) throws -> IMDFStyle {
    let option = "--venue-style"
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      throw TilecutError.invalidOption(option: option, reason: "\(path) is no regular file; give a JSON style file")
    }
    guard st.st_size <= 1 << 20, let bytes = try? SmallFile.read(path, maxBytes: 1 << 20) else {
      throw TilecutError.invalidOption(option: option, reason: "\(path) is over 1 MB or cannot be read; a style file is a few lines of JSON")
    }
    let given: [String: IMDFPaint]
    let named: [String: PaintKeys]
    do {
      given = try JSONDecoder().decode([String: IMDFPaint].self, from: Data(bytes))
      named = try JSONDecoder().decode([String: PaintKeys].self, from: Data(bytes))
    } catch {
      throw TilecutError.invalidOption(
        option: option,
        reason:
          "\(path) is not a style file: JSON of layer keys to paints, e.g. {\"unit.classroom\": {\"fill\": \"#ffeecc\", \"stroke\": \"#886644\", \"width\": 1}}"
      )
    }
    var out = self
    let layers = Set(["level", "unit", "opening", "section", "fixture", "kiosk", "amenity", "occupant", "label"])
    for (key, paint) in given.sorted(by: { $0.key < $1.key }) {
      let layer = String(key.split(separator: ".").first ?? "")
      guard layers.contains(layer) else {
        throw TilecutError.invalidOption(
          option: option,
          reason: "\(path): \(Quote.value(key)) is no layer tilecut draws (\(layers.sorted().joined(separator: ", ")), each with .category)")
      }
      // a misspelt paint ("fil") was ignored: the paint not given, without a word
      if let unknown = named[key]?.keys.first(where: { !PaintKeys.known.contains($0) }) {
        throw TilecutError.invalidOption(
          option: option,
          reason:
            "\(path): \(Quote.value(key)) has '\(Quote.value(unknown))', which is no paint key; a paint takes \(PaintKeys.known.joined(separator: ", "))"
        )
      }
      for colour in [paint.fill, paint.stroke].compactMap({ $0 }) where Self.svgColour(colour) == nil {
        throw TilecutError.invalidOption(
          option: option, reason: "\(path): \(Quote.value(key)) has colour \(Quote.value(colour)); give #rgb, #rrggbb, #rrggbbaa or none")
      }
      for number in [paint.width, paint.size].compactMap({ $0 }) where !(number.isFinite && number >= 0 && number <= 100) {
        throw TilecutError.invalidOption(
          option: option, reason: "\(path): \(Quote.value(key)) has a width or size of \(number); give 0 to 100 pixels")
      }
      var merged = out.paints[key] ?? IMDFPaint()
      merged.fill = paint.fill ?? merged.fill
      merged.stroke = paint.stroke ?? merged.stroke
      merged.width = paint.width ?? merged.width
      merged.size = paint.size ?? merged.size
      out.paints[key] = merged
    }
    return out
  }

  /// The keys a style file's paint gives, sorted (`IMDFPaint` decodes only those it knows).
  struct PaintKeys: Decodable {
    static let known = ["fill", "stroke", "width", "size"]
    let keys: [String]

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }
      init(stringValue: String) { self.stringValue = stringValue }
      init?(intValue: Int) { nil }
    }

    init(from decoder: Decoder) throws {
      keys = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue).sorted()
    }
  }

  /// `#rrggbb` or `none` (and an opacity from `#rrggbbaa`) for SVG, or nil for anything else.
  static func svgColour(_ text: String) -> (colour: String, opacity: Double)? {
    let t = text.lowercased()
    if t == "none" { return ("none", 1) }
    // ASCII digits only: Character.isHexDigit also takes full-width ones (U+FF10…)
    guard t.hasPrefix("#"), t.dropFirst().allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
    let hex = Array(t.dropFirst())
    switch hex.count {
    case 3: return ("#" + hex.map { "\($0)\($0)" }.joined(), 1)
    case 6: return (t, 1)
    case 8: return ("#" + String(hex[0..<6]), Double(Int(String(hex[6..<8]), radix: 16) ?? 255) / 255)
    default: return nil
    }
  }
}
