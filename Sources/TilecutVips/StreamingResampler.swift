import CTilecutResample
import CVips
import CVipsShim
import Dispatch
import TilecutCore

/// Resamples a level from a source that is read once, top to bottom.
///
/// Each strip of the level needs a band of source rows (a slanted one when the
/// placement is rotated). Rows are fetched in order from a sequential libvips
/// pipeline into a ring that holds the widest band any read needs (a strip's, or
/// a chunk of its rows' when it is read in chunks), and each strip is interpolated
/// on all cores (bilinear, premultiplied, libvips' affine conventions: see
/// `tc_resample_rows`). Memory is the ring, so it grows with the
/// source's width and the placement's rotation, never with the source's area.
///
/// When that band is far taller than a strip (a wide source turned far from
/// north-up: at 35° an 8192² source's band is 6000 rows, 190 MB), the rows are held
/// deflated instead (`tc_packed_rows`: tiles of 16 rows × 256 px), and each strip is
/// resampled in blocks of `packedBlock` columns, each inflating only the tiles under
/// it: the same bytes, in memory that follows what the drawing compresses to.
public final class StreamingResampleSource: LevelPixelSource {
  private let image: VipsImageHandle
  private let region: UnsafeMutablePointer<VipsRegion>
  private let name: String
  private let width: Int
  private let sx0: [Double]
  private let sy0: [Double]
  private let dsx: Double
  private let dsy: Double
  private let rx: Double
  private let ry: Double
  /// The kernel (`--resampling`) and how many radii from a sample it reads.
  private let filter: ResampleFilter
  /// Source rows the ring holds now, and the ring.
  private var capacity: Int
  private var ring: UnsafeMutablePointer<UInt8>
  private let rowBytes: Int
  private let jobs: Int
  /// For a projected mapping: per-pixel source positions from a mesh, instead of sx0…dsy.
  private let mesh: MeshInverse?
  /// For a projected mapping: the source rows each strip (by its top) needs.
  private let meshBands: [Int: Range<Int>]
  /// Source rows fetched so far: [max(loadedEnd - capacity, loadedFrom), loadedEnd)
  /// are in the ring.
  private var loadedEnd = 0
  /// The first row of the run of rows read last: the rows between `loadedEnd` and a
  /// band that starts below it are not read (see `skips`).
  private var loadedFrom = 0
  /// Whether rows no band needs are left unread: when no tap wants every row, and the
  /// bands only move down the source as the strips do (an affine level each of whose
  /// rows starts no lower in the source than the next). An incremental rebuild reads
  /// only the strips its dirty tiles need; the source's reader then starts near the
  /// first row they read (a PNG's at the mark above it), not at the top.
  private lazy var skips: Bool = tap == nil && mesh == nil && zip(sy0, sy0.dropFirst()).allSatisfy { $0 <= $1 }
  /// Whether the ring starts empty and grows to the tallest band read so far, up to the
  /// plan's rows: when the bands only move down the source (an affine level each of
  /// whose rows starts no lower in the source than the next; the plain ring), a band
  /// never needs a row above its own first, so the rows the reads hold at once are the
  /// tallest band's. The plan's ring holds the band of a whole strip; a strip wider
  /// than the read-ahead budget is read in chunks of rows (`StripReader`), whose bands
  /// are a fraction of that (on the bench's 16384² plan, 63 MB of source rows planned,
  /// 15 MB read at once), and every slot of a ring is written, so the rest was memory
  /// touched for nothing.
  private let grows: Bool
  /// Handed every row fetched (the source's decoded pixels' digests, `PixelBlockHasher`).
  private let tap: PixelBlockHasher?
  /// The deflated rows, when the band is held so (then `ring` stages `capacity` rows
  /// on their way in), and one inflating scratch per job.
  private let packed: OpaquePointer?
  private let scratches: [OpaquePointer]
  /// With `packed`: the planned ring's rows, and the furthest row a band has reached:
  /// as in the ring, a later band needs no row above `bandsEnd - plannedRows`.
  private let plannedRows: Int
  private var bandsEnd = 0
  /// Output columns resampled at once from the deflated rows.
  static let packedBlock = 256
  /// The source columns the reads can reach, when the level's strips read only some of
  /// its columns (an incremental rebuild's, around a small edit) and nothing else wants
  /// whole rows: only those are fetched into the ring (a PNG's; other images' rows come
  /// whole). Nil: whole rows.
  private let sourceColumns: Range<Int>?

