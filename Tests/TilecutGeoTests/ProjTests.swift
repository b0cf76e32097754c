import Foundation
import Testing
import TilecutCore
import TilecutGeo

/// A coordinate in some CRS and where it is on WGS 84, from a published source.
struct KnownPoint: Sendable, CustomStringConvertible {
  var crs: String
  var x: Double
  var y: Double
  var latitude: Double
  var longitude: Double
  var toleranceMeters: Double
  var source: String
  var description: String { "\(crs.prefix(30)) (\(source))" }
}

/// Ground distance between two lat/lon points, in metres (equirectangular; fine at these scales).
func groundDistance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
  let k = 111_319.49
  let dy = (a.latitude - b.latitude) * k
  let dx = (a.longitude - b.longitude) * k * cos((a.latitude + b.latitude) / 2 * .pi / 180)
  return hypot(dx, dy)
}

/// PROJ through ProjectedMapping: published coordinates, datum shifts, CRS parsing.
@Suite("PROJ mapping")
struct ProjTests {
  static let known: [KnownPoint] = [
    // GeographicLib's GeoConvert documentation: 33.3 44.4 → 38n 444140.54 3684706.36
    KnownPoint(
      crs: "EPSG:32638", x: 444140.54, y: 3684706.36, latitude: 33.3, longitude: 44.4, toleranceMeters: 0.02,
      source: "GeoConvert docs"),
    // UTM's definition: the central meridian of zone 33 (15° E) at the equator is 500000, 0
    KnownPoint(crs: "EPSG:32633", x: 500000, y: 0, latitude: 0, longitude: 15, toleranceMeters: 0.001, source: "UTM definition"),
    // NY Long Island state plane: false origin 40°10′ N, 74° W at E 984250 ftUS (300000 m), N 0
    KnownPoint(
      crs: "EPSG:2263", x: 984250, y: 0, latitude: 40 + 10.0 / 60, longitude: -74, toleranceMeters: 0.01,
      source: "EPSG:2263 false origin, US survey feet"),
    // a user-defined Lambert conformal conic: its origin is (0, 0)
    KnownPoint(
      crs: "+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +x_0=0 +y_0=0 +datum=WGS84 +units=m", x: 0, y: 0, latitude: 39,
      longitude: -96, toleranceMeters: 0.001, source: "user-defined LCC origin"),
    // a user-defined transverse Mercator in US feet: x_0 is in metres (1000 m = 3280.8333 ftUS)
    KnownPoint(
      crs: "+proj=tmerc +lat_0=0 +lon_0=-75 +k=1 +x_0=1000 +y_0=0 +ellps=WGS84 +units=us-ft", x: 1000 / 0.3048006096012192, y: 0,
      latitude: 0, longitude: -75, toleranceMeters: 0.001, source: "user-defined TM, US feet"),
    // EPSG Guidance Note 7-2, Lambert conic 2SP example (NAD27 / Texas South Central, ftUS):
    // 28°30′ N, 96° W (NAD27) is E 2963503.91, N 254759.80; on WGS 84 (PROJ's cs2cs,
    // NAD27 → WGS 84) that is 28.50026782, −96.00025103
    KnownPoint(
      crs: "EPSG:32040", x: 2963503.91, y: 254759.80, latitude: 28.50026782, longitude: -96.00025103, toleranceMeters: 0.05,
      source: "EPSG GN 7-2 + datum shift"),
  ]

  @Test("known coordinates in several CRSs land on their published WGS 84 position", arguments: known)
  func knownCoordinates(point: KnownPoint) throws {
    let crs = try ProjTransformer.describe(point.crs, option: "test")
    let mapping = try ProjectedMapping(crs: crs, toCRS: .identity)
    let world = mapping.world(of: [PixelPoint(x: point.x, y: point.y)])[0]
    let geo = WebMercator.geo(world)
    let error = groundDistance(geo, GeoPoint(latitude: point.latitude, longitude: point.longitude))
    #expect(error < point.toleranceMeters, "\(point): \(geo.latitude), \(geo.longitude) is \(error) m off")
    // and back: world → CRS gives the same coordinates, within 0.001 CRS units (a
    // datum shift through geocentric coordinates inverts to about 0.0006)
    let back = mapping.pixels(of: [world])[0]
    #expect(abs(back.x - point.x) < 1e-3 && abs(back.y - point.y) < 1e-3, "\(back.x - point.x), \(back.y - point.y)")
  }

  @Test("NAD27 → WGS 84 shifts the datum: the Texas example moves tens of metres from its NAD27 latitude and longitude")
  func datumShift() throws {
    let crs = try ProjTransformer.describe("EPSG:32040", option: "test")
    let mapping = try ProjectedMapping(crs: crs, toCRS: .identity)
    let geo = WebMercator.geo(mapping.world(of: [PixelPoint(x: 2963503.91, y: 254759.80)])[0])
    let shift = groundDistance(geo, GeoPoint(latitude: 28.5, longitude: -96))
    #expect(shift > 10 && shift < 100)
  }

  @Test("EPSG:3857 and EPSG:4326 are recognised (any axis order); others are not")
  func recognised() throws {
    #expect(try ProjTransformer.describe("EPSG:3857", option: "t").isWebMercator)
    #expect(try ProjTransformer.describe("EPSG:4326", option: "t").isWGS84LonLat)
    #expect(try ProjTransformer.describe("OGC:CRS84", option: "t").isWGS84LonLat)
    let utm = try ProjTransformer.describe("EPSG:32633", option: "t")
    #expect(!utm.isWebMercator && !utm.isWGS84LonLat && utm.name == "EPSG:32633 WGS 84 / UTM zone 33N")
  }

  @Test("ESRI WKT (a .prj) is read")
  func esriWKT() throws {
    let wkt =
      #"PROJCS["WGS_1984_UTM_Zone_33N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",15.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#
    let crs = try ProjTransformer.describe(wkt, option: "plan.prj")
    let mapping = try ProjectedMapping(crs: crs, toCRS: .identity)
    let geo = WebMercator.geo(mapping.world(of: [PixelPoint(x: 500000, y: 0)])[0])
    #expect(abs(geo.latitude) < 1e-9 && abs(geo.longitude - 15) < 1e-9)
  }

  @Test("text that is not a CRS is refused, naming the option", arguments: ["EPSG:999999", "+proj=nonsense", "hello"])
  func notACRS(text: String) {
    #expect {
      try ProjTransformer.describe(text, option: "--source-crs")
    } throws: { error in
      guard case .invalidOption(let option, _) = error as? TilecutError else { return false }
      return option == "--source-crs"
    }
  }
}
