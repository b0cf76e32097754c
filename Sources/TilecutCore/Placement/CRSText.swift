import Foundation

/// What PROJ would do with a CRS's text beyond parsing it: `+init=` reads a file
/// (any path, a FIFO that never ends), and a grid named by path (`+nadgrids=/…`,
/// `+geoidgrids=…/…`) opens that file, whatever it is. A `.prj`, an `.aux.xml` or
/// `--source-crs` may carry either, also inside WKT (`EXTENSION["PROJ4", "…"]`).
/// Grids named bare (`@null`, `ntv2_0.gsb`) are looked up in PROJ's own resource
/// folders, which are the machine's, and stay allowed. A reason never quotes the text:
/// it may be a file's bytes (an environment behind a link), which no line repeats.
public enum CRSText {
  /// Why `text` is refused, or nil.
  public static func unsafeReason(_ text: String) -> String? {
    let lower = text.lowercased()
    if lower.contains("init=") {
      return "reads a file through PROJ's +init=; give the CRS itself (EPSG:NNNN, WKT or a full PROJ string)"
    }
    for key in ["nadgrids=", "geoidgrids=", "grids=", "file="] {
      var rest = lower[...]
      while let found = rest.range(of: key) {
        let value = rest[found.upperBound...].prefix { !" \t\r\n\"'],+".contains($0) || $0 == "," }
        for entry in value.split(separator: ",") {
          let name = entry.hasPrefix("@") ? entry.dropFirst() : entry
          if name.contains("/") || name.contains("\\") || name.hasPrefix("~") {
            return "names a PROJ grid by path (after \(key)); name a grid installed with PROJ, or none"
          }
        }
        rest = rest[found.upperBound...]
      }
    }
    return nil
  }
}
