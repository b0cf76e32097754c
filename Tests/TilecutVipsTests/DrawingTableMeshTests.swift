import Foundation
import Testing

/// The last lines of the ezdxf scripts below: the saved file's inserts of `*T` blocks made
/// ACAD_TABLEs (ezdxf writes none), in model space and in blocks.
let insertsOfTMadeTables = """
  text = open(sys.argv[1], encoding="utf8").read()
  text = re.sub(r"\\n  0\\nINSERT\\n(?=(?:(?!\\n  0\\n).)*?\\n  2\\n\\*T)", "\\n  0\\nACAD_TABLE\\n", text, flags=re.S)
  open(sys.argv[1], "w", encoding="utf8").write(text)
  """

@Suite(
  "DXF tables, arc dimensions and meshes against ezdxf",
  .enabled(if: ezdxfAvailable, "python3 with ezdxf and matplotlib is missing (make test-deps)"))
struct DrawingTableMeshTests {
  /// ACAD_TABLE and ARC_DIMENSION entities, which GDAL 3.6 skips: ezdxf draws each as
  /// its anonymous block (a table's *T, a dimension's *D) moved by its insertion point,
  /// and so does tilecut, through GDAL's inlining of an INSERT of that block. ezdxf
  /// writes no ACAD_TABLE, so the table here is an INSERT of a *T block retyped as one
  /// (the block reference it begins with is the same); two arc dimensions rendered by
  /// ezdxf (seen 0.193/1.000/1.000 before).
  @Test("ACAD_TABLEs and ARC_DIMENSIONs are drawn through their blocks, as ezdxf draws them")
  func tablesAndArcDimensions() throws {
    let result = try compareScripted(
      "tables", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        doc.header["$INSUNITS"] = 6
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (120, 0), (120, 60), (0, 60)], close=True)
        # a table as AutoCAD keeps it: its look in an anonymous *T block, the ACAD_TABLE inserting it
        block = doc.blocks.new_anonymous_block("T")
        for i in range(5):
            block.add_line((0, -6 * i), (48, -6 * i))
        for x in (0, 16, 32, 48):
            block.add_line((x, 0), (x, -24))
        block.add_solid([(0, -6), (48, -6), (0, -12), (48, -12)], dxfattribs={"color": 5})
        for i, word in enumerate(["Room", "Area", "Use"]):
            block.add_text(word, height=2.5, dxfattribs={"insert": (2 + 16 * i, -4)})
        msp.add_blockref(block.name, (10, 50), dxfattribs={"layer": "TABLES", "color": 3})
        # arc dimensions (their look in *D blocks)
        arc = msp.add_arc((90, 20), radius=20, start_angle=10, end_angle=120)
        dim = msp.add_arc_dim_cra(center=(90, 20), radius=20, start_angle=10, end_angle=120, distance=5)
        dim.render()
        dim2 = msp.add_arc_dim_cra(center=(95, 40), radius=12, start_angle=200, end_angle=330, distance=4)
        dim2.render()
        doc.saveas(sys.argv[1])
        # the insert made an ACAD_TABLE (ezdxf writes none): same block reference, table type
        text = open(sys.argv[1], encoding="utf8").read()
        head, entities = text.split("\\nENTITIES\\n", 1)
        entities = entities.replace("\\n  0\\nINSERT\\n", "\\n  0\\nACAD_TABLE\\n", 1)
        open(sys.argv[1], "w", encoding="utf8").write(head + "\\nENTITIES\\n" + entities)
        """)
    result.expectAsEzdxf("tables and arc dimensions", least: 0.95)
  }

  /// ACAD_TABLEs and ARC_DIMENSIONs inside blocks, which GDAL skips there too: each drawn
  /// as an INSERT of its own block placed as the inserts that place it (moved, turned,
  /// scaled, mirrored, nested), as ezdxf draws them through those inserts; none through an
  /// invisible insert or one in paper space.
  @Test("ACAD_TABLEs and ARC_DIMENSIONs in blocks are drawn through their inserts, as ezdxf draws them")
  func tablesAndArcDimensionsInBlocks() throws {
    let result = try compareScripted(
      "block-tables", columns: 1000,
      script: """
        import ezdxf, re, sys
        doc = ezdxf.new("R2010")
        doc.header["$INSUNITS"] = 6
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (160, 0), (160, 90), (0, 90)], close=True)
        table = doc.blocks.new_anonymous_block("T")
        for i in range(4):
            table.add_line((0, -4 * i), (24, -4 * i))
        for x in (0, 12, 24):
            table.add_line((x, 0), (x, -12))
        table.add_solid([(0, -4), (12, -4), (0, -8), (12, -8)], dxfattribs={"color": 5})
        table.add_text("Room", height=2, dxfattribs={"insert": (1, -3)})
        card = doc.blocks.new("CARD", base_point=(2, 1))
        card.add_line((0, 0), (30, 0))
        card.add_blockref(table.name, (0, 14), dxfattribs={"color": 3})
        card.add_arc((22, 4), radius=6, start_angle=10, end_angle=150)
        card.add_arc_dim_cra(center=(22, 4), radius=6, start_angle=10, end_angle=150, distance=3).render()
        pair = doc.blocks.new("PAIR")
        pair.add_blockref("CARD", (0, 0))
        pair.add_blockref("CARD", (40, 10), dxfattribs={"rotation": 30})
        msp.add_blockref("CARD", (5, 5))
        msp.add_blockref("CARD", (60, 5), dxfattribs={"rotation": 35, "xscale": 1.5, "yscale": 1.5})
        msp.add_blockref("CARD", (150, 40), dxfattribs={"xscale": -1})
        msp.add_blockref("PAIR", (10, 50), dxfattribs={"xscale": 0.7, "yscale": 0.7})
        # neither drawn: an invisible insert, one in paper space
        msp.add_blockref("CARD", (100, 60), dxfattribs={"invisible": 1})
        doc.paperspace().add_blockref("CARD", (100, 60))
        doc.saveas(sys.argv[1])
        # the inserts of *T blocks in blocks made ACAD_TABLEs (ezdxf writes none)
        \(insertsOfTMadeTables)
        """)
    result.expectAsEzdxf("tables and arc dimensions in blocks", least: 0.9)
  }

  /// A MINSERT of a block holding a table, an arc dimension, an IMAGE and a MESH (none of
  /// which GDAL reads in a block): each drawn at every copy, columns (70) by rows (71),
  /// 44 and 45 apart along the insert's turned axes, as ezdxf and GDAL place the block's
  /// other entities; one turned and scaled in model space, one inside a turned block.
  @Test("a MINSERT's tables, arc dimensions, IMAGEs and MESHes are drawn at every copy, as ezdxf draws them")
  func minsertCopies() throws {
    let result = try compareScripted(
      "minsert-tables", columns: 1000,
      script: """
        import ezdxf, re, sys
        doc = ezdxf.new("R2010")
        doc.header["$INSUNITS"] = 6
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (150, 0), (150, 100), (0, 100)], close=True)
        table = doc.blocks.new_anonymous_block("T")
        for i in range(3):
            table.add_line((0, -4 * i), (16, -4 * i))
        for x in (0, 8, 16):
            table.add_line((x, 0), (x, -8))
        table.add_text("Rm", height=2, dxfattribs={"insert": (1, -3)})
        photo = doc.add_image_def(filename="site.jpg", size_in_pixel=(400, 300))
        card = doc.blocks.new("CARD", base_point=(1, 1))
        card.add_blockref(table.name, (0, 22), dxfattribs={"color": 3})
        card.add_arc((10, 5), radius=5, start_angle=10, end_angle=150)
        card.add_arc_dim_cra(center=(10, 5), radius=5, start_angle=10, end_angle=150, distance=2).render()
        card.add_image(photo, insert=(19, 1), size_in_units=(8, 6), dxfattribs={"color": 1})
        mesh = card.add_mesh(dxfattribs={"color": 5})
        with mesh.edit_data() as data:
            data.vertices = [(19, 10, 0), (27, 10, 0), (27, 16, 0), (19, 16, 0), (23, 19, 0)]
            data.faces = [(0, 1, 2, 3), (3, 2, 4)]
        # 3 columns 40 apart by 2 rows 32 apart, turned and scaled
        msp.add_blockref("CARD", (8, 6), dxfattribs={"rotation": 12, "xscale": 0.8, "yscale": 0.8}).grid(size=(2, 3), spacing=(32, 40))
        # a MINSERT of 2 columns in a block, the block turned (not scaled: ezdxf 1.4.5 does
        # not scale a nested MINSERT's spacing, which GDAL and CAD do)
        row = doc.blocks.new("ROW")
        row.add_blockref("CARD", (0, 0), dxfattribs={"rotation": -10, "xscale": 0.6, "yscale": 0.6}).grid(size=(1, 2), spacing=(0, 24))
        msp.add_blockref("ROW", (75, 72), dxfattribs={"rotation": 5})
        doc.saveas(sys.argv[1])
        # the inserts of *T blocks in blocks made ACAD_TABLEs (ezdxf writes none)
        \(insertsOfTMadeTables)
        """)
    result.expectAsEzdxf("MINSERT copies", least: 0.9)
  }

  /// Tables and arc dimensions in a block placed sheared (a turned insert inside one
  /// scaled unevenly, which one INSERT cannot make) are sheared as GDAL shears the
  /// block's other entities, and as CAD draws them. ezdxf 1.4.5 draws such a nested insert
  /// without its shear (it makes the inner INSERT of the outer's scales and a turn,
  /// entities/insert.py `transform`), its lines as its tables, so ezdxf draws here the same
  /// drawing with those inserts exploded by their true placement (the reference, written
  /// beside it), and tilecut's rendering of the nested inserts is compared with it.
  @Test("tables and arc dimensions placed sheared through nested inserts are sheared as the block's other entities")
  func shearedTables() throws {
    let script = """
      import ezdxf, re, sys
      from ezdxf.entities import Ellipse, factory
      doc = ezdxf.new("R2010")
      doc.header["$INSUNITS"] = 6
      msp = doc.modelspace()
      msp.add_lwpolyline([(0, 0), (150, 0), (150, 90), (0, 90)], close=True)
      table = doc.blocks.new_anonymous_block("T")
      for i in range(4):
          table.add_line((0, -4 * i), (24, -4 * i))
      for x in (0, 12, 24):
          table.add_line((x, 0), (x, -12))
      table.add_solid([(0, -4), (12, -4), (0, -8), (12, -8)], dxfattribs={"color": 5})
      card = doc.blocks.new("CARD", base_point=(2, 1))
      card.add_line((0, 0), (30, 0))
      card.add_blockref(table.name, (0, 16), dxfattribs={"color": 3})
      card.add_arc((22, 5), radius=6, start_angle=10, end_angle=150)
      card.add_arc_dim_cra(center=(22, 5), radius=6, start_angle=10, end_angle=150, distance=3).render()
      pair = doc.blocks.new("PAIR")
      pair.add_blockref("CARD", (0, 0), dxfattribs={"rotation": 30})
      pair.add_blockref("CARD", (45, 0), dxfattribs={"rotation": -40, "xscale": 0.8, "yscale": 1.2})
      placed = [
          msp.add_blockref("PAIR", (12, 8), dxfattribs={"xscale": 1.4, "yscale": 0.8}),
          msp.add_blockref("PAIR", (30, 50), dxfattribs={"xscale": -1.0, "yscale": 0.7, "rotation": 20}),
      ]
      msp.add_blockref("CARD", (110, 55), dxfattribs={"rotation": 35})
      doc.saveas(sys.argv[1])
      # the inserts of *T blocks in blocks made ACAD_TABLEs (ezdxf writes none)
      \(insertsOfTMadeTables)
      # the reference: the sheared inserts exploded by their true placement
      def explode(block, m):
          for e in block:
              kind = e.dxftype()
              if kind == "INSERT":
                  explode(doc.blocks[e.dxf.name], e.matrix44() @ m)
                  continue
              if kind in ("DIMENSION", "ARC_DIMENSION"):
                  explode(doc.blocks[e.dxf.geometry], m)
                  continue
              copy = Ellipse.from_arc(e) if kind == "ARC" else e.copy()
              copy.transform(m)
              factory.bind(copy, doc)
              msp.add_entity(copy)
      for insert in placed:
          explode(doc.blocks[insert.dxf.name], insert.matrix44())
          msp.delete_entity(insert)
      doc.saveas(sys.argv[1] + ".ref.dxf")
      """
    let result = try withScriptedDXF("sheared-tables", script) { try compareWithEzdxf($0, columns: 1000, reference: $0 + ".ref.dxf") }
    result.expectAsEzdxf("sheared tables", least: 0.9)
  }

  /// Tables of colour ByBlock (62 = 0), their blocks' entities ByBlock too: in a block,
  /// each takes the colour of the insert that places it (a pale true colour, drawn as no
  /// ink; red; through a ByBlock insert inside a pale one; through a ByLayer insert on a
  /// layer of a pale true colour, that true colour, not the layer's ACI: seen precision
  /// 0.746 drawn black), as ezdxf draws a block's ByBlock entities; in model space, where
  /// no insert places it, ezdxf's default colour, drawn dark, not its layer's (a pale true
  /// colour).
  @Test("a table of colour ByBlock takes the colour of the insert that places it, as ezdxf draws it")
  func byBlockTables() throws {
    let result = try compareScripted(
      "byblock-tables", columns: 1000,
      script: """
        import ezdxf, re, sys
        doc = ezdxf.new("R2010")
        doc.header["$INSUNITS"] = 6
        pale = ezdxf.rgb2int((244, 244, 244))
        doc.layers.add("PALE", true_color=pale)
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (130, 0), (130, 70), (0, 70)], close=True)
        table = doc.blocks.new_anonymous_block("T")
        for i in range(4):
            table.add_line((0, -4 * i), (24, -4 * i), dxfattribs={"color": 0})
        for x in (0, 12, 24):
            table.add_line((x, 0), (x, -12), dxfattribs={"color": 0})
        table.add_solid([(0, -4), (24, -4), (0, -8), (24, -8)], dxfattribs={"color": 0})
        table.add_text("Room", height=2, dxfattribs={"insert": (1, -3), "color": 0})
        card = doc.blocks.new("CARD", base_point=(2, 1))
        card.add_line((0, 0), (30, 0))
        card.add_blockref(table.name, (0, 16), dxfattribs={"color": 0})
        outer = doc.blocks.new("OUTER")
        outer.add_blockref("CARD", (0, 0), dxfattribs={"color": 0, "rotation": 10})
        msp.add_blockref("CARD", (5, 5), dxfattribs={"true_color": pale})
        msp.add_blockref("CARD", (45, 5), dxfattribs={"color": 1})
        msp.add_blockref("OUTER", (88, 5), dxfattribs={"true_color": pale})
        msp.add_blockref(table.name, (10, 60), dxfattribs={"color": 0, "layer": "PALE"})
        msp.add_blockref("CARD", (50, 30), dxfattribs={"layer": "PALE"})
        doc.saveas(sys.argv[1])
        # the inserts of *T blocks made ACAD_TABLEs (ezdxf writes none)
        \(insertsOfTMadeTables)
        """)
    result.expectAsEzdxf("ByBlock tables", least: 0.9)
  }

  /// MESH entities and polygon meshes (POLYLINE flag 16), which GDAL 3.6 skips, and
  /// polyface meshes, which it gives as faces tilecut did not draw: ezdxf's drawing
  /// add-on strokes every face of each as a closed line (seen 0.441/1.000 before).
  @Test("MESHes, polygon meshes and polyface meshes are drawn face by face, as ezdxf draws them")
  func meshes() throws {
    let result = try compareScripted(
      "meshes", columns: 1000,
      script: """
        import ezdxf, sys, math
        doc = ezdxf.new("R2010")
        doc.header["$INSUNITS"] = 6
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (120, 0), (120, 60), (0, 60)], close=True)
        # a MESH: a 3 x 2 grid of quadrilaterals and a fan of triangles
        mesh = msp.add_mesh(dxfattribs={"color": 1})
        with mesh.edit_data() as data:
            data.vertices = [(10 + 10 * i, 10 + 10 * j, i * j) for j in range(3) for i in range(4)]
            data.faces = [(j * 4 + i, j * 4 + i + 1, (j + 1) * 4 + i + 1, (j + 1) * 4 + i) for j in range(2) for i in range(3)]
        fan = msp.add_mesh(dxfattribs={"color": 5})
        with fan.edit_data() as data:
            data.vertices = [(70, 30, 0)] + [(70 + 15 * math.cos(a / 6 * math.pi), 30 + 15 * math.sin(a / 6 * math.pi), 2) for a in range(12)]
            data.faces = [(0, 1 + a, 1 + (a + 1) % 12) for a in range(12)]
        # a polygon mesh (POLYLINE flag 16), 4 x 3 vertices
        polymesh = msp.add_polymesh(size=(4, 3), dxfattribs={"color": 3})
        for m in range(4):
            for n in range(3):
                polymesh.set_mesh_vertex((m, n), (10 + 8 * m + 2 * n, 40 + 6 * n, m))
        # a polyface mesh, two faces
        polyface = msp.add_polyface(dxfattribs={"color": 6})
        polyface.append_face([(95, 10), (110, 12), (105, 25)])
        polyface.append_face([(95, 10), (105, 25), (92, 28), (88, 15)])
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("meshes", least: 0.95)
  }

  /// MESHes and polygon meshes inside blocks, which GDAL skips there too: placed by each
  /// insert of the block (moved, turned, scaled, nested), as ezdxf places them (seen
  /// 0.552/1.000 before).
  @Test("MESHes and polygon meshes in blocks are drawn through their inserts, as ezdxf draws them")
  func meshesInBlocks() throws {
    let result = try compareScripted(
      "block-meshes", columns: 1000,
      script: """
        import ezdxf, sys
        doc = ezdxf.new("R2010")
        msp = doc.modelspace()
        msp.add_lwpolyline([(0, 0), (120, 0), (120, 60), (0, 60)], close=True)
        block = doc.blocks.new("GRID", base_point=(1, 1))
        mesh = block.add_mesh(dxfattribs={"color": 1})
        with mesh.edit_data() as data:
            data.vertices = [(4 * i, 4 * j, 0) for j in range(3) for i in range(3)]
            data.faces = [(j * 3 + i, j * 3 + i + 1, (j + 1) * 3 + i + 1, (j + 1) * 3 + i) for j in range(2) for i in range(2)]
        polymesh = block.add_polymesh(size=(3, 3), dxfattribs={"color": 3})
        for m in range(3):
            for n in range(3):
                polymesh.set_mesh_vertex((m, n), (12 + 5 * m + n, 6 * n, m))
        outer = doc.blocks.new("PAIR")
        outer.add_blockref("GRID", (0, 0))
        outer.add_blockref("GRID", (0, 16), dxfattribs={"rotation": -20})
        msp.add_blockref("GRID", (5, 5))
        msp.add_blockref("GRID", (50, 5), dxfattribs={"rotation": 35, "xscale": 1.5, "yscale": 1.5})
        msp.add_blockref("PAIR", (80, 20), dxfattribs={"xscale": 0.7, "yscale": 0.7})
        doc.saveas(sys.argv[1])
        """)
    result.expectAsEzdxf("meshes in blocks", least: 0.95)
  }
}
