import CTilecutPNGRead
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

/// The bytes of one request of rows to libvips (see `fetchRows`).
let fetchBudget = 4 << 20

/// Fills `count` full-width RGBA8 rows from row `top` of a region's image. Rows are
/// asked of libvips 64 at a time, or as many as fit in `fetchBudget` bytes when the
/// image is wider than 16384 px (at least 8): every stage of a pipeline keeps a
/// buffer the size of the request, so a whole strip at once would cost several
/// strips of memory, and 64 rows of a 65536 px wide image 16 MB a stage.
/// A PNG that tilecut's own reader opened (the image itself, not one made from it)
/// is decoded straight into `buffer`, without libvips' region between (one copy of
/// every row fewer; `tc_png_fetch`). `columns`: the columns anyone reads of these
/// rows, when not all; such a PNG's rows then get only those (the others keep what
/// the buffer held), any other image's whole rows.
func fetchRows(
  _ region: UnsafeMutablePointer<VipsRegion>, width: Int, top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>,
  source name: String, columns: Range<Int>? = nil
) throws {
  if count > 0, let image = region.pointee.im, width == Int(image.pointee.Xsize) {
    let status =
      if let columns, columns.count < width, columns.lowerBound >= 0, columns.upperBound <= width {
        tc_png_fetch_columns(
          image, Int32(top), Int32(count), Int32(columns.lowerBound), Int32(columns.count), buffer + columns.lowerBound * 4, width * 4)
      } else {
        tc_png_fetch(image, Int32(top), Int32(count), buffer)
      }
    switch status {
    case 1: return
    case 0: break
    default: throw InputCheck.readFailure(path: name, VipsError.current("read"))
    }
  }
  let rows = max(8, min(64, fetchBudget / max(1, width * 4)))
  var done = 0
  while done < count {
    let n = min(rows, count - done)
    guard tc_fetch(region, 0, Int32(top + done), Int32(width), Int32(n), buffer + done * width * 4) == 0 else {
      throw InputCheck.readFailure(path: name, VipsError.current("read"))
    }
    done += n
  }
}

/// Builds the libvips pipeline that makes a direct level as its recipe says: a
/// plain embed, a streaming resample through a ring of the planned rows, or
/// libvips' random-access affine (mapim for lon/lat rows). The geometry comes from
/// `LevelGeometry`, the choices from the plan.
public enum LevelPipeline {
  /// Opens a direct level of a floor for strip reading.
  /// `jobs` threads interpolate each strip of a resampled level.
  /// `mapping`: the source mapping of a `.projected` placement (TilecutGeo's PROJ one).
  /// `sheet`: the shared reader of the sheet this floor is a band of (`SharedSheet`).
  /// `tap`: a hasher of the source's decoded pixels, handed the rows a streaming
  /// resample reads when it reads the source itself (unscaled, not pre-shrunk, not a
  /// shared sheet's band), so that a build records its `PixelBlocks` without a decode
  /// of their own; left unfed (incomplete) otherwise.
  public static func open(
    plan: FloorPlan, level: DensityLevel, format: SourceFormat? = nil, jobs: Int = 1, mapping: (any SourceMapping)? = nil,
    sheet: SharedSheet? = nil, tap: PixelBlockHasher? = nil
  ) throws -> any LevelPixelSource {
    try open(plan: plan, level: level, format: format, jobs: jobs, mapping: mapping, sheet: sheet, tap: tap, packing: nil)
  }

