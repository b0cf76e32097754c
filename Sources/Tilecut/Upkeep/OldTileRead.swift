import Foundation

/// The old `tilecut tile STORE Z X Y`: `tile` only tiles, and this form is answered
/// with the command that reads a tile. A store given alone is a source to re-tile.
package enum OldTileRead {
  /// The line answering `inputs` when they read a tile (a store first, or anything
  /// followed by three integers that are not files), nil when they are images to tile.
  /// `exists` tells whether a path names a file (images named 1 2 3 are floors to tile).
  package static func hint(_ inputs: [String], exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }) -> String? {
    let numbers = inputs.dropFirst().map { Int($0) }
    let zxy = numbers.count == 3 && !numbers.contains(nil) && !inputs.dropFirst().allSatisfy(exists)
    guard let first = inputs.first else { return nil }
    // a store alone is a source to re-tile; a store with a tile, or a URL, is a read
    let coordinate = inputs.count == 2 && StoreReader.coordinate([inputs[1]]) != nil && !exists(inputs[1])
    let url = first.lowercased().hasPrefix("http://") || first.lowercased().hasPrefix("https://")
    guard zxy || (StoreReader.looksLikeStore(first) && (coordinate || url)) else { return nil }
    let given = coordinate ? inputs[1] : "Z/X/Y"
    let tile = zxy ? inputs.dropFirst().joined(separator: "/") : given
    return "use: tilecut get \(first.prefix(200)) \(tile) (tile only tiles images; get reads one tile of a store)"
  }
}
