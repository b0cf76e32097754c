import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif
#if canImport(Glibc)
  import Glibc
#endif

/// The repository's Tests/scripts/pmtiles-fixture.py: archives by the Python pmtiles writer
/// (protomaps' own, an independent reading of the spec) and a loopback server.
public let pmtilesFixtureScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .appendingPathComponent("../scripts/pmtiles-fixture.py").standardized.path

/// The fixture script's loopback HTTP server serving `root`: honours Range (or, with
/// `ignoreRange`, answers every request with the whole file) and counts what it serves.
/// Stopped by `stop()`.
public final class RangeServer {
  let process = Process()
  public let port: Int

  public struct NotStarted: Error {}

  public init(root: String, ignoreRange: Bool = false) throws {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", pmtilesFixtureScript, "serve", root] + (ignoreRange ? ["--ignore-range"] : [])
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
      let more = out.fileHandleForReading.availableData
      guard !more.isEmpty else { break }
      line += more
    }
    guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      throw NotStarted()
    }
    self.port = port
  }

  /// The URL of a file below the server's root.
  public func url(_ file: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(file)")! }

  /// What the server served so far: requests, body bytes, and each request's Range header ("none" without one).
  public func stats() throws -> (requests: Int, bytes: Int, ranges: [String]) {
    // through URLSession, which the PMTiles reader no longer loads on Linux
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var fetched: Data?
    URLSession.shared.dataTask(with: url("__stats")) { body, _, _ in
      fetched = body
      done.signal()
    }.resume()
    done.wait()
    guard let data = fetched else { throw NotStarted() }
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    return (object["requests"] as? Int ?? -1, object["bytes"] as? Int ?? -1, (object["ranges"] as? [String?] ?? []).map { $0 ?? "none" })
  }

  /// SIGKILL: a test runner may start children with SIGTERM blocked.
  public func stop() {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}
