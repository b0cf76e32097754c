import Foundation

/// One source image as the planner sees it: its size and what kind of loader reads it.
public struct SourceDescription: Hashable, Sendable, Codable {
  /// The path as the user gave it (without libvips options).
  public var path: String
  /// The page of a multi-page document, or nil for the first/only page.
  public var page: Int?
  /// A band of a stacked sheet: the rectangle of the page that holds this floor.
  public var crop: PixelRect?
  /// A GeoPDF page's map frame (its neatline, or the whole page): a polygon, x, y pairs
  /// in points of the whole page, drawn on white paper as GDAL draws it; what lies
  /// outside it is transparent.
  public var clip: [Double]?
  public var width: Int
  public var height: Int
  /// PDF and SVG can be rendered at any density instead of being resampled.
  public var isVector: Bool
  /// Band choice and scaling for sources that are not 8-bit colour (nil: none needed).
  public var conversion: PixelConversion?
  /// A tilecut output read as a tile source: the floor whose tiles are read
  /// (`DIR[floor=K]`), nil for any other source.
  public var storeFloor: Int?
  /// A CAD drawing's frame and drawing choices (nil for any other source).
  public var drawing: DrawingFrame?

  public init(
    path: String, page: Int? = nil, crop: PixelRect? = nil, width: Int, height: Int, isVector: Bool = false, storeFloor: Int? = nil
  ) {
    self.path = path
    self.page = page
    self.storeFloor = storeFloor
    self.crop = crop
    self.width = width
    self.height = height
    self.isVector = isVector
  }
}

/// An integer pixel rectangle.
public struct PixelRect: Hashable, Sendable, Codable {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int, y: Int, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public var maxX: Int { x + width }
  public var maxY: Int { y + height }
}

/// One cut of a level image into tiles of one size.
public struct LevelCut: Hashable, Sendable, Codable {
  public var size: TileSize
  /// Tiles of this cut whose cells the footprint touches.
  public var range: TileRange

  public init(size: TileSize, range: TileRange) {
    self.size = size
    self.range = range
  }

  /// The tile edge in pixels, for pixel arithmetic and names.
  public var tileSize: Int { size.pixels }
  public var zoom: Int { range.zoom }

  enum CodingKeys: String, CodingKey {
    case size = "tileSize"
    case range
  }
}

/// How the pixels of a density level come to be.
public enum LevelSource: String, Hashable, Sendable, Codable {
  /// Resampled (or rendered, for vectors) straight from the source.
  case direct
  /// A 2× reduction of the next denser level.
  case reduced
}

/// One level image: the world at base·2^density pixels, of which only `region` is made.
public struct DensityLevel: Hashable, Sendable, Codable {
  public var density: Int
  /// Pixels per world at density 0: 256 for the chain of 256 and 512 px tiles, 768
  /// for the @3x chain (768 is not 256·2^k, so its levels are a chain of their own).
  public var base: Int = WebMercator.baseTileSize
  /// The part of the level image that is computed, 512-aligned where the world allows.
  public var region: PixelRect
  public var source: LevelSource
  /// True when the level needs more detail than a raster source has.
  public var upsampled: Bool
  public var cuts: [LevelCut]
  /// How the level's pixels are made.
  public var recipe: LevelRecipe = .reduce(fromDensity: 0)
  /// For a level that reads its source: the strips it is read in, top to bottom.
  public var strips: [LevelStrip] = []

  /// Level pixels per world unit.
  public var worldPixels: Double { WebMercator.worldPixels(zoom: density, tileSize: base) }

  /// Rows per strip: a multiple of every tile size cut from the level, and no more:
  /// 256 rows when only 256 px tiles are cut (half the memory of a wide level).
  public var stripHeight: Int {
    guard base == WebMercator.baseTileSize else { return base }
    return cuts.contains { $0.tileSize > base } ? LevelStrip.tallest : base
  }

  public var tileCount: Int { cuts.reduce(0) { $0 + $1.range.count } }
}

