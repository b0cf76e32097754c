import Foundation
import Synchronization

/// Each tile's SHA-256, taken as the store is handed the tile (on the worker that
/// encoded it), so that the content version hashes no tile again after the run: 32
/// bytes a tile, beside the 24 of its coordinate that the ledger keeps anyway.
public final class TileDigests: Sendable {
  private let digest: @Sendable ([UInt8]) -> String
  private let book = Mutex<[Key: Raw]>([:])

  struct Key: Hashable {
    var floor: Floor
    var tileSize: Int
    var tile: TileCoordinate
  }

  /// A digest's 32 bytes, kept inline rather than as 64 characters of text.
  struct Raw: Hashable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    static func == (l: Raw, r: Raw) -> Bool { l.words == r.words }
    func hash(into h: inout Hasher) { h.combine(words.0) }

    init?(hex: String) {
      let bytes = Array(hex.utf8)
      guard bytes.count == 64 else { return nil }
      var w: [UInt64] = []
      for i in 0..<4 {
        guard let v = UInt64(String(decoding: bytes[(i * 16)..<(i * 16 + 16)], as: UTF8.self), radix: 16) else { return nil }
        w.append(v)
      }
      words = (w[0], w[1], w[2], w[3])
    }

    var hex: String {
      [words.0, words.1, words.2, words.3].map { v in
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
      }.joined()
    }
  }

  /// `digest`: SHA-256 as lower-case hex (`SHA256Digest.hex` in the tool).
  public init(digest: @escaping @Sendable ([UInt8]) -> String) { self.digest = digest }

  /// Hashes a tile being stored and keeps its digest.
  public func record(_ bytes: [UInt8], floor: Floor, tileSize: Int, tile: TileCoordinate) {
    record(hex: digest(bytes), floor: floor, tileSize: tileSize, tile: tile)
  }

  /// Keeps a digest already taken (the MBTiles writer names each image by its digest).
  public func record(hex: String, floor: Floor, tileSize: Int, tile: TileCoordinate) {
    guard let raw = Raw(hex: hex) else { return }
    book.withLock { $0[Key(floor: floor, tileSize: tileSize, tile: tile)] = raw }
  }

  /// The digest recorded for a tile, or nil (a tile carried over by a link was never handed over).
  public func hex(floor: Floor, tileSize: Int, tile: TileCoordinate) -> String? {
    book.withLock { $0[Key(floor: floor, tileSize: tileSize, tile: tile)] }?.hex
  }
}
