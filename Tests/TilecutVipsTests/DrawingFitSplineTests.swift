import Foundation
import Testing

@Suite(
  "DXF SPLINEs given by fit points, against ezdxf", .serialized,
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingFitSplineTests {
  /// SPLINE entities given by fit points alone (GDAL 3.6 cannot read them), unevenly
  /// spaced, with and without end tangents, thick enough that a curve a few pixels off
  /// misses: ezdxf draws the cubic CAD interpolates through the points over their chord
  /// lengths (fit_points_to_cad_cv), where a Catmull-Rom curve through the same points
  /// strays between them.
  @Test("SPLINEs given by fit points are drawn as ezdxf draws them")
  func fitPointSplines() throws {
    let result = try compareOnSheet(
      "fit-splines", height: 3000,
      body: """
        pts = [(200, 200), (400, 2600), (1800, 300), (2000, 2700), (3800, 2500), (4000, 400), (5800, 2800)]
        msp.add_spline(fit_points=pts, dxfattribs={"color": 1, "lineweight": 200})
        s = msp.add_spline(fit_points=[(300, 1200), (1500, 1500), (1700, 2900), (4600, 1000), (5600, 1600)],
                           dxfattribs={"color": 5, "lineweight": 200})
        s.dxf.start_tangent = (0, -1, 0)
        s.dxf.end_tangent = (1, 1, 0)
        """)
    result.expectAsEzdxf("fit-point splines", least: 0.95)
  }
}