/// Everything one floor's pyramid needs: the source, where it lies, and its levels, densest first.
public struct FloorPlan: Hashable, Sendable, Codable {
  public var floor: Floor
  public var source: SourceDescription
  public var placement: Placement
  public var footprint: WorldRect
  public var levels: [DensityLevel]
  /// The zooms tiled (of the 256 px grid; a 512 px or 768 px tile at zoom z is on the same grid).
  public var zooms: ZoomRange?
  /// How the source's pixels map onto the world.
  public var mapping: MappingPlan
  /// `--resampling`: the kernel of the levels read from the source, and how the
  /// levels below them are reduced (see `Resampling`).
  public var resampling: Resampling = .default

  public init(floor: Floor, source: SourceDescription, placement: Placement, footprint: WorldRect, levels: [DensityLevel]) {
    self.floor = floor
    self.source = source
    self.placement = placement
    self.footprint = footprint
    self.levels = levels
    mapping = MappingPlan(placement)
  }
  /// Levels left out under `--retina-depth native`, each served by a smaller tile.
  public var substitutes: [LevelSubstitute] = []

  public var tileCount: Int { levels.reduce(0) { $0 + $1.tileCount } }

  /// The levels that feed the reduction chain of 256 and 512 px tiles, densest first (the first is direct).
  public var chain: [DensityLevel] { chain(base: WebMercator.baseTileSize) }

  /// Direct levels rendered above the chain, each cut and not reduced.
  public var standalone: [DensityLevel] { standalone(base: WebMercator.baseTileSize) }

  /// The reduction chain of the levels with this base, densest first.
  public func chain(base: Int) -> [DensityLevel] {
    let mine = levels.filter { $0.base == base }
    guard let first = mine.lastIndex(where: { $0.source == .direct }) else { return [] }
    return Array(mine[first...])
  }

  /// Direct levels with this base above its chain.
  public func standalone(base: Int) -> [DensityLevel] {
    let mine = levels.filter { $0.base == base }
    guard let first = mine.lastIndex(where: { $0.source == .direct }) else { return [] }
    return Array(mine[..<first])
  }
}

extension FloorPlan {
  /// How much a document (PDF, SVG) is scaled when rendered for a direct level: one
  /// rendered pixel is about one level pixel. The planner puts it in the level's
  /// recipe, which the renderer and the --max-pixels bound read.
  public func documentScale(for level: DensityLevel) -> Double {
    if let native = placement.nativeZoom { return level.worldPixels / WebMercator.worldPixels(zoom: native) }
    let probe = placement.sourcePixelsPerWorldUnit(width: source.width, height: source.height)
    return probe > 0 ? level.worldPixels / probe : 1
  }
}

/// The choices that shape a pyramid, as the planner takes them.
public struct PlanRequest: Hashable, Sendable, Codable {
  public var minZoom: Int?
  public var maxZoom: Int?
  public var tileSizes: [TileSize]
  public var retinaDepth: RetinaDepth
  /// `--resampling`: the kernel of every level.
  public var resampling: Resampling

  public init(
    minZoom: Int? = nil, maxZoom: Int? = nil, tileSizes: [TileSize] = [.standard, .retina], retinaDepth: RetinaDepth = .full,
    resampling: Resampling = .default
  ) {
    self.minZoom = minZoom
    self.maxZoom = maxZoom
    self.tileSizes = tileSizes
    self.retinaDepth = retinaDepth
    self.resampling = resampling
  }

  /// A request for sizes given as numbers: an error naming --tile-size for one tilecut does not make.
  public init(minZoom: Int? = nil, maxZoom: Int? = nil, tileSizes: [Int]) throws {
    self.init(minZoom: minZoom, maxZoom: maxZoom, tileSizes: try tileSizes.map { try TileSize(pixels: $0) })
  }
}

/// Turns sources, placements and zooms into levels, regions and tile ranges.
public enum PyramidPlanner {
  public static let maxSupportedZoom = 30
  static let alignment = 512
  /// The @3x tile size: the 256 px grid at three times the density.
  public static let tripleTileSize = TileSize.triple.pixels

  /// The raster default: the smallest zoom z with 256·2^z ≥ the longer side.
  public static func rasterMaxZoom(width: Int, height: Int) -> Int {
    let side = max(width, height)
    var z = 0
    while WebMercator.baseTileSize << z < side && z < maxSupportedZoom { z += 1 }
    return z
  }

