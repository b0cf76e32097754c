import Foundation

/// Where each pixel of a level strip samples the source, for mappings that are not
/// affine: the exact inverse on a coarse mesh, bilinear inside each cell, and any
/// cell whose interpolation misses the exact position by more than `tolerance`
/// source pixels split in four (GDAL's approximate transformer, in two dimensions).
public struct MeshInverse: Sendable {
  public let mapping: any SourceMapping
  public let region: PixelRect
  public let worldPixels: Double
  /// Source pixel (GDAL continuous) → the index the resampler samples.
  public let toIndex: AffineTransform
  /// Edge of the first cells, in level pixels.
  public let cellSize: Int
  /// Cells this small or smaller are evaluated exactly, pixel by pixel.
  public let exactSize: Int
  /// The largest interpolation error allowed, in source pixels.
  public let tolerance: Double

  public init(
    mapping: any SourceMapping, region: PixelRect, worldPixels: Double, toIndex: AffineTransform = .identity,
    cellSize: Int = 64, exactSize: Int = 4, tolerance: Double = 0.125
  ) {
    self.mapping = mapping
    self.region = region
    self.worldPixels = worldPixels
    self.toIndex = toIndex
    self.cellSize = max(cellSize, 2)
    self.exactSize = max(exactSize, 1)
    self.tolerance = tolerance
  }

  /// The mesh a level of a projected source is resampled through, for the planner
  /// (its bands) and the renderer alike: the source rendered at `scale` (documents)
  /// and box-shrunk by `shrink` first, so a source pixel's centre lands at index
  /// `x · scale / shrink − 0.5`.
  public static func level(mapping: any SourceMapping, region: PixelRect, worldPixels: Double, scale: Double, shrink: Double) -> MeshInverse {
    let k = scale / shrink
    return MeshInverse(
      mapping: mapping, region: region, worldPixels: worldPixels, toIndex: AffineTransform(a: k, b: 0, c: -0.5, d: 0, e: k, f: -0.5))
  }

  /// The exact source index of level pixel centres (x, y), relative to the region.
  public func exact(_ points: [(Int, Int)]) -> [PixelPoint] {
    let world = points.map { p in
      WorldPoint(u: (Double(region.x + p.0) + 0.5) / worldPixels, v: (Double(region.y + p.1) + 0.5) / worldPixels)
    }
    return mapping.pixels(of: world).map { p in
      guard p.isDefined else { return .undefined }
      let q = toIndex.apply(p.x, p.y)
      return PixelPoint(x: q.x, y: q.y)
    }
  }

  private func grid(_ lo: Int, _ hi: Int) -> [Int] {
    var out = Array(stride(from: lo, to: hi, by: cellSize))
    out.append(hi)
    return out
  }

  /// The range of source rows (index units) that rows [top, top + count) sample,
  /// from the coarse mesh alone; nil when none maps.
  public func sourceRowSpan(top: Int, count: Int) -> ClosedRange<Double>? {
    let xs = grid(0, region.width)
    let ys = grid(top, top + count)
    var nodes: [(Int, Int)] = []
    for y in ys { for x in xs { nodes.append((x, y)) } }
    let ys2 = exact(nodes).filter(\.isDefined).map(\.y)
    guard let lo = ys2.min(), let hi = ys2.max() else { return nil }
    return lo...hi
  }