  /// A source for a level of `width` × `sx0.count` pixels whose row r, column X
  /// samples the source at index (sx0[r] + dsx·X, sy0[r] + dsy·X), through a ring of
  /// `ringRows` source rows (the plan's). `rx`, `ry`: the filter radii in source
  /// pixels (1 = bilinear; more when an output pixel spans more than one source
  /// pixel, see `tc_resample_rows`).
  convenience init(
    image: VipsImageHandle, name: String, width: Int, sx0: [Double], sy0: [Double], dsx: Double, dsy: Double,
    rx: Double = 1, ry: Double = 1, filter: ResampleFilter = .bilinear, ringRows: Int, jobs: Int, tap: PixelBlockHasher? = nil,
    packed: Bool = false, columns: Range<Int>? = nil
  ) throws {
    try self.init(
      image: image, name: name, width: width, sx0: sx0, sy0: sy0, dsx: dsx, dsy: dsy, rx: LevelGeometry.radius(rx),
      ry: LevelGeometry.radius(ry), filter: filter, capacity: ringRows, jobs: jobs, mesh: nil, meshBands: [:], tap: tap,
      packed: packed, columns: columns)
  }

  /// Whether a ring of `ringRows` rows of `rowBytes` for strips of at most
  /// `stripRows` rows is better held deflated: over 16 MB and more than twice a strip
  /// (and its reach) tall, as only a turned placement makes it.
  public static func packs(ringRows: Int, rowBytes: Int, stripRows: Int) -> Bool {
    ringRows * rowBytes > 16 << 20 && ringRows > 2 * stripRows + 64
  }

  /// A source for a level whose pixels sample the source where `mesh` says (a
  /// projected mapping), through a ring of `ringRows` source rows (the plan's).
  convenience init(
    image: VipsImageHandle, name: String, mesh: MeshInverse, rx: Double = 1, ry: Double = 1, filter: ResampleFilter = .bilinear,
    strips: [LevelStrip], ringRows: Int, jobs: Int, tap: PixelBlockHasher? = nil
  ) throws {
    let ry = LevelGeometry.radius(ry)
    let bands = LevelGeometry.meshBands(mesh: mesh, radius: ry * filter.support, sourceHeight: image.height, strips: strips)
    try self.init(
      image: image, name: name, width: mesh.region.width, sx0: [], sy0: [], dsx: 0, dsy: 0, rx: LevelGeometry.radius(rx), ry: ry,
      filter: filter, capacity: ringRows, jobs: jobs, mesh: mesh, meshBands: Dictionary(bands, uniquingKeysWith: { a, _ in a }), tap: tap)
  }

  private init(
    image: VipsImageHandle, name: String, width: Int, sx0: [Double], sy0: [Double], dsx: Double, dsy: Double,
    rx: Double, ry: Double, filter: ResampleFilter, capacity: Int, jobs: Int, mesh: MeshInverse?, meshBands: [Int: Range<Int>],
    tap: PixelBlockHasher?, packed: Bool = false, columns: Range<Int>? = nil
  ) throws {
    guard image.bands == 4 else {
      throw TilecutError.invalidInput(path: name, reason: "internal error: the resampler needs RGBA, not \(image.bands) bands")
    }
    guard let region = vips_region_new(image.pointer) else { throw VipsError.current("region \(name)") }
    self.image = image
    self.region = region
    self.name = name
    self.width = width
    self.sx0 = sx0
    self.sy0 = sy0
    self.dsx = dsx
    self.dsy = dsy
    self.rx = rx
    self.filter = filter
    self.ry = ry
    self.rowBytes = image.width * 4
    self.jobs = max(jobs, 1)
    self.mesh = mesh
    self.meshBands = meshBands
    self.tap = tap
    self.plannedRows = max(capacity, 1)
    if packed && mesh == nil {
      guard let store = tc_packed_new(Int32(image.width), Int32(image.height)) else {
        g_object_unref(region)
        throw TilecutError.invalidInput(path: name, reason: "out of memory for the resampling rows")
      }
      var scratches: [OpaquePointer] = []
      for _ in 0..<max(jobs, 1) {
        guard let s = tc_packed_scratch_new() else { break }
        scratches.append(s)
      }
      guard !scratches.isEmpty else {
        tc_packed_free(store)
        g_object_unref(region)
        throw TilecutError.invalidInput(path: name, reason: "out of memory for the resampling rows")
      }
      self.packed = store
      self.scratches = scratches
      // staged on the way in: whole groups, about 4 MB of rows (fetchBudget), at least one group
      let group = Int(TC_PACKED_GROUP_ROWS)
      self.capacity = max(group, min(64, fetchBudget / max(1, image.width * 4)) / group * group)
    } else {
      self.packed = nil
      self.scratches = []
      self.capacity = max(capacity, 1)
    }
    grows = self.packed == nil && mesh == nil && zip(sy0, sy0.dropFirst()).allSatisfy { $0 <= $1 }
    if grows { self.capacity = 1 }
    sourceColumns =
      self.packed == nil && mesh == nil && tap == nil
      ? columns.flatMap {
        Self.reach(of: $0, sx0: sx0, dsx: dsx, radius: max(rx, 1), sourceWidth: image.width)
      } : nil
    ring = .allocate(capacity: self.capacity * image.width * 4)
  }