  /// The zoom range a request resolves to for one floor.
  public static func zoomRange(
    request: PlanRequest, source: SourceDescription, placement: Placement
  ) throws -> ZoomRange {
    let maxZ = request.maxZoom ?? placement.nativeZoom(width: source.width, height: source.height)
    let minZ: Int
    if let m = request.minZoom {
      minZ = m
    } else if placement.method == .raster {
      minZ = 0
    } else {
      minZ = min(placement.singleTileZoom(width: source.width, height: source.height), maxZ)
    }
    guard (0...maxSupportedZoom).contains(maxZ) else {
      throw TilecutError.invalidOption(option: "--max-zoom", reason: "\(maxZ) is outside 0...\(maxSupportedZoom)")
    }
    guard (0...maxSupportedZoom).contains(minZ) else {
      throw TilecutError.invalidOption(option: "--min-zoom", reason: "\(minZ) is outside 0...\(maxSupportedZoom)")
    }
    guard minZ <= maxZ else {
      throw TilecutError.invalidOption(option: "--min-zoom", reason: "\(minZ) is above --max-zoom \(maxZ)")
    }
    return ZoomRange(min: minZ, max: maxZ)
  }

  /// Plans one floor. `mapping`: the PROJ mapping of a `.projected` placement
  /// (TilecutGeo's), which the planner evaluates on a mesh to size the resampling ring.
  public static func plan(
    floor: Floor, source: SourceDescription, placement: Placement, request: PlanRequest, mapping: (any SourceMapping)? = nil
  ) throws -> FloorPlan {
    let zoomRange = try zoomRange(request: request, source: source, placement: placement)
    let zooms = zoomRange.zooms
    let footprint = placement.footprint(width: source.width, height: source.height).clampedToWorld
    guard !footprint.isEmpty else {
      // a file that placed it (world file, .aux.xml) is the one at fault
      let file =
        placement.method == .worldFile
        ? placement.sidecars.first : placement.method == .auxXML ? placement.sidecars.first { $0.lowercased().hasSuffix(".aux.xml") } : nil
      if let file {
        throw TilecutError.invalidInput(
          path: file, reason: "the placement it gives puts \(source.path) outside the Web-Mercator world, or makes it smaller than a point")
      }
      throw TilecutError.invalidInput(path: source.path, reason: "the placement puts the image outside the Web-Mercator world")
    }
    // Density of a cut: a T px tile at zoom z has the pixels of 256 px tiles at z + log2(T/256).
    var cutsByDensity: [Int: [LevelCut]] = [:]
    var tripleCuts: [LevelCut] = []
    let native = placement.nativeZoom(width: source.width, height: source.height)
    var substitutes: [LevelSubstitute] = []
    for size in Set(request.tileSizes).sorted() {
      // the @3x chain is its own (768 is not 256·2^k); 256 and 512 share levels
      guard let shift = size.densityShift else {
        tripleCuts = zooms.compactMap { zoom in
          WebMercator.tileRange(covering: footprint, zoom: zoom, tileSize: size.pixels).map { LevelCut(size: size, range: $0) }
        }
        continue
      }
      for zoom in zooms {
        guard let range = WebMercator.tileRange(covering: footprint, zoom: zoom, tileSize: size.pixels) else { continue }
        // --retina-depth native: a 512 px tile finer than a raster source is left to the 256 px one
        if shift > 0, request.retinaDepth == .native, !source.isVector, zoom + shift > native, request.tileSizes.contains(.standard) {
          substitutes.append(LevelSubstitute(tileSize: size.pixels, zoom: zoom, servedBy: WebMercator.baseTileSize))
          continue
        }
        cutsByDensity[zoom + shift, default: []].append(LevelCut(size: size, range: range))
      }
    }
    var levels: [DensityLevel] = []
    if let maxDensity = cutsByDensity.keys.max(), let minDensity = cutsByDensity.keys.min() {
      // a CAD drawing is drawn at every zoom's density (its lines and texts kept legible
      // where it is small); other documents at the deepest, rasters at their native zoom
      let base = source.drawing != nil ? minDensity : source.isVector ? maxDensity : min(native, maxDensity)
      for density in stride(from: maxDensity, through: minDensity, by: -1) {
        let cuts = cutsByDensity[density] ?? []
        if density > base && cuts.isEmpty { continue }
        levels.append(
          DensityLevel(
            density: density,
            region: region(of: footprint, density: density),
            source: density >= base ? .direct : .reduced,
            upsampled: density > native && !source.isVector,
            cuts: cuts))
      }
    }
    // The @3x chain: its densest level made straight from the source, the rest by
    // 2× reductions within the chain (one resample for the density).
    for (index, cut) in tripleCuts.sorted(by: { $0.zoom > $1.zoom }).enumerated() {
      let nativePixels = WebMercator.worldPixels(zoom: native)
      let level = DensityLevel(
        density: cut.zoom, base: tripleTileSize,
        region: region(of: footprint, density: cut.zoom, base: tripleTileSize),
        source: index == 0 || source.drawing != nil ? .direct : .reduced,
        upsampled: WebMercator.worldPixels(zoom: cut.zoom, tileSize: tripleTileSize) > nativePixels && !source.isVector,
        cuts: [cut])
      levels.append(level)
    }
    var plan = FloorPlan(floor: floor, source: source, placement: placement, footprint: footprint, levels: levels)
    plan.zooms = zoomRange
    plan.substitutes = substitutes
    plan.resampling = request.resampling
    try assignRecipes(&plan, mapping: mapping)
    if plan.source.drawing != nil {
      let deepest = plan.levels.filter { $0.source == .direct }.map { plan.documentScale(for: $0) }.max()
      plan.source.drawing?.deepestScale = deepest
    }
    return plan
  }

