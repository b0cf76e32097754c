import Foundation
import Testing

@Suite(
  "DXF IMAGEs against ezdxf",
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingImageTests {
  /// IMAGE entities, which GDAL 3.6 skips: ezdxf's drawing add-on always draws an
  /// IMAGE's boundary as lines (its clipping boundary, or its frame), and the picture
  /// only when it shows the image and finds its file. tilecut never reads a file a DXF
  /// names, so it draws the boundary alone; here the images are not shown (display
  /// flag off), which ezdxf draws the same way: a frame, a turned frame, a polygonal
  /// clipping boundary, a rectangular one (seen 0.541 recall before).
  @Test("IMAGE boundaries are drawn as ezdxf draws them, and no picture file is read")
  func imageBoundaries() throws {
    let result = try compareScripted(
      "images", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (60, 0), (60, 40), (0, 40)], close=True)
        plan = doc.add_image_def(filename="missing-plan.png", size_in_pixel=(640, 360))
        logo = doc.add_image_def(filename="C:\\\\scans\\\\logo.jpg", size_in_pixel=(200, 200))
        images = [
            msp.add_image(plan, insert=(5, 5), size_in_units=(32, 18), dxfattribs={"color": 1}),
            msp.add_image(logo, insert=(45, 10), size_in_units=(10, 10), rotation=30, dxfattribs={"color": 5}),
            msp.add_image(plan, insert=(5, 22), size_in_units=(24, 13.5)),
            msp.add_image(logo, insert=(38, 28), size_in_units=(8, 8), rotation=-15, dxfattribs={"color": 3}),
        ]
        images[2].set_boundary_path([(50, 50), (600, 40), (620, 300), (300, 340), (40, 250)])
        images[3].set_boundary_path([(20, 30), (180, 170)])
        for image in images:
            image.dxf.flags = 0
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("IMAGE boundaries", least: 0.95)
  }

  /// Shown IMAGEs (display flag set, as writers leave it) whose picture files are not
  /// there: ezdxf's drawing add-on writes each file's name across the image, 3/4 of its
  /// width, its capitals centred on it, and so does tilecut (which never opens the file,
  /// so writes it whether or not the file is there): a plain frame, a turned one, a
  /// clipped one, a Windows path (seen 0.574/1.000 with the frames alone).
  @Test("a shown IMAGE whose file is missing has its file name written across it, as ezdxf writes it")
  func missingPictureNames() throws {
    let result = try compareScripted(
      "image-names", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (60, 0), (60, 40), (0, 40)], close=True)
        plan = doc.add_image_def(filename="missing-plan.png", size_in_pixel=(640, 360))
        logo = doc.add_image_def(filename="C:\\\\scans\\\\logo.jpg", size_in_pixel=(200, 200))
        msp.add_image(plan, insert=(5, 5), size_in_units=(32, 18), dxfattribs={"color": 1})
        msp.add_image(logo, insert=(45, 10), size_in_units=(10, 10), rotation=30, dxfattribs={"color": 5})
        clipped = msp.add_image(plan, insert=(5, 22), size_in_units=(24, 13.5))
        clipped.set_boundary_path([(50, 50), (600, 40), (620, 300), (300, 340), (40, 250)])
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("IMAGE file names", least: 0.95)
  }

  /// IMAGEs inside blocks, which GDAL skips there too: placed by each insert of the
  /// block (moved, turned, scaled, nested) as ezdxf places them, frame and file name
  /// (seen 0.512/1.000 before).
  @Test("IMAGEs in blocks are drawn through their inserts, as ezdxf draws them")
  func imagesInBlocks() throws {
    let result = try compareScripted(
      "block-images", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (80, 0), (80, 50), (0, 50)], close=True)
        plan = doc.add_image_def(filename="site-photo.jpg", size_in_pixel=(400, 300))
        block = doc.blocks.new("PHOTO", base_point=(2, 1))
        block.add_image(plan, insert=(0, 0), size_in_units=(16, 12), dxfattribs={"color": 1})
        hidden = block.add_image(plan, insert=(18, 0), size_in_units=(6, 4.5))
        hidden.dxf.flags = 0
        block.add_line((0, -1), (24, -1))
        outer = doc.blocks.new("SHEET")
        outer.add_blockref("PHOTO", (0, 0), dxfattribs={"rotation": 10})
        msp.add_blockref("PHOTO", (5, 5))
        msp.add_blockref("PHOTO", (45, 5), dxfattribs={"rotation": 30, "xscale": 1.2, "yscale": 1.2})
        msp.add_blockref("SHEET", (10, 28), dxfattribs={"xscale": 0.8, "yscale": 0.8})
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("IMAGEs in blocks", least: 0.95)
  }
}
