import CZlib
import Foundation

// PMTiles version 3, as protomaps/PMTiles spec/v3/spec.md defines it: a 127-byte
// header, a root directory, JSON metadata, leaf directories and tile data, each a
// byte range of one file. This file holds only the format (no I/O), so the writer,
// the reader and the client package share one reading of the spec.

/// A problem with an archive's bytes; `reason` is one clause for a one-line error.
public struct PMTilesFormatError: Error, Equatable, CustomStringConvertible, Sendable {
  public var reason: String
  public init(_ reason: String) { self.reason = reason }
  public var description: String { reason }
}

/// The spec's compression codes (header bytes 97 and 98).
public enum PMTilesCompression: UInt8, Sendable, Codable {
  case unknown = 0
  case none = 1
  case gzip = 2
  case brotli = 3
  case zstd = 4
}

/// The spec's tile types (header byte 99).
public enum PMTilesTileType: UInt8, Sendable, Codable {
  case unknown = 0
  case mvt = 1
  case png = 2
  case jpeg = 3
  case webp = 4
  case avif = 5

  /// From a tile format's usual name (`png`, `jpeg` or `jpg`, `webp`, `avif`, `mvt`/`pbf`).
  public init(format: String) {
    switch format.lowercased() {
    case "png": self = .png
    case "jpg", "jpeg": self = .jpeg
    case "webp": self = .webp
    case "avif": self = .avif
    case "mvt", "pbf": self = .mvt
    default: self = .unknown
    }
  }

  /// The usual file extension, `bin` where the type is unknown.
  public var fileExtension: String {
    switch self {
    case .png: "png"
    case .jpeg: "jpg"
    case .webp: "webp"
    case .avif: "avif"
    case .mvt: "mvt"
    case .unknown: "bin"
    }
  }
}

/// The fixed 127-byte header.
public struct PMTilesHeader: Equatable, Sendable {
  public static let size = 127

  public var rootDirectoryOffset: UInt64 = 0
  public var rootDirectoryLength: UInt64 = 0
  public var metadataOffset: UInt64 = 0
  public var metadataLength: UInt64 = 0
  public var leafDirectoriesOffset: UInt64 = 0
  public var leafDirectoriesLength: UInt64 = 0
  public var tileDataOffset: UInt64 = 0
  public var tileDataLength: UInt64 = 0
  /// Tiles a reader can address (run lengths summed); 0 where unknown.
  public var addressedTiles: UInt64 = 0
  /// Directory entries that point at tiles (not at leaf directories).
  public var tileEntries: UInt64 = 0
  /// Distinct tile byte ranges.
  public var tileContents: UInt64 = 0
  public var clustered = false
  public var internalCompression: PMTilesCompression = .gzip
  public var tileCompression: PMTilesCompression = .none
  public var tileType: PMTilesTileType = .unknown
  public var minZoom: UInt8 = 0
  public var maxZoom: UInt8 = 0
  /// Degrees, stored as 10⁻⁷ degree integers.
  public var minLongitude: Double = -180
  public var minLatitude: Double = -85
  public var maxLongitude: Double = 180
  public var maxLatitude: Double = 85
  public var centerZoom: UInt8 = 0
  public var centerLongitude: Double = 0
  public var centerLatitude: Double = 0

  public init() {}

  /// The header as the file stores it: 127 bytes, little-endian.
  public func encoded() -> [UInt8] {
    var b: [UInt8] = Array("PMTiles".utf8) + [3]
    for v in [
      rootDirectoryOffset, rootDirectoryLength, metadataOffset, metadataLength, leafDirectoriesOffset, leafDirectoriesLength,
      tileDataOffset, tileDataLength, addressedTiles, tileEntries, tileContents,
    ] {
      b += withUnsafeBytes(of: v.littleEndian, Array.init)
    }
    b += [
      clustered ? 1 : 0, internalCompression.rawValue, tileCompression.rawValue, tileType.rawValue, minZoom, maxZoom,
    ]
    func e7(_ d: Double) -> [UInt8] {
      let v = Int32(clamping: Int64((d * 10_000_000).rounded()))
      return withUnsafeBytes(of: v.littleEndian, Array.init)
    }
    b += e7(minLongitude) + e7(minLatitude) + e7(maxLongitude) + e7(maxLatitude)
    b += [centerZoom] + e7(centerLongitude) + e7(centerLatitude)
    return b
  }