  /// Names how each level is made: the heads of the chains from the source, the
  /// rest by reduction, and the level just above a raster chain (512 px tiles at
  /// the deepest zoom) by doubling the chain's head: no second decode, no second resample.
  static func assignRecipes(_ plan: inout FloorPlan, mapping: (any SourceMapping)?) throws {
    let head = plan.chain.first
    var levels = plan.levels
    for i in levels.indices {
      let level = levels[i]
      if level.source == .reduced {
        levels[i].recipe = .reduce(fromDensity: level.density + 1)
      } else if let head, !plan.source.isVector, level.base == head.base, level.density == head.density + 1 {
        levels[i].recipe = .double(fromDensity: head.density)
      } else {
        levels[i].recipe = try drawnRecipe(plan, level: level) ?? directRecipe(plan, level: level, mapping: mapping)
        levels[i].strips = LevelStrip.strips(of: level.region, stripHeight: level.stripHeight)
      }
    }
    plan.levels = levels
  }

  /// A CAD drawing whose placement is affine in Web Mercator (a centre with its scale
  /// and turn, `--gcp` fits, `--bounds`, a world file, a project file's placement, a
  /// GEODATA object in EPSG:3857): drawn on each level's grid, as the frame and the
  /// placement map it, without a resample. Nil for any other source, and for a drawing
  /// placed through PROJ (GEODATA or a CRS other than Web Mercator) or in lon/lat (rows
  /// remapped, not affine in Mercator): those are drawn in source pixels and resampled.
  static func drawnRecipe(_ plan: FloorPlan, level: DensityLevel) throws -> LevelRecipe? {
    guard plan.source.drawing != nil, plan.placement.projection == .webMercator, plan.source.clip == nil else { return nil }
    let forward = LevelGeometry.forward(placement: plan.placement, region: level.region, worldPixels: level.worldPixels, scale: 1)
    guard forward.inverse != nil else {
      throw TilecutError.invalidInput(path: plan.source.path, reason: "the placement is degenerate (zero area)")
    }
    return .draw(documentScale: plan.documentScale(for: level))
  }

