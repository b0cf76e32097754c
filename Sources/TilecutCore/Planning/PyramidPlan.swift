import Foundation

/// One source image as the planner sees it: its size and what kind of loader reads it.
public struct SourceDescription: Hashable, Sendable, Codable {
  /// The path as the user gave it (without libvips options).
  public var path: String
  /// The page of a multi-page document, or nil for the first/only page.
  public var page: Int?
  /// A band of a stacked sheet: the rectangle of the page that holds this floor.
  public var crop: PixelRect?
  public var width: Int
  public var height: Int
  /// PDF and SVG can be rendered at any density instead of being resampled.
  public var isVector: Bool
  /// Band choice and scaling for sources that are not 8-bit colour (nil: none needed).
  public var conversion: PixelConversion?

  public init(path: String, page: Int? = nil, crop: PixelRect? = nil, width: Int, height: Int, isVector: Bool = false) {
    self.path = path
    self.page = page
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
  public var tileSize: Int
  /// Tiles of this cut whose cells the footprint touches.
  public var range: TileRange

  public var zoom: Int { range.zoom }
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

  /// Level pixels per world unit.
  public var worldPixels: Double { WebMercator.worldPixels(zoom: density, tileSize: base) }

  /// Rows per strip: a multiple of every tile size cut from the level, and no more:
  /// 256 rows when only 256 px tiles are cut (half the memory of a wide level).
  public var stripHeight: Int {
    guard base == WebMercator.baseTileSize else { return base }
    return cuts.contains { $0.tileSize > base } ? PyramidBuilder.stripHeight : base
  }

  public var tileCount: Int { cuts.reduce(0) { $0 + $1.range.count } }
}

/// Everything one floor's pyramid needs: the source, where it lies, and its levels, densest first.
public struct FloorPlan: Hashable, Sendable, Codable {
  public var floor: Int
  public var source: SourceDescription
  public var placement: Placement
  public var footprint: WorldRect
  public var levels: [DensityLevel]
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
  /// rendered pixel is about one level pixel. The renderer and the --max-pixels bound
  /// both use it.
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
  public var tileSizes: [Int]
  public var retinaDepth: RetinaDepth

  public init(minZoom: Int? = nil, maxZoom: Int? = nil, tileSizes: [Int] = [256, 512], retinaDepth: RetinaDepth = .full) {
    self.minZoom = minZoom
    self.maxZoom = maxZoom
    self.tileSizes = tileSizes
    self.retinaDepth = retinaDepth
  }
}

/// Turns sources, placements and zooms into levels, regions and tile ranges.
public enum PyramidPlanner {
  public static let maxSupportedZoom = 30
  static let alignment = 512
  /// The @3x tile size: the 256 px grid at three times the density.
  public static let tripleTileSize = 768

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
  ) throws -> ClosedRange<Int> {
    let maxZ = request.maxZoom ?? placement.nativeZoom(width: source.width, height: source.height)
    let minZ: Int
    if let m = request.minZoom {
      minZ = m
    } else if placement.method == "raster" {
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
    return minZ...maxZ
  }

  /// Plans one floor.
  public static func plan(
    floor: Int, source: SourceDescription, placement: Placement, request: PlanRequest
  ) throws -> FloorPlan {
    let zooms = try zoomRange(request: request, source: source, placement: placement)
    let footprint = placement.footprint(width: source.width, height: source.height).clampedToWorld
    guard !footprint.isEmpty else {
      throw TilecutError.invalidInput(path: source.path, reason: "the placement puts the image outside the Web-Mercator world")
    }
    // Density of a cut: a T px tile at zoom z has the pixels of 256 px tiles at z + log2(T/256).
    var cutsByDensity: [Int: [LevelCut]] = [:]
    var tripleCuts: [LevelCut] = []
    let native = placement.nativeZoom(width: source.width, height: source.height)
    var substitutes: [LevelSubstitute] = []
    for size in request.tileSizes.sorted() {
      if size == tripleTileSize {
        tripleCuts = zooms.compactMap { zoom in
          WebMercator.tileRange(covering: footprint, zoom: zoom, tileSize: size).map { LevelCut(tileSize: size, range: $0) }
        }
        continue
      }
      // the builder makes 256 px levels, their retina doubling and the @3x chain: a
      // 1024 px tile (two zooms of upsampling at the deepest zoom) it does not
      guard size == WebMercator.baseTileSize || size == 2 * WebMercator.baseTileSize else {
        throw TilecutError.invalidOption(option: "--tile-size", reason: "\(size) is not a tile size tilecut makes (256, 512 or 768)")
      }
      let shift = (size / WebMercator.baseTileSize).trailingZeroBitCount
      for zoom in zooms {
        guard let range = WebMercator.tileRange(covering: footprint, zoom: zoom, tileSize: size) else { continue }
        // --retina-depth native: a 512 px tile finer than a raster source is left to the 256 px one
        if shift > 0, request.retinaDepth == .native, !source.isVector, zoom + shift > native,
          request.tileSizes.contains(WebMercator.baseTileSize)
        {
          substitutes.append(LevelSubstitute(tileSize: size, zoom: zoom, servedBy: WebMercator.baseTileSize))
          continue
        }
        cutsByDensity[zoom + shift, default: []].append(LevelCut(tileSize: size, range: range))
      }
    }
    var levels: [DensityLevel] = []
    if let maxDensity = cutsByDensity.keys.max(), let minDensity = cutsByDensity.keys.min() {
      let base = source.isVector ? maxDensity : min(native, maxDensity)
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
        source: index == 0 ? .direct : .reduced,
        upsampled: WebMercator.worldPixels(zoom: cut.zoom, tileSize: tripleTileSize) > nativePixels && !source.isVector,
        cuts: [cut])
      levels.append(level)
    }
    return FloorPlan(
      floor: floor, source: source, placement: placement, footprint: footprint, levels: levels, substitutes: substitutes)
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
