import Foundation
import Testing

@Suite(
  "DXF hatch boundaries GDAL cannot read, against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingHatchEdgeTests {
  /// Hatches bounded by SPLINE edges given by fit points alone (as ezdxf and LibreCAD
  /// write them), solid and patterned, with an arc edge beside them: GDAL 3.6 gives such
  /// a hatch no boundary, so nothing was drawn (seen 0.075 recall); read from the DXF,
  /// the spline is the cubic CAD interpolates through the points, as ezdxf draws it.
  @Test("a hatch bounded by fit-point splines is filled as ezdxf fills it")
  func fitPointSplines() throws {
    let result = try compareOnSheet(
      "hatch-fit-splines", height: 2000,
      body: """
        h = msp.add_hatch(color=1)
        ep = h.paths.add_edge_path()
        ep.add_spline(fit_points=[(200, 200), (700, 900), (1300, 500), (1800, 1500)])
        ep.add_line((1800, 1500), (200, 1500))
        ep.add_line((200, 1500), (200, 200))
        h = msp.add_hatch()
        h.set_pattern_fill("ANSI31", color=5, scale=10)
        ep = h.paths.add_edge_path()
        ep.add_spline(fit_points=[(2200, 300), (2900, 1100), (3600, 300)])
        ep.add_line((3600, 300), (2200, 300))
        h = msp.add_hatch(color=3)
        ep = h.paths.add_edge_path()
        ep.add_arc((4800, 900), 600, 180, 360)
        ep.add_spline(fit_points=[(5400, 900), (5100, 1300), (4800, 1100), (4500, 1600), (4200, 900)])
        """)
    result.expectAsEzdxf("fit-point spline hatches", least: 0.95)
  }

  /// An edge path whose edges leave a gap (an elliptic arc that meets neither
  /// neighbour): GDAL gives its edges as lines, drawn as no area (seen 0.049 recall);
  /// ezdxf joins each edge at the end that meets the loop and bridges the gap with a
  /// line, then fills it, as tilecut now does.
  @Test("a hatch whose edges leave a gap is filled as ezdxf closes it")
  func gappedEdges() throws {
    let result = try compareOnSheet(
      "hatch-gap", height: 2000,
      body: """
        h = msp.add_hatch(color=1)
        ep = h.paths.add_edge_path()
        ep.add_line((1000, 200), (3000, 200))
        ep.add_arc((3000, 900), 700, -90, 90)
        ep.add_line((3000, 1600), (1000, 1600))
        ep.add_ellipse((1000, 900), (0, 700), 0.4, 90, 270)
        """)
    result.expectAsEzdxf("gapped hatch edges", least: 0.95)
  }
}
