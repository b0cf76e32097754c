import Foundation

/// `preview.html`: one self-contained page (no external files but the tiles themselves
/// and, when the manifest's options name one, a base map) that pans and zooms over an
/// output, with a floor switcher, a 256/512 switch, the tile grid with z/x/y labels,
/// no-tile cells marked, an opacity slider, each floor's outline, the control points
/// with their residuals, a graticule where no base map shows, and the latitude and
/// longitude under the pointer. `window.tilecutPreview` exposes the projection.
public enum PreviewPage {
  public static func html(manifest: Manifest) -> String {
    let json = (try? manifest.encoded()).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    // Inside <script>, "</" would end the element: escape it.
    // "<!--" could start an HTML comment state that swallows the rest of the page.
    let embedded = json.replacingOccurrences(of: "</", with: "<\\/").replacingOccurrences(of: "<!--", with: "\\u003c!--")
    return template.replacingOccurrences(of: "__MANIFEST__", with: embedded)
  }

  /// The page, Sources/CTilecutResources/pages/preview.html, with the shared Mercator script in place.
  static let template = EmbeddedResources.page(EmbeddedResources.previewPage)
}