  /// Embed, streaming resample or random-access resample, with the shrink and ring they need.
  static func directRecipe(_ plan: FloorPlan, level: DensityLevel, mapping: (any SourceMapping)?) throws -> LevelRecipe {
    let source = plan.source
    let region = level.region
    let scale = source.isVector ? plan.documentScale(for: level) : 1
    let documentScale = source.isVector ? scale : nil
    let placement = plan.placement
    let strips = LevelStrip.strips(of: region, stripHeight: level.stripHeight)
    let forward = LevelGeometry.forward(placement: placement, region: region, worldPixels: level.worldPixels, scale: scale)
    switch placement.projection {
    case .projected:
      guard let mapping else {
        throw TilecutError.invalidInput(path: source.path, reason: "a projected placement needs its PROJ mapping")
      }
      let shrink = LevelGeometry.shrink(forward: forward)
      guard let inverse = forward.concatenating(after: .scale(Double(shrink), Double(shrink))).inverse else {
        throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
      }
      let (rx, ry) = (LevelGeometry.radius(hypot(inverse.a, inverse.d)), LevelGeometry.radius(hypot(inverse.b, inverse.e)))
      let size = LevelGeometry.imageSize(of: source, scale: scale, shrink: shrink)
      let mesh = MeshInverse.level(mapping: mapping, region: region, worldPixels: level.worldPixels, scale: scale, shrink: Double(shrink))
      let filter = plan.resampling.filter(rx: rx, ry: ry)
      let bands = LevelGeometry.meshBands(mesh: mesh, radius: ry * filter.support, sourceHeight: size.height, strips: strips).map(\.rows)
      guard let rows = LevelGeometry.ringCapacity(bands, rowBytes: size.width * 4) else {
        throw TilecutError.invalidInput(
          path: source.path,
          reason: "is too wide, turned this far, to resample within \(LevelGeometry.ringBudget >> 20) MB; lower --max-zoom or split the image")
      }
      return .resample(
        Resample(
          documentScale: documentScale, shrink: shrink, filter: filter, access: .streaming, ringRows: rows + LevelGeometry.ringSlack))
    case .webMercator, .lonLat:
      if placement.projection == .webMercator {
        guard forward.inverse != nil else {
          throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)")
        }
        if forward.isIntegerTranslation {
          return .embed(documentScale: documentScale, x: Int(forward.c.rounded()), y: Int(forward.f.rounded()))
        }
      } else {
        let t = placement.transform
        guard abs(t.b) < 1e-12, abs(t.d) < 1e-12, t.a != 0, t.e != 0 else {
          throw TilecutError.invalidInput(
            path: source.path, reason: "a rotated lon/lat placement is not supported; use a Mercator (EPSG:3857) world file")
        }
      }
      guard let first = LevelGeometry.index(placement: placement, region: region, worldPixels: level.worldPixels, scale: scale, shrink: 1)
      else { throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)") }
      let shrink = LevelGeometry.shrink(forward: first.forward)
      guard
        let index = LevelGeometry.index(
          placement: placement, region: region, worldPixels: level.worldPixels, scale: scale, shrink: Double(shrink))
      else { throw TilecutError.invalidInput(path: source.path, reason: "the placement is degenerate (zero area)") }
      let s = index.sampling(height: region.height)
      let (rx, ry) = (LevelGeometry.radius(s.rx), LevelGeometry.radius(s.ry))
      let filter = plan.resampling.filter(rx: rx, ry: ry)
      let size = LevelGeometry.imageSize(of: source, scale: scale, shrink: shrink)
      let bands = strips.compactMap {
        LevelGeometry.band(
          sy0: s.sy0, dsy: s.dsy, radius: ry * filter.support, width: region.width, sourceHeight: size.height, top: $0.top,
          count: $0.count)
      }
      let rows = LevelGeometry.ringCapacity(bands, rowBytes: size.width * 4)
      return .resample(
        Resample(
          documentScale: documentScale, shrink: shrink, filter: filter,
          access: rows == nil ? .randomAccess : .streaming, ringRows: rows.map { $0 + LevelGeometry.ringSlack }))
    }
  }

  /// The computed part of a level: the footprint's pixels, aligned out to 512 (to
  /// 768 in the @3x chain, whose tiles and strips are 768 px) and clipped to the world.
  public static func region(of footprint: WorldRect, density: Int, base: Int = WebMercator.baseTileSize) -> PixelRect {
    let world = WebMercator.worldPixels(zoom: density, tileSize: base)
    let worldInt = Int(world)
    let eps = WebMercator.edgeEpsilonPixels
    let alignment = base == WebMercator.baseTileSize ? Self.alignment : base
    func span(_ lo: Double, _ hi: Double) -> (Int, Int) {
      let first = max(Int(floor(lo * world + eps)), 0)
      let end = min(Int(ceil(hi * world - eps)), worldInt)
      let a = (first / alignment) * alignment
      let b = min(((max(end, first + 1) + alignment - 1) / alignment) * alignment, worldInt)
      return (a, max(b, a + 1))
    }
    let (x0, x1) = span(footprint.minU, footprint.maxU)
    let (y0, y1) = span(footprint.minV, footprint.maxV)
    return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }
}
