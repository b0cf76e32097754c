import CTilecutPlatform
import Foundation

/// The files options name (`--depfile`, `--changes`, `preview -o`), checked together
/// before any work: tilecut writes only where nothing of the user's is lost.
///
/// Every path is compared by where it resolves (the real path of its folder plus its
/// name, and device and inode where it exists), so `./a/../plan.png` and a link to an
/// input are caught. A refusal is one `TilecutError.invalidOption` line (exit 2)
/// naming the option; nothing has been touched when it is thrown.
public enum OptionPaths {
  /// One file an option names: `("--depfile", "tiles.d")`.
  public typealias Named = (option: String, path: String)

  /// Refuses, before any work:
  /// - an `outputDirectory` (replaced whole) that is the working directory or one of
  ///   its ancestors (`-o .`, `-o ..`, `-o /`);
  /// - an input inside `outputDirectory`;
  /// - an option's file that is a directory, whose folder does not exist, that cannot
  ///   be written, that is a socket or block device, that is the same file as another
  ///   option's, that is an input or an input's sidecar (world file, `.prj`,
  ///   `.aux.xml`) or one of `inputs` (a project file, a `--world-file`), that lies
  ///   inside an input that is a folder (an IMDF venue's, a tilecut output re-tiled), or
  ///   that lies inside `outputDirectory` or one of `directories` (outputs read, such as
  ///   the directory `preview` stitches) or the tilecut output holding a store file read.
  ///
  /// `inputs`: plain paths (no `[page=N]`); sidecars are derived from them.
  /// Character devices and FIFOs (`/dev/null`, `/dev/stdout`) may be shared by options.
  public static func check(
    outputs: [Named], inputs: [String], outputDirectory: String?, outputOption: String = "--output", directories: [String] = []
  ) throws {
    if let outputDirectory { try checkOutputDirectory(outputDirectory, option: outputOption, inputs: inputs) }
    let protected = inputs.flatMap { [Where(path: $0)] + sidecars(of: $0).map { Where(path: $0, sidecar: true) } }
    let trees = (outputDirectory.map { [$0] } ?? []) + directories + inputs.compactMap(outputHolding(store:))
    let folders = protected.filter { !$0.sidecar && $0.kind == .directory }
    var seen: [(option: String, place: Where, shareable: Bool)] = []
    for (option, path) in outputs {
      let place = try checkWritable(option: option, path: path)
      let shareable = place.kind == .device || place.kind == .fifo
      for other in seen where other.place.same(as: place) && !(shareable && other.shareable) {
        throw TilecutError.invalidOption(option: option, reason: "'\(path)' is the same file as \(other.option); give each its own file")
      }
      if !shareable {
        if let input = protected.first(where: { $0.same(as: place) }) {
          let what = input.sidecar ? "is \(input.path), a file tilecut reads beside an input" : "is the input \(input.path)"
          throw TilecutError.invalidOption(option: option, reason: "'\(path)' \(what); name another file")
        }
        // a file of a folder read as an input (an IMDF venue's layers, a tilecut output re-tiled)
        for input in folders where place.key.hasPrefix(input.key + "/") || (input.key == "/" && place.key.hasPrefix("/")) {
          throw TilecutError.invalidOption(
            option: option, reason: "'\(path)' is inside the input \(input.path), a folder tilecut reads; name a file outside it")
        }
        for tree in trees {
          let root = Where(path: tree)
          if root.same(as: place) || place.key.hasPrefix(root.key + "/") || (root.key == "/" && place.key.hasPrefix("/")) {
            throw TilecutError.invalidOption(
              option: option,
              reason:
                "'\(path)' is inside \(tree), a tilecut output (replaced whole, and any other file there stops the next run); name a file outside it")
          }
        }
      }
      seen.append((option, place, shareable))
    }
  }

  /// The tilecut output a store file read as an input lies in (an `.mbtiles` or
  /// `.pmtiles` beside a `manifest.json`): its manifest and other stores are as much
  /// the user's as the store read.
  static func outputHolding(store path: String) -> String? {
    let lower = path.lowercased()
    guard lower.hasSuffix(".mbtiles") || lower.hasSuffix(".pmtiles") else { return nil }
    let folder = (path as NSString).deletingLastPathComponent
    let directory = folder.isEmpty ? "." : folder
    return FileManager.default.fileExists(atPath: directory + "/manifest.json") ? directory : nil
  }

