import Foundation

/// A tile edge tilecut makes, validated once: 256, 512 (@2x, the same z/x/y grid at
/// twice the density) or 768 (@3x). Encoded as its number of pixels.
public struct TileSize: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public let pixels: Int

  private init(unchecked pixels: Int) { self.pixels = pixels }

  public static let standard = TileSize(unchecked: 256)
  public static let retina = TileSize(unchecked: 512)
  public static let triple = TileSize(unchecked: 768)
  /// Every size tilecut makes, smallest first.
  public static let all = [standard, retina, triple]

  /// The size of `pixels`, or nil when tilecut does not make it.
  public init?(_ pixels: Int) {
    guard let size = Self.all.first(where: { $0.pixels == pixels }) else { return nil }
    self = size
  }

  /// The size of `pixels`; an error naming `option` when tilecut does not make it.
  public init(pixels: Int, option: String = "--tile-size") throws {
    guard let size = TileSize(pixels) else {
      throw TilecutError.invalidOption(option: option, reason: "\(pixels) is not a tile size tilecut makes; use 256, 512 or 768")
    }
    self = size
  }

  /// A comma-separated list such as `256,512`: sorted, without repeats.
  public static func parseList(_ text: String, option: String = "--tile-size") throws -> [TileSize] {
    var sizes: [TileSize] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
      guard let n = Int(part), let size = TileSize(n) else {
        throw TilecutError.invalidOption(
          option: option, reason: "'\(Quote.value(part))' is not a supported tile size; use 256, 512, 768 or a list such as 256,512")
      }
      if !sizes.contains(size) { sizes.append(size) }
    }
    return sizes.sorted()
  }

  /// How many zooms deeper the 256 px tiles with the same pixels are: 512 px tiles
  /// at zoom z hold the pixels of 256 px tiles at z + 1. Nil for 768 (not 256·2^k).
  public var densityShift: Int? {
    switch pixels {
    case 256: return 0
    case 512: return 1
    default: return nil
    }
  }

  public var description: String { String(pixels) }

  public static func < (a: TileSize, b: TileSize) -> Bool { a.pixels < b.pixels }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let n = try container.decode(Int.self)
    guard let size = TileSize(n) else {
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(n) is not a tile size tilecut makes")
    }
    self = size
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(pixels)
  }
}

/// The zooms a floor is tiled at, both ends included, validated by the planner.
public struct ZoomRange: Hashable, Sendable, Codable, CustomStringConvertible {
  public var min: Int
  public var max: Int

  public init(min: Int, max: Int) {
    self.min = Swift.min(min, max)
    self.max = Swift.max(min, max)
  }

  /// Every zoom, lowest first.
  public var zooms: ClosedRange<Int> { min...max }

  public func contains(_ zoom: Int) -> Bool { zooms.contains(zoom) }

  public var description: String { min == max ? "zoom \(min)" : "zooms \(min)–\(max)" }
}