  /// `open`, with `packing` deciding whether a streaming resample holds its rows
  /// deflated (nil: when `StreamingResampleSource.packs` says so); for tests.
  static func open(
    plan: FloorPlan, level: DensityLevel, format: SourceFormat? = nil, jobs: Int = 1, mapping: (any SourceMapping)? = nil,
    sheet: SharedSheet? = nil, tap: PixelBlockHasher? = nil, packing: Bool?
  ) throws -> any LevelPixelSource {
    let source = plan.source
    let claim = sheet.map { SheetClaim(sheet: $0, floor: plan.floor) }
    let region = level.region
    let worldPixels = level.worldPixels
    switch level.recipe {
    case .reduce, .double:
      throw TilecutError.invalidInput(path: source.path, reason: "internal error: level \(level.density) does not read the source")
    case .embed(let documentScale, let x, let y):
      let image = try SourceImage.pixels(of: source, format: format, sequential: true, scale: documentScale ?? 1, sheet: claim)
      let placed = try image.map("embed") { tc_embed($0, &$1, Int32(x), Int32(y), Int32(region.width), Int32(region.height)) }
      return try VipsLevelSource(image: placed, name: source.path)
    case .draw(let documentScale):
      guard let frame = source.drawing else {
        throw TilecutError.invalidInput(path: source.path, reason: "internal error: level \(level.density) draws a source that is no drawing")
      }
      let image = try DrawingSource.placed(source, frame: frame, placement: plan.placement, level: level, documentScale: documentScale)
      return try VipsLevelSource(image: image, name: source.path)
    case .resample(let recipe):
      let scale = recipe.documentScale ?? 1
      try SubPixelPlacement.check(source: source, placement: plan.placement, scale: scale, shrink: recipe.shrink, region: region)
      // the mapping the plan names (and prints) decides the path: PROJ on a mesh, or affine
      if case .projMesh = plan.mapping {
        guard let mapping else {
          throw TilecutError.invalidInput(path: source.path, reason: "a projected placement needs its PROJ mapping")
        }
        let forward = LevelGeometry.forward(placement: plan.placement, region: region, worldPixels: worldPixels, scale: scale)
        return try meshResampled(
          source: source, format: format, recipe: recipe, region: region, worldPixels: worldPixels, forward: forward,
          mapping: mapping, strips: level.strips, jobs: jobs, sheet: claim, tap: tap)
      }
      guard
        let index = LevelGeometry.index(
          placement: plan.placement, region: region, worldPixels: worldPixels, scale: scale, shrink: Double(recipe.shrink))
      else {
        throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
      }
      return try resampled(
        source: source, format: format, recipe: recipe, region: region, strips: level.strips, jobs: jobs, map: index, sheet: claim, tap: tap,
        packing: packing)
    }
  }

  /// The planned power-of-two pre-shrink for the streaming resampler: a box average
  /// of premultiplied pixels, so that interpolation never skips source pixels and
  /// transparent ones do not darken their neighbours.
  /// Under `--resampling nearest` the pre-shrink keeps every shrink-th pixel instead.
  private static func boxShrunk(_ image: VipsImageHandle, by shrink: Double, filter: ResampleFilter) throws -> VipsImageHandle {
    guard shrink > 1 else { return image }
    if filter == .nearest {
      return try image.map("subsample") { tc_subsample_rows($0, &$1, Int32(shrink), Int32(shrink)) }
    }
    let premultiplied = try image.map("premultiply") { tc_premultiply($0, &$1) }
    let shrunk = try premultiplied.map("shrink") { tc_shrink($0, &$1, shrink, shrink) }
    return try shrunk.map("unpremultiply") { tc_unpremultiply_uchar($0, &$1) }
  }

  /// A level of a source whose mapping is not affine: positions from a mesh of the
  /// exact inverse (see `MeshInverse`), pixels through the streaming resampler.
  /// `forward`: the mapping's affine approximation, source pixel → region pixel.
  private static func meshResampled(
    source: SourceDescription, format: SourceFormat?, recipe: Resample, region: PixelRect, worldPixels: Double,
    forward: TilecutCore.AffineTransform, mapping: any SourceMapping, strips: [LevelStrip], jobs: Int, sheet: SheetClaim?,
    tap: PixelBlockHasher?
  ) throws -> any LevelPixelSource {
    let scale = recipe.documentScale ?? 1
    let shrink = Double(recipe.shrink)
    let image = try boxShrunk(
      SourceImage.pixels(of: source, format: format, sequential: true, scale: scale, sheet: sheet), by: shrink, filter: recipe.filter)
    let tap = tapping(tap, image: image, recipe: recipe, sheet: sheet)
    guard let inverse = forward.concatenating(after: .scale(shrink, shrink)).inverse else {
      throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
    }
    // the planner's mesh: source pixel (continuous) → index in the rendered, shrunk image
    let mesh = MeshInverse.level(mapping: mapping, region: region, worldPixels: worldPixels, scale: scale, shrink: shrink)
    return try StreamingResampleSource(
      image: image, name: source.path, mesh: mesh, rx: hypot(inverse.a, inverse.d), ry: hypot(inverse.b, inverse.e),
      filter: recipe.filter, strips: strips, ringRows: recipe.ringRows ?? 1, jobs: jobs, tap: tap)
  }

