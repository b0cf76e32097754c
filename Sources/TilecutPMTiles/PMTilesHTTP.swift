import Foundation

#if canImport(CTilecutHTTP)
  import CTilecutHTTP
#else
  #if canImport(FoundationNetworking)
    import FoundationNetworking
  #endif
#endif

/// An archive on an http(s) server that honours `Range: bytes=a-b`: every read is
/// one request of `Accept-Encoding: identity`, and an answer that is not the range
/// asked for (a 200 with the whole file, another range, a Content-Encoding, more bytes
/// than asked) is refused at its header, its body never read.
///
/// On Linux the request goes through libcurl's easy interface (`CTilecutHTTP`):
/// swift-corelibs-foundation's URLSession reads a refused answer to its end (it ignores
/// the response disposition) and inflates a gzip answer whole before its delegate sees
/// a byte. Elsewhere URLSession, whose cancel stops the transfer.
public final class PMTilesHTTPSource: PMTilesByteSource, @unchecked Sendable {
  public let url: URL
  public var name: String { url.absoluteString }
  let lock = NSLock()
  var knownSize: UInt64?
  var requestCount = 0
  /// Where the server's redirects led the first read: later reads go there directly,
  /// so a redirected archive costs no request more than one served in place.
  var resolved: URL?
  /// Redirects one read follows.
  static let maxRedirects = 5

  /// Seconds a server may stay silent; a whole read may take four times that.
  let timeout: TimeInterval

  #if !canImport(CTilecutHTTP)
    let session: URLSession
    let delegate: RangeDelegate
  #endif

  public init(url: URL, timeout: TimeInterval = 30) throws {
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw PMTilesFormatError("\(url.absoluteString) is not an http(s) URL")
    }
    self.url = url
    self.timeout = timeout
    #if !canImport(CTilecutHTTP)
      let configuration = URLSessionConfiguration.ephemeral
      configuration.timeoutIntervalForRequest = timeout
      // a server that drips its answer a byte at a time never idles long enough for the
      // request timeout: each read has a deadline as a whole too
      configuration.timeoutIntervalForResource = timeout * 4
      configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
      configuration.urlCache = nil
      delegate = RangeDelegate()
      session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    #endif
  }

  #if !canImport(CTilecutHTTP)
    deinit { session.invalidateAndCancel() }
  #endif

  /// The archive's size, from the first answer's Content-Range.
  public var size: UInt64? { lock.withLock { knownSize } }

  /// How many requests this source has made.
  public var requests: Int { lock.withLock { requestCount } }

  public func prefix(_ length: Int) throws -> [UInt8] { try read(offset: 0, length: length) }

  public func read(offset: UInt64, length: Int) throws -> [UInt8] {
    guard length > 0 else { return [] }
    let answer = fetch(offset: offset, length: length)
    switch answer {
    case .failed(let reason):
      throw PMTilesFormatError(reason)
    case .bytes(let bytes, let total, let final):
      lock.withLock {
        if let total { knownSize = total }
        if resolved == nil, let final, final != url { resolved = final }
      }
      return bytes
    }
  }

  #if canImport(CTilecutHTTP)
    /// One range through libcurl, following at most `maxRedirects` redirects to http(s) URLs.
    func fetch(offset: UInt64, length: Int) -> RangeAnswer {
      var target = lock.withLock { resolved } ?? url
      var buffer = [UInt8](repeating: 0, count: length)
      for _ in 0...Self.maxRedirects {
        lock.withLock { requestCount += 1 }
        var answer = tc_http_answer()
        let silence = max(1, Int(timeout.rounded(.up)))
        let result = buffer.withUnsafeMutableBufferPointer {
          tc_http_range(target.absoluteString, offset, length, silence, silence * 4, $0.baseAddress, &answer)
        }
        let message = Self.text(of: &answer.message)
        switch Int(result) {
        case Int(TC_HTTP_OK):
          let total = answer.total >= 0 ? UInt64(answer.total) : nil
          return .bytes(Array(buffer.prefix(answer.received)), total: total, url: target)
        case Int(TC_HTTP_REDIRECT):
          let location = Self.text(of: &answer.location)
          guard let next = URL(string: location, relativeTo: target)?.absoluteURL, let scheme = next.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
          else {
            return .failed("the server redirected to '\(location.prefix(100))', not an http(s) URL; tilecut follows redirects to http(s) only")
          }
          target = next
        case Int(TC_HTTP_REFUSED):
          return .failed(message)
        default:
          return .failed("the request failed (\(Self.reason(curlCode: answer.curl_code, message: message)))")
        }
      }
      return .failed("the request failed (too many redirects)")
    }

    /// A C string held in a fixed array of the answer.
    static func text<T>(of field: inout T) -> String {
      withUnsafeBytes(of: &field) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Words for the libcurl errors a reader meets.
    static func reason(curlCode: Int32, message: String) -> String {
      switch curlCode {
      case 28: return "timed out"
      case 5, 6: return "host not found"
      case 7: return "could not connect"
      case 35, 53, 54, 58, 59, 60, 64, 66, 77, 80, 82, 83, 90, 91: return "the TLS connection failed"
      case 18, 52, 55, 56: return "the connection was lost"
      case 47: return "too many redirects"
      default: return message.isEmpty ? "libcurl error \(curlCode)" : message
      }
    }
  #else
    func fetch(offset: UInt64, length: Int) -> RangeAnswer {
      var request = URLRequest(url: lock.withLock { resolved } ?? url)
      request.setValue("bytes=\(offset)-\(offset + UInt64(length) - 1)", forHTTPHeaderField: "Range")
      request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
      lock.withLock { requestCount += 1 }
      return delegate.run(session.dataTask(with: request), expect: offset, length: length, deadline: timeout * 4)
    }
  #endif
}

