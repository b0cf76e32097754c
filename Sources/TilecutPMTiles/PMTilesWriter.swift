import Foundation
import Synchronization

/// A SHA-256 held as four words: the key of the writer's map from content to its
/// stored copy, 32 bytes instead of 64 characters of text.
struct PMTilesDigest: Hashable, Sendable {
  var a: UInt64
  var b: UInt64
  var c: UInt64
  var d: UInt64

  init(a: UInt64, b: UInt64, c: UInt64, d: UInt64) {
    (self.a, self.b, self.c, self.d) = (a, b, c, d)
  }

  /// From 64 hex digits; nil for anything else.
  init?(hex: String) {
    var words: [UInt64] = [0, 0, 0, 0]
    var n = 0
    for ch in hex.utf8 {
      let v: UInt8
      switch ch {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): v = ch - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): v = ch - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): v = ch - UInt8(ascii: "A") + 10
      default: return nil
      }
      guard n < 64 else { return nil }
      words[n / 16] = words[n / 16] << 4 | UInt64(v)
      n += 1
    }
    guard n == 64 else { return nil }
    (a, b, c, d) = (words[0], words[1], words[2], words[3])
  }

  func hash(into h: inout Hasher) { h.combine(a) }

  /// The 64 lower-case hex digits.
  var hex: String {
    [a, b, c, d].map { v in
      let s = String(v, radix: 16)
      return String(repeating: "0", count: 16 - s.count) + s
    }.joined()
  }
}

/// Writes one PMTiles v3 archive from tiles that arrive from any thread in any order.
///
/// Tile bytes go to a temporary data file beside the archive as they come (a small
/// batch is buffered), each distinct content once, and each distinct content's
/// SHA-256 to a second temporary file. While it writes, the writer's index keeps 12
/// bytes per addressed tile (its tile ID and content number) and about 21 per
/// distinct content (a 64-bit fingerprint of its digest, its length and 2 to 3 hash
/// slots): at most 40 bytes a tile counting the arrays' spare capacity
/// (`indexBytes`). A fingerprint that matches sends the writer to the digest file to
/// compare the whole digest. `finish` sorts the tiles by tile ID, lays the contents
/// out in that order (clustered), run-length-encodes runs of equal tiles, builds the
/// root directory (with leaf directories when it would pass 16 KiB) and renames the
/// archive into place: the same tiles make the same bytes whatever the arrival order.
public final class PMTilesWriter: Sendable {
  /// The archive's final path.
  public let path: String
  /// The archive being assembled, renamed to `path` by `finish`.
  let partialPath: String
  /// Tile bytes in arrival order, deleted by `finish` and `abort`.
  let dataPath: String
  /// Each distinct content's SHA-256 (32 bytes) in content-number order, deleted by
  /// `finish` and `abort`.
  let digestPath: String
  private let state: Mutex<State>

  /// Bytes gathered before they are appended to the data file.
  static let batchBytes = 1 << 20
  /// Digests gathered before they are appended to the digest file.
  static let digestBatchCount = 2048
  /// Header plus root directory: what a reader fetches first.
  public static let rootLimit = 16_384

  /// Grows an array by an eighth when it is full, not by the doubling `append` does,
  /// so its spare capacity stays within an eighth of its count.
  static func reserve<T>(_ array: inout [T]) {
    if array.count == array.capacity { array.reserveCapacity(max(16, array.count + array.count / 8)) }
  }

  /// The addressed tiles as two parallel arrays, 12 bytes a tile.
  struct TileIndex {
    var ids: [UInt64] = []
    var contents: [UInt32] = []

    var count: Int { ids.count }
    var bytes: Int { ids.capacity * 8 + contents.capacity * 4 }

    mutating func append(id: UInt64, content: UInt32) {
      PMTilesWriter.reserve(&ids)
      PMTilesWriter.reserve(&contents)
      ids.append(id)
      contents.append(content)
    }

    /// Sorts by tile ID in place (no buffer beside the arrays).
    mutating func sort() {
      ids.withUnsafeMutableBufferPointer { i in
        contents.withUnsafeMutableBufferPointer { c in
          var sorter = PairSorter(keys: i, values: c)
          sorter.sort()
        }
      }
    }
  }

  /// The distinct contents: a fingerprint of each digest and each length, in content
  /// order (contents are appended to the data file in that order, so where one starts
  /// is the sum of the lengths before it, kept every 64 contents), with an
  /// open-addressing table from fingerprint to content number, 4 bytes a slot, grown
  /// by half when two thirds full.
  struct ContentTable {
    var fingerprints: [UInt64] = []
    var lengths: [UInt32] = []
    /// Where content 64·k starts in the data file.
    var marks: [UInt64] = []
    /// The end of the data so far.
    var end: UInt64 = 0
    var slots = [UInt32](repeating: .max, count: 32)

