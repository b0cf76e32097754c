import Foundation
import TilecutCore
import TilecutDirectoryStore
import TilecutMBTiles
import TilecutPMTilesStore

/// The stores tilecut knows, in one list: the one place that names them. The rest of
/// the code asks it by kind, file name or bytes; no store is ours otherwise.
enum StoreCatalogue {
  /// Every store, one per kind.
  static let stores: [any StoreDriver] = StoreKind.allCases.map { driver(for: $0) }

  /// Every archive store (one file per tile set); the first is the one a tile set's file
  /// of no known extension is read as.
  static let drivers: [any ArchiveStoreDriver] = stores.compactMap { $0 as? any ArchiveStoreDriver }

  /// How a message names the stores of one file per tile set.
  static let namesPhrase = "MBTiles or PMTiles"

  /// How a message names the store files tilecut reads.
  static let storeFilesPhrase = "an .mbtiles or a .pmtiles file"

  /// The driver of a store kind (a manifest without one is a directory of tile files).
  static func driver(for kind: StoreKind?) -> any StoreDriver {
    switch kind ?? .default {
    case .directory: DirectoryDriver()
    case .mbtiles: MBTilesDriver()
    case .pmtiles: PMTilesDriver()
    }
  }

  /// The driver of an archive store, nil for a store of tile files.
  static func archive(for kind: StoreKind?) -> (any ArchiveStoreDriver)? {
    drivers.first { $0.kind == kind }
  }

  /// The driver whose files end in the name's extension (any case).
  static func driver(forFile name: String) -> (any ArchiveStoreDriver)? {
    let lower = name.lowercased()
    return drivers.first { lower.hasSuffix("." + $0.fileExtension) }
  }

  /// The driver whose files start with these bytes (`head`: the first 16).
  static func driver(holding head: [UInt8], file: FileHandle) -> (any ArchiveStoreDriver)? {
    drivers.first { $0.holds(head: head, file: file) }
  }
}

extension VerifyReport {
  /// For an MBTiles output, how many MBTiles files it has; nil otherwise
  /// (`verify --json` gives it by this name).
  public var mbtilesFiles: Int? { storeFileCount(.mbtiles) }
  /// For a PMTiles output, how many archives it has; nil otherwise.
  public var pmtilesFiles: Int? { storeFileCount(.pmtiles) }
}