  deinit {
    g_object_unref(region)
    ring.deallocate()
    if let packed { tc_packed_free(packed) }
    for s in scratches { tc_packed_scratch_free(s) }
  }

  public func read(top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
    try read(top: top, count: count, columns: 0..<width, into: buffer)
  }

  /// The rows' `columns` resampled (the same bytes as in whole rows: a column samples
  /// where it would in them), the others left transparent. The source's rows are
  /// fetched whole, as before; what is saved is the resampling of the columns no one
  /// reads (an incremental rebuild's strip around a small edit).
  public func read(top: Int, count: Int, columns wanted: Range<Int>, into buffer: UnsafeMutablePointer<UInt8>) throws {
    if let mesh { return try readMesh(mesh, top: top, count: count, into: buffer) }
    let columns = wanted.clamped(to: 0..<width)
    if columns.count < width {
      let stride = width * 4
      for r in 0..<count {
        let row = buffer + r * stride
        row.update(repeating: 0, count: columns.lowerBound * 4)
        (row + columns.upperBound * 4).update(repeating: 0, count: stride - columns.upperBound * 4)
      }
      if columns.isEmpty { return }
    }
    guard
      let band = LevelGeometry.band(
        sy0: sy0, dsy: dsy, radius: ry * filter.support, width: width, sourceHeight: image.height, top: top, count: count)
    else {
      buffer.update(repeating: 0, count: count * width * 4)
      return
    }
    if let packed { return try readPacked(packed, band: band, top: top, count: count, columns: columns, into: buffer) }
    try fetch(band)
    guard band.lowerBound >= max(loadedEnd - capacity, loadedFrom) else {
      throw TilecutError.invalidInput(path: name, reason: "internal error: source rows \(band) left the read-ahead ring")
    }
    let rows = band.map { UnsafePointer(ring + ($0 % capacity) * rowBytes) as UnsafePointer<UInt8>? }
    let parts = min(jobs, max(1, count / 16))
    let per = (count + parts - 1) / parts
    let out = UInt(bitPattern: buffer + columns.lowerBound * 4)
    let stride = width * 4
    let (x0, w, srcW, srcH, dx, dy, rx, ry, kernel) = (
      columns.lowerBound, columns.count, image.width, image.height, dsx, dsy, rx, ry, filter.kernel
    )
    rows.withUnsafeBufferPointer { rowPointers in
      sx0.withUnsafeBufferPointer { xs in
        sy0.withUnsafeBufferPointer { ys in
          guard let rp = rowPointers.baseAddress, let xb = xs.baseAddress, let yb = ys.baseAddress else { return }
          let (rpa, xa, ya) = (UInt(bitPattern: rp), UInt(bitPattern: xb), UInt(bitPattern: yb))
          DispatchQueue.concurrentPerform(iterations: parts) { part in
            let first = part * per
            let n = min(count, first + per) - first
            guard n > 0, let rp = UnsafePointer<UnsafePointer<UInt8>?>(bitPattern: rpa),
              let xb = UnsafePointer<Double>(bitPattern: xa), let yb = UnsafePointer<Double>(bitPattern: ya),
              let o = UnsafeMutablePointer<UInt8>(bitPattern: out)
            else { return }
            tc_resample_window(
              rp, Int32(band.lowerBound), Int32(band.count), 0, Int32(srcW), Int32(srcH),
              xb + top + first, yb + top + first, Int32(x0), dx, dy, rx, ry, kernel, Int32(w), Int32(n), o + first * stride, stride)
          }
        }
      }
    }
  }