  /// Refuses an output directory that holds the working directory, that is an input,
  /// lies inside one or holds one.
  static func checkOutputDirectory(_ directory: String, option: String, inputs: [String]) throws {
    guard !directory.isEmpty else { throw TilecutError.invalidOption(option: option, reason: "an empty path names no directory") }
    let out = Where(path: directory)
    let cwd = Where(path: ".")
    if out.same(as: cwd) || out.key == "/" || cwd.key.hasPrefix(out.key + "/") {
      throw TilecutError.invalidOption(
        option: option,
        reason:
          "'\(directory)' is the working directory or one of its parents; tilecut replaces its output whole: name a new directory, e.g. -o tiles")
    }
    for input in inputs {
      let place = Where(path: input)
      if place.key.hasPrefix(out.key + "/") {
        throw TilecutError.invalidOption(
          option: option, reason: "'\(directory)' holds the input \(input), and tilecut replaces its output whole; name another directory")
      }
      // `merge p1 p1 p2`: the output would replace the shard it reads
      if out.same(as: place) || (place.kind == .directory && (out.key.hasPrefix(place.key + "/") || place.key == "/")) {
        let what = out.same(as: place) ? "is the input \(input)" : "is inside the input \(input)"
        throw TilecutError.invalidOption(
          option: option, reason: "'\(directory)' \(what), and tilecut replaces its output whole; name another directory")
      }
    }
  }

  /// The files GDAL and tilecut read beside an image: world files, `.prj` (beside the
  /// image and beside each world file) and `.aux.xml`.
  public static func sidecars(of input: String) -> [String] {
    let worlds = WorldFile.sidecarCandidates(for: input)
    var out = worlds + [projection(beside: input), input + ".aux.xml", projection(beside: input).dropLast(4) + ".aux.xml"]
    out += worlds.map(projection(beside:))
    return out
  }

  /// `plan.png` → `plan.prj`.
  static func projection(beside path: String) -> String {
    let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    guard let dot = path[slash...].lastIndex(of: "."), dot != slash else { return path + ".prj" }
    return String(path[..<dot]) + ".prj"
  }

  /// What a path is, followed through links.
  enum Kind { case absent, regular, directory, device, fifo, other }

  /// Where a path resolves: its key (real folder + name) and, when it exists, device and inode.
  struct Where {
    var path: String
    var key: String
    var identity: (UInt64, UInt64)?
    var kind: Kind
    var sidecar = false

    init(path: String, sidecar: Bool = false) {
      self.path = path
      self.sidecar = sidecar
      var st = stat()
      if stat(path, &st) == 0 {
        identity = (UInt64(st.st_dev), UInt64(st.st_ino))
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFCHR: kind = .device
        case S_IFIFO: kind = .fifo
        default: kind = .other
        }
      } else {
        identity = nil
        kind = .absent
      }
      key = OptionPaths.resolve(path)
      // sidecars are found without regard to case (plan.PGW)
      if sidecar { key = key.lowercased() }
    }

    func same(as other: Where) -> Bool {
      if let a = identity, let b = other.identity, a == b { return true }
      return sidecar || other.sidecar ? key.lowercased() == other.key.lowercased() : key == other.key
    }
  }

  /// The real path of a file, or of its folder plus its name when it does not exist.
  package static func resolve(_ path: String) -> String {
    if let real = realpath(path, nil) {
      defer { free(real) }
      return String(cString: real)
    }
    let url = URL(fileURLWithPath: path)
    let name = url.lastPathComponent
    let folder = url.deletingLastPathComponent().path
    guard let real = realpath(folder.isEmpty ? "." : folder, nil) else { return url.standardizedFileURL.path }
    defer { free(real) }
    let base = String(cString: real)
    return (base == "/" ? "" : base) + "/" + name
  }

  /// The file an option names can be written without replacing anything but a file.
  static func checkWritable(option: String, path: String) throws -> Where {
    guard !path.isEmpty else { throw TilecutError.invalidOption(option: option, reason: "an empty path names no file") }
    if path.hasSuffix("/") { throw TilecutError.invalidOption(option: option, reason: "'\(path)' names a directory; name a file") }
    var place = Where(path: path)
    if OptionFile.descriptor(path) != nil {
      // the process's own stdout or stderr: written where it stands, never replaced
      place.kind = .device
      return place
    }
    func refuse(_ why: String) -> TilecutError { TilecutError.invalidOption(option: option, reason: "'\(path)' \(why)") }
    if OptionFile.passesThroughProc(path) {
      // `/dev/stdin < notes.txt`, a link to `/dev/stdout >> log`: a descriptor's name that
      // leads to a file of the user's, which a rename would replace; `/dev/fd/N` for a
      // descriptor tilecut was not given (its own signal pipe, an output it has open)
      throw refuse("names a descriptor tilecut was not given, or a file through /proc; name the file itself or /dev/stdout")
    }
    switch place.kind {
    case .directory: throw refuse("is a directory; name a file")
    case .other: throw refuse("is a socket or block device; tilecut writes files, character devices and FIFOs")
    case .device, .fifo:
      guard access(path, W_OK) == 0 else { throw refuse("cannot be written (\(String(cString: strerror(errno))))") }
      return place
    case .regular, .absent:
      let folder = URL(fileURLWithPath: place.key).deletingLastPathComponent().path
      var st = stat()
      guard stat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
        throw refuse("cannot be written: the folder \(URL(fileURLWithPath: path).deletingLastPathComponent().path) does not exist")
      }
      var lst = stat()
      if place.kind == .absent, lstat(path, &lst) == 0 {
        // a dangling link: writing would create a file wherever it points
        throw refuse("is a symbolic link to nothing; name the file itself")
      }
      if place.kind == .regular, access(path, W_OK) != 0 { throw refuse("is not writable (\(String(cString: strerror(errno))))") }
      guard access(folder, W_OK) == 0 else { throw refuse("cannot be written: \(folder) is not writable") }
      return place
    }
  }
}

