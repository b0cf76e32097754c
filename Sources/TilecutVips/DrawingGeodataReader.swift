import Foundation
import TilecutCore

/// Reads AutoCAD's GEODATA object (version 2 or 3) from a text DXF's OBJECTS section.
enum DrawingGeodataReader {
  /// Bytes of group codes read after the object's start: its numbers and its CRS definition.
  static let maxObjectBytes = 1 << 20

  /// The GEODATA of the DXF at `path`, or nil when it has none (or only one GDAL-free
  /// reading cannot take: a version 1 object, or no design or reference point).
  static func read(path: String) -> DrawingGeodata? {
    let name = Array("AcDbGeoData".utf8)
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
      let marker = find(name, in: data, from: data.startIndex),
      // the CLASS entry names the class first; the object's own subclass marker follows it
      let object = find(name, in: data, from: marker.upperBound)
    else { return nil }
    let end = min(data.endIndex, object.upperBound + maxObjectBytes)
    let text = String(decoding: data[object.upperBound..<end], as: UTF8.self)
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    var values: [Int: Double] = [:]
    var crs = ""
    var i = 1
    while i + 1 < lines.count {
      guard let code = Int(lines[i]) else { break }
      let value = lines[i + 1]
      if code == 0 { break }
      if code == 301 || code == 303 {
        crs += value
      } else if values[code] == nil, let number = Double(value) {
        values[code] = number
      }
      i += 2
    }
    guard let version = values[90], version >= 2, let dx = values[10], let dy = values[20], let rx = values[11], let ry = values[21]
    else { return nil }
    let epsg = crs.range(of: #"<Alias id="([0-9]+)" type="CoordinateSystem">"#, options: .regularExpression).flatMap { range in
      Int(crs[range].filter(\.isNumber))
    }
    return DrawingGeodata(
      designX: dx, designY: dy, referenceX: rx, referenceY: ry, unitScale: values[40] ?? 1, northX: values[12] ?? 0,
      northY: values[22] ?? 1, coordinateType: coordinateType(values[70]), epsg: epsg)
  }

  /// Group 70 as a whole number (0 when absent), or nil when it is none: nan, ±inf, or
  /// past Int's range (`Int(_:)` traps on those).
  static func coordinateType(_ value: Double?) -> Int? {
    guard let value else { return 0 }
    return Int(exactly: value.rounded(.towardZero))
  }

  /// Where `needle` first occurs in `data` at or after index `start`: memchr for its first
  /// byte, then memcmp (Foundation's `Data.range(of:)` took 5 ms of a 1 MB drawing).
  static func find(_ needle: [UInt8], in data: Data, from start: Data.Index) -> Range<Data.Index>? {
    guard let first = needle.first, start >= data.startIndex, start <= data.endIndex else { return nil }
    return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Range<Data.Index>? in
      guard let base = bytes.baseAddress else { return nil }
      var at = start - data.startIndex
      while bytes.count - at >= needle.count {
        guard let hit = memchr(base + at, Int32(first), bytes.count - at - needle.count + 1) else { return nil }
        let offset = base.distance(to: UnsafeRawPointer(hit))
        if memcmp(base + offset, needle, needle.count) == 0 {
          return (data.startIndex + offset)..<(data.startIndex + offset + needle.count)
        }
        at = offset + 1
      }
      return nil
    }
  }
}
