import Foundation
import Testing
import TilecutCore
import TilecutGeo

/// The approximate inverse: its error bound, its splits, and the densified footprint.
@Suite("mesh of the exact inverse")
struct MeshTests {
  /// A UTM zone 33N source `width` × `height` px of `meters` each, its top-left at (east, north).
  func utm(east: Double, north: Double, meters: Double) throws -> ProjectedMapping {
    let crs = try ProjTransformer.describe("EPSG:32633", option: "test")
    return try ProjectedMapping(crs: crs, toCRS: AffineTransform(a: meters, b: 0, c: east, d: 0, e: -meters, f: north))
  }

  /// Every pixel of a strip's mesh against the exact inverse: the largest distance, in source pixels.
  func worstError(_ mesh: MeshInverse, top: Int, count: Int) -> (error: Double, strip: StripMesh) {
    let strip = mesh.strip(top: top, count: count)
    let width = mesh.region.width
    var worst = 0.0
    for y in top..<(top + count) {
      // the runs the resampler samples along, pixel by pixel
      var row = [PixelPoint](repeating: PixelPoint(x: -1e9, y: -1e9), count: width)
      strip.segments(row: y) { x0, n, sx, sy, dx, dy in
        for k in 0..<n { row[x0 + k] = PixelPoint(x: sx + Double(k) * dx, y: sy + Double(k) * dy) }
      }
      let exact = mesh.exact((0..<width).map { ($0, y) })
      for x in 0..<width where exact[x].isDefined {
        worst = max(worst, hypot(row[x].x - exact[x].x, row[x].y - exact[x].y))
      }
    }
    return (worst, strip)
  }

  @Test("interpolated positions stay within 0.125 source px of PROJ's, and curved cells are split")
  func errorBound() throws {
    // a 300 km wide source at the far edge of zone 33 (12° E is 3° off its meridian),
    // drawn at a coarse zoom: each level pixel spans kilometres of bending grid
    let mapping = try utm(east: 200000, north: 6_800_000, meters: 100)
    let footprint = try #require(MappedOutline.footprint(mapping, width: 3000, height: 3000, worldPixels: WebMercator.worldPixels(zoom: 9)))
    let region = PyramidPlanner.region(of: footprint, density: 9)
    let mesh = MeshInverse(
      mapping: mapping, region: region, worldPixels: WebMercator.worldPixels(zoom: 9),
      toIndex: AffineTransform(a: 1, b: 0, c: -0.5, d: 0, e: 1, f: -0.5), cellSize: 256)
    let (error, strip) = worstError(mesh, top: 0, count: min(region.height, 256))
    #expect(error <= 0.125 + 1e-3, "worst \(error) px")
    let topCells = ((region.width + 255) / 256) * ((min(region.height, 256) + 255) / 256)
    #expect(strip.interpolatedCells + strip.exactCells > topCells)
  }

  @Test("an affine placement's mapping meshes exactly, with no cell split, both ways")
  func affineMesh() throws {
    let placement = try Georeference.center(
      GeoPoint(latitude: 51.5, longitude: -0.12), metersPerPixel: 0.3, rotationDegrees: 30, width: 800, height: 600)
    let mapping = try #require(PlacementMapping(placement))
    #expect(mapping.affine == placement.transform)
    let corner = mapping.world(of: [PixelPoint(x: 800, y: 600)])[0]
    let back = mapping.pixels(of: [corner])[0]
    #expect(abs(back.x - 800) < 1e-6 && abs(back.y - 600) < 1e-6)
    let region = PyramidPlanner.region(of: placement.footprint(width: 800, height: 600), density: 19)
    let mesh = MeshInverse(mapping: mapping, region: region, worldPixels: WebMercator.worldPixels(zoom: 19))
    let (error, strip) = worstError(mesh, top: 0, count: 64)
    #expect(error < 1e-6 && strip.exactCells == 0)
    #expect(strip.interpolatedCells == (region.width + 63) / 64)
  }

  @Test("a north-up source near its meridian needs no split at its native zoom, and agrees within the bound")
  func nativeZoom() throws {
    let mapping = try utm(east: 390000, north: 5_820_000, meters: 0.5)
    let footprint = try #require(MappedOutline.footprint(mapping, width: 2000, height: 1000, worldPixels: WebMercator.worldPixels(zoom: 18)))
    let region = PyramidPlanner.region(of: footprint, density: 18)
    let mesh = MeshInverse(mapping: mapping, region: region, worldPixels: WebMercator.worldPixels(zoom: 18))
    let (error, strip) = worstError(mesh, top: 0, count: 128)
    #expect(error <= 0.125)
    #expect(strip.exactCells == 0)
  }

  @Test("the footprint follows the curved outline: its box holds every point of a 16× denser outline, and differs from the corners' box")
  func curvedFootprint() throws {
    // 600 km wide at 60° N in UTM 33: the north edge (one northing) bows in Mercator
    let mapping = try utm(east: 200000, north: 6_900_000, meters: 200)
    let (w, h) = (3000, 1000)
    let zoom = 12
    let world = WebMercator.worldPixels(zoom: zoom)
    let box = try #require(MappedOutline.footprint(mapping, width: w, height: h, worldPixels: world))
    let dense = mapping.world(of: MappedOutline.outline(width: w, height: h, perEdge: 16 * 4096))
    let pixel = 1 / world
    #expect(dense.allSatisfy { $0.u >= box.minU - pixel && $0.u <= box.maxU + pixel && $0.v >= box.minV - pixel && $0.v <= box.maxV + pixel })
    let corners = WorldRect(enclosing: mapping.world(of: MappedOutline.outline(width: w, height: h, perEdge: 1)))
    #expect((corners.minV - box.minV) * world > 256)
    // and the tile ranges follow the outline, not the corners
    let byOutline = try #require(WebMercator.tileRange(covering: box, zoom: zoom, tileSize: 256))
    let byCorners = try #require(WebMercator.tileRange(covering: corners, zoom: zoom, tileSize: 256))
    #expect(byOutline.yRange.lowerBound < byCorners.yRange.lowerBound)
  }
}
