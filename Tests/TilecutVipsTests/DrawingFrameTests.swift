import CTilecutDocument
import Foundation
import Testing
import TilecutCore
import TilecutFixtures

@testable import TilecutVips

@Suite("DXF frames", .enabled(if: dxfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/dxf is absent"))
struct DrawingFrameTests {
  /// The floor plan's texts once stretched its frame to about twice its ink (2050 × 1850
  /// units for ogrinfo's 961 × 910): the frame is now the ink's box and its margin.
  @Test(
    "the frame is the drawn ink's box and its padding around it: 2 pixels, or 1 % of its larger side",
    arguments: ["bjnortier_floorplan.dxf", "qcad_bath_plan.dxf", "ezdxf_wipeout_door.dxf"])
  func frameFitsInk(name: String) throws {
    let path = (dxfCorpus ?? "") + "/" + name
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 31)
    let scale = 4.0
    var source = SourceDescription(path: path, width: header.width, height: header.height, isVector: true)
    source.drawing = header.drawing
    let image = try RGBAImage.decode(SourceImage.pixels(of: source, format: header.format, sequential: true, scale: scale))
    var (left, top, right, bottom) = (Int.max, Int.max, Int.min, Int.min)
    for y in 0..<image.height {
      for x in 0..<image.width where image.pixels[4 * (y * image.width + x) + 3] > 0 {
        (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
      }
    }
    let margins = [left, top, image.width - 1 - right, image.height - 1 - bottom]
    let padding = try #require(header.drawing?.padding)
    let side = Double(max(header.width, header.height) - 2 * padding)
    #expect(
      padding == max(2, Int((side / 100).rounded(.up))) || padding == max(2, Int(((side + 1) / 100).rounded(.up))), "\(name): padding \(padding)")
    let pad = Double(padding) * scale
    // a hairline on the extent inks a pixel beyond it; the frame rounds up by under a source pixel
    for (side, margin) in zip(["left", "top", "right", "bottom"], margins) {
      #expect(Double(margin) >= pad - 2 && Double(margin) <= pad + scale + 1, "\(name): \(side) margin \(margin) px at scale \(scale)")
    }
  }
}

@Suite("DXF GEODATA against ezdxf", .enabled(if: dxfCorpus != nil, "the shared corpus ../shared/data/formats-corpus/dxf is absent"))
struct DrawingGeodataTests {
  /// ezdxf's own reading of the GEODATA object: drawing (x, y) → CRS (E, N) for `points`.
  func ezdxfCRS(_ path: String, points: [(Double, Double)]) throws -> (epsg: Int, coordinates: [[Double]]) {
    let script = """
      import ezdxf, json, sys
      doc = ezdxf.readfile(sys.argv[1])
      m, epsg = doc.modelspace().get_geodata().get_crs_transformation()
      pts = json.loads(sys.argv[2])
      print(json.dumps({"epsg": epsg, "coordinates": [list(m.transform((x, y, 0)))[:2] for x, y in pts]}))
      """
    let list = "[" + points.map { "[\($0.0), \($0.1)]" }.joined(separator: ",") + "]"
    let data = try runPython(script, [path, list]).stdout
    struct Answer: Decodable {
      var epsg: Int
      var coordinates: [[Double]]
    }
    let answer = try JSONDecoder().decode(Answer.self, from: data)
    return (answer.epsg, answer.coordinates)
  }

  @Test("the georeferenced drawing's pixels map to EPSG:27700 as ezdxf maps its drawing points")
  func housesOfParliament() throws {
    let path = (dxfCorpus ?? "") + "/ezdxf_houses_of_parliament_georeferenced.dxf"
    let header = try SourceImage.header(of: InputName(path: path), maxPixels: 1 << 31)
    let frame = try #require(header.drawing)
    let geodata = try #require(frame.geodata)
    #expect(geodata.epsg == 27700)
    let pixels: [(Double, Double)] = [(0, 0), (Double(header.width), 0), (0, Double(header.height)), (1234.5, 678.25)]
    let points = pixels.map { frame.point(column: $0.0, row: $0.1) }
    let ezdxf = try ezdxfCRS(path, points: points.map { ($0.x, $0.y) })
    #expect(ezdxf.epsg == 27700)
    let transform = geodata.pixelToCRS(frame)
    for (pixel, expected) in zip(pixels, ezdxf.coordinates) {
      let mine = transform.apply(pixel.0, pixel.1)
      #expect(abs(mine.x - expected[0]) < 1e-6 && abs(mine.y - expected[1]) < 1e-6, "pixel \(pixel): \(mine) against ezdxf's \(expected)")
    }
  }

  @Test("drawings without GEODATA have none; $INSUNITS sets a pixel's size in drawing units")
  func unitsAndNoGeodata() throws {
    let bath = try SourceImage.header(of: InputName(path: (dxfCorpus ?? "") + "/qcad_bath_plan.dxf"), maxPixels: 1 << 31)
    let frame = try #require(bath.drawing)
    #expect(frame.geodata == nil)
    // millimetres: 5 cm of ground a pixel is 50 drawing units; the bath spans 1700 × 725 mm (GDAL's extent)
    #expect(frame.metersPerUnit == 0.001)
    #expect(abs(frame.unitsPerPixel - 50) < 1e-9)
    #expect(bath.width == Int((1700.0 / 50).rounded(.up)) + 2 * (bath.drawing?.padding ?? -1))
    let leica = try SourceImage.header(of: InputName(path: (dxfCorpus ?? "") + "/ezdxf_Leica_Disto_S910_R12.dxf"), maxPixels: 1 << 31)
    #expect(leica.drawing?.metersPerUnit == nil)
  }
}
