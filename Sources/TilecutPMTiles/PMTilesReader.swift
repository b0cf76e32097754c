import Foundation

/// Where a reader's bytes come from: a byte range of one archive, however it is stored.
public protocol PMTilesByteSource: AnyObject, Sendable {
  /// The archive's size in bytes, when the source knows it.
  var size: UInt64? { get }
  /// The bytes `offset ..< offset + length`; fewer only where the archive ends.
  func read(offset: UInt64, length: Int) throws -> [UInt8]
  /// The archive's first bytes, up to `length`, in one read.
  func prefix(_ length: Int) throws -> [UInt8]
  /// A name for errors: the path or the URL.
  var name: String { get }
}

/// How much a reader accepts from an archive, so a hostile file cannot make it allocate
/// or recurse without end.
public struct PMTilesLimits: Sendable {
  /// A directory's bytes as stored (compressed).
  public var directoryBytes = 16 << 20
  /// A directory's bytes once inflated (4 bytes an entry at least: 4 M entries).
  public var inflatedDirectoryBytes = 16 << 20
  /// The metadata's bytes, stored and inflated.
  public var metadataBytes = 16 << 20
  /// One tile's bytes.
  public var tileBytes = 32 << 20
  /// How deep leaf directories may nest below the root (the spec allows chains).
  public var leafDepth = 4
  /// How many leaf directories the reader keeps decoded, and how many entries in all
  /// (24 bytes each: 1 M entries is 24 MB).
  public var cachedLeaves = 64
  public var cachedEntries = 1 << 20

  public init() {}
}

/// A PMTiles v3 archive opened for reading: the header and root directory are read
/// once (from the first 16,384 bytes, one request over HTTP), leaf directories are
/// kept in a bounded cache, and a tile whose directory is cached costs one read.
public final class PMTilesReader: @unchecked Sendable {
  /// The bytes of the first read: the spec puts the header and the root directory here.
  public static let prefixLength = 16_384

  public let header: PMTilesHeader
  public let source: any PMTilesByteSource
  public let limits: PMTilesLimits
  let root: [PMTilesEntry]
  let first: [UInt8]
  let lock = NSLock()
  var leaves: [UInt64: [PMTilesEntry]] = [:]
  var leafOrder: [UInt64] = []
  var cachedEntries = 0

  /// Opens a local archive, memory-mapped.
  public convenience init(path: String, limits: PMTilesLimits = PMTilesLimits()) throws {
    try self.init(source: PMTilesFileSource(path: path), limits: limits)
  }

  /// Opens an archive over http(s) with Range requests.
  public convenience init(url: URL, limits: PMTilesLimits = PMTilesLimits()) throws {
    if url.isFileURL {
      try self.init(path: url.path, limits: limits)
    } else {
      try self.init(source: PMTilesHTTPSource(url: url), limits: limits)
    }
  }

  /// Opens an archive from any byte source: reads the header and the root directory.
  public init(source: any PMTilesByteSource, limits: PMTilesLimits = PMTilesLimits()) throws {
    self.source = source
    self.limits = limits
    first = try source.prefix(Self.prefixLength)
    let header = try PMTilesHeader(decoding: first)
    self.header = header
    let size = source.size
    func section(_ offset: UInt64, _ length: UInt64, _ what: String) throws {
      let (end, overflow) = offset.addingReportingOverflow(length)
      guard !overflow, size.map({ end <= $0 }) ?? true else {
        throw PMTilesFormatError("the \(what) (\(length) bytes at \(offset)) lies past the end of the archive (\(size ?? 0) bytes)")
      }
    }
    try section(header.rootDirectoryOffset, header.rootDirectoryLength, "root directory")
    try section(header.metadataOffset, header.metadataLength, "metadata")
    try section(header.leafDirectoriesOffset, header.leafDirectoriesLength, "leaf directories")
    try section(header.tileDataOffset, header.tileDataLength, "tile data")
    guard header.maxZoom <= PMTilesTileID.maxZoom, header.minZoom <= header.maxZoom else {
      throw PMTilesFormatError("zooms \(header.minZoom)–\(header.maxZoom) are outside 0–\(PMTilesTileID.maxZoom)")
    }
    root = try Self.directory(
      at: header.rootDirectoryOffset, length: header.rootDirectoryLength, first: first, source: source, header: header, limits: limits)
  }