    var count: Int { lengths.count }
    var bytes: Int { fingerprints.capacity * 8 + lengths.capacity * 4 + marks.capacity * 8 + slots.capacity * 4 }

    func offset(_ c: Int) -> UInt64 {
      var at = marks[c >> 6]
      for k in (c & ~63)..<c { at += UInt64(lengths[k]) }
      return at
    }
    func length(_ c: Int) -> UInt32 { lengths[c] }

    /// 64 bits of a digest, every word mixed in (a stand-in digest in a test may
    /// differ from another in one word only).
    static func fingerprint(_ d: PMTilesDigest) -> UInt64 {
      var h = (d.a &* 0x9E37_79B9_7F4A_7C15) ^ (d.b &* 0xC2B2_AE3D_27D4_EB4F)
      h ^= (d.c &* 0x1656_67B1_9E37_79F9) ^ (d.d &* 0x85EB_CA77_C2B2_AE63)
      return h ^ (h >> 31)
    }

    private func start(_ f: UInt64) -> Int { Int(f.multipliedFullWidth(by: UInt64(slots.count)).high) }

    /// The content with digest `d`: candidates are those with its fingerprint, and
    /// `digest` gives a candidate's whole digest to compare.
    func find(_ d: PMTilesDigest, fingerprint f: UInt64, digest: (Int) throws -> PMTilesDigest) rethrows -> UInt32? {
      var i = start(f)
      while true {
        let n = slots[i]
        if n == .max { return nil }
        if fingerprints[Int(n)] == f, try digest(Int(n)) == d { return n }
        i += 1
        if i == slots.count { i = 0 }
      }
    }

    /// Numbers a new content of `length` bytes.
    mutating func add(fingerprint f: UInt64, length: Int) -> UInt32 {
      let n = UInt32(lengths.count)
      if lengths.count & 63 == 0 {
        PMTilesWriter.reserve(&marks)
        marks.append(end)
      }
      PMTilesWriter.reserve(&fingerprints)
      PMTilesWriter.reserve(&lengths)
      fingerprints.append(f)
      lengths.append(UInt32(length))
      end += UInt64(length)
      if lengths.count * 3 > slots.count * 2 {
        slots = [UInt32](repeating: .max, count: slots.count + slots.count / 2)
        for k in 0..<lengths.count { place(UInt32(k)) }
      } else {
        place(n)
      }
      return n
    }

    private mutating func place(_ n: UInt32) {
      var i = start(fingerprints[Int(n)])
      while slots[i] != .max {
        i += 1
        if i == slots.count { i = 0 }
      }
      slots[i] = n
    }
  }

  struct State: @unchecked Sendable {
    var fd: Int32
    var digestFD: Int32
    var tiles = TileIndex()
    var contents = ContentTable()
    /// Whether `tiles` is in tile-ID order (a lookup sorts it first).
    var sorted = true
    var batch: [UInt8] = []
    var written: UInt64 = 0
    /// Digests of the contents from `digestsWritten` on, not yet in the digest file.
    var digestBatch: [PMTilesDigest] = []
    var digestsWritten = 0
    /// The last digest read back, by content number: runs of one content ask again.
    var lastDigest: (content: Int, digest: PMTilesDigest)?
    var finished = false
  }

