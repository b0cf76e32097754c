import Foundation

/// How the pixels of one level are made: chosen by the planner, executed by the renderer.
public enum LevelRecipe: Hashable, Sendable, Codable {
  /// The source (a document rendered at `documentScale` first) placed on the level's
  /// grid by a whole-pixel shift: `x`, `y` are where its top-left pixel lands in the region.
  case embed(documentScale: Double?, x: Int, y: Int)
  /// The source (a document rendered at `documentScale` first) resampled onto the level's grid.
  case resample(Resample)
  /// A CAD drawing drawn by cairo straight on the level's grid, through the frame's
  /// map and the placement's affine one: no resampling. `documentScale`: the scale a
  /// rendering in source pixels would have, which sizes its texts
  /// (`DrawingFrame.minimumTextPixels(atScale:)`) and bounds it (--max-pixels).
  case draw(documentScale: Double)
  /// A 2× reduction of the level of density `fromDensity` (one denser).
  case reduce(fromDensity: Int)
  /// The level of density `fromDensity` (one less dense, the chain's head) doubled:
  /// the retina tiles at the deepest zoom, made without a second decode.
  case double(fromDensity: Int)

  /// True for recipes that read the source.
  public var readsSource: Bool {
    switch self {
    case .embed, .resample, .draw: return true
    case .reduce, .double: return false
    }
  }
}

/// The resampling of a source onto a level's grid.
public struct Resample: Hashable, Sendable, Codable {
  /// Set when the source is a document, rendered at this scale before resampling.
  public var documentScale: Double?
  /// The power-of-two box shrink applied first, so that interpolation skips no source pixel.
  public var shrink: Int
  /// The interpolation, from how many source pixels one level pixel spans.
  public var filter: ResampleFilter
  /// How the source is read.
  public var access: ResampleAccess
  /// For streaming access: the source rows held at once.
  public var ringRows: Int?

  public init(documentScale: Double?, shrink: Int, filter: ResampleFilter, access: ResampleAccess, ringRows: Int?) {
    self.documentScale = documentScale
    self.shrink = shrink
    self.filter = filter
    self.access = access
    self.ringRows = ringRows
  }
}

/// The interpolation of a resampled level.
public enum ResampleFilter: String, Hashable, Sendable, Codable {
  /// Premultiplied bilinear: a level pixel spans at most one source pixel.
  case bilinear
  /// A tent as wide as the pixels a level pixel spans (up to 4): bilinear when it reduces.
  case tent
  /// The source pixel nearest the sample: no colour the source does not have.
  case nearest
  /// The area-weighted mean of the source pixels a level pixel covers.
  case average
  /// Lanczos-3, stretched by the pixels a level pixel spans when it reduces.
  case lanczos3

  /// How many radii from a sample the filter reads source rows (the ring's reach).
  public var support: Double { self == .lanczos3 ? 3 : 1 }
}

/// `--resampling`: the kernel every level is drawn with, chosen by the user.
///
/// Levels read from the source use it directly. Levels made from the level above
/// (the 2× reductions) take 2 × 2 means, except `nearest`, which keeps one pixel of
/// each 2 × 2 block so that no zoom has a colour the source does not have; the
/// doubled retina level is bilinear, or replicated pixels for `nearest`.
public enum Resampling: String, Hashable, Sendable, Codable, CaseIterable {
  case nearest, average, bilinear, lanczos3

  /// The default: what serves line drawings best. Its tent lets through two thirds of
  /// the moiré the box (average) does on a plan's hatching, at a small cost against
  /// the area mean, and ties on a photo (bench/resampling.py, the README's table).
  public static let `default` = Resampling.bilinear

  /// The filter of a level whose pixels span `rx` × `ry` source pixels.
  public func filter(rx: Double, ry: Double) -> ResampleFilter {
    switch self {
    case .nearest: return .nearest
    case .average: return .average
    case .lanczos3: return .lanczos3
    case .bilinear: return rx > 1 || ry > 1 ? .tent : .bilinear
    }
  }
}

/// How a resampled level reads its source.
public enum ResampleAccess: String, Hashable, Sendable, Codable {
  /// Once, top to bottom, through a ring of `ringRows` rows.
  case streaming
  /// libvips' affine or mapim over a random-access source (a wide source turned far
  /// from north-up, whose bands would not fit the ring budget).
  case randomAccess
}