  /// The mesh of rows [top, top + count).
  public func strip(top: Int, count: Int) -> StripMesh {
    let xs = grid(0, region.width)
    let ys = grid(top, top + count)
    var nodes: [(Int, Int)] = []
    for y in ys { for x in xs { nodes.append((x, y)) } }
    let values = exact(nodes)
    var pending: [PendingCell] = []
    for j in 0..<(ys.count - 1) {
      for i in 0..<(xs.count - 1) {
        let n = xs.count
        pending.append(
          PendingCell(
            x0: xs[i], y0: ys[j], x1: xs[i + 1], y1: ys[j + 1],
            c: [values[j * n + i], values[j * n + i + 1], values[(j + 1) * n + i], values[(j + 1) * n + i + 1]]))
      }
    }
    var mesh = StripMesh(top: top, count: count, width: region.width)
    while !pending.isEmpty {
      // cells small enough are done exactly, pixel by pixel
      var exactCells: [PendingCell] = []
      var tested: [PendingCell] = []
      for cell in pending {
        if cell.x1 - cell.x0 <= exactSize && cell.y1 - cell.y0 <= exactSize {
          exactCells.append(cell)
        } else {
          tested.append(cell)
        }
      }
      if !exactCells.isEmpty {
        var points: [(Int, Int)] = []
        for cell in exactCells {
          for y in cell.y0..<cell.y1 { for x in cell.x0..<cell.x1 { points.append((x, y)) } }
        }
        let exactValues = exact(points)
        var offset = 0
        for cell in exactCells {
          let n = (cell.y1 - cell.y0) * (cell.x1 - cell.x0)
          mesh.add(cell, exact: Array(exactValues[offset..<(offset + n)]))
          offset += n
        }
      }
      // the centre and the four edge midpoints of each other cell, exactly
      var probes: [(Int, Int)] = []
      for cell in tested {
        let (mx, my) = ((cell.x0 + cell.x1) / 2, (cell.y0 + cell.y1) / 2)
        probes += [(mx, my), (mx, cell.y0), (mx, cell.y1), (cell.x0, my), (cell.x1, my)]
      }
      let probed = exact(probes)
      var next: [PendingCell] = []
      for (k, cell) in tested.enumerated() {
        let p = Array(probed[(5 * k)..<(5 * k + 5)])
        let (mx, my) = ((cell.x0 + cell.x1) / 2, (cell.y0 + cell.y1) / 2)
        let all = cell.c + p
        if all.allSatisfy({ !$0.isDefined }) {
          mesh.addEmpty(cell)
          continue
        }
        var fits = all.allSatisfy(\.isDefined)
        if fits {
          let at = [(mx, my), (mx, cell.y0), (mx, cell.y1), (cell.x0, my), (cell.x1, my)]
          for (q, e) in zip(at, p) {
            let i = cell.interpolate(x: q.0, y: q.1)
            if hypot(i.x - e.x, i.y - e.y) > tolerance {
              fits = false
              break
            }
          }
        }
        if fits {
          mesh.add(cell)
          continue
        }
        // split at the centre; the 3 × 3 points are all known
        let (c, centre, top, bottom, left, right) = (cell.c, p[0], p[1], p[2], p[3], p[4])
        let xsSplit = mx > cell.x0 && mx < cell.x1
        let ysSplit = my > cell.y0 && my < cell.y1
        if xsSplit && ysSplit {
          next.append(PendingCell(x0: cell.x0, y0: cell.y0, x1: mx, y1: my, c: [c[0], top, left, centre]))
          next.append(PendingCell(x0: mx, y0: cell.y0, x1: cell.x1, y1: my, c: [top, c[1], centre, right]))
          next.append(PendingCell(x0: cell.x0, y0: my, x1: mx, y1: cell.y1, c: [left, centre, c[2], bottom]))
          next.append(PendingCell(x0: mx, y0: my, x1: cell.x1, y1: cell.y1, c: [centre, right, bottom, c[3]]))
        } else if xsSplit {
          next.append(PendingCell(x0: cell.x0, y0: cell.y0, x1: mx, y1: cell.y1, c: [c[0], top, c[2], bottom]))
          next.append(PendingCell(x0: mx, y0: cell.y0, x1: cell.x1, y1: cell.y1, c: [top, c[1], bottom, c[3]]))
        } else if ysSplit {
          next.append(PendingCell(x0: cell.x0, y0: cell.y0, x1: cell.x1, y1: my, c: [c[0], c[1], left, right]))
          next.append(PendingCell(x0: cell.x0, y0: my, x1: cell.x1, y1: cell.y1, c: [left, right, c[2], c[3]]))
        } else {
          mesh.add(cell)
        }
      }
      pending = next
    }
    mesh.finish()
    return mesh
  }
}

/// A mesh cell waiting to be tested: level pixels [x0, x1) × [y0, y1) (relative to
/// the region) and the exact source index at its corners (x0,y0), (x1,y0), (x0,y1), (x1,y1).
struct PendingCell {
  var x0, y0, x1, y1: Int
  var c: [PixelPoint]

  func interpolate(x: Int, y: Int) -> PixelPoint {
    let fx = Double(x - x0) / Double(x1 - x0)
    let fy = Double(y - y0) / Double(y1 - y0)
    let top = (c[0].x + (c[1].x - c[0].x) * fx, c[0].y + (c[1].y - c[0].y) * fx)
    let bottom = (c[2].x + (c[3].x - c[2].x) * fx, c[2].y + (c[3].y - c[2].y) * fx)
    return PixelPoint(x: top.0 + (bottom.0 - top.0) * fy, y: top.1 + (bottom.1 - top.1) * fy)
  }
}