  /// Rows [top, top + count) of a projected level: the strip's mesh is made here (PROJ
  /// on its nodes), then each part samples its rows run by run, each run a stretch of
  /// a mesh cell along which the source position is linear (the affine case in small).
  private func readMesh(_ mesh: MeshInverse, top: Int, count: Int, into buffer: UnsafeMutablePointer<UInt8>) throws {
    guard let band = meshBands[top] else {
      buffer.update(repeating: 0, count: count * width * 4)
      return
    }
    try fetch(band)
    guard band.lowerBound >= max(loadedEnd - capacity, loadedFrom) else {
      throw TilecutError.invalidInput(path: name, reason: "internal error: source rows \(band) left the read-ahead ring")
    }
    let stripMesh = mesh.strip(top: top, count: count)
    let rows = band.map { UnsafePointer(ring + ($0 % capacity) * rowBytes) as UnsafePointer<UInt8>? }
    let parts = min(jobs, max(1, count / 16))
    let per = (count + parts - 1) / parts
    let out = UInt(bitPattern: buffer)
    let stride = width * 4
    let (srcW, srcH, rx, ry, kernel) = (image.width, image.height, rx, ry, filter.kernel)
    rows.withUnsafeBufferPointer { rowPointers in
      guard let rp = rowPointers.baseAddress else { return }
      let rpa = UInt(bitPattern: rp)
      DispatchQueue.concurrentPerform(iterations: parts) { part in
        let first = part * per
        let end = min(count, first + per)
        guard end > first, let rp = UnsafePointer<UnsafePointer<UInt8>?>(bitPattern: rpa),
          let o = UnsafeMutablePointer<UInt8>(bitPattern: out)
        else { return }
        for row in first..<end {
          let line = o + row * stride
          stripMesh.segments(row: top + row) { x0, n, sx, sy, dx, dy in
            guard sx.isFinite, sy.isFinite else {
              (line + 4 * x0).update(repeating: 0, count: 4 * n)
              return
            }
            var (x, y) = (sx, sy)
            tc_resample_rows(
              rp, Int32(band.lowerBound), Int32(band.count), Int32(srcW), Int32(srcH), &x, &y, dx, dy, rx, ry, kernel, Int32(n), 1,
              line + 4 * x0, stride)
          }
        }
      }
    }
  }

  /// Rows [top, top + count) from the deflated rows: the strip in blocks of
  /// `packedBlock` columns, shared out among the jobs, each block inflating the tiles
  /// under it into its job's scratch (`tc_packed_resample`).
  private func readPacked(
    _ packed: OpaquePointer, band: Range<Int>, top: Int, count: Int, columns: Range<Int>, into buffer: UnsafeMutablePointer<UInt8>
  ) throws {
    // what the planned ring would have let go is never read again (bands may step back
    // up the source, as far as the plan's ring reaches: all of it when turned upside down)
    bandsEnd = max(bandsEnd, band.upperBound)
    tc_packed_drop_before(packed, Int32(max(0, bandsEnd - plannedRows)))
    while loadedEnd < band.upperBound {
      let n = min(capacity, image.height - loadedEnd)
      try fetchRows(region, width: image.width, top: loadedEnd, count: n, into: ring, source: name)
      tap?.add(rows: ring, top: loadedEnd, count: n, rowBytes: rowBytes)
      guard tc_packed_append(packed, ring, Int32(loadedEnd), Int32(n), rowBytes) == 0 else {
        throw TilecutError.invalidInput(path: name, reason: "out of memory for the resampling rows")
      }
      loadedEnd += n
    }
    let block = Self.packedBlock
    // the blocks that meet `columns`, each cut to them
    let firstBlock = columns.lowerBound / block
    let blocks = (columns.upperBound + block - 1) / block - firstBlock
    let parts = min(scratches.count, blocks)
    let out = UInt(bitPattern: buffer)
    let rowStride = width * 4
    let (w, dx, dy, rx, ry, kernel) = (width, dsx, dsy, rx, ry, filter.kernel)
    let packedAddress = UInt(bitPattern: packed)
    let scratchAddresses = scratches.map { UInt(bitPattern: $0) }
    var failed = [Bool](repeating: false, count: parts)
    failed.withUnsafeMutableBufferPointer { failures in
      sx0.withUnsafeBufferPointer { xs in
        sy0.withUnsafeBufferPointer { ys in
          guard let xb = xs.baseAddress, let yb = ys.baseAddress, let fb = failures.baseAddress else { return }
          let (xa, ya, fa) = (UInt(bitPattern: xb), UInt(bitPattern: yb), UInt(bitPattern: fb))
          DispatchQueue.concurrentPerform(iterations: parts) { part in
            guard let store = OpaquePointer(bitPattern: packedAddress), let scratch = OpaquePointer(bitPattern: scratchAddresses[part]),
              let xb = UnsafePointer<Double>(bitPattern: xa), let yb = UnsafePointer<Double>(bitPattern: ya),
              let o = UnsafeMutablePointer<UInt8>(bitPattern: out), let fb = UnsafeMutablePointer<Bool>(bitPattern: fa)
            else { return }
            for b in stride(from: firstBlock + part, to: firstBlock + blocks, by: parts) {
              let x = max(b * block, columns.lowerBound)
              let n = min((b + 1) * block, columns.upperBound, w) - x
              if tc_packed_resample(
                store, scratch, Int32(band.lowerBound), Int32(band.count), xb + top, yb + top, Int32(x), dx, dy, rx, ry, kernel,
                Int32(n), Int32(count), o + 4 * x, rowStride) != 0
              {
                fb[part] = true
                return
              }
            }
          }
        }
      }
    }
    if failed.contains(true) {
      throw TilecutError.invalidInput(
        path: name, reason: "internal error: source rows \(band) left the deflated rows, or memory ran out inflating them")
    }
  }

