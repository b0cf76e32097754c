import CVips
import CVipsShim
import Foundation
import TilecutCore

/// Reads one level's region from a libvips pipeline, strip by strip, in the calling thread.
final class VipsLevelSource: LevelPixelSource {
  let image: VipsImageHandle
  let region: UnsafeMutablePointer<VipsRegion>
  let name: String

  init(image: VipsImageHandle, name: String) throws {
    guard let region = vips_region_new(image.pointer) else { throw VipsError.current("region \(name)") }
    self.image = image
    self.region = region
    self.name = name
  }

  deinit { g_object_unref(region) }

  func read(top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
    try fetchRows(region, width: image.width, top: top, count: count, into: buffer, source: name)
  }
}

/// Fills `count` full-width RGBA8 rows from row `top` of a region's image. Rows are
/// asked of libvips 64 at a time: every stage of a pipeline keeps a buffer the size
/// of the request, so a whole strip at once would cost several strips of memory.
func fetchRows(
  _ region: UnsafeMutablePointer<VipsRegion>, width: Int, top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>,
  source name: String
) throws {
  var done = 0
  while done < count {
    let n = min(64, count - done)
    guard tc_fetch(region, 0, Int32(top + done), Int32(width), Int32(n), buffer + done * width * 4) == 0 else {
      let error = VipsError.current("read")
      throw TilecutError.invalidInput(path: name, reason: "cannot be decoded (\(error.message.isEmpty ? "read failed" : error.message))")
    }
    done += n
  }
}

/// Builds the libvips pipeline that makes a direct level: the source placed on the
/// level's pixel grid, by a plain embed when the placement is a whole-pixel shift,
/// otherwise by an inverse map with premultiplied bilinear interpolation.
public enum LevelPipeline {
  /// Opens a direct level of a floor for strip reading.
  /// `jobs` threads interpolate each strip of a resampled level; `ringBudget` bounds
  /// the source rows held for it (beyond it, libvips' random-access affine takes over).
  /// `mapping`: the source mapping of a `.projected` placement (TilecutGeo's PROJ one).
  /// `sheet`: the shared reader of the sheet this floor is a band of (`SharedSheet`).
  public static func open(
    plan: FloorPlan, level: DensityLevel, loader: String? = nil, jobs: Int = 1,
    ringBudget: Int = StreamingResampleSource.ringBudget, mapping: (any SourceMapping)? = nil, sheet: SharedSheet? = nil
  ) throws -> any LevelPixelSource {
    let source = plan.source
    let claim = sheet.map { SheetClaim(sheet: $0, floor: plan.floor) }
    let region = level.region
    let worldPixels = level.worldPixels
    // Source pixel → region pixel, for sources whose map is affine in Mercator.
    let toRegion = TilecutCore.AffineTransform.translation(-Double(region.x), -Double(region.y))
      .concatenating(after: .scale(worldPixels, worldPixels))
    var scale = 1.0
    if source.isVector {
      scale = plan.documentScale(for: level)
    }
    let vectorScale = TilecutCore.AffineTransform.scale(1 / scale, 1 / scale)

    if plan.placement.projection == .projected {
      guard let mapping else {
        throw TilecutError.invalidInput(path: source.path, reason: "a projected placement needs its PROJ mapping")
      }
      let forward = toRegion.concatenating(after: plan.placement.transform).concatenating(after: vectorScale)
      return try meshResampled(
        source: source, loader: loader, scale: scale, region: region, worldPixels: worldPixels, forward: forward,
        mapping: mapping, stripHeight: level.stripHeight, jobs: jobs, budget: ringBudget, sheet: claim)
    }

    if plan.placement.projection == .webMercator {
      let map = toRegion.concatenating(after: plan.placement.transform).concatenating(after: vectorScale)
      if map.isIntegerTranslation {
        let image = try SourceImage.pixels(of: source, loader: loader, sequential: true, scale: scale, sheet: claim)
        let placed = try image.map("embed") {
          tc_embed($0, &$1, Int32(map.c.rounded()), Int32(map.f.rounded()), Int32(region.width), Int32(region.height))
        }
        return try VipsLevelSource(image: placed, name: source.path)
      }
      guard let inverse = map.inverse else {
        throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
      }
      return try resampled(
        source: source, loader: loader, scale: scale, region: region, stripHeight: level.stripHeight, jobs: jobs, budget: ringBudget,
        sheet: claim
      ) { shrink in
        // region pixel centre → source pixel coordinate in mapim's index convention
        let inv = TilecutCore.AffineTransform.scale(1 / shrink, 1 / shrink).concatenating(after: inverse)
        let centre = inv.apply(0.5, 0.5)
        return .affine([inv.a, inv.b, centre.x - 0.5, inv.d, inv.e, centre.y - 0.5], forwardScale: map)
      }
    }

    // Lon/lat sources: x stays affine in longitude; each row is remapped through latitude.
    let t = plan.placement.transform
    guard abs(t.b) < 1e-12, abs(t.d) < 1e-12, t.a != 0, t.e != 0 else {
      throw TilecutError.invalidInput(
        path: source.path, reason: "a rotated lon/lat placement is not supported; use a Mercator (EPSG:3857) world file")
    }
    return try resampled(
      source: source, loader: loader, scale: scale, region: region, stripHeight: level.stripHeight, jobs: jobs, budget: ringBudget,
      sheet: claim
    ) { shrink in
      let s = 1 / (scale * shrink)
      // col = (lon - c) / a, lon = 360 (X + 0.5 + rx) / W - 180
      let lonPerX = 360 / worldPixels
      let lon0 = 360 * (Double(region.x) + 0.5) / worldPixels - 180
      let colPerX = lonPerX / t.a * s
      let col0 = (lon0 - t.c) / t.a * s - 0.5
      var rows = [Float](repeating: 0, count: region.height)
      for y in 0..<region.height {
        let v = (Double(region.y + y) + 0.5) / worldPixels
        let lat = WebMercator.latitudeDegrees(v: v)
        rows[y] = Float((lat - t.f) / t.e * s - 0.5)
      }
      let pixelScale = TilecutCore.AffineTransform.scale(1 / (colPerX == 0 ? 1 : abs(colPerX)), 1 / (colPerX == 0 ? 1 : abs(colPerX)))
      return .rows(rows, x: [colPerX, 0, col0], forwardScale: pixelScale)
    }
  }

