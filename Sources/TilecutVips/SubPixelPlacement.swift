import Foundation
import TilecutCore

/// A placement so small that a level would shrink the source to nothing (libvips'
/// "shrinkv: image has shrunk to nothing"), named by the option that made it.
enum SubPixelPlacement {
  static func check(source: SourceDescription, placement: Placement, scale: Double, shrink: Int, region: PixelRect) throws {
    let width = (Double(source.width) * scale).rounded() / Double(max(1, shrink))
    let height = (Double(source.height) * scale).rounded() / Double(max(1, shrink))
    guard width < 1 || height < 1 else { return }
    let what: String
    switch placement.method {
    case .bounds: what = "--bounds"
    case .gcp: what = "--gcp"
    case .center: what = "--center with --meters-per-pixel"
    case .worldFile: what = "its world file"
    case .geotiff, .geotiffGCP: what = "its GeoTIFF georeference"
    default: what = "its placement"
    }
    throw TilecutError.invalidInput(
      path: source.path,
      reason:
        "\(what) places its \(source.width) × \(source.height) px in less than one pixel of a \(region.width) × \(region.height) px level (it would shrink by \(shrink)); widen \(what), or raise --max-zoom"
    )
  }
}
