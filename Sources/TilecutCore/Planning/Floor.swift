import Foundation

/// A floor number, validated once: within ±1000000, 0 and negatives (basements)
/// allowed. Encoded as a plain JSON integer and printed as names print it (`L-1_…`).
public struct Floor: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public let number: Int

  private init(unchecked number: Int) { self.number = number }

  /// Every floor number tilecut accepts: names carry it and sums add to it.
  public static let range = -PlanLimits.maxFloorNumber...PlanLimits.maxFloorNumber

  /// The floor `number`, or nil outside `Floor.range`.
  public init?(_ number: Int) {
    guard Self.range.contains(number) else { return nil }
    self.init(unchecked: number)
  }

  /// The floor `number`; an error naming `option` outside `Floor.range`.
  public init(_ number: Int, option: String) throws {
    guard let floor = Floor(number) else {
      throw TilecutError.invalidOption(option: option, reason: "\(number) is outside ±\(PlanLimits.maxFloorNumber)")
    }
    self = floor
  }

  /// The floor `count` above this one (below when negative), or nil past the range's edge.
  public func advanced(by count: Int) -> Floor? {
    let (sum, overflow) = number.addingReportingOverflow(count)
    return overflow ? nil : Floor(sum)
  }

  public var description: String { String(number) }

  public static func < (a: Floor, b: Floor) -> Bool { a.number < b.number }

  /// The key of a decoder's `userInfo` that names the file being read, so that a
  /// floor out of range is reported against it (`manifest.json: floors must be …`).
  public static let fileKey = CodingUserInfoKey(rawValue: "tilecut.floor.file")

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let n = try container.decode(Int.self)
    guard let floor = Floor(n) else {
      let place = decoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
      if let key = Self.fileKey, let file = decoder.userInfo[key] as? String {
        throw TilecutError.invalidInput(
          path: file, reason: "floors must be numbers within ±\(PlanLimits.maxFloorNumber); \(place.isEmpty ? "a floor" : place) is \(n)")
      }
      throw DecodingError.dataCorruptedError(in: container, debugDescription: "floor \(n) is outside ±\(PlanLimits.maxFloorNumber)")
    }
    self = floor
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(number)
  }
}
