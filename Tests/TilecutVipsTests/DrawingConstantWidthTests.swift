import Foundation
import Testing

@Suite(
  "DXF polylines of constant width against ezdxf",
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingConstantWidthTests {
  /// Polylines of one width all along: an LWPOLYLINE's constant width (43), its
  /// vertices' equal widths, an R2010 POLYLINE's default widths, closed and open, with
  /// sharp corners and bulges. ezdxf fills them as the mitred outline its TraceBuilder
  /// builds, square at the ends, as it does for widths that vary; a stroke of that
  /// width has round joins (seen 0.983 recall, 1.000 precision before).
  @Test("constant-width polylines are filled as mitred outlines, as ezdxf draws them")
  func constantWidths() throws {
    let result = try compareOnSheet(
      "constant-widths", height: 3000,
      body: """
        msp.add_lwpolyline([(300, 300), (2000, 300), (1200, 1000), (2300, 2600)],
                           dxfattribs={"const_width": 200, "color": 1})
        msp.add_lwpolyline([(2800, 300), (4200, 300), (4200, 1400), (2800, 1400)], close=True,
                           dxfattribs={"const_width": 90})
        msp.add_lwpolyline([(2800, 1900, 60, 60, 0), (3600, 1900, 60, 60, 1), (3600, 2700, 60, 60, 0),
                            (4400, 2300, 60, 60, 0)], format="xyseb", dxfattribs={"color": 5})
        zigzag = msp.add_polyline2d([(4700, 300), (4950, 1300), (5200, 300), (5450, 1300)],
                                    dxfattribs={"color": 3})
        zigzag.dxf.default_start_width = 150
        zigzag.dxf.default_end_width = 150
        arc = msp.add_polyline2d([(4700, 1700), (5600, 1700), (5600, 2700)], close=True)
        arc.dxf.default_start_width = 50
        arc.dxf.default_end_width = 50
        arc.vertices[0].dxf.bulge = -0.6
        """)
    result.expectAsEzdxf("constant-width polylines", least: 0.995)
  }
}