  enum IndexMap {
    case affine([Double], forwardScale: TilecutCore.AffineTransform)
    case rows([Float], x: [Double], forwardScale: TilecutCore.AffineTransform)

    var forward: TilecutCore.AffineTransform {
      switch self {
      case .affine(_, let f): return f
      case .rows(_, _, let f): return f
      }
    }
  }

  /// A level of a source whose mapping is not affine: positions from a mesh of the
  /// exact inverse (see `MeshInverse`), pixels through the streaming resampler.
  /// `forward`: the mapping's affine approximation, source pixel → region pixel.
  private static func meshResampled(
    source: SourceDescription, loader: String?, scale: Double, region: PixelRect, worldPixels: Double,
    forward: TilecutCore.AffineTransform, mapping: any SourceMapping, stripHeight: Int, jobs: Int, budget: Int, sheet: SheetClaim?
  ) throws -> any LevelPixelSource {
    let levelPerSource = min(hypot(forward.a, forward.d), hypot(forward.b, forward.e))
    var shrink = 1.0
    while levelPerSource * shrink * 2 <= 1.0001 { shrink *= 2 }
    var image = try SourceImage.pixels(of: source, loader: loader, sequential: true, scale: scale, sheet: sheet)
    if shrink > 1 {
      image = try image.map("premultiply") { tc_premultiply($0, &$1) }
      image = try image.map("shrink") { tc_shrink($0, &$1, shrink, shrink) }
      image = try image.map("unpremultiply") { tc_unpremultiply_uchar($0, &$1) }
    }
    // source pixel (continuous) → index in the rendered, shrunk image (centre of pixel i at i)
    let k = scale / shrink
    let toIndex = TilecutCore.AffineTransform(a: k, b: 0, c: -0.5, d: 0, e: k, f: -0.5)
    guard let inverse = forward.concatenating(after: .scale(shrink, shrink)).inverse else {
      throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
    }
    let mesh = MeshInverse(mapping: mapping, region: region, worldPixels: worldPixels, toIndex: toIndex)
    guard
      let streaming = try StreamingResampleSource.make(
        image: image, name: source.path, mesh: mesh, rx: hypot(inverse.a, inverse.d), ry: hypot(inverse.b, inverse.e),
        strips: PyramidBuilder.strips(of: region, stripHeight: stripHeight), jobs: jobs, budget: budget)
    else {
      throw TilecutError.invalidInput(
        path: source.path, reason: "is too wide, turned this far, to resample within \(budget >> 20) MB; lower --max-zoom or split the image")
    }
    return streaming
  }