  /// The metadata's JSON bytes, inflated.
  public func metadata() throws -> Data {
    guard header.metadataLength > 0 else { return Data("{}".utf8) }
    guard header.metadataLength <= UInt64(limits.metadataBytes) else {
      throw PMTilesFormatError("the metadata claims \(header.metadataLength) bytes, more than \(limits.metadataBytes)")
    }
    let stored = try read(offset: header.metadataOffset, length: Int(header.metadataLength), what: "metadata")
    return Data(try PMTilesGzip.decode(stored, header.internalCompression, limit: limits.metadataBytes))
  }

  /// The metadata as a JSON object.
  public func metadataObject() throws -> [String: Any] {
    let data = try metadata()
    guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw PMTilesFormatError("the metadata is not a JSON object")
    }
    return object
  }

  /// The stored bytes of tile z/x/y (as stored: tile compression is not undone), or nil
  /// when the archive has no such tile.
  public func tile(z: Int, x: Int, y: Int) throws -> [UInt8]? {
    guard let entry = try entry(z: z, x: x, y: y) else { return nil }
    return try tileBytes(entry)
  }

  /// `tile(z:x:y:)` off the caller's thread, for async callers (a read may be a request).
  public func loadTile(z: Int, x: Int, y: Int) async throws -> [UInt8]? {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        continuation.resume(with: Result { try self.tile(z: z, x: x, y: y) })
      }
    }
  }

  /// The tile entry (a run) holding z/x/y, or nil when the archive has none.
  public func entry(z: Int, x: Int, y: Int) throws -> PMTilesEntry? {
    guard (0...PMTilesTileID.maxZoom).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
    let id = PMTilesTileID.id(z: z, x: x, y: y)
    var entries = root
    for depth in 0...max(0, limits.leafDepth) {
      guard let e = PMTilesDirectory.find(id, in: entries) else { return nil }
      if !e.isLeaf { return e }
      guard depth < limits.leafDepth else {
        throw PMTilesFormatError("leaf directories nest deeper than \(limits.leafDepth) levels")
      }
      entries = try leaf(e)
    }
    return nil
  }

  /// Calls `body` with every tile entry (runs as stored) in tile-ID order, descending
  /// into each leaf once; a leaf that is reached twice is refused.
  public func forEachEntry(_ body: (PMTilesEntry) throws -> Void) throws {
    var seen = Set<UInt64>()
    func walk(_ entries: [PMTilesEntry], depth: Int) throws {
      for e in entries {
        if !e.isLeaf {
          try body(e)
          continue
        }
        guard depth < limits.leafDepth else { throw PMTilesFormatError("leaf directories nest deeper than \(limits.leafDepth) levels") }
        guard seen.insert(e.offset).inserted else { throw PMTilesFormatError("two directory entries point at the leaf at \(e.offset)") }
        try walk(try leafUncached(e), depth: depth + 1)
      }
    }
    try walk(root, depth: 0)
  }

  /// The stored bytes of one tile entry.
  public func tileBytes(_ entry: PMTilesEntry) throws -> [UInt8] {
    guard Int(entry.length) <= limits.tileBytes else {
      throw PMTilesFormatError("a tile claims \(entry.length) bytes, more than \(limits.tileBytes)")
    }
    try inside(entry, header.tileDataLength, "tile data")
    return try read(offset: header.tileDataOffset + entry.offset, length: Int(entry.length), what: "tile")
  }

  func inside(_ entry: PMTilesEntry, _ sectionLength: UInt64, _ what: String) throws {
    let (end, overflow) = entry.offset.addingReportingOverflow(UInt64(entry.length))
    guard !overflow, end <= sectionLength else {
      throw PMTilesFormatError("an entry points past the \(what) (\(entry.length) bytes at \(entry.offset) of \(sectionLength))")
    }
  }

  func leaf(_ entry: PMTilesEntry) throws -> [PMTilesEntry] {
    if let cached = lock.withLock({ leaves[entry.offset] }) { return cached }
    let entries = try leafUncached(entry)
    lock.withLock {
      guard leaves[entry.offset] == nil, entries.count <= limits.cachedEntries else { return }
      // the oldest leaves go first, until both bounds hold
      while !leafOrder.isEmpty && (leafOrder.count >= max(1, limits.cachedLeaves) || cachedEntries + entries.count > limits.cachedEntries) {
        cachedEntries -= leaves.removeValue(forKey: leafOrder.removeFirst())?.count ?? 0
      }
      leaves[entry.offset] = entries
      leafOrder.append(entry.offset)
      cachedEntries += entries.count
    }
    return entries
  }

  func leafUncached(_ entry: PMTilesEntry) throws -> [PMTilesEntry] {
    try inside(entry, header.leafDirectoriesLength, "leaf directories")
    return try Self.directory(
      at: header.leafDirectoriesOffset + entry.offset, length: UInt64(entry.length), first: first, source: source, header: header,
      limits: limits)
  }

  func read(offset: UInt64, length: Int, what: String) throws -> [UInt8] {
    let bytes = try Self.read(offset: offset, length: length, first: first, source: source)
    guard bytes.count == length else {
      throw PMTilesFormatError("the archive ends inside the \(what) (\(bytes.count) of \(length) bytes at \(offset))")
    }
    return bytes
  }

  static func read(offset: UInt64, length: Int, first: [UInt8], source: any PMTilesByteSource) throws -> [UInt8] {
    // what lies inside the first read costs nothing more
    if offset + UInt64(length) <= UInt64(first.count) { return Array(first[Int(offset)..<Int(offset) + length]) }
    return try source.read(offset: offset, length: length)
  }

  static func directory(
    at offset: UInt64, length: UInt64, first: [UInt8], source: any PMTilesByteSource, header: PMTilesHeader, limits: PMTilesLimits
  ) throws -> [PMTilesEntry] {
    guard length <= UInt64(limits.directoryBytes) else {
      throw PMTilesFormatError("a directory claims \(length) bytes, more than \(limits.directoryBytes)")
    }
    let stored = try read(offset: offset, length: Int(length), first: first, source: source)
    guard stored.count == Int(length) else {
      throw PMTilesFormatError("the archive ends inside a directory (\(stored.count) of \(length) bytes at \(offset))")
    }
    let bytes = try PMTilesGzip.decode(stored, header.internalCompression, limit: limits.inflatedDirectoryBytes)
    let entries = try PMTilesDirectory.deserialize(bytes)
    var last: UInt64? = nil
    for e in entries {
      if let last, e.tileID <= last { throw PMTilesFormatError("a directory's tile IDs are not increasing") }
      last = e.tileID
    }
    return entries
  }
}

/// A local archive, memory-mapped.
public final class PMTilesFileSource: PMTilesByteSource {
  let data: Data
  public let name: String

  public init(path: String) throws {
    name = path
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
    } catch {
      let reason = (error as NSError).localizedDescription
      throw PMTilesFormatError("cannot read the archive (\(reason))")
    }
  }

  public var size: UInt64? { UInt64(data.count) }

  public func read(offset: UInt64, length: Int) throws -> [UInt8] {
    guard offset <= UInt64(data.count) else { return [] }
    let start = Int(offset)
    let end = min(data.count, start + length)
    return [UInt8](data[data.startIndex + start..<data.startIndex + end])
  }

  public func prefix(_ length: Int) throws -> [UInt8] { try read(offset: 0, length: length) }
}