/// The leaf cells of one strip's mesh, ready to give every pixel's source index.
public struct StripMesh: Sendable {
  /// One leaf: interpolated from its corners, exact per pixel, or nowhere in the source.
  struct Leaf: Sendable {
    var x0, y0, x1, y1: Int
    var corners: [Double]  // x, y of (x0,y0), (x1,y0), (x0,y1), (x1,y1)
    var exact: [Double]?  // x, y per pixel, row by row
    var empty: Bool
  }

  public let top: Int
  public let count: Int
  public let width: Int
  private var leaves: [Leaf] = []
  /// Leaves by the row they start in is not enough (cells differ in height), so by
  /// band of rows: leaf indices whose rows intersect each 16-row band.
  private var byBand: [[Int]] = []
  /// Number of leaves interpolated, evaluated exactly and empty (for tests and tuning).
  public private(set) var interpolatedCells = 0
  public private(set) var exactCells = 0

  init(top: Int, count: Int, width: Int) {
    self.top = top
    self.count = count
    self.width = width
  }

  mutating func add(_ cell: PendingCell) {
    var corners: [Double] = []
    for p in cell.c { corners += [p.x, p.y] }
    leaves.append(Leaf(x0: cell.x0, y0: cell.y0, x1: cell.x1, y1: cell.y1, corners: corners, exact: nil, empty: false))
    interpolatedCells += 1
  }

  mutating func add(_ cell: PendingCell, exact: [PixelPoint]) {
    var values: [Double] = []
    values.reserveCapacity(exact.count * 2)
    for p in exact { values += [p.x, p.y] }
    leaves.append(Leaf(x0: cell.x0, y0: cell.y0, x1: cell.x1, y1: cell.y1, corners: [], exact: values, empty: false))
    exactCells += 1
  }

  mutating func addEmpty(_ cell: PendingCell) {
    leaves.append(Leaf(x0: cell.x0, y0: cell.y0, x1: cell.x1, y1: cell.y1, corners: [], exact: nil, empty: true))
  }

  mutating func finish() {
    let bands = (count + 15) / 16
    byBand = Array(repeating: [], count: bands)
    for (i, leaf) in leaves.enumerated() {
      let first = max(leaf.y0 - top, 0) / 16
      let last = min(max(leaf.y1 - top - 1, 0) / 16, bands - 1)
      if first <= last { for b in first...last { byBand[b].append(i) } }
    }
  }

  /// Level row `row` (relative to the region) as runs along which the source index
  /// is linear: `body(x0, n, sx, sy, dsx, dsy)` for pixels x0 ..< x0 + n, pixel
  /// x0 + k at (sx + k·dsx, sy + k·dsy); NaN where the run maps nowhere. The runs
  /// cover the row once, left to right within each cell.
  public func segments(row: Int, _ body: (Int, Int, Double, Double, Double, Double) -> Void) {
    let band = (row - top) / 16
    guard band >= 0, band < byBand.count else {
      body(0, width, .nan, .nan, 0, 0)
      return
    }
    for i in byBand[band] {
      let leaf = leaves[i]
      guard row >= leaf.y0, row < leaf.y1 else { continue }
      let n = leaf.x1 - leaf.x0
      if leaf.empty {
        body(leaf.x0, n, .nan, .nan, 0, 0)
      } else if let exact = leaf.exact {
        let start = 2 * (row - leaf.y0) * n
        for k in 0..<n { body(leaf.x0 + k, 1, exact[start + 2 * k], exact[start + 2 * k + 1], 0, 0) }
      } else {
        let c = leaf.corners
        let fy = Double(row - leaf.y0) / Double(leaf.y1 - leaf.y0)
        let lx = c[0] + (c[4] - c[0]) * fy
        let ly = c[1] + (c[5] - c[1]) * fy
        let rx = c[2] + (c[6] - c[2]) * fy
        let ry = c[3] + (c[7] - c[3]) * fy
        body(leaf.x0, n, lx, ly, (rx - lx) / Double(n), (ry - ly) / Double(n))
      }
    }
  }
}