/// How a floor's source pixels map onto the world, as the plan names it.
public enum MappingPlan: Hashable, Sendable, Codable {
  /// An affine map to Web-Mercator (u, v).
  case affine(transform: AffineTransform)
  /// An affine map to longitude and latitude: columns stay affine, each row is remapped.
  case lonLatRows(transform: AffineTransform)
  /// Any CRS through PROJ, evaluated on a mesh: source pixel → CRS by `toCRS`.
  case projMesh(crs: String, toCRS: AffineTransform)

  public init(_ placement: Placement) {
    switch placement.projection {
    case .webMercator: self = .affine(transform: placement.transform)
    case .lonLat: self = .lonLatRows(transform: placement.transform)
    case .projected: self = .projMesh(crs: placement.crs ?? "", toCRS: placement.crsTransform ?? placement.transform)
    }
  }
}

/// Where each level pixel samples the source, for affine and lon/lat mappings: row r,
/// column X samples index (sx0[r] + dsx·X, sy0[r] + dsy·X) of the shrunk source.
public enum ResampleIndex: Sendable {
  /// The inverse affine map in libvips' index convention (a, b, c, d, e, f).
  case affine([Double], forwardScale: AffineTransform)
  /// Lon/lat: one source row per level row, x affine ([dx, 0, x0]).
  case rows([Float], x: [Double], forwardScale: AffineTransform)

  /// Source pixel → level pixel, for measuring how much the level shrinks the source.
  public var forward: AffineTransform {
    switch self {
    case .affine(_, let f): return f
    case .rows(_, _, let f): return f
    }
  }

  /// The per-row starts, steps and filter radii in source pixels.
  public func sampling(height: Int) -> (sx0: [Double], sy0: [Double], dsx: Double, dsy: Double, rx: Double, ry: Double) {
    switch self {
    case .affine(let m, _):
      let rows = (0..<height).map(Double.init)
      return (rows.map { m[1] * $0 + m[2] }, rows.map { m[4] * $0 + m[5] }, m[0], m[3], hypot(m[0], m[3]), hypot(m[1], m[4]))
    case .rows(let table, let x, _):
      let step = zip(table.dropFirst(), table).map { abs(Double($0) - Double($1)) }.max() ?? 1
      return ([Double](repeating: x[2], count: height), table.map(Double.init), x[0], 0, abs(x[0]), step)
    }
  }
}

/// The pure geometry of direct levels, shared by the planner (which decides) and the renderer (which executes).
public enum LevelGeometry {
  /// The most a resampling ring may take; wider bands (a large source turned far
  /// from north-up) go through libvips' random-access affine instead.
  public static let ringBudget = 512 << 20
  /// Rows added to a planned ring: the source's size after rendering and shrinking is
  /// known to libvips' rounding only.
  static let ringSlack = 2

  /// Source pixel (of the image rendered at `scale`) → region pixel, for mappings affine in Mercator or lon/lat.
  public static func forward(placement: Placement, region: PixelRect, worldPixels: Double, scale: Double) -> AffineTransform {
    AffineTransform.translation(-Double(region.x), -Double(region.y))
      .concatenating(after: .scale(worldPixels, worldPixels))
      .concatenating(after: placement.transform)
      .concatenating(after: .scale(1 / scale, 1 / scale))
  }

  /// Drawing point → region pixel of a CAD drawing's direct level (`LevelRecipe.draw`):
  /// the frame's map to source pixels at scale 1 (less the band's crop, for a floor cut
  /// from a sheet), then the placement's.
  public static func drawingMap(frame: DrawingFrame, source: SourceDescription, placement: Placement, region: PixelRect, worldPixels: Double)
    -> AffineTransform
  {
    let u = frame.unitsPerPixel
    let toSource = AffineTransform(
      a: 1 / u, b: 0, c: -frame.x0 / u - Double(source.crop?.x ?? 0), d: 0, e: -1 / u, f: frame.yTop / u - Double(source.crop?.y ?? 0))
    return forward(placement: placement, region: region, worldPixels: worldPixels, scale: 1).concatenating(after: toSource)
  }

  /// The source's outline (its four corners, x, y each, clockwise from the top-left) in region pixels.
  public static func sourceOutline(source: SourceDescription, placement: Placement, region: PixelRect, worldPixels: Double) -> [Double] {
    let map = forward(placement: placement, region: region, worldPixels: worldPixels, scale: 1)
    let (w, h) = (Double(source.width), Double(source.height))
    return [(0.0, 0.0), (w, 0), (w, h), (0, h)].flatMap { corner -> [Double] in
      let p = map.apply(corner.0, corner.1)
      return [p.x, p.y]
    }
  }

