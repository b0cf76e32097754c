import Tilecut
import TilecutVips

extension TilecutCommand {
  /// `tilecut --version --verbose` (in either order): the version line, what shapes
  /// the output besides the inputs (renderer revision, libvips), then the notices.
  static func isVerboseVersion(_ args: [String]) -> Bool {
    args.count == 2 && Set(args) == ["--version", "--verbose"]
  }

  /// The version line, the renderer revision and libvips, a blank line, then NOTICE.
  static func verboseVersionText() -> String {
    """
    \(tilecutVersionLine)
    renderer revision \(rendererRevision), libvips \(Vips.version)

    \(noticeText)
    """
  }
}
