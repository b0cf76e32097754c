import Foundation

/// Where a point lies, in words a person checks at a glance: the nearest populated
/// place and its country, or that it is at sea ("1.2 km NW of Berlin, Germany",
/// "at sea, 1,240 km E of Mogadishu, Somalia"). Offline: the data ships with tilecut
/// (Sources/CTilecutResources/gazetteer/*.tsv, made by Tests/scripts/make-gazetteer.py).
public struct GazetteerLocation: Sendable, Equatable {
  /// The nearest place of the gazetteer and its country.
  public var place: String
  public var country: String
  /// Great-circle distance from the place, metres.
  public var distanceMeters: Double
  /// The compass point from the place to the point (N, NE, …), nil when the point is
  /// in the place (closer than `Gazetteer.withinMeters` to its point).
  public var direction: String?
  /// The point is on no country's land (1:110m outlines) and far from any place.
  public var atSea: Bool

  /// "in London, United Kingdom"; "4.1 km N of Paris, France"; "at sea, 1,240 km E of
  /// Mogadishu, Somalia".
  public var text: String {
    let near: String
    if let direction {
      near = "\(Gazetteer.formatDistance(distanceMeters)) \(direction) of \(place), \(country)"
    } else {
      near = "in \(place), \(country)"
    }
    return atSea ? "at sea, " + near : near
  }
}

public enum Gazetteer {
  struct Place {
    var name: String
    var country: String
    var latitude: Double
    var longitude: Double
  }

  struct Country {
    var name: String
    /// Rings of (lon, lat) points.
    var rings: [[(Double, Double)]]
    var box: (minLon: Double, minLat: Double, maxLon: Double, maxLat: Double)
  }

  /// A point this far from the nearest place, and on no country's outline, is at sea;
  /// closer, it is on a coast the coarse outlines cut off, or on a small island.
  static let seaDistanceMeters = 30_000.0

  /// A point this close to a place's point is in the place: "in London", not "1.3 km SW
  /// of London" for Westminster. The gazetteer's places have 100,000 people or more (a
  /// country's largest aside), which cover some 25 km² even at a dense city's 4,000 a
  /// km², 2.8 km around their point; GeoNames gives a city's centre, not its outline.
  public static let withinMeters = 2_500.0

  static let places: [Place] = parsePlaces(EmbeddedResources.gazetteerPlaces)

  static let countries: [Country] = parseCountries(EmbeddedResources.gazetteerCountries)

  /// places.tsv: a line per place, "name TAB country TAB latitude TAB longitude"; lines
  /// without four fields or two numbers are left out.
  static func parsePlaces(_ bytes: [UInt8]) -> [Place] {
    var out: [Place] = []
    bytes.withUnsafeBufferPointer { buffer in
      var reader = TSVReader(buffer)
      while !reader.atEnd {
        let fields = reader.fields()
        guard fields.count == 4, let lat = reader.number(fields[2]), let lon = reader.number(fields[3]) else { continue }
        out.append(Place(name: reader.text(fields[0]), country: reader.text(fields[1]), latitude: lat, longitude: lon))
      }
    }
    return out
  }

  /// countries.tsv: a line per country, "name TAB rings", the rings split by "|", each
  /// "lon,lat lon,lat …".
  static func parseCountries(_ bytes: [UInt8]) -> [Country] {
    var out: [Country] = []
    bytes.withUnsafeBufferPointer { buffer in
      var reader = TSVReader(buffer)
      while !reader.atEnd {
        let fields = reader.fields()
        guard fields.count == 2 else { continue }
        var rings: [[(Double, Double)]] = []
        for ringRange in reader.split(fields[1], by: UInt8(ascii: "|")) {
          var ring: [(Double, Double)] = []
          for pair in reader.split(ringRange, by: UInt8(ascii: " ")) {
            let parts = reader.split(pair, by: UInt8(ascii: ","))
            guard parts.count == 2, let lon = reader.number(parts[0]), let lat = reader.number(parts[1]) else { continue }
            ring.append((lon, lat))
          }
          rings.append(ring)
        }
        let all = rings.joined()
        guard let minLon = all.map(\.0).min(), let maxLon = all.map(\.0).max(), let minLat = all.map(\.1).min(),
          let maxLat = all.map(\.1).max()
        else { continue }
        out.append(Country(name: reader.text(fields[0]), rings: rings, box: (minLon, minLat, maxLon, maxLat)))
      }
    }
    return out
  }