  /// The tap, when the rows the resampler reads are the source's decoded pixels.
  private static func tapping(_ tap: PixelBlockHasher?, image: VipsImageHandle, recipe: Resample, sheet: SheetClaim?) -> PixelBlockHasher? {
    guard let tap, sheet == nil, recipe.shrink == 1, (recipe.documentScale ?? 1) == 1, image.width == tap.width, image.height == tap.height
    else { return nil }
    return tap
  }

  private static func resampled(
    source: SourceDescription, format: SourceFormat?, recipe: Resample, region: PixelRect, strips: [LevelStrip], jobs: Int,
    map: ResampleIndex, sheet: SheetClaim?, tap: PixelBlockHasher?, packing: Bool?
  ) throws -> any LevelPixelSource {
    let scale = recipe.documentScale ?? 1
    let shrink = Double(recipe.shrink)
    let forward = map.forward
    if recipe.access == .streaming {
      // read the source once, in order, and interpolate strip by strip
      let sequential = try boxShrunk(
        SourceImage.pixels(of: source, format: format, sequential: true, scale: scale, sheet: sheet), by: shrink, filter: recipe.filter)
      // rx, ry: how many source pixels one output step spans along x and y, the
      // radii of the filter (bilinear up to 1, a tent beyond)
      let s = map.sampling(height: region.height)
      let ringRows = recipe.ringRows ?? 1
      let packed =
        packing
        ?? StreamingResampleSource.packs(
          ringRows: ringRows, rowBytes: sequential.width * 4, stripRows: strips.map(\.count).max() ?? region.height)
      // an incremental rebuild's strips each name the columns anything reads
      let read = strips.compactMap(\.columns).filter { !$0.isEmpty }
      let columns =
        strips.allSatisfy({ $0.columns != nil }) && !read.isEmpty
        ? (read.map(\.lowerBound).min() ?? 0)..<(read.map(\.upperBound).max() ?? region.width) : nil
      return try StreamingResampleSource(
        image: sequential, name: source.path, width: region.width, sx0: s.sx0, sy0: s.sy0, dsx: s.dsx, dsy: s.dsy, rx: s.rx, ry: s.ry,
        filter: recipe.filter, ringRows: ringRows, jobs: jobs, tap: tapping(tap, image: sequential, recipe: recipe, sheet: sheet),
        packed: packed, columns: columns)
    }

    // Random access (a wide source turned far from north-up): libvips' affine or mapim
    // over a random-access source, which libvips backs with a temporary file when large.
    // Its interpolator is libvips' nearest for `nearest`, else bilinear after the box
    // pre-shrink (average and lanczos3 included).
    let nearest = recipe.filter == .nearest
    let interpolator = nearest ? "nearest" : "bilinear"
    // A document rendered for a north-up placement is still read top to bottom.
    let northUp = abs(forward.b) < 1e-9 && abs(forward.d) < 1e-9 && forward.a > 0 && forward.e > 0
    var image = try SourceImage.pixels(of: source, format: format, sequential: source.isVector && northUp, scale: scale, bands: false)
    image = try image.map("premultiply") { tc_premultiply($0, &$1) }
    if shrink > 1 {
      image = try image.map("shrink") {
        nearest ? tc_subsample($0, &$1, Int32(shrink), Int32(shrink)) : tc_shrink($0, &$1, shrink, shrink)
      }
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
          tc_affine(
            image.pointer, &out, $0.baseAddress, forward.c, forward.f, Int32(region.width), Int32(region.height), interpolator)
        }
      }
    case .rows(let rows, let x, _):
      let indexImage = try VipsImageHandle.make("index") { out in
        rows.withUnsafeBufferPointer { r in
          x.withUnsafeBufferPointer { tc_row_index(Int32(region.width), Int32(region.height), r.baseAddress, $0.baseAddress, &out) }
        }
      }
      mapped = try VipsImageHandle.make("mapim") { out in
        tc_mapim(image.pointer, indexImage.pointer, &out, interpolator)
      }
    }
    mapped = try mapped.map("unpremultiply") { tc_unpremultiply_uchar($0, &$1) }
    return try VipsLevelSource(image: mapped, name: source.path)
  }
}
