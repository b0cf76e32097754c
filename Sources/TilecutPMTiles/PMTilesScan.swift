import Foundation

/// A whole-archive walk of a local PMTiles file, for checking one (`verify`, the
/// store's up-to-date check) and copying one (`merge`): every tile entry in tile-ID
/// order, with every section and range checked against the file. Not a tile
/// reader: it reads directories front to back and never looks a tile up.
public final class PMTilesArchiveScan {
  public let path: String
  public let header: PMTilesHeader
  let fd: Int32
  let fileSize: UInt64

  /// The most a directory or the metadata may inflate to.
  static let sectionLimit = 256 << 20

  /// Opens `path` and reads its header; throws `PMTilesFormatError` for a file that is no archive.
  public init(path: String) throws {
    self.path = path
    fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw PMTilesFormatError("cannot be opened (\(String(cString: strerror(errno))))") }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
      close(fd)
      throw PMTilesFormatError("cannot be read")
    }
    fileSize = UInt64(st.st_size)
    do {
      guard fileSize >= UInt64(PMTilesHeader.size) else { throw PMTilesFormatError("is shorter than a PMTiles header") }
      let head = try Self.read(fd, offset: 0, count: PMTilesHeader.size)
      // checked in a local and stored last: once `header` is set the object is whole,
      // and a throw after that would close `fd` here and again in `deinit`
      let read = try PMTilesHeader(decoding: head)
      for (name, offset, length) in [
        ("root directory", read.rootDirectoryOffset, read.rootDirectoryLength),
        ("metadata", read.metadataOffset, read.metadataLength),
        ("leaf directories", read.leafDirectoriesOffset, read.leafDirectoriesLength),
        ("tile data", read.tileDataOffset, read.tileDataLength),
      ] {
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard !overflow, end <= fileSize else { throw PMTilesFormatError("its \(name) lies beyond the end of the file") }
      }
      header = read
    } catch {
      close(fd)
      throw error
    }
  }

  deinit { close(fd) }

  /// The metadata, decompressed.
  public func metadata() throws -> [UInt8] {
    guard header.metadataLength <= UInt64(Self.sectionLimit) else {
      throw PMTilesFormatError("its metadata claims \(header.metadataLength) bytes")
    }
    return try PMTilesGzip.decode(
      try Self.read(fd, offset: header.metadataOffset, count: Int(header.metadataLength)), header.internalCompression,
      limit: Self.sectionLimit)
  }

  /// Calls `body` with every tile entry (run length ≥ 1) in tile-ID order, walking
  /// the root and its leaves; throws for a damaged or disordered directory.
  public func forEachTileEntry(_ body: (PMTilesEntry) throws -> Void) throws {
    var last: UInt64?
    func walk(offset: UInt64, length: UInt64, depth: Int) throws {
      guard depth <= 3 else { throw PMTilesFormatError("its leaf directories nest deeper than 3") }
      guard length <= UInt64(Self.sectionLimit) else { throw PMTilesFormatError("a directory claims \(length) bytes") }
      let raw = try Self.read(fd, offset: offset, count: Int(length))
      let entries = try PMTilesDirectory.deserialize(try PMTilesGzip.decode(raw, header.internalCompression, limit: Self.sectionLimit))
      for e in entries {
        if e.isLeaf {
          let (end, overflow) = e.offset.addingReportingOverflow(UInt64(e.length))
          guard !overflow, end <= header.leafDirectoriesLength else {
            throw PMTilesFormatError("a leaf directory lies outside the leaf section")
          }
          try walk(offset: header.leafDirectoriesOffset + e.offset, length: UInt64(e.length), depth: depth + 1)
          continue
        }
        if let l = last, e.tileID <= l { throw PMTilesFormatError("its tile entries are not in tile-ID order") }
        let (runEnd, runOverflow) = e.tileID.addingReportingOverflow(UInt64(e.runLength) - 1)
        guard !runOverflow, PMTilesTileID.zxy(runEnd) != nil else { throw PMTilesFormatError("a run of tiles passes zoom 31") }
        let (end, overflow) = e.offset.addingReportingOverflow(UInt64(e.length))
        guard !overflow, end <= header.tileDataLength else { throw PMTilesFormatError("a tile lies outside the tile data") }
        last = runEnd
        try body(e)
      }
    }
    try walk(offset: header.rootDirectoryOffset, length: header.rootDirectoryLength, depth: 0)
  }

  /// The bytes of a tile entry's content (offset and length within the tile data).
  public func tileData(_ entry: PMTilesEntry) throws -> [UInt8] {
    try Self.read(fd, offset: header.tileDataOffset + entry.offset, count: Int(entry.length))
  }

  /// Tiles and their bytes per zoom (a run counts each tile it addresses), from the
  /// directories alone.
  public func zoomCounts() throws -> [Int: (count: Int, bytes: Int)] {
    var out: [Int: (count: Int, bytes: Int)] = [:]
    try forEachTileEntry { e in
      var id = e.tileID
      var left = UInt64(e.runLength)
      while left > 0 {
        guard let z = PMTilesTileID.zxy(id)?.z else { return }
        // the run's tiles within zoom z
        let next = z < PMTilesTileID.maxZoom ? PMTilesTileID.base(zoom: z + 1) : UInt64.max
        let n = min(left, next - id)
        out[z, default: (0, 0)].count += Int(n)
        out[z, default: (0, 0)].bytes += Int(n) * Int(e.length)
        id += n
        left -= n
      }
    }
    return out
  }

  static func read(_ fd: Int32, offset: UInt64, count: Int) throws -> [UInt8] {
    guard let bytes = preadFully(fd, offset: offset, count: count) else { throw PMTilesFormatError("ends early or cannot be read") }
    return bytes
  }
}