  /// Reads a header from an archive's first 127 bytes (or more).
  public init(decoding bytes: some Collection<UInt8>) throws {
    let b = Array(bytes.prefix(Self.size))
    guard b.count == Self.size else { throw PMTilesFormatError("shorter than the 127-byte PMTiles header (\(b.count) bytes)") }
    guard Array(b[0..<7]) == Array("PMTiles".utf8) else { throw PMTilesFormatError("not a PMTiles archive (no PMTiles magic)") }
    guard b[7] == 3 else { throw PMTilesFormatError("PMTiles version \(b[7]); tilecut reads version 3") }
    func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
    func e7(_ at: Int) -> Double {
      let u = (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) }
      return Double(Int32(bitPattern: u)) / 10_000_000
    }
    rootDirectoryOffset = u64(8)
    rootDirectoryLength = u64(16)
    metadataOffset = u64(24)
    metadataLength = u64(32)
    leafDirectoriesOffset = u64(40)
    leafDirectoriesLength = u64(48)
    tileDataOffset = u64(56)
    tileDataLength = u64(64)
    addressedTiles = u64(72)
    tileEntries = u64(80)
    tileContents = u64(88)
    clustered = b[96] == 1
    func compression(_ at: Int, _ what: String) throws -> PMTilesCompression {
      guard let c = PMTilesCompression(rawValue: b[at]) else { throw PMTilesFormatError("unknown \(what) compression \(b[at])") }
      return c
    }
    internalCompression = try compression(97, "internal")
    tileCompression = try compression(98, "tile")
    tileType = PMTilesTileType(rawValue: b[99]) ?? .unknown
    minZoom = b[100]
    maxZoom = b[101]
    minLongitude = e7(102)
    minLatitude = e7(106)
    maxLongitude = e7(110)
    maxLatitude = e7(114)
    centerZoom = b[118]
    centerLongitude = e7(119)
    centerLatitude = e7(123)
  }
}

/// One directory entry: a run of `runLength` tiles from `tileID` sharing one byte
/// range of the tile data, or (`runLength` 0) a leaf directory's range in the leaf section.
public struct PMTilesEntry: Equatable, Sendable {
  public var tileID: UInt64
  public var offset: UInt64
  public var length: UInt32
  public var runLength: UInt32

  public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
    self.tileID = tileID
    self.offset = offset
    self.length = length
    self.runLength = runLength
  }

  public var isLeaf: Bool { runLength == 0 }
}