  /// Starts an archive at `path`, which must not exist yet; its temporary files go in
  /// the same directory (`path.partial`, `path.data.partial`, `path.digests.partial`).
  public init(path: String) throws {
    self.path = path
    partialPath = path + ".partial"
    dataPath = path + ".data.partial"
    digestPath = path + ".digests.partial"
    for p in [path, partialPath, dataPath, digestPath] where FileManager.default.fileExists(atPath: p) {
      throw PMTilesWriteError(path: p, reason: "already exists; tilecut writes a new PMTiles archive only where none is")
    }
    let fd = open(dataPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw PMTilesWriteError(path: dataPath, reason: "cannot be created (\(String(cString: strerror(errno))))") }
    let digestFD = open(digestPath, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard digestFD >= 0 else {
      let reason = "cannot be created (\(String(cString: strerror(errno))))"
      close(fd)
      unlink(dataPath)
      throw PMTilesWriteError(path: digestPath, reason: reason)
    }
    var s = State(fd: fd, digestFD: digestFD)
    s.batch.reserveCapacity(Self.batchBytes)
    s.digestBatch.reserveCapacity(Self.digestBatchCount)
    state = Mutex(s)
  }

  /// Adds one tile; `sha256` is the hex SHA-256 of `data` (the caller has it already).
  /// Safe from any thread. A tile put twice makes `finish` fail.
  public func put(z: Int, x: Int, y: Int, data: [UInt8], sha256: String) throws {
    guard (0...PMTilesTileID.maxZoom).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else {
      throw PMTilesWriteError(path: path, reason: "tile \(z)/\(x)/\(y) is outside the grid")
    }
    guard let key = PMTilesDigest(hex: sha256) else {
      throw PMTilesWriteError(path: path, reason: "tile \(z)/\(x)/\(y) came with a digest that is not 64 hex digits")
    }
    guard data.count <= Int(UInt32.max) else {
      throw PMTilesWriteError(path: path, reason: "tile \(z)/\(x)/\(y) is larger than 4 GiB")
    }
    let id = PMTilesTileID.id(z: z, x: x, y: y)
    let f = ContentTable.fingerprint(key)
    try state.withLock { s in
      guard !s.finished else { throw PMTilesWriteError(path: path, reason: "is already finished") }
      if let last = s.tiles.ids.last, last >= id { s.sorted = false }
      if let known = try s.contents.find(key, fingerprint: f, digest: { try storedDigest(&s, $0) }) {
        s.tiles.append(id: id, content: known)
        return
      }
      guard s.contents.count < Int(UInt32.max) - 1 else { throw PMTilesWriteError(path: path, reason: "holds too many distinct tiles") }
      let n = s.contents.add(fingerprint: f, length: data.count)
      s.tiles.append(id: id, content: n)
      s.digestBatch.append(key)
      if s.digestBatch.count >= Self.digestBatchCount { try flushDigests(&s) }
      s.batch.append(contentsOf: data)
      if s.batch.count >= Self.batchBytes { try flush(&s) }
    }
  }

  /// Tiles added and distinct contents stored so far.
  public var counts: (tiles: Int, contents: Int) { state.withLock { ($0.tiles.count, $0.contents.count) } }

  /// The bytes the index holds now, from its arrays' capacities: the tiles, the
  /// contents' fingerprints, lengths and offsets, and the hash table. The fixed
  /// buffers (1 MiB of tile bytes, 64 KiB of digests) are not counted.
  public var indexBytes: Int { state.withLock { $0.tiles.bytes + $0.contents.bytes } }

  /// The whole digest of content `c`, from the batch or read back from the digest file.
  private func storedDigest(_ s: inout State, _ c: Int) throws -> PMTilesDigest {
    if let last = s.lastDigest, last.content == c { return last.digest }
    let d: PMTilesDigest
    if c >= s.digestsWritten {
      d = s.digestBatch[c - s.digestsWritten]
    } else {
      let bytes = try readData(s.digestFD, offset: UInt64(c) * 32, count: 32, path: digestPath)
      var w: [UInt64] = [0, 0, 0, 0]
      for k in 0..<32 { w[k / 8] = w[k / 8] << 8 | UInt64(bytes[k]) }
      d = PMTilesDigest(a: w[0], b: w[1], c: w[2], d: w[3])
    }
    s.lastDigest = (c, d)
    return d
  }

  private func flushDigests(_ s: inout State) throws {
    guard !s.digestBatch.isEmpty else { return }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(s.digestBatch.count * 32)
    for d in s.digestBatch {
      for w in [d.a, d.b, d.c, d.d] {
        for k in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: w >> UInt64(k))) }
      }
    }
    try writeAll(s.digestFD, bytes, at: UInt64(s.digestsWritten) * 32, path: digestPath)
    s.digestsWritten += s.digestBatch.count
    s.digestBatch.removeAll(keepingCapacity: true)
  }

  /// The content number of a tile put so far, by binary search over the tiles in
  /// tile-ID order (sorted here when puts came out of order).
  private func content(_ s: inout State, z: Int, x: Int, y: Int) -> Int? {
    guard (0...PMTilesTileID.maxZoom).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
    let id = PMTilesTileID.id(z: z, x: x, y: y)
    if !s.sorted {
      s.tiles.sort()
      s.sorted = true
    }
    var lo = 0
    var hi = s.tiles.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if s.tiles.ids[mid] < id { lo = mid + 1 } else { hi = mid }
    }
    return lo < s.tiles.count && s.tiles.ids[lo] == id ? Int(s.tiles.contents[lo]) : nil
  }

  /// The SHA-256 (hex) a tile was put with, or nil when it was not put (or the digest
  /// file cannot be read back).
  public func digest(z: Int, x: Int, y: Int) -> String? {
    state.withLock { s -> String? in
      guard !s.finished, let c = content(&s, z: z, x: x, y: y) else { return nil }
      return try? storedDigest(&s, c).hex
    }
  }

  /// The bytes stored for a tile so far, or nil when it was not put.
  public func read(z: Int, x: Int, y: Int) throws -> [UInt8]? {
    try state.withLock { s -> [UInt8]? in
      guard !s.finished else { throw PMTilesWriteError(path: path, reason: "is already finished") }
      guard let n = content(&s, z: z, x: x, y: y) else { return nil }
      try flush(&s)
      return try readData(s.fd, offset: s.contents.offset(n), count: Int(s.contents.length(n)), path: dataPath)
    }
  }

  private func flush(_ s: inout State) throws {
    guard !s.batch.isEmpty else { return }
    try writeAll(s.fd, s.batch, at: s.written, path: dataPath)
    s.written += UInt64(s.batch.count)
    s.batch.removeAll(keepingCapacity: true)
  }

  private func release(_ s: inout State) {
    close(s.fd)
    close(s.digestFD)
    unlink(dataPath)
    unlink(digestPath)
    s.tiles = TileIndex()
    s.contents = ContentTable()
    s.batch = []
    s.digestBatch = []
  }

  /// Writes the archive and renames it into place. `header` gives what the caller
  /// knows (tile type, zooms, bounds, centre); the writer fills in the layout and
  /// counts. `metadata` is the JSON metadata, stored gzipped.
  public func finish(header: PMTilesHeader, metadata: [UInt8]) throws {
    try state.withLock { s in
      guard !s.finished else { throw PMTilesWriteError(path: path, reason: "is already finished") }
      try flush(&s)
      s.finished = true
      defer { release(&s) }
      try assemble(&s, header: header, metadata: metadata)
    }
  }

  /// Deletes the temporary files; the destination stays absent.
  public func abort() {
    state.withLock { s in
      if !s.finished { release(&s) }
      s.finished = true
    }
    unlink(dataPath)
    unlink(digestPath)
    unlink(partialPath)
  }

  private func assemble(_ s: inout State, header template: PMTilesHeader, metadata: [UInt8]) throws {
    s.tiles.sort()
    for i in s.tiles.ids.indices.dropFirst() where s.tiles.ids[i] == s.tiles.ids[i - 1] {
      let id = s.tiles.ids[i]
      let t = PMTilesTileID.zxy(id).map { "\($0.z)/\($0.x)/\($0.y)" } ?? "\(id)"
      throw PMTilesWriteError(path: path, reason: "tile \(t) was put twice")
    }
    // contents in the order the sorted tiles first use them: the tile data is then
    // in tile-ID order, a repeated content pointing back at its first copy
    let unplaced = UInt64.max
    var placed = [UInt64](repeating: unplaced, count: s.contents.count)
    var order: [UInt32] = []
    order.reserveCapacity(s.contents.count)
    var dataLength: UInt64 = 0
    var entries: [PMTilesEntry] = []
    for (id, content) in zip(s.tiles.ids, s.tiles.contents) {
      let c = Int(content)
      if placed[c] == unplaced {
        placed[c] = dataLength
        dataLength += UInt64(s.contents.length(c))
        order.append(content)
      }
      if var last = entries.last, last.tileID + UInt64(last.runLength) == id, last.offset == placed[c],
        last.runLength < UInt32.max
      {
        last.runLength += 1
        entries[entries.count - 1] = last
      } else {
        entries.append(PMTilesEntry(tileID: id, offset: placed[c], length: s.contents.length(c), runLength: 1))
      }
    }
    placed = []
    let tileEntries = entries.count
    let addressed = s.tiles.count
    s.tiles = TileIndex()

    let (root, leaves) = Self.directories(entries)
    entries = []
    let meta = PMTilesGzip.compress(metadata)
    var header = template
    header.rootDirectoryOffset = UInt64(PMTilesHeader.size)
    header.rootDirectoryLength = UInt64(root.count)
    header.metadataOffset = header.rootDirectoryOffset + header.rootDirectoryLength
    header.metadataLength = UInt64(meta.count)
    header.leafDirectoriesOffset = header.metadataOffset + header.metadataLength
    header.leafDirectoriesLength = UInt64(leaves.count)
    header.tileDataOffset = header.leafDirectoriesOffset + header.leafDirectoriesLength
    header.tileDataLength = dataLength
    header.addressedTiles = UInt64(addressed)
    header.tileEntries = UInt64(tileEntries)
    header.tileContents = UInt64(order.count)
    header.clustered = true
    header.internalCompression = .gzip
    header.tileCompression = .none

    unlink(partialPath)
    let out = open(partialPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard out >= 0 else { throw PMTilesWriteError(path: partialPath, reason: "cannot be created (\(String(cString: strerror(errno))))") }
    var ok = false
    defer {
      close(out)
      if !ok { unlink(partialPath) }
    }
    var buffer: [UInt8] = []
    buffer.reserveCapacity(4 << 20)
    var at: UInt64 = 0
    func emit(_ bytes: [UInt8]) throws {
      buffer += bytes
      if buffer.count >= 4 << 20 {
        try writeAll(out, buffer, at: at, path: partialPath)
        at += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
      }
    }
    try emit(header.encoded())
    try emit(root)
    try emit(meta)
    try emit(leaves)
    for c in order {
      let n = Int(c)
      try emit(try readData(s.fd, offset: s.contents.offset(n), count: Int(s.contents.length(n)), path: dataPath))
    }
    try writeAll(out, buffer, at: at, path: partialPath)
    guard fsync(out) == 0 else {
      throw PMTilesWriteError(path: partialPath, reason: "cannot be synced to disk (\(String(cString: strerror(errno))))")
    }
    guard rename(partialPath, path) == 0 else {
      throw PMTilesWriteError(path: path, reason: "cannot be moved into place (\(String(cString: strerror(errno))))")
    }
    ok = true
  }

  /// The gzipped root directory and leaf directories for `entries` (sorted by tile
  /// ID): everything in the root when it fits beside the header in 16 KiB, otherwise
  /// leaves of a growing number of entries until the root of leaf pointers fits.
  static func directories(_ entries: [PMTilesEntry]) -> (root: [UInt8], leaves: [UInt8]) {
    let limit = rootLimit - PMTilesHeader.size
    // a directory serialises to at least one byte per column per entry: a root of
    // more entries than the limit times a small factor cannot fit compressed either
    if entries.count <= limit * 4 {
      let root = PMTilesGzip.compress(PMTilesDirectory.serialize(entries))
      if root.count <= limit { return (root, []) }
    }
    var leafSize = max(4096, entries.count / 3000)
    while true {
      var leaves: [UInt8] = []
      var pointers: [PMTilesEntry] = []
      var start = 0
      while start < entries.count {
        let end = min(start + leafSize, entries.count)
        let leaf = PMTilesGzip.compress(PMTilesDirectory.serialize(Array(entries[start..<end])))
        pointers.append(PMTilesEntry(tileID: entries[start].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count), runLength: 0))
        leaves += leaf
        start = end
      }
      let root = PMTilesGzip.compress(PMTilesDirectory.serialize(pointers))
      if root.count <= limit { return (root, leaves) }
      leafSize += leafSize / 2
    }
  }
}