  /// Reads source rows, in order, until the band's last has been fetched; from its
  /// first when the rows before it are not wanted (`skips`).
  private func fetch(_ band: Range<Int>) throws {
    let end = band.upperBound
    if band.lowerBound > loadedEnd, skips {
      loadedEnd = band.lowerBound
      loadedFrom = band.lowerBound
    }
    if grows, band.count > capacity { grow(to: min(plannedRows, band.count + Self.growthSlack), keeping: band.lowerBound) }
    while loadedEnd < end {
      // up to the end of the ring, then from its start
      let slot = loadedEnd % capacity
      let n = min(end - loadedEnd, capacity - slot)
      try fetchRows(region, width: image.width, top: loadedEnd, count: n, into: ring + slot * rowBytes, source: name, columns: sourceColumns)
      tap?.add(rows: ring + slot * rowBytes, top: loadedEnd, count: n, rowBytes: rowBytes)
      loadedEnd += n
    }
  }
}

extension StreamingResampleSource {
  /// Rows a growing ring takes beyond the band that made it grow: bands of chunks of
  /// the same height differ by a row or two.
  static let growthSlack = 16

  /// A ring of `rows` rows in place of the current one, holding the rows of the current
  /// one from `first` on (the rows above are not read again: the bands move down).
  private func grow(to rows: Int, keeping first: Int) {
    guard rows > capacity else { return }
    let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: rows * rowBytes)
    let from = max(first, loadedEnd - capacity, loadedFrom)
    // the bytes the rows were fetched in
    let (left, bytes) = sourceColumns.map { ($0.lowerBound * 4, $0.count * 4) } ?? (0, rowBytes)
    if from < loadedEnd {
      for row in from..<loadedEnd {
        (grown + (row % rows) * rowBytes + left).update(from: ring + (row % capacity) * rowBytes + left, count: bytes)
      }
    }
    ring.deallocate()
    ring = grown
    capacity = rows
    loadedFrom = max(loadedFrom, min(from, loadedEnd))
  }

  /// The rows the ring holds now (the plan's when it does not grow), for tests.
  var ringRows: Int { capacity }

  /// The source columns fetched for the ring, for tests (nil: whole rows).
  var fetchedColumns: Range<Int>? { sourceColumns }

  /// The source columns any read of level `columns` can touch, in any row: the samples'
  /// columns (sx0[r] + dsx·X) widened by the widest kernel's reach at `radius` (Lanczos-3,
  /// 3 radii; bilinear and nearest one pixel, the box less) and a pixel more on each
  /// side; nil when that is every column, or the positions are not finite.
  static func reach(of columns: Range<Int>, sx0: [Double], dsx: Double, radius: Double, sourceWidth: Int) -> Range<Int>? {
    guard !columns.isEmpty, let low = sx0.min(), let high = sx0.max() else { return nil }
    let ends = [dsx * Double(columns.lowerBound), dsx * Double(columns.upperBound - 1)]
    let margin = (3 * radius).rounded(.up) + 2
    let first = (low + (ends.min() ?? 0) - margin).rounded(.down)
    let last = (high + (ends.max() ?? 0) + margin).rounded(.up)
    guard first.isFinite, last.isFinite else { return nil }
    let left = Int(max(0, min(first, Double(sourceWidth))))
    let right = Int(max(0, min(last + 1, Double(sourceWidth))))
    guard left < right, right - left < sourceWidth else { return nil }
    return left..<right
  }
}

extension ResampleFilter {
  /// The kernel's number in `tc_resample_rows` (the tent is bilinear's reduction).
  var kernel: Int32 {
    switch self {
    case .bilinear, .tent: return Int32(TC_FILTER_BILINEAR)
    case .nearest: return Int32(TC_FILTER_NEAREST)
    case .average: return Int32(TC_FILTER_AVERAGE)
    case .lanczos3: return Int32(TC_FILTER_LANCZOS3)
    }
  }
}