  /// Where (latitude, longitude) in degrees lies, or nil for a point off the globe.
  public static func locate(latitude: Double, longitude: Double) -> GazetteerLocation? {
    guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return nil }
    let lon = normalized(longitude)
    var best: (place: Place, meters: Double)?
    for place in places {
      let d = distanceMeters(latitude, lon, place.latitude, place.longitude)
      if d < (best?.meters ?? .infinity) { best = (place, d) }
    }
    guard let best else { return nil }
    let onLand = country(latitude: latitude, longitude: lon) != nil
    let bearing = bearingDegrees(from: (best.place.latitude, best.place.longitude), to: (latitude, lon))
    return GazetteerLocation(
      place: best.place.name, country: best.place.country, distanceMeters: best.meters,
      direction: best.meters < withinMeters ? nil : compassPoint(bearing), atSea: !onLand && best.meters > seaDistanceMeters)
  }

  /// The Natural Earth country whose 1:110m outline holds the point, if any.
  public static func country(latitude: Double, longitude: Double) -> String? {
    let lon = normalized(longitude)
    for c in countries
    where lon >= c.box.minLon && lon <= c.box.maxLon && latitude >= c.box.minLat && latitude <= c.box.maxLat {
      // even-odd over every ring: holes (lakes, enclaves) fall out
      var inside = false
      for ring in c.rings where ring.count >= 3 {
        var j = ring.count - 1
        for i in 0..<ring.count {
          let (xi, yi) = ring[i]
          let (xj, yj) = ring[j]
          if (yi > latitude) != (yj > latitude) && lon < (xj - xi) * (latitude - yi) / (yj - yi) + xi { inside.toggle() }
          j = i
        }
      }
      if inside { return c.name }
    }
    return nil
  }

  /// Whether the point lies on a country's land or near a place (not in open sea).
  public static func isOnLand(latitude: Double, longitude: Double) -> Bool {
    guard let location = locate(latitude: latitude, longitude: longitude) else { return false }
    return !location.atSea
  }

  static func normalized(_ longitude: Double) -> Double {
    var lon = longitude.truncatingRemainder(dividingBy: 360)
    if lon > 180 { lon -= 360 }
    if lon < -180 { lon += 360 }
    return lon
  }

  /// Haversine distance on the mean Earth sphere (6,371,008.8 m), metres.
  static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
    let r = 6_371_008.8
    let p1 = lat1 * .pi / 180
    let p2 = lat2 * .pi / 180
    let dp = p2 - p1
    let dl = (lon2 - lon1) * .pi / 180
    let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
    return 2 * r * asin(min(1, a.squareRoot()))
  }

  /// Initial bearing from one point to another, degrees clockwise from north.
  static func bearingDegrees(from a: (Double, Double), to b: (Double, Double)) -> Double {
    let p1 = a.0 * .pi / 180
    let p2 = b.0 * .pi / 180
    let dl = (b.1 - a.1) * .pi / 180
    let y = sin(dl) * cos(p2)
    let x = cos(p1) * sin(p2) - sin(p1) * cos(p2) * cos(dl)
    let deg = atan2(y, x) * 180 / .pi
    return deg < 0 ? deg + 360 : deg
  }

  static func compassPoint(_ bearing: Double) -> String {
    let names = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    return names[Int((bearing / 45).rounded()) % 8]
  }

  /// "0.4 km", "12 km", "1,240 km".
  static func formatDistance(_ meters: Double) -> String {
    let km = meters / 1000
    if km < 10 { return String(format: "%.1f km", km) }
    let whole = Int(km.rounded())
    var digits = String(whole)
    var out = ""
    while digits.count > 3 {
      out = "," + digits.suffix(3) + out
      digits.removeLast(3)
    }
    return digits + out + " km"
  }
}

/// Lines of tab-separated fields in a UTF-8 buffer, read as bytes.
struct TSVReader {
  let bytes: UnsafeBufferPointer<UInt8>
  var position = 0

  init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  var end: Int { bytes.count }

  var atEnd: Bool { position >= end }

  /// The next line's fields (empty fields kept); the position moves past its newline.
  mutating func fields() -> [Range<Int>] {
    var lineEnd = position
    while lineEnd < end && bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
    let line = position..<lineEnd
    position = lineEnd + 1
    return split(line, by: UInt8(ascii: "\t"), keepEmpty: true)
  }

  func split(_ range: Range<Int>, by separator: UInt8, keepEmpty: Bool = false) -> [Range<Int>] {
    var out: [Range<Int>] = []
    var start = range.lowerBound
    for i in range where bytes[i] == separator {
      if keepEmpty || i > start { out.append(start..<i) }
      start = i + 1
    }
    if keepEmpty || range.upperBound > start { out.append(start..<range.upperBound) }
    return out
  }

  func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }

  /// The whole field as a finite number (Swift's parser: the C locale's decimal point,
  /// whatever locale the process has), or nil.
  func number(_ range: Range<Int>) -> Double? {
    guard !range.isEmpty else { return nil }
    if let value = decimal(range) { return value }
    guard let value = Double(text(range)), value.isFinite else { return nil }
    return value
  }

  /// A plain decimal ("-12.3456": a minus or not, digits with one point among or after
  /// them) of at most 15 digits, as the quotient of two doubles that hold their values
  /// exactly (the digits, and a power of ten up to 10²²): one correctly rounded
  /// division, the value Swift's parser gives (Clinger's fast path), read without
  /// making a string. Nil for any other field, which `number` gives to the parser.
  /// Every number of the gazetteer's files is such a decimal (at most 7 digits).
  func decimal(_ range: Range<Int>) -> Double? {
    var i = range.lowerBound
    let negative = bytes[i] == UInt8(ascii: "-")
    if negative { i += 1 }
    var digits: UInt64 = 0
    var count = 0
    var decimals = 0
    var point = false
    while i < range.upperBound {
      let byte = bytes[i]
      if byte == UInt8(ascii: ".") && !point {
        point = true
      } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
        guard count < 15 else { return nil }
        digits = digits * 10 + UInt64(byte - UInt8(ascii: "0"))
        count += 1
        if point { decimals += 1 }
      } else {
        return nil
      }
      i += 1
    }
    guard count > 0 else { return nil }
    let value = Double(digits) / Self.powersOfTen[decimals]
    return negative ? -value : value
  }

  /// 10⁰ … 10¹⁵, each exact in a double (up to 10²² would be).
  static let powersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]
}
