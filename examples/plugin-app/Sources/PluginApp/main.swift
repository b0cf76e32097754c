import Foundation
import TilecutClient

// Reads back, through OfflineTiles, the tiles TilecutBuildPlugin put into this
// target's resource bundle: for every floor and tile size, the first tile of its
// deepest zoom. Prints one line per tile and writes each to DIR when given
// (`PluginApp DIR`); exits 1 when a tile the manifest lists cannot be read or is
// not a PNG of the tile size.
let tiles = try OfflineTiles(bundle: .module)
let manifest = tiles.manifest
let out = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
var failures = 0

/// The width and height in a PNG's IHDR.
func pngSize(_ data: Data) -> (width: Int, height: Int)? {
  let bytes = [UInt8](data.prefix(24))
  guard bytes.count == 24, bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], bytes[12..<16] == [0x49, 0x48, 0x44, 0x52]
  else { return nil }
  func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
  return (int(16), int(20))
}

print("manifest: floors \(manifest.floors), tile sizes \(manifest.tileSizes), store \(manifest.store ?? "directory")")
for floor in manifest.floors {
  for size in manifest.tileSizes {
    guard let level = manifest.levels.filter({ $0.floor == floor && $0.tileSize == size }).max(by: { $0.zoom < $1.zoom }),
      let row = level.rows.first
    else {
      print("floor \(floor) size \(size): no level")
      failures += 1
      continue
    }
    let (z, x, y) = (level.zoom, row[1], row[0])
    switch tiles.tile(floor: floor, zoom: z, x: x, y: y, tileSize: size) {
    case .tile(let data):
      let dimensions = pngSize(data)
      print("floor \(floor) size \(size) tile \(z)/\(x)/\(y): \(data.count) bytes, PNG \(dimensions.map { "\($0.width)x\($0.height)" } ?? "no")")
      if dimensions?.width != size || dimensions?.height != size { failures += 1 }
      if let out {
        try data.write(to: out.appendingPathComponent("L\(floor)_\(size)_\(z)_\(x)_\(y).png"))
      }
    case .noTile:
      print("floor \(floor) size \(size) tile \(z)/\(x)/\(y): no tile, although the manifest lists it")
      failures += 1
    case .unavailable(let why):
      print("floor \(floor) size \(size) tile \(z)/\(x)/\(y): unavailable: \(why)")
      failures += 1
    }
  }
}
// a cell far from the plan: "no tile", from the manifest alone
if case .noTile = tiles.tile(floor: manifest.floors[0], zoom: 3, x: 0, y: 0, tileSize: manifest.tileSizes[0]) {
  print("zoom 3 tile 0/0: no tile")
} else {
  print("zoom 3 tile 0/0: expected no tile")
  failures += 1
}
exit(failures == 0 ? 0 : 1)
