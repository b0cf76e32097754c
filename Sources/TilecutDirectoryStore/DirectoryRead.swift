import Foundation
import TilecutCore

extension DirectoryDriver {
  /// The tile's file, named by the manifest's template, read only when it is a regular
  /// file inside the output (`tileFile`).
  public func outputTile(_ tile: TileCoordinate, floor: Floor, tileSize: Int, of manifest: Manifest, in directory: String) throws -> [UInt8]? {
    let template = try TileNameTemplate(manifest.name)
    let path = directory + "/" + template.path(floor: floor, tileSize: tileSize, tile: tile)
    return try Self.tileFile(path, in: directory)
  }

  /// The tile's file, named by the manifest's template.
  public func outputTilePath(_ tile: TileCoordinate, floor: Floor, tileSize: Int, of manifest: Manifest, in directory: String) -> String? {
    guard let template = try? TileNameTemplate(manifest.name) else { return nil }
    return directory + "/" + template.path(floor: floor, tileSize: tileSize, tile: tile)
  }

  /// Each listed tile's file, named by the manifest's template.
  public func tileFiles(of manifest: Manifest) throws -> [String] {
    let template = try TileNameTemplate(manifest.name)
    var paths: [String] = []
    for level in manifest.levels {
      for tile in level.tiles { paths.append(template.path(floor: level.floor, tileSize: level.tileSize, tile: tile)) }
    }
    return paths
  }

  /// The bytes of a tile file of a directory store: nil when it is absent; refused when it
  /// is not a regular file inside the store (a link to /etc/shadow, a folder linked
  /// elsewhere, a device), or larger than any tile.
  static func tileFile(_ path: String, in location: String) throws -> [UInt8]? {
    var st = stat()
    guard lstat(path, &st) == 0 else { return nil }
    func refuse(_ why: String) -> TilecutError {
      TilecutError.invalidInput(path: path, reason: "\(why); tilecut reads only the files it wrote into the store")
    }
    guard st.st_mode & S_IFMT == S_IFREG else { throw refuse("is not a regular file (a link, a device or a folder)") }
    guard let root = realpath(location, nil), let real = realpath(path, nil) else { return nil }
    defer {
      free(root)
      free(real)
    }
    let base = String(cString: root)
    guard String(cString: real).hasPrefix(base == "/" ? "/" : base + "/") else {
      throw refuse("lies outside the store (a folder on its way is a link)")
    }
    guard st.st_size <= 64 << 20 else { throw refuse("is \(st.st_size) bytes, more than any tile") }
    return FileManager.default.contents(atPath: path).map { [UInt8]($0) }
  }
}