  /// The power-of-two shrink that keeps a level pixel from spanning two or more source pixels.
  public static func shrink(forward: AffineTransform) -> Int {
    let levelPerSource = min(hypot(forward.a, forward.d), hypot(forward.b, forward.e))
    var shrink = 1
    while levelPerSource * Double(shrink) * 2 <= 1.0001 && shrink < 1 << 30 { shrink *= 2 }
    return shrink
  }

  /// The index map of a level of a `.webMercator` (non-embedded) or `.lonLat` placement.
  public static func index(
    placement: Placement, region: PixelRect, worldPixels: Double, scale: Double, shrink: Double
  ) -> ResampleIndex? {
    if placement.projection == .webMercator {
      let map = forward(placement: placement, region: region, worldPixels: worldPixels, scale: scale)
      guard let inverse = map.inverse else { return nil }
      // region pixel centre → source pixel coordinate in mapim's index convention
      let inv = AffineTransform.scale(1 / shrink, 1 / shrink).concatenating(after: inverse)
      let centre = inv.apply(0.5, 0.5)
      return .affine([inv.a, inv.b, centre.x - 0.5, inv.d, inv.e, centre.y - 0.5], forwardScale: map)
    }
    let t = placement.transform
    // source pixel → pixel of the image read: a document rendered at `scale`, then box-shrunk
    let s = scale / shrink
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
    let k = colPerX == 0 ? 1 : abs(colPerX)
    return .rows(rows, x: [colPerX, 0, col0], forwardScale: .scale(1 / k, 1 / k))
  }

  /// The size libvips gives a source rendered at `scale` and box-shrunk by `shrink`.
  public static func imageSize(of source: SourceDescription, scale: Double, shrink: Int) -> (width: Int, height: Int) {
    let s = source.isVector ? scale : 1
    let w = Double(source.crop?.width ?? source.width) * s
    let h = Double(source.crop?.height ?? source.height) * s
    return (max(Int((w.rounded() / Double(shrink)).rounded()), 1), max(Int((h.rounded() / Double(shrink)).rounded()), 1))
  }

  /// The source rows that output rows [top, top + count) touch, or nil for none.
  public static func band(sy0: [Double], dsy: Double, radius: Double, width: Int, sourceHeight: Int, top: Int, count: Int)
    -> Range<Int>?
  {
    var lo = Double.infinity
    var hi = -Double.infinity
    let span = dsy * Double(max(width - 1, 0))
    for r in top..<(top + count) {
      let a = sy0[r]
      let b = a + span
      lo = min(lo, min(a, b))
      hi = max(hi, max(a, b))
    }
    guard lo.isFinite, hi.isFinite else { return nil }
    // bilinear reads rows floor(y) and floor(y) + 1; a wider filter rows within its radius
    lo -= radius
    hi += radius - 1
    let first = Int(min(max(lo.rounded(.down), 0), Double(sourceHeight)))
    let end = Int(min(max(hi.rounded(.down), -2), Double(sourceHeight))) + 2
    let last = min(end, sourceHeight)
    return first < last ? first..<last : nil
  }

  /// The source rows each strip of a projected level needs, by strip top: the mesh
  /// nodes bound a strip to within a few pixels, and the filter adds its radius.
  public static func meshBands(mesh: MeshInverse, radius: Double, sourceHeight: Int, strips: [LevelStrip]) -> [(top: Int, rows: Range<Int>)] {
    var bands: [(top: Int, rows: Range<Int>)] = []
    for strip in strips {
      guard let span = mesh.sourceRowSpan(top: strip.top, count: strip.count) else { continue }
      let margin = radius + 3
      let first = Int(min(max((span.lowerBound - margin).rounded(.down), 0), Double(sourceHeight)))
      let end = Int(min(max((span.upperBound + margin).rounded(.up), 0), Double(sourceHeight)))
      guard first < end else { continue }
      bands.append((strip.top, first..<end))
    }
    return bands
  }