public enum PMTilesDirectory {
  /// A directory's bytes before internal compression: the entry count, then the
  /// columns tile-ID delta, run length, length and offset (0 for "right after the
  /// previous entry's bytes", else offset + 1), each a varint.
  public static func serialize(_ entries: [PMTilesEntry]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(entries.count * 6 + 10)
    Varint.append(UInt64(entries.count), to: &out)
    var last: UInt64 = 0
    for e in entries {
      Varint.append(e.tileID &- last, to: &out)
      last = e.tileID
    }
    for e in entries { Varint.append(UInt64(e.runLength), to: &out) }
    for e in entries { Varint.append(UInt64(e.length), to: &out) }
    for (i, e) in entries.enumerated() {
      if i > 0, e.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) {
        Varint.append(0, to: &out)
      } else {
        Varint.append(e.offset + 1, to: &out)
      }
    }
    return out
  }

  /// Reads a decompressed directory. `maxEntries` bounds what a hostile count can make
  /// the reader allocate (a real entry takes at least 4 bytes).
  public static func deserialize(_ bytes: [UInt8]) throws -> [PMTilesEntry] {
    var r = Varint.Reader(bytes)
    let count = try r.next()
    guard count <= UInt64(bytes.count) / 4 + 1 else {
      throw PMTilesFormatError("a directory claims \(count) entries in \(bytes.count) bytes")
    }
    let n = Int(count)
    var entries = [PMTilesEntry](repeating: PMTilesEntry(tileID: 0, offset: 0, length: 0, runLength: 0), count: n)
    var last: UInt64 = 0
    for i in 0..<n {
      let (sum, overflow) = last.addingReportingOverflow(try r.next())
      guard !overflow else { throw PMTilesFormatError("a directory's tile IDs overflow") }
      entries[i].tileID = sum
      last = sum
    }
    for i in 0..<n {
      let v = try r.next()
      guard v <= UInt64(UInt32.max) else { throw PMTilesFormatError("a run length does not fit 32 bits") }
      entries[i].runLength = UInt32(v)
    }
    for i in 0..<n {
      let v = try r.next()
      guard v <= UInt64(UInt32.max) else { throw PMTilesFormatError("a tile length does not fit 32 bits") }
      entries[i].length = UInt32(v)
    }
    for i in 0..<n {
      let v = try r.next()
      if v == 0 {
        guard i > 0 else { throw PMTilesFormatError("a directory's first offset is relative") }
        entries[i].offset = entries[i - 1].offset &+ UInt64(entries[i - 1].length)
      } else {
        entries[i].offset = v - 1
      }
    }
    return entries
  }

  /// The entry whose tiles include `tileID` (a tile entry's run, or the leaf whose
  /// range starts at or before it), by binary search over entries sorted by tile ID.
  public static func find(_ tileID: UInt64, in entries: [PMTilesEntry]) -> PMTilesEntry? {
    var lo = 0
    var hi = entries.count - 1
    while lo <= hi {
      let mid = (lo + hi) / 2
      let id = entries[mid].tileID
      if id < tileID {
        lo = mid + 1
      } else if id > tileID {
        hi = mid - 1
      } else {
        return entries[mid]
      }
    }
    // hi: the last entry before tileID
    guard hi >= 0 else { return nil }
    let e = entries[hi]
    if e.runLength == 0 { return e }
    return tileID - e.tileID < UInt64(e.runLength) ? e : nil
  }
}

/// PMTiles' tile IDs: tiles of all lower zooms first, then the zoom's tiles along a Hilbert curve.
public enum PMTilesTileID {
  /// The highest zoom whose tile IDs fit: PMTiles allows up to 31.
  public static let maxZoom = 31

  /// The first ID of zoom `z`: (4^z − 1) / 3.
  public static func base(zoom z: Int) -> UInt64 { ((1 << (2 * UInt64(z))) - 1) / 3 }

  public static func id(z: Int, x: Int, y: Int) -> UInt64 {
    precondition(z >= 0 && z <= maxZoom && x >= 0 && y >= 0 && x < 1 << z && y < 1 << z, "tile \(z)/\(x)/\(y) is outside the pyramid")
    var tx = UInt64(x)
    var ty = UInt64(y)
    var d: UInt64 = 0
    var s = z == 0 ? UInt64(0) : UInt64(1) << UInt64(z - 1)
    while s > 0 {
      let rx: UInt64 = tx & s != 0 ? 1 : 0
      let ry: UInt64 = ty & s != 0 ? 1 : 0
      d += s * s * ((3 * rx) ^ ry)
      (tx, ty) = rotate(s, tx, ty, rx, ry)
      s >>= 1
    }
    return base(zoom: z) + d
  }

  /// The tile an ID names; nil beyond zoom 31.
  public static func zxy(_ id: UInt64) -> (z: Int, x: Int, y: Int)? {
    for z in 0...maxZoom {
      let count = UInt64(1) << (2 * UInt64(z))
      let start = base(zoom: z)
      guard id >= start + count else {
        var d = id - start
        var tx: UInt64 = 0
        var ty: UInt64 = 0
        var s: UInt64 = 1
        let n = UInt64(1) << UInt64(z)
        while s < n {
          let rx = 1 & (d / 2)
          let ry = 1 & (d ^ rx)
          (tx, ty) = rotate(s, tx, ty, rx, ry)
          tx += s * rx
          ty += s * ry
          d /= 4
          s *= 2
        }
        return (z, Int(tx), Int(ty))
      }
    }
    return nil
  }

