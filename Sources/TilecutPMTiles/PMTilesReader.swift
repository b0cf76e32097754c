import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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

/// An archive on an http(s) server that honours `Range: bytes=a-b`: every read is
/// one request, and a server that answers with the whole file is refused before the
/// body is read.
public final class PMTilesHTTPSource: PMTilesByteSource, @unchecked Sendable {
  public let url: URL
  public var name: String { url.absoluteString }
  let session: URLSession
  let delegate: RangeDelegate
  let lock = NSLock()
  var knownSize: UInt64?
  var requestCount = 0
  /// Where the server's redirects led the first read: later reads go there directly,
  /// so a redirected archive costs no request more than one served in place.
  var resolved: URL?

  /// Seconds a server may stay silent; a whole read may take four times that.
  let timeout: TimeInterval

  public init(url: URL, timeout: TimeInterval = 30) throws {
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw PMTilesFormatError("\(url.absoluteString) is not an http(s) URL")
    }
    self.url = url
    self.timeout = timeout
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    // a server that drips its answer a byte at a time never idles long enough for the
    // request timeout: each read has a deadline as a whole too
    configuration.timeoutIntervalForResource = timeout * 4
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    delegate = RangeDelegate()
    session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
  }

  deinit { session.invalidateAndCancel() }

  /// The archive's size, from the first answer's Content-Range.
  public var size: UInt64? { lock.withLock { knownSize } }

  /// How many requests this source has made.
  public var requests: Int { lock.withLock { requestCount } }

  public func prefix(_ length: Int) throws -> [UInt8] { try read(offset: 0, length: length) }

  public func read(offset: UInt64, length: Int) throws -> [UInt8] {
    guard length > 0 else { return [] }
    var request = URLRequest(url: lock.withLock { resolved } ?? url)
    request.setValue("bytes=\(offset)-\(offset + UInt64(length) - 1)", forHTTPHeaderField: "Range")
    request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
    lock.withLock { requestCount += 1 }
    let answer = delegate.run(session.dataTask(with: request), expect: offset, length: length, deadline: timeout * 4)
    switch answer {
    case .failed(let reason):
      throw PMTilesFormatError(reason)
    case .bytes(let bytes, let total, let final):
      lock.withLock {
        if let total { knownSize = total }
        if resolved == nil, let final, final != url { resolved = final }
      }
      return bytes
    }
  }
}

/// The outcome of one range request.
enum RangeAnswer: Sendable {
  /// The range's bytes, the file's size when the server said it, and the URL that answered (after redirects).
  case bytes([UInt8], total: UInt64?, url: URL?)
  case failed(String)
}

/// Collects the body of range requests, and cancels one whose answer is not the range asked for.
final class RangeDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
  final class Pending {
    let offset: UInt64
    let length: Int
    var bytes: [UInt8] = []
    var total: UInt64?
    var answered: URL?
    var failure: String?
    let done = DispatchSemaphore(value: 0)
    init(offset: UInt64, length: Int) {
      self.offset = offset
      self.length = length
    }
  }

  let lock = NSLock()
  var pending: [Int: Pending] = [:]

  func run(_ task: URLSessionDataTask, expect offset: UInt64, length: Int, deadline: TimeInterval) -> RangeAnswer {
    let p = Pending(offset: offset, length: length)
    lock.withLock { pending[task.taskIdentifier] = p }
    task.resume()
    if p.done.wait(timeout: .now() + deadline) == .timedOut {
      lock.withLock { pending[task.taskIdentifier] = nil }
      task.cancel()
      return .failed("the server did not send \(length) bytes within \(Int(deadline)) s")
    }
    lock.withLock { pending[task.taskIdentifier] = nil }
    if let failure = p.failure { return .failed(failure) }
    return .bytes(p.bytes, total: p.total, url: p.answered)
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
  ) {
    guard let p = lock.withLock({ pending[dataTask.taskIdentifier] }) else { return completionHandler(.cancel) }
    let http = response as? HTTPURLResponse
    let status = http?.statusCode ?? 0
    if status == 206 {
      // Content-Range: bytes a-b/total (or /*)
      let range = http?.value(forHTTPHeaderField: "Content-Range") ?? ""
      let parts = range.replacingOccurrences(of: "bytes ", with: "").split(separator: "/")
      let start = parts.first?.split(separator: "-").first.flatMap { UInt64($0) }
      if start != p.offset {
        p.failure = "the server answered a range other than the one asked for (\(range.isEmpty ? "no Content-Range" : range))"
      } else {
        p.total = parts.count == 2 ? UInt64(parts[1]) : nil
        p.answered = http?.url
        return completionHandler(.allow)
      }
    } else if status == 200 {
      p.failure = "the server ignores Range requests (it answered 200 with the whole file); serve the archive from a host that honours Range"
    } else if status == 416 {
      p.failure = "the server says the range \(p.offset)+\(p.length) is outside the file (HTTP 416): the archive is shorter than its header says"
    } else {
      p.failure = "the server answered HTTP \(status)"
    }
    completionHandler(.cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    // data that arrives after a refused answer is dropped, and the refusal kept
    guard let p = lock.withLock({ pending[dataTask.taskIdentifier] }), p.failure == nil else { return }
    if p.bytes.count + data.count > p.length {
      p.failure = "the server sent more than the \(p.length) bytes asked for"
      dataTask.cancel()
      return
    }
    p.bytes += data
  }

  /// Words for the URL errors a reader meets, where Foundation on Linux gives
  /// "The operation could not be completed" or "NSURLErrorDomain error -1001".
  static func reason(_ error: NSError) -> String {
    guard error.domain == NSURLErrorDomain else { return error.localizedDescription }
    switch error.code {
    case NSURLErrorTimedOut: return "timed out"
    case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "host not found"
    case NSURLErrorCannotConnectToHost: return "could not connect"
    case NSURLErrorNetworkConnectionLost: return "the connection was lost"
    case NSURLErrorNotConnectedToInternet: return "no network"
    case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
      NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot:
      return "the TLS connection failed"
    case NSURLErrorHTTPTooManyRedirects: return "too many redirects"
    default: return "URL error \(error.code)"
    }
  }

  func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
    guard let p = lock.withLock({ pending[task.taskIdentifier] }) else { return }
    if p.failure == nil, let error {
      p.failure = "the request failed (\(Self.reason(error as NSError)))"
    }
    p.done.signal()
  }
}
