import Foundation
import Testing
import TilecutCore
import TilecutFixtures
import TilecutVips

@testable import Tilecut
@testable import TilecutCLI

/// A picture of `width` × `height` whose pixel (x, y) is `colour(x, y)` (opaque).
private func painted(width: Int, height: Int, _ colour: (Int, Int) -> (UInt8, UInt8, UInt8)) -> RGBAImage {
  var image = RGBAImage(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let (r, g, b) = colour(x, y)
      let i = (y * width + x) * 4
      image.pixels[i] = r
      image.pixels[i + 1] = g
      image.pixels[i + 2] = b
      image.pixels[i + 3] = 255
    }
  }
  return image
}

/// The opaque pixels of every tile below `root`, by zoom.
private func opaquePixels(_ root: String) throws -> [Int: [(UInt8, UInt8, UInt8)]] {
  var out: [Int: [(UInt8, UInt8, UInt8)]] = [:]
  for file in filesBelow(root) where file.hasSuffix(".png") && file.hasPrefix("256/L1_") {
    let zoom = try #require(Int(file.split(separator: "_")[1]))
    let tile = try RGBAImage.decode(file: root + "/" + file)
    for i in stride(from: 0, to: tile.pixels.count, by: 4) where tile.pixels[i + 3] == 255 {
      out[zoom, default: []].append((tile.pixels[i], tile.pixels[i + 1], tile.pixels[i + 2]))
    }
  }
  return out
}

@Suite("--resampling drives the renderer through the plan")
struct ResamplingTests {
  /// Near the equator a 256 px tile at zoom 18 is 0.597 m a pixel: 0.4975 m source
  /// pixels are reduced 1.2× (bilinear's own range), 0.2 m ones 3×.
  func tile(_ image: RGBAImage, metersPerPixel: Double, _ extra: [String], in dir: String, name: String) throws -> String {
    let source = dir + "/\(name).png"
    try image.writePNG(to: source)
    let out = dir + "/out-\(name)"
    try tilecut(
      [
        source, "-o", out, "--center", "0.001,0.001", "--meters-per-pixel", String(metersPerPixel), "--min-zoom", "16", "--max-zoom", "18",
        "--tile-size", "256",
      ] + extra)
    return out
  }