/// Writes the file an option names: by atomic rename where the path is absent or a
/// regular file (through a link, at the file it names), in place where it is a
/// character device or a FIFO (as `gcc -MF` does: `/dev/null`, `/dev/stdout`, a pipe),
/// never replacing either. `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` are the
/// process's own descriptors.
public enum OptionFile {
  /// `what`: how the error names the file ("the --depfile rule").
  public static func write(_ bytes: [UInt8], to path: String, what: String) throws {
    func fail(_ e: Int32) -> TilecutError {
      TilecutError.output(path: path, reason: "cannot write \(what) (\(String(cString: strerror(e))))")
    }
    if let fd = descriptor(path) {
      try writeAll(bytes, fd: fd, fail: fail)
      return
    }
    var st = stat()
    let exists = stat(path, &st) == 0
    let kind = exists ? st.st_mode & S_IFMT : 0
    if exists && (kind == S_IFCHR || kind == S_IFIFO) {
      let fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
      guard fd >= 0 else { throw fail(errno) }
      defer { close(fd) }
      try writeAll(bytes, fd: fd, fail: fail)
      return
    }
    if exists && kind != S_IFREG {
      throw TilecutError.output(path: path, reason: "cannot write \(what): it is not a regular file, character device or FIFO")
    }
    // through a link to a file: replace the file, keep the link
    let target = exists ? OptionPaths.resolve(path) : path
    let url = URL(fileURLWithPath: target)
    let folder = url.deletingLastPathComponent().path
    let temporary = (folder.isEmpty ? "." : folder) + "/." + url.lastPathComponent + ".tilecut-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw fail(errno) }
    do {
      try writeAll(bytes, fd: fd, fail: fail)
      guard fsync(fd) == 0 || errno == EINVAL else { throw fail(errno) }
      close(fd)
    } catch {
      close(fd)
      unlink(temporary)
      throw error
    }
    guard rename(temporary, target) == 0 else {
      let e = errno
      unlink(temporary)
      throw fail(e)
    }
  }

  /// The descriptor `/dev/stdout`-style names stand for, written at its position
  /// (opening the path again would start a redirected file from its beginning).
  static func descriptor(_ name: String) -> Int32? {
    let path = lexicallyNormal(name)
    switch path {
    case "/dev/stdout": return 1
    // the real stderr: fd 2 is a pipe for libraries' messages in the command-line tool
    case "/dev/stderr": return tc_stderr_fd()
    default:
      for prefix in ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"] where path.hasPrefix(prefix) {
        guard let n = Int32(path.dropFirst(prefix.count)), n >= 0 else { continue }
        if n == 2 { return tc_stderr_fd() }
        // only a descriptor the caller gave tilecut, never one of its own (its signal
        // pipe, its copy of stderr, an open output)
        switch tc_descriptor_inherited(n) {
        case 1: return n
        case 0: return nil
        default: if n != tc_stderr_fd(), fcntl(n, F_GETFD) != -1 { return n }
        }
      }
      return nil
    }
  }

  /// An absolute path without empty, `.` and `..` components (`//dev/./stdout` → `/dev/stdout`);
  /// a relative one unchanged.
  static func lexicallyNormal(_ path: String) -> String {
    guard path.hasPrefix("/") else { return path }
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == ".." {
        _ = parts.popLast()
        continue
      }
      parts.append(part)
    }
    return "/" + parts.joined(separator: "/")
  }

  /// Whether resolving `path` goes through `/proc` (`/dev/stdin`, `/dev/fd/N`,
  /// `/proc/thread-self/fd/N`, a link to one of them): a name for a descriptor, whose
  /// target is whatever the descriptor happens to be open on.
  static func passesThroughProc(_ path: String) -> Bool {
    func underProc(_ p: String) -> Bool { p == "/proc" || p.hasPrefix("/proc/") }
    var current = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    for _ in 0..<40 {
      current = lexicallyNormal(current)
      if underProc(current) { return true }
      let url = URL(fileURLWithPath: current)
      let folder = url.deletingLastPathComponent().path
      guard let real = realpath(folder.isEmpty ? "/" : folder, nil) else { return false }
      let base = String(cString: real)
      free(real)
      if underProc(base) { return true }
      let resolved = (base == "/" ? "" : base) + "/" + url.lastPathComponent
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(resolved, &buffer, Int(PATH_MAX))
      guard count > 0 else { return false }
      let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      current = target.hasPrefix("/") ? target : (base == "/" ? "" : base) + "/" + target
    }
    return true
  }

  static func writeAll(_ bytes: [UInt8], fd: Int32, fail: (Int32) -> TilecutError) throws {
    let status = bytes.withUnsafeBytes { raw in tc_write_all(fd, raw.baseAddress, raw.count) }
    if status != 0 { throw fail(status) }
  }
}