  private static func resampled(
    source: SourceDescription, loader: String?, scale: Double, region: PixelRect, stripHeight: Int, jobs: Int, budget: Int,
    sheet: SheetClaim?, index: (Double) -> IndexMap
  ) throws -> any LevelPixelSource {
    let forward = index(1).forward
    // Shrink by a power of two first when the level is much coarser than the source,
    // so that interpolation never skips source pixels.
    let levelPerSource = min(hypot(forward.a, forward.d), hypot(forward.b, forward.e))
    var shrink = 1.0
    while levelPerSource * shrink * 2 <= 1.0001 { shrink *= 2 }
    let map = index(shrink)

    // First choice: read the source once, in order, and interpolate strip by strip.
    var sequential = try SourceImage.pixels(of: source, loader: loader, sequential: true, scale: scale, sheet: sheet)
    if shrink > 1 {
      sequential = try sequential.map("premultiply") { tc_premultiply($0, &$1) }
      sequential = try sequential.map("shrink") { tc_shrink($0, &$1, shrink, shrink) }
      sequential = try sequential.map("unpremultiply") { tc_unpremultiply_uchar($0, &$1) }
    }
    let rows = (0..<region.height).map(Double.init)
    // rx, ry: how many source pixels one output step spans along x and y, the
    // radii of the filter (bilinear up to 1, a tent beyond)
    let (sx0, sy0, dsx, dsy, rx, ry): ([Double], [Double], Double, Double, Double, Double)
    switch map {
    case .affine(let m, _):
      (sx0, sy0, dsx, dsy) = (rows.map { m[1] * $0 + m[2] }, rows.map { m[4] * $0 + m[5] }, m[0], m[3])
      (rx, ry) = (hypot(m[0], m[3]), hypot(m[1], m[4]))
    case .rows(let table, let x, _):
      (sx0, sy0, dsx, dsy) = ([Double](repeating: x[2], count: region.height), table.map(Double.init), x[0], 0)
      let step = zip(table.dropFirst(), table).map { abs(Double($0) - Double($1)) }.max() ?? 1
      (rx, ry) = (abs(x[0]), step)
    }
    if let streaming = try StreamingResampleSource.make(
      image: sequential, name: source.path, width: region.width, sx0: sx0, sy0: sy0, dsx: dsx, dsy: dsy, rx: rx, ry: ry,
      strips: PyramidBuilder.strips(of: region, stripHeight: stripHeight), jobs: jobs, budget: budget)
    {
      return streaming
    }

    // Otherwise (a wide source turned far from north-up) libvips' affine or mapim
    // over a random-access source, which libvips backs with a temporary file when large.
    // A document rendered for a north-up placement is still read top to bottom.
    let northUp = abs(forward.b) < 1e-9 && abs(forward.d) < 1e-9 && forward.a > 0 && forward.e > 0
    var image = try SourceImage.pixels(of: source, loader: loader, sequential: source.isVector && northUp, scale: scale, bands: false)
    image = try image.map("premultiply") { tc_premultiply($0, &$1) }
    if shrink > 1 {
      image = try image.map("shrink") { tc_shrink($0, &$1, shrink, shrink) }
    }
    var mapped: VipsImageHandle
    switch map {
    case .affine(let m, _):
      // vips_affine wants the forward map (source index → region index)
      let inverse = TilecutCore.AffineTransform(a: m[0], b: m[1], c: m[2], d: m[3], e: m[4], f: m[5])
      guard let forward = inverse.inverse else {
        throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
      }
      let matrix = [forward.a, forward.b, forward.d, forward.e]
      mapped = try VipsImageHandle.make("affine") { out in
        matrix.withUnsafeBufferPointer {
          tc_affine(image.pointer, &out, $0.baseAddress, forward.c, forward.f, Int32(region.width), Int32(region.height))
        }
      }
    case .rows(let rows, let x, _):
      let indexImage = try VipsImageHandle.make("index") { out in
        rows.withUnsafeBufferPointer { r in
          x.withUnsafeBufferPointer { tc_row_index(Int32(region.width), Int32(region.height), r.baseAddress, $0.baseAddress, &out) }
        }
      }
      mapped = try VipsImageHandle.make("mapim") { out in tc_mapim(image.pointer, indexImage.pointer, &out, 0) }
    }
    mapped = try mapped.map("unpremultiply") { tc_unpremultiply_uchar($0, &$1) }
    return try VipsLevelSource(image: mapped, name: source.path)
  }
}