  /// The rows the ring must hold for strips needing these source bands, read in
  /// order (a band may reach back below the furthest row read so far); nil past the budget.
  public static func ringCapacity(_ bands: [Range<Int>], rowBytes: Int, budget: Int = ringBudget) -> Int? {
    var capacity = 1
    var maxEnd = 0
    for band in bands {
      maxEnd = max(maxEnd, band.upperBound)
      capacity = max(capacity, maxEnd - band.lowerBound)
    }
    return capacity <= budget / max(rowBytes, 1) ? capacity : nil
  }

  /// The filter radii the resampler uses: at least bilinear's 1, at most 4.
  public static func radius(_ r: Double) -> Double { min(max(r, 1), 4) }
}

extension LevelRecipe {
  /// The recipe's name in JSON.
  public enum Kind: String, Codable, Sendable { case embed, resample, draw, reduce, double }

  enum CodingKeys: String, CodingKey { case kind, documentScale, x, y, shrink, filter, access, ringRows, fromDensity }

  public var kind: Kind {
    switch self {
    case .embed: return .embed
    case .resample: return .resample
    case .draw: return .draw
    case .reduce: return .reduce
    case .double: return .double
    }
  }

  /// One flat object, `kind` naming the recipe: `{"kind": "resample", "shrink": 2, …}`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    try c.encode(kind, forKey: .kind)
    switch self {
    case .embed(let scale, let x, let y):
      try c.encodeIfPresent(scale, forKey: .documentScale)
      try c.encode(x, forKey: .x)
      try c.encode(y, forKey: .y)
    case .resample(let r):
      try c.encodeIfPresent(r.documentScale, forKey: .documentScale)
      try c.encode(r.shrink, forKey: .shrink)
      try c.encode(r.filter, forKey: .filter)
      try c.encode(r.access, forKey: .access)
      try c.encodeIfPresent(r.ringRows, forKey: .ringRows)
    case .draw(let scale):
      try c.encode(scale, forKey: .documentScale)
    case .reduce(let from), .double(let from):
      try c.encode(from, forKey: .fromDensity)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decode(Kind.self, forKey: .kind) {
    case .embed:
      self = .embed(
        documentScale: try c.decodeIfPresent(Double.self, forKey: .documentScale), x: try c.decode(Int.self, forKey: .x),
        y: try c.decode(Int.self, forKey: .y))
    case .resample:
      self = .resample(
        Resample(
          documentScale: try c.decodeIfPresent(Double.self, forKey: .documentScale), shrink: try c.decode(Int.self, forKey: .shrink),
          filter: try c.decode(ResampleFilter.self, forKey: .filter), access: try c.decode(ResampleAccess.self, forKey: .access),
          ringRows: try c.decodeIfPresent(Int.self, forKey: .ringRows)))
    case .draw: self = .draw(documentScale: try c.decode(Double.self, forKey: .documentScale))
    case .reduce: self = .reduce(fromDensity: try c.decode(Int.self, forKey: .fromDensity))
    case .double: self = .double(fromDensity: try c.decode(Int.self, forKey: .fromDensity))
    }
  }
}

extension MappingPlan {
  /// The mapping's name in JSON.
  public enum Kind: String, Codable, Sendable { case affine, lonLatRows, projMesh }

  enum CodingKeys: String, CodingKey { case kind, transform, crs, toCRS }

  /// One flat object, `kind` naming the mapping: `{"kind": "projMesh", "crs": "EPSG:32633", …}`.
  public func encode(to encoder: any Encoder) throws {
    var c = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .affine(let t):
      try c.encode(Kind.affine, forKey: .kind)
      try c.encode(t, forKey: .transform)
    case .lonLatRows(let t):
      try c.encode(Kind.lonLatRows, forKey: .kind)
      try c.encode(t, forKey: .transform)
    case .projMesh(let crs, let toCRS):
      try c.encode(Kind.projMesh, forKey: .kind)
      try c.encode(crs, forKey: .crs)
      try c.encode(toCRS, forKey: .toCRS)
    }
  }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.container(keyedBy: CodingKeys.self)
    switch try c.decode(Kind.self, forKey: .kind) {
    case .affine: self = .affine(transform: try c.decode(AffineTransform.self, forKey: .transform))
    case .lonLatRows: self = .lonLatRows(transform: try c.decode(AffineTransform.self, forKey: .transform))
    case .projMesh:
      self = .projMesh(crs: try c.decode(String.self, forKey: .crs), toCRS: try c.decode(AffineTransform.self, forKey: .toCRS))
    }
  }
}
