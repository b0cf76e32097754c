import CTilecutPlatform
import Foundation

/// A thread of tilecut's own (the strip reader, the signal listener), started through
/// `tc_start_thread`: when the system cannot start one (no memory left under an
/// address-space limit, a process's thread limit), the run ends with one line instead
/// of waiting for ever for a thread that never ran (Foundation's `Thread` says nothing).
public enum OwnThread {
  private final class Body {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
  }

  /// Starts `body` on a detached thread named `name`.
  public static func start(name: String, _ body: @escaping () -> Void) throws {
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    let status = tc_start_thread({ raw in Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run() }, context, name)
    guard status == 0 else {
      Unmanaged<Body>.fromOpaque(context).release()
      throw TilecutError.system(
        reason:
          "cannot start a thread (\(String(cString: strerror(status)))): the system is out of memory or threads; run with more memory, or fewer --jobs"
      )
    }
  }
}