/// The outcome of one range request.
enum RangeAnswer: Sendable {
  /// The range's bytes, the file's size when the server said it, and the URL that answered (after redirects).
  case bytes([UInt8], total: UInt64?, url: URL?)
  case failed(String)
}

#if !canImport(CTilecutHTTP)
  /// Collects the body of range requests, and cancels one whose answer is not the range asked for.
  final class RangeDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    final class Pending {
      let offset: UInt64
      let length: Int
      var bytes: [UInt8] = []
      var total: UInt64?
      var answered: URL?
      var failure: String?
      let done = DispatchSemaphore(value: 0)
      init(offset: UInt64, length: Int) {
        self.offset = offset
        self.length = length
      }
    }

    let lock = NSLock()
    var pending: [Int: Pending] = [:]

    func run(_ task: URLSessionDataTask, expect offset: UInt64, length: Int, deadline: TimeInterval) -> RangeAnswer {
      let p = Pending(offset: offset, length: length)
      lock.withLock { pending[task.taskIdentifier] = p }
      task.resume()
      if p.done.wait(timeout: .now() + deadline) == .timedOut {
        lock.withLock { pending[task.taskIdentifier] = nil }
        task.cancel()
        return .failed("the server did not send \(length) bytes within \(Int(deadline)) s")
      }
      lock.withLock { pending[task.taskIdentifier] = nil }
      if let failure = p.failure { return .failed(failure) }
      return .bytes(p.bytes, total: p.total, url: p.answered)
    }

    func urlSession(
      _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
      completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
      guard let p = lock.withLock({ pending[dataTask.taskIdentifier] }) else { return completionHandler(.cancel) }
      let http = response as? HTTPURLResponse
      let status = http?.statusCode ?? 0
      let encoding = http?.value(forHTTPHeaderField: "Content-Encoding") ?? "identity"
      if encoding.lowercased() != "identity" {
        p.failure =
          "the server sent its answer with Content-Encoding '\(encoding.prefix(40))' though identity was asked for; tilecut reads archives byte for byte"
      } else if status == 206 {
        // Content-Range: bytes a-b/total (or /*)
        let range = http?.value(forHTTPHeaderField: "Content-Range") ?? ""
        let parts = range.replacingOccurrences(of: "bytes ", with: "").split(separator: "/")
        let start = parts.first?.split(separator: "-").first.flatMap { UInt64($0) }
        if start != p.offset {
          p.failure = "the server answered a range other than the one asked for (\(range.isEmpty ? "no Content-Range" : range))"
        } else {
          p.total = parts.count == 2 ? UInt64(parts[1]) : nil
          p.answered = http?.url
          return completionHandler(.allow)
        }
      } else if status == 200 {
        p.failure = "the server ignores Range requests (it answered 200 with the whole file); serve the archive from a host that honours Range"
      } else if status == 416 {
        p.failure = "the server says the range \(p.offset)+\(p.length) is outside the file (HTTP 416): the archive is shorter than its header says"
      } else {
        p.failure = "the server answered HTTP \(status)"
      }
      completionHandler(.cancel)
      // the disposition alone does not stop a transfer everywhere: the task is cancelled too
      dataTask.cancel()
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
      // data that arrives after a refused answer is dropped, and the refusal kept
      guard let p = lock.withLock({ pending[dataTask.taskIdentifier] }), p.failure == nil else { return dataTask.cancel() }
      if p.bytes.count + data.count > p.length {
        p.failure = "the server sent more than the \(p.length) bytes asked for"
        dataTask.cancel()
        return
      }
      p.bytes += data
    }

    /// Words for the URL errors a reader meets, where Foundation on Linux gives
    /// "The operation could not be completed" or "NSURLErrorDomain error -1001".
    static func reason(_ error: NSError) -> String {
      guard error.domain == NSURLErrorDomain else { return error.localizedDescription }
      switch error.code {
      case NSURLErrorTimedOut: return "timed out"
      case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return "host not found"
      case NSURLErrorCannotConnectToHost: return "could not connect"
      case NSURLErrorNetworkConnectionLost: return "the connection was lost"
      case NSURLErrorNotConnectedToInternet: return "no network"
      case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
        NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot:
        return "the TLS connection failed"
      case NSURLErrorHTTPTooManyRedirects: return "too many redirects"
      default: return "URL error \(error.code)"
      }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
      guard let p = lock.withLock({ pending[task.taskIdentifier] }) else { return }
      if p.failure == nil, let error {
        p.failure = "the request failed (\(Self.reason(error as NSError)))"
      }
      p.done.signal()
    }
  }
#endif
