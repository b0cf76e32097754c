import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutGeo
import TilecutVips

/// The "placements" array of a --json result line.
func placements(_ stdout: String) throws -> [[String: Any]] {
  let line = stdout.split(separator: "\n").last.map(String.init) ?? ""
  let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
  return json?["placements"] as? [[String: Any]] ?? []
}

/// Whole runs on georeferenced sources, checked against PROJ pixel by pixel.
@Suite("tiling georeferenced sources")
struct GeoTilingTests {
  @Test(
    "GeoTIFFs tiled with no placement flag match a pixel-by-pixel reprojection through PROJ",
    arguments: [GeoFixture.utm, .utmPoint, .statePlaneFeet, .rotated, .userDefined, .controlPoints])
  func matchesReprojection(fixture: GeoFixture) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try fixture.write(to: dir + "/f.tif")
    // zoom 18: level pixels finer than the source's (0.4 m against 0.6 m or more), so
    // that the resampler interpolates bilinearly, like the reference, not averages
    #expect(try runTilecut([dir + "/f.tif", "--tile-size", "256", "--min-zoom", "18", "--max-zoom", "18", "-o", dir + "/out"]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let deepest = try #require(manifest.levels.filter { $0.tileSize == 256 }.max { $0.zoom < $1.zoom })
    let template = try TileNameTemplate(manifest.name)
    let reference = try Reference(fixture)
    defer { reference.close() }
    var compared = 0
    var worst = 0.0
    var total = 0.0
    var coveredOutside = 0
    for tile in deepest.tiles {
      let image = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 256, tile: tile))
      let world = WebMercator.worldPixels(zoom: tile.zoom)
      for y in 0..<256 {
        for x in 0..<256 {
          let u = (Double(tile.x * 256 + x) + 0.5) / world
          let v = (Double(tile.y * 256 + y) + 0.5) / world
          let p = image[x, y]
          guard let position = reference.sourcePosition(u: u, v: v) else { continue }
          let outside =
            position.0 < -0.5 || position.1 < -0.5 || position.0 > Double(fixture.width) + 0.5
            || position.1 > Double(fixture.height) + 0.5
          if outside && p.a > 0 { coveredOutside += 1 }
          guard let want = reference.sample(position) else { continue }
          #expect(p.a == 255)
          let got = [Double(p.r), Double(p.g), Double(p.b)]
          for k in 0..<3 {
            let d = abs(got[k] - want[k])
            worst = max(worst, d)
            total += d
          }
          compared += 1
        }
      }
    }
    #expect(compared > fixture.width * fixture.height / 4, "\(fixture): only \(compared) pixels compared")
    // rounding to 8 bits gives 0.5; the mesh (≤ 0.125 px off, here far less) and float
    // positions a little more at the checker's steep edges
    #expect(worst <= 3, "\(fixture): worst \(worst)")
    #expect(total / Double(3 * max(compared, 1)) < 0.3, "\(fixture): mean \(total / Double(3 * max(compared, 1)))")
    #expect(coveredOutside == 0, "\(fixture): \(coveredOutside) pixels outside the source are not transparent")
  }

  @Test("768 px tiles of a reprojected GeoTIFF cover the 256 px cells and shrink to their tiles", arguments: [GeoFixture.utm, .rotated])
  func tripleDensityReprojected(fixture: GeoFixture) throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try fixture.write(to: dir + "/f.tif")
    #expect(try runTilecut([dir + "/f.tif", "--tile-size", "256,768", "-o", dir + "/out"]) == 0)
    let manifest = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/out/manifest.json")))
    let template = try TileNameTemplate(manifest.name)
    var compared = 0
    for level in manifest.levels where level.tileSize == 256 {
      let triple = try #require(manifest.levels.first { $0.tileSize == 768 && $0.zoom == level.zoom })
      #expect(triple.xRange == level.xRange && triple.yRange == level.yRange, "zoom \(level.zoom)")
      #expect(Set(triple.tiles) == Set(level.tiles), "zoom \(level.zoom): 768 px cells differ from 256 px cells")
      for tile in level.tiles where Set(triple.tiles).contains(tile) {
        let small = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 256, tile: tile))
        let big = try RGBAImage.decode(file: dir + "/out/" + template.path(floor: 1, tileSize: 768, tile: tile))
        // the 768 px tile averaged over 3×3 blocks (premultiplied) against the 256 px tile: alpha
        var worstAlpha = 0
        for y in 0..<256 {
          for x in 0..<256 {
            var a = 0
            for dy in 0..<3 { for dx in 0..<3 { a += Int(big[3 * x + dx, 3 * y + dy].a) } }
            worstAlpha = max(worstAlpha, abs((a + 4) / 9 - Int(small[x, y].a)))
          }
        }
        // coverage agrees (edges are anti-aliased at each density, so allow a partial pixel)
        #expect(worstAlpha <= 128, "\(tile): alpha differs by \(worstAlpha)")
        compared += 1
      }
    }
    #expect(compared > 4)
  }

  @Test("a world file with a .prj, --source-crs or GDAL's .aux.xml lands where the same GeoTIFF does; the CRS file is a recorded sidecar")
  func worldFileWithPrj() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let fixture = GeoFixture.utm
    try fixture.write(to: dir + "/f.tif")
    // the same pixels as a PNG with a world file (centre of the top-left pixel) and a .prj
    let rgba = try RGBAImage.decode(file: dir + "/f.tif")
    try rgba.writePNG(to: dir + "/plan.png")
    let g = fixture.geotransform
    try "\(g[1])\n\(g[4])\n\(g[2])\n\(g[5])\n\(g[0] + g[1] / 2)\n\(g[3] + g[5] / 2)\n".write(
      toFile: dir + "/plan.pgw", atomically: true, encoding: .utf8)
    let wkt =
      #"PROJCS["WGS_1984_UTM_Zone_33N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",15.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]"#
    try wkt.write(toFile: dir + "/plan.prj", atomically: true, encoding: .utf8)
    let tiff = try runBinary([dir + "/f.tif", "--tile-size", "256", "-o", dir + "/a", "--json"])
    let world = try runBinary([dir + "/plan.png", "--tile-size", "256", "-o", dir + "/b", "--json"])
    #expect(tiff.status == 0 && world.status == 0)
    #expect(try placements(world.stdout).first?["sidecars"] as? [String] == [dir + "/plan.pgw", dir + "/plan.prj"])
    #expect(try placements(world.stdout).first?["method"] as? String == "world-file")
    #expect(try placements(tiff.stdout).first?["method"] as? String == "geotiff")
    try FileManager.default.removeItem(atPath: dir + "/plan.prj")
    #expect(try runTilecut([dir + "/plan.png", "--source-crs", "EPSG:32633", "--tile-size", "256", "-o", dir + "/c"]) == 0)
    // GDAL writes the CRS of a PNG with a world file into plan.png.aux.xml, XML-escaped
    let escaped = wkt.replacingOccurrences(of: "\"", with: "&quot;")
    try "<PAMDataset>\n  <SRS dataAxisToSRSAxisMapping=\"1,2\">\(escaped)</SRS>\n</PAMDataset>\n".write(
      toFile: dir + "/plan.png.aux.xml", atomically: true, encoding: .utf8)
    let aux = try runBinary([dir + "/plan.png", "--tile-size", "256", "-o", dir + "/d", "--json"])
    #expect(aux.status == 0)
    #expect(try placements(aux.stdout).first?["sidecars"] as? [String] == [dir + "/plan.pgw", dir + "/plan.png.aux.xml"])
    for other in ["b", "c", "d"] {
      let a = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/a/manifest.json")))
      let b = try Manifest.decode(try #require(FileManager.default.contents(atPath: dir + "/\(other)/manifest.json")))
      #expect(a.levels.map(\.tiles) == b.levels.map(\.tiles))
      let template = try TileNameTemplate(a.name)
      for level in a.levels {
        for tile in level.tiles {
          let path = template.path(floor: 1, tileSize: level.tileSize, tile: tile)
          let x = try RGBAImage.decode(file: dir + "/a/" + path)
          let y = try RGBAImage.decode(file: dir + "/\(other)/" + path)
          #expect(zip(x.pixels, y.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        }
      }
    }
  }

  @Test("the plan names the placement, the CRS, the footprint in degrees and the ground resolution")
  func planStatesPlacement() throws {
    let dir = try geoScratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try GeoFixture.statePlaneFeet.write(to: dir + "/f.tif")
    let run = try runBinary([dir + "/f.tif", "-o", dir + "/out", "--dry-run", "--json"])
    #expect(run.status == 0)
    #expect(try placements(run.stdout).first?["crs"] as? String == "EPSG:2263 NAD83 / New York Long Island (ftUS)")
    #expect(run.stderr.contains("placed by geotiff, CRS EPSG:2263"))
    // 2 ftUS pixels are 0.6096 m on the grid; the grid's scale here is within a few parts in 10⁴ of 1
    let placement = try #require(try placements(run.stdout).first)
    let metres = try #require(placement["metersPerPixel"] as? Double)
    #expect(abs(metres - 0.6096) < 0.001)
    let south = try #require(placement["south"] as? Double)
    let west = try #require(placement["west"] as? Double)
    // E 985000 ftUS, N 215000 − 480 ftUS lies in midtown Manhattan
    #expect(abs(south - 40.7563) < 0.002 && abs(west - (-73.9972)) < 0.002)
  }
}