/// A failure to write an archive: the file and what went wrong, one line.
public struct PMTilesWriteError: Error, CustomStringConvertible, Sendable {
  public var path: String
  public var reason: String
  public init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }
  public var description: String { "\(path): \(reason)" }
}

private func writeAll(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64, path: String) throws {
  try bytes.withUnsafeBytes { raw in
    guard let base = raw.baseAddress else { return }
    var done = 0
    while done < raw.count {
      let n = pwrite(fd, base + done, raw.count - done, off_t(offset) + off_t(done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw PMTilesWriteError(path: path, reason: "cannot be written (\(String(cString: strerror(errno))))") }
      done += n
    }
  }
}

private func readData(_ fd: Int32, offset: UInt64, count: Int, path: String) throws -> [UInt8] {
  guard let bytes = preadFully(fd, offset: offset, count: count) else {
    throw PMTilesWriteError(path: path, reason: "cannot be read back (\(String(cString: strerror(errno))))")
  }
  return bytes
}

/// `count` bytes of `fd` from `offset` (pread, again after EINTR), or nil when the
/// file ends first or cannot be read (errno says why).
func preadFully(_ fd: Int32, offset: UInt64, count: Int) -> [UInt8]? {
  var out = [UInt8](repeating: 0, count: count)
  let complete = out.withUnsafeMutableBytes { raw -> Bool in
    guard let base = raw.baseAddress else { return true }
    var done = 0
    while done < count {
      let n = pread(fd, base + done, count - done, off_t(offset) + off_t(done))
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return false }
      done += n
    }
    return true
  }
  return complete ? out : nil
}