  private static func rotate(_ n: UInt64, _ x: UInt64, _ y: UInt64, _ rx: UInt64, _ ry: UInt64) -> (UInt64, UInt64) {
    guard ry == 0 else { return (x, y) }
    if rx == 1 { return (n &- 1 &- y, n &- 1 &- x) }
    return (y, x)
  }
}

/// LEB128 unsigned varints, as the directories store every number.
public enum Varint {
  public static func append(_ value: UInt64, to out: inout [UInt8]) {
    var v = value
    while v >= 0x80 {
      out.append(UInt8(v & 0x7f) | 0x80)
      v >>= 7
    }
    out.append(UInt8(v))
  }

  public struct Reader {
    let bytes: [UInt8]
    var at = 0
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public mutating func next() throws -> UInt64 {
      var value: UInt64 = 0
      var shift: UInt64 = 0
      while true {
        guard at < bytes.count else { throw PMTilesFormatError("a directory ends inside a number") }
        let b = bytes[at]
        at += 1
        guard shift < 64, shift < 63 || b <= 1 else { throw PMTilesFormatError("a directory number is longer than 64 bits") }
        value |= UInt64(b & 0x7f) << shift
        if b & 0x80 == 0 { return value }
        shift += 7
      }
    }
  }
}

/// gzip through zlib, for directories and metadata (internal compression 2).
public enum PMTilesGzip {
  public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
    var stream = z_stream()
    // 15 + 16: a gzip wrapper, as the spec's "gzip" means
    guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK
    else { fatalError("zlib deflateInit2 failed") }
    defer { deflateEnd(&stream) }
    var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))) + 32)
    var input = bytes
    let produced = input.withUnsafeMutableBufferPointer { inp in
      out.withUnsafeMutableBufferPointer { o -> Int in
        stream.next_in = inp.baseAddress
        stream.avail_in = uInt(inp.count)
        stream.next_out = o.baseAddress
        stream.avail_out = uInt(o.count)
        let rc = deflate(&stream, Z_FINISH)
        precondition(rc == Z_STREAM_END, "zlib deflate into its own bound failed (\(rc))")
        return o.count - Int(stream.avail_out)
      }
    }
    out.removeSubrange(produced...)
    return out
  }

  /// Inflates a gzip (or zlib) stream; `limit` bounds the output, so a small hostile
  /// directory cannot claim gigabytes.
  public static func decompress(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
    var stream = z_stream()
    // 15 + 32: gzip or zlib, told by the header
    guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
      throw PMTilesFormatError("zlib could not start")
    }
    defer { inflateEnd(&stream) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    var input = bytes
    try input.withUnsafeMutableBufferPointer { inp in
      stream.next_in = inp.baseAddress
      stream.avail_in = uInt(inp.count)
      while true {
        let (rc, got) = chunk.withUnsafeMutableBufferPointer { c -> (Int32, Int) in
          stream.next_out = c.baseAddress
          stream.avail_out = uInt(c.count)
          let rc = inflate(&stream, Z_NO_FLUSH)
          return (rc, c.count - Int(stream.avail_out))
        }
        out += chunk[0..<got]
        guard out.count <= limit else { throw PMTilesFormatError("a compressed section inflates past \(limit) bytes") }
        if rc == Z_STREAM_END { return }
        guard rc == Z_OK else { throw PMTilesFormatError("a compressed section is damaged (zlib \(rc))") }
        if got == 0 && stream.avail_in == 0 { throw PMTilesFormatError("a compressed section ends early") }
      }
    }
    return out
  }

  /// Decompresses a section by the header's internal compression.
  public static func decode(_ bytes: [UInt8], _ compression: PMTilesCompression, limit: Int) throws -> [UInt8] {
    switch compression {
    case .none:
      guard bytes.count <= limit else { throw PMTilesFormatError("a section is larger than \(limit) bytes") }
      return bytes
    case .gzip: return try decompress(bytes, limit: limit)
    default: throw PMTilesFormatError("internal compression \(compression) is not supported (tilecut reads gzip and none)")
    }
  }
}
