import CTilecutPlatform
import Foundation
import Synchronization

/// What an existing output directory holds, read before anything is replaced: its
/// manifest, the entries it accounts for, and the tiles per level.
extension StagedOutput {
  /// Inspects a directory without planning to replace it (a shard to merge, an output to verify).
  public static func inspectForReading(_ path: String, option: String) throws -> (manifest: Manifest, tally: [LevelKey: (count: Int, bytes: Int)]) {
    let found = try inspect(path: path, option: option, reading: true)
    guard let manifest = found.manifest else {
      throw TilecutError.invalidInput(path: path + "/" + Manifest.fileName, reason: "no manifest here; is this a tilecut output directory?")
    }
    return (manifest, found.tally)
  }

  static func inspect(path: String, option: String, reading: Bool = false) throws -> Inspection {
    var found = Inspection()
    var st = stat()
    guard lstat(path, &st) == 0 else {
      let e = errno
      if reading { throw TilecutError.invalidInput(path: path, reason: "cannot be read (\(String(cString: strerror(e))))") }
      guard e == ENOENT else { throw TilecutError.output(path: path, reason: "cannot be inspected (\(String(cString: strerror(e))))") }
      let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
      var pst = stat()
      guard stat(parent.isEmpty ? "." : parent, &pst) == 0, (pst.st_mode & S_IFMT) == S_IFDIR else {
        throw TilecutError.invalidOption(option: option, reason: "the parent directory of '\(path)' does not exist")
      }
      return found
    }
    switch st.st_mode & S_IFMT {
    case S_IFDIR: break
    case S_IFLNK:
      throw TilecutError.invalidOption(option: option, reason: "'\(path)' is a symbolic link; name the directory itself")
    default:
      throw TilecutError.invalidOption(option: option, reason: "'\(path)' is an existing file, not a directory")
    }
    found.existed = true
    found.device = UInt64(st.st_dev)
    found.inode = UInt64(st.st_ino)
    found.mountPoint = isMountPoint(path, device: found.device)

    let manifestPath = path + "/" + Manifest.fileName
    var manifestProblem: String?
    var mst = stat()
    if lstat(manifestPath, &mst) == 0 {
      if (mst.st_mode & S_IFMT) != S_IFREG {
        manifestProblem = "is not a regular file"
      } else if mst.st_size > 256 << 20 {
        manifestProblem = "is larger than any tilecut manifest"
      } else if let data = FileManager.default.contents(atPath: manifestPath) {
        do {
          let manifest = try Manifest.decode(data, path: manifestPath)
          if manifest.format == Manifest.formatName {
            // a tilecut manifest with numbers that do not fit: say which
            try manifest.validate(path: manifestPath)
            found.manifest = manifest
          } else {
            manifestProblem = "is not a tilecut manifest"
          }
        } catch let error as TilecutError {
          throw error
        } catch {
          manifestProblem = "is not a tilecut manifest"
        }
      }
    }
    if reading {
      if let manifestProblem { throw TilecutError.invalidInput(path: manifestPath, reason: manifestProblem) }
      if found.manifest == nil {
        throw TilecutError.invalidInput(path: manifestPath, reason: "no manifest here; is this a tilecut output directory?")
      }
    }
    let manifest = found.manifest
    let owned = Ownership(manifest: manifest)
    var firstForeign: String?
    var foreignReason: String?
    var entries = 0
    func walk(_ relative: String, depth: Int) {
      guard firstForeign == nil else { return }
      let dir = relative.isEmpty ? path : path + "/" + relative
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
        firstForeign = relative.isEmpty ? path : relative
        return
      }
      for name in names.sorted() {
        guard firstForeign == nil else { return }
        let rel = relative.isEmpty ? name : relative + "/" + name
        if relative.isEmpty && !reading && name.hasPrefix(stagingMarker) && isStaging(dir, name) {
          // staging of a run on this mount point; removed when its run was killed.
          // Anything else named like it is the user's, accounted for below.
          if let pid = stagingOwner(name), pid > 0, pid != getpid(), !processAlive(pid), !stagingLocked(dir, name) {
            removeTree(dir + "/" + name)
          }
          continue
        }
        entries += 1
        if entries > 50_000_000 {
          firstForeign = rel
          return
        }
        var est = stat()
        guard lstat(dir + "/" + name, &est) == 0 else {
          firstForeign = rel
          return
        }
        switch est.st_mode & S_IFMT {
        case S_IFDIR:
          if depth >= 32 {
            firstForeign = rel
            return
          }
          let before = entries
          walk(rel, depth: depth + 1)
          // an empty folder is ours only where the template makes folders
          if entries == before && firstForeign == nil && !owned.mayBeFolder(rel) { firstForeign = rel }
        case S_IFREG:
          if rel == Manifest.fileName, manifest != nil { continue }
          if owned.storeFiles.contains(rel) {
            if !reading, let why = owned.storeFileProblem(rel, at: dir + "/" + name) {
              firstForeign = rel
              foreignReason = why
              return
            }
            found.storeFilesPresent.insert(rel)
            continue
          }
          if let key = owned.level(of: rel) {
            let size = Int(est.st_size)
            found.tally[key, default: (0, 0)].count += 1
            found.tally[key, default: (0, 0)].bytes += size
            continue
          }
          firstForeign = rel
        case S_IFLNK:
          // listed or not (a tile's name is a tile's even as a link), tilecut writes none
          firstForeign = rel
          foreignReason = "a symbolic link, which tilecut never writes"
        default:
          firstForeign = rel
        }
      }
      if relative.isEmpty { found.topLevel = names.filter { !($0.hasPrefix(stagingMarker) && isStaging(dir, $0)) }.sorted() }
    }
    walk("", depth: 0)
    if let foreign = firstForeign {
      let full = foreign == path ? path : path + "/" + foreign
      if reading, let foreignReason {
        throw TilecutError.invalidInput(path: full, reason: "is \(foreignReason); it will not be read")
      }
      if reading {
        throw TilecutError.invalidInput(
          path: full, reason: "is not listed in the manifest (a tilecut output holds only its tiles, manifest and preview); it will not be read")
      }
      let why: String
      if let foreignReason {
        why = foreignReason
      } else if let manifestProblem {
        why = "\(path)/\(Manifest.fileName) \(manifestProblem)"
      } else if manifest == nil {
        why = "\(path) has no tilecut manifest"
      } else {
        why = "not listed in \(path)/\(Manifest.fileName)"
      }
      throw TilecutError.output(
        path: full,
        reason: "is not tilecut's (\(why)); tilecut replaces only outputs it wrote: move it away or choose another output directory")
    }
    if manifest == nil, manifestProblem != nil, !found.topLevel.isEmpty {
      throw TilecutError.output(
        path: manifestPath, reason: "is not tilecut's; tilecut replaces only outputs it wrote: move it away or choose another output directory")
    }
    return found
  }

  /// Which files a manifest accounts for.
  struct Ownership {
    let manifest: Manifest?
    let template: TileNameTemplate?
    let storeFiles: Set<String>
    let levels: [LevelKey: Manifest.Level]
    let folderDepth: Int

    init(manifest: Manifest?) {
      self.manifest = manifest
      template = manifest.flatMap { try? TileNameTemplate($0.name) }
      var files = Set(manifest?.storeFiles ?? [])
      // outputs of earlier versions did not list their preview page
      if manifest != nil { files.insert("preview.html") }
      storeFiles = files
      var levels: [LevelKey: Manifest.Level] = [:]
      for l in manifest?.levels ?? [] { levels[LevelKey(floor: l.floor, tileSize: l.tileSize, zoom: l.zoom)] = l }
      self.levels = levels
      folderDepth = template.map { $0.pattern.split(separator: "/").count - 1 } ?? 0
    }

    /// Why a store file the manifest lists may not be tilecut's, or nil when it is:
    /// its bytes must be those the manifest's digest records. A manifest of an earlier
    /// version records none: then only a preview page that reads as tilecut's, or an
    /// MBTiles file of its `tileSets` that is an SQLite database, counts as tilecut's.
    func storeFileProblem(_ relative: String, at path: String) -> String? {
      guard let manifest else { return "no manifest lists it" }
      if let recorded = manifest.storeFileDigests?[relative] {
        guard let digest = SHA256Digest.hex(ofFile: path) else { return "it cannot be read" }
        return digest == recorded ? nil : "its bytes differ from those tilecut wrote, recorded in \(Manifest.fileName)"
      }
      let unverified = "\(Manifest.fileName) lists it without the digest tilecut records for its own files"
      var head = [UInt8](repeating: 0, count: 512)
      let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
      guard fd >= 0 else { return "it cannot be read" }
      let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      close(fd)
      let start = n > 0 ? Array(head[..<n]) : []
      if relative == "preview.html" {
        let text = String(decoding: start, as: UTF8.self)
        return text.hasPrefix("<!DOCTYPE html>") && text.contains("<title>tilecut preview</title>") ? nil : unverified
      }
      if (manifest.tileSets ?? []).contains(where: { $0.file == relative }) {
        return start.starts(with: Array("SQLite format 3\u{0}".utf8)) ? nil : unverified
      }
      return unverified
    }

    func mayBeFolder(_ relative: String) -> Bool {
      manifest != nil && relative.split(separator: "/").count <= folderDepth
    }

    /// The level a file belongs to, when the manifest lists it as a tile.
    func level(of relative: String) -> LevelKey? {
      guard let manifest, let template, let name = template.match(relative), let z = name.zoom, let x = name.x, let y = name.y else {
        return nil
      }
      guard let floor = name.floor ?? (manifest.floors.count == 1 ? manifest.floors[0] : nil),
        let size = name.tileSize ?? (manifest.tileSizes.count == 1 ? manifest.tileSizes[0] : nil)
      else { return nil }
      let key = LevelKey(floor: floor, tileSize: size, zoom: z)
      guard let level = levels[key], level.hasTile(x: x, y: y) else { return nil }
      return key
    }
  }
}
