import Foundation
import TilecutCore

/// Reads AutoCAD's GEODATA object (version 2 or 3) from a text DXF's OBJECTS section.
enum DrawingGeodataReader {
  /// Bytes of group codes read after the object's start: its numbers and its CRS definition.
  static let maxObjectBytes = 1 << 20

  /// The GEODATA of the DXF at `path`, or nil when it has none (or only one GDAL-free
  /// reading cannot take: a version 1 object, or no design or reference point).
  static func read(path: String) -> DrawingGeodata? {
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
      let marker = data.range(of: Data("AcDbGeoData".utf8), options: [], in: data.startIndex..<data.endIndex),
      // the CLASS entry names the class first; the object's own subclass marker follows it
      let object = data.range(of: Data("AcDbGeoData".utf8), options: [], in: marker.upperBound..<data.endIndex)
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
      northY: values[22] ?? 1, coordinateType: Int(values[70] ?? 0), epsg: epsg)
  }
}