  @Test("nearest draws no colour the source does not have, at every zoom; bilinear and average do")
  func nearestKeepsColours() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let checker = painted(width: 600, height: 600) { x, y in (x + y) % 2 == 0 ? (230, 20, 20) : (20, 20, 230) }
    let isSource = { (p: (UInt8, UInt8, UInt8)) in (p.0 == 230 && p.2 == 20 || p.0 == 20 && p.2 == 230) && p.1 == 20 }
    let nearest = try opaquePixels(try tile(checker, metersPerPixel: 0.4975, ["--resampling", "nearest"], in: dir, name: "n"))
    #expect(nearest.keys.sorted() == [16, 17, 18])
    for (zoom, pixels) in nearest {
      #expect(!pixels.isEmpty)
      #expect(pixels.allSatisfy(isSource), "zoom \(zoom): \(pixels.first { !isSource($0) }.map { "\($0)" } ?? "")")
    }
    // 3× coarser: a pre-shrink of 2 that keeps pixels instead of averaging them
    let shrunk = try opaquePixels(try tile(checker, metersPerPixel: 0.2, ["--resampling", "nearest"], in: dir, name: "n3"))
    #expect(shrunk[18]?.isEmpty == false)
    #expect(shrunk.values.allSatisfy { $0.allSatisfy(isSource) })
    for kernel in ["bilinear", "average"] {
      let mixed = try opaquePixels(try tile(checker, metersPerPixel: 0.4975, ["--resampling", kernel], in: dir, name: kernel))
      #expect(mixed[18]?.contains { !isSource($0) } == true, "\(kernel) should blend the checker")
    }
    // the project file's key (with gdal2tiles' spelling) reaches the renderer the same way
    try """
    output: built
    tileSizes: [256]
    minZoom: 16
    maxZoom: 18
    resampling: near
    buildings:
      - id: hq
        floors:
          - floor: 1
            source: n.png
            center: [0.001, 0.001]
            metersPerPixel: 0.4975
    """.write(toFile: dir + "/tilecut.yml", atomically: true, encoding: .utf8)
    #expect(try tilecut(["build", dir + "/tilecut.yml"]) == 0)
    let built = try opaquePixels(dir + "/built")
    #expect(built.keys.sorted() == [16, 17, 18])
    #expect(built.values.allSatisfy { $0.allSatisfy(isSource) })
  }

  @Test("average turns a one-pixel checker into its mean where bilinear, 1.2× coarser, aliases")
  func averageIsTheAreaMean() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let checker = painted(width: 600, height: 600) { x, y in (x + y) % 2 == 0 ? (255, 255, 255) : (0, 0, 0) }
    func spread(_ kernel: String) throws -> (mean: Double, worst: Int) {
      let pixels = try #require(try opaquePixels(try tile(checker, metersPerPixel: 0.4975, ["--resampling", kernel], in: dir, name: kernel))[18])
      let values = pixels.map { Int($0.0) }
      let mean = Double(values.reduce(0, +)) / Double(values.count)
      return (mean, values.map { abs($0 - 128) }.max() ?? 0)
    }
    let average = try spread("average")
    #expect(abs(average.mean - 127.5) < 3, "average: mean \(average.mean)")
    // a 1.2-pixel box over a one-pixel checker stays within a fifth of grey
    #expect(average.worst < 60, "average: a pixel \(average.worst) from grey")
    let bilinear = try spread("bilinear")
    #expect(bilinear.worst > 100, "bilinear at 1.2× samples the checker: a pixel only \(bilinear.worst) from grey")
  }

  @Test("lanczos3 rings at a hard edge where bilinear, average and nearest stay between its two sides")
  func lanczosRings() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    // vertical stripes 7 px wide of 64 and 192, reduced 3×
    let stripes = painted(width: 300, height: 300) { x, _ in (x / 7) % 2 == 0 ? (64, 64, 64) : (192, 192, 192) }
    func range(_ kernel: String) throws -> ClosedRange<Int> {
      let pixels = try #require(try opaquePixels(try tile(stripes, metersPerPixel: 0.2, ["--resampling", kernel], in: dir, name: kernel))[18])
      let values = pixels.map { Int($0.0) }
      let low = try #require(values.min())
      let high = try #require(values.max())
      return low...high
    }
    for kernel in ["nearest", "average", "bilinear"] {
      let r = try range(kernel)
      #expect(r.lowerBound >= 64 && r.upperBound <= 192, "\(kernel): \(r)")
    }
    let lanczos = try range("lanczos3")
    #expect(lanczos.lowerBound < 64 || lanczos.upperBound > 192, "lanczos3: \(lanczos)")
  }

  @Test("the dry run's plan names the kernel; gdal2tiles' spellings reach it")
  func planNamesTheKernel() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try picture(width: 700, height: 400).writePNG(to: dir + "/a.png")
    func filters(_ extra: [String]) throws -> (floor: String?, levels: Set<String>) {
      let run = try runTool([dir + "/a.png", "-o", dir + "/out", "--dry-run", "--json", "--center", "40,-74", "--meters-per-pixel", "0.3"] + extra)
      #expect(run.status == 0, "\(run.stderr)")
      let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
      let plan = try JSONDecoder().decode(JobPlan.self, from: JSONSerialization.data(withJSONObject: try #require(json["plan"])))
      let floor = try #require(plan.floors.first)
      let levels = floor.levels.compactMap { level -> String? in
        if case .resample(let r) = level.recipe { return r.filter.rawValue }
        return nil
      }
      return (floor.resampling.rawValue, Set(levels))
    }
    #expect(try filters([]) == ("bilinear", ["tent"]))
    #expect(try filters(["--resampling", "lanczos"]) == ("lanczos3", ["lanczos3"]))
    #expect(try filters(["--resampling", "near"]) == ("nearest", ["nearest"]))
    #expect(try filters(["--resampling", "average"]) == ("average", ["average"]))
    let bad = try runTool([dir + "/a.png", "-o", dir + "/out", "--dry-run", "--resampling", "cubic"])
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("--resampling"), "\(bad.stderr)")
    let peer = try runTool([dir + "/a.png", "-o", dir + "/out", "-r", "near"])
    #expect(peer.status == 2)
    #expect(peer.stderr.contains("--resampling nearest"), "\(peer.stderr)")
  }

  @Test("changing --resampling re-renders: the run is not up to date and the tiles differ")
  func changingTheKernelRerenders() throws {
    let dir = try scratch()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let stripes = painted(width: 600, height: 600) { x, y in ((x / 3) + (y / 5)) % 2 == 0 ? (40, 90, 200) : (250, 240, 10) }
    let out = try tile(stripes, metersPerPixel: 0.2, [], in: dir, name: "s")
    let before = snapshot(out)
    _ = try tile(stripes, metersPerPixel: 0.2, ["--resampling", "lanczos3"], in: dir, name: "s")
    let after = snapshot(out)
    #expect(Set(before.keys) == Set(after.keys))
    #expect(before.keys.contains { before[$0] != after[$0] && $0.hasSuffix(".png") })
    let data = try #require(after["manifest.json"])
    let manifest = String(decoding: data, as: UTF8.self)
    #expect(manifest.contains("\"resampling\" : \"lanczos3\"") || manifest.contains("\"resampling\":\"lanczos3\""))
  }
}
