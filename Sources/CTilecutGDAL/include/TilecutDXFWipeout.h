#ifndef TILECUT_DXF_WIPEOUT_H
#define TILECUT_DXF_WIPEOUT_H

#include <stddef.h>
#include <stdint.h>

/* A WIPEOUT mask of a text DXF in model space (drawing units), read from the DXF
 * itself (GDAL 3.6 skips WIPEOUT): `count` boundary points; drawn just before the
 * features of the model-space entity whose handle is `key` (the entity after it, or
 * the INSERT that places the block holding it; "" for after everything); `hidden`
 * when its layer is off or frozen. */
typedef struct {
  char key[24];
  /* the handle it is drawn as: its own, or the INSERT's that places its block */
  char handle[24];
  char layer[256];
  int hidden;
  double *xy;
  int count;
} tc_wipeout;

/* An entry of a SORTENTSTABLE: the entity with handle `entity` is drawn where
 * handle `sort` would be (handles as numbers). */
typedef struct {
  unsigned long long entity, sort;
} tc_sort_entry;

/* Where a HATCH inside a block lands: the model-space insert that inlines it (its
 * handle as a number), its place among that insert's hatches as GDAL gives them, and
 * the block-to-drawing affine (x' = m0 x + m1 y + m2, y' = m3 x + m4 y + m5), which
 * GDAL applies to its boundary but not to the pattern lines read from its raw codes. */
typedef struct {
  unsigned long long insert;
  size_t index;
  double m[6];
  /* the hatch's boundary when GDAL cannot read it (as tc_fit_hatch's, in the hatch's
   * OCS within the block; xy NULL otherwise) */
  double *xy;
  int count;
  int *rings;
  int ring_count;
  double extrusion[3], elevation;
} tc_hatch_transform;

void tc_hatch_transforms_free(tc_hatch_transform *hatches, size_t count);

/* A model-space SPLINE given by its fit points alone (sorted by handle), which GDAL 3.6 cannot read (ezdxf
 * and LibreCAD write such splines): its fit points, handle, layer, whether that layer
 * is off or frozen, its colour resolved (ACI, BYLAYER, true colour) and lineweight, and
 * its end tangents (12, 13) as unit vectors where both are given. */
typedef struct {
  unsigned long long handle;
  char layer[256];
  int hidden;
  uint8_t rgb[3];
  double lineweight_mm;
  double *xy;
  int count;
  int has_tangents;
  double tangents[4];
} tc_fit_spline;

/* A model-space LWPOLYLINE or 2D POLYLINE whose width changes along it (sorted by
 * handle), which GDAL 3.6 gives as a plain line: its vertices as x, y, start width,
 * end width, bulge (5 values each; an R12 VERTEX without widths has its POLYLINE's
 * defaults), and whether it is closed. One of constant width is not listed. */
typedef struct {
  unsigned long long handle;
  int closed;
  double *v;
  int count;
  /* its plane: extrusion (210, 220, 230) and elevation (a POLYLINE's 30, an
   * LWPOLYLINE's 38); its vertices are in that plane's coordinates (OCS) */
  double extrusion[3], elevation;
} tc_wide_polyline;

void tc_wide_polylines_free(tc_wide_polyline *polylines, size_t count);

/* A model-space HATCH whose boundary GDAL 3.6 cannot read: an edge that is a SPLINE
 * given by fit points alone (it gives the hatch no boundary), or edges that leave a gap
 * (it gives their lines, not an area): its boundary paths flattened as ezdxf
 * builds them (`count` x, y pairs in its OCS, `ring_count` rings of `rings[i]` points),
 * its plane (extrusion, elevation), sorted by handle. */
typedef struct {
  unsigned long long handle;
  double *xy;
  int count;
  int *rings;
  int ring_count;
  double extrusion[3], elevation;
} tc_fit_hatch;

void tc_fit_hatches_free(tc_fit_hatch *hatches, size_t count);

/* One piece of an MLINE as ezdxf draws it: a polyline stroked (`fill` 0) or a ring
 * filled (1), in colour `rgb`, points `first` to `first + count` of its MLINE's `xy`. */
typedef struct {
  int fill;
  uint8_t rgb[3];
  int first, count;
} tc_mline_piece;

/* A model-space MLINE (sorted by handle) as ezdxf's render/mline.py draws it, which
 * GDAL 3.6 draws in the MLINE's colour alone, its elements broken where their
 * parameters say, without its style's fill, caps and miters: its style's fill, caps,
 * each element's line through the miter points in the element's colour, miters.
 * Points are x, y pairs in the drawing. */
typedef struct {
  unsigned long long handle;
  tc_mline_piece *pieces;
  int piece_count;
  double *xy;
  int point_count;
} tc_mline;

void tc_mlines_free(tc_mline *mlines, size_t count);

/* A model-space XLINE or RAY (`ray`), which GDAL 3.6 skips, sorted by handle: its point
 * and unit direction, its layer, whether that layer is off or frozen (or it is
 * invisible), its colour resolved and lineweight. */
typedef struct {
  unsigned long long handle;
  char layer[256];
  int hidden, ray;
  uint8_t rgb[3];
  double lineweight_mm;
  double x, y, dx, dy;
} tc_xline;

/* A model-space IMAGE, which GDAL 3.6 skips, sorted by handle: its boundary as ezdxf's
 * drawing add-on draws it (its clipping boundary, or its frame), `count` x, y pairs,
 * closed; its layer, whether it is hidden, its colour resolved and lineweight. The
 * picture's file is never opened. */
typedef struct {
  unsigned long long handle;
  char layer[256];
  int hidden;
  uint8_t rgb[3];
  double lineweight_mm;
  double *xy;
  int count;
  /* a MESH's faces (ring_count > 0): `ring_count` closed rings of `rings[i]` points
   * each in `xy`, each stroked as ezdxf's drawing add-on strokes a face */
  int *rings;
  int ring_count;
  /* a shown IMAGE (70 & 1): its picture's file name (its IMAGEDEF's 1, NULL for none),
   * which ezdxf writes across it where it cannot find the file (and tilecut, which never
   * opens it, always): its capitals' middle at the image's centre (`name_xy`), along U at
   * `name_angle` degrees, `name_width` long (3/4 of the image's width); its IMAGEDEF's
   * handle until the OBJECTS section is read */
  char *name;
  double name_xy[2], name_angle, name_width;
  unsigned long long def;
} tc_image_frame;

/* A model-space ACAD_TABLE, ARC_DIMENSION or LARGE_RADIAL_DIMENSION, which GDAL 3.6
 * skips: ezdxf draws its anonymous block (2) moved by its insertion point (a table's
 * 10, a dimension's 12), as an INSERT of it would be drawn. Its handle, layer, block
 * name, insertion point, colour (62, 0 when not given), true colour (420, -1 for none)
 * and lineweight (370, -1 for none). One in a block is listed for each model-space insert
 * that places it (through nested inserts, at each copy of a MINSERT): its point placed,
 * with the scales (41, 42) and the turn (50, degrees) of an INSERT that places its block
 * as those inserts do, and a handle of its own past the file's (1, 1 and 0 for one in
 * model space). Where they place it sheared (a turned insert inside one scaled unevenly),
 * which one INSERT cannot do, `sheared` is set: it is placed by the turn `inner_angle`
 * (degrees), then the scales and turn above (the placement's singular value
 * decomposition), two INSERTs that GDAL composes. */
typedef struct {
  char handle[24], layer[256], name[256];
  double x, y, z, sx, sy, angle, inner_angle;
  int colour, lineweight, sheared;
  long true_colour;
} tc_block_ref;

void tc_image_frames_free(tc_image_frame *frames, size_t count);

/* The group codes tilecut reads that GDAL 3.6 leaves untranslated (what its
 * DXF_INCLUDE_RAW_CODE_VALUES lists, in a list it copies whole at each value, so in time
 * that grows with their square), of one model-space entity, read from the DXF instead:
 * a TEXT's, ATTRIB's or ATTDEF's generation flags (71); an MTEXT's reference width (41)
 * and line spacing (44); an LWPOLYLINE's widths (40, 41 each vertex, 43) and a
 * POLYLINE's default widths (40, 41, its 66); a HATCH's pattern lines (53, 43 to 46, 79,
 * 49, then 47 or 98, at most MAX_RAW_PAIRS); none past a 101 (an MTEXT's embedded
 * object, whose 41 and 44 GDAL does not list). Pairs `first` to `first + count` of
 * tc_raw_codes' `codes` and `values`; `subclassed` when it has subclass markers (100),
 * which GDAL gives as its SubClasses. Sorted by handle. */
typedef struct {
  unsigned long long handle;
  size_t first;
  uint32_t count;
  int subclassed;
} tc_raw_entry;

/* The same codes of an entity in a block, for the model-space INSERT or DIMENSION with
 * handle `insert` that inlines it (GDAL gives the features it inlines the insert's
 * handle): the `index`th feature of kind `kind` (tc_raw_kind) among that insert's, in
 * the order GDAL gives them (the block's, nested inserts in place, a MINSERT's copies
 * one after another). Sorted by insert, kind and index. */
typedef struct {
  unsigned long long insert;
  uint32_t kind, index;
  tc_raw_entry entry;
} tc_raw_inlined;

typedef struct {
  tc_raw_entry *entries;
  size_t count;
  int *codes;
  double *values;
  size_t pair_count;
  tc_raw_inlined *inlined;
  size_t inlined_count;
} tc_raw_codes;

/* The kind of feature, by its SubClasses (the entity's subclass markers, 100, joined
 * by ':'), whose raw codes tilecut reads: 1 TEXT, 2 MTEXT, 3 LWPOLYLINE, 4 POLYLINE,
 * 5 HATCH; 0 another (an ATTRIB or ATTDEF, or none given). */
int tc_raw_kind(const char *classes);

/* The entry of the `index`th feature of kind `kind` that the insert with handle
 * `handle` (hexadecimal) inlines, or NULL. */
const tc_raw_entry *tc_raw_codes_find_inlined(const tc_raw_codes *raw, const char *handle, int kind, uint32_t index);

void tc_raw_codes_free(tc_raw_codes *raw);

/* The entry of the entity with handle `handle` (hexadecimal), or NULL. */
const tc_raw_entry *tc_raw_codes_find(const tc_raw_codes *raw, const char *handle);

/* Reads a text DXF's wipeouts, its draw order (SORTENTSTABLE entries, sorted by
 * entity), the placements of the hatches its model-space inserts inline, its fit-point splines, its
 * polylines of varying width, its hatches with boundaries GDAL cannot read, its MLINEs, XLINEs and RAYs, its IMAGEs' boundaries
 * and MESHes' faces (`images`), its ACAD_TABLEs and ARC_DIMENSIONs (`refs`, in the file's order), the byte offset of the
 * "0 SECTION" line of its ENTITIES section (-1 for none: `entities_at`), the handles
 * (sorted) of its model-space TEXTs and ATTRIBs whose extrusion points down (0, 0, -z),
 * whose alignment offset and angle GDAL gives in their OCS, not mirrored, and the handles, sorted, of the model-space entities not drawn: on an off or
 * frozen layer, or invisible (group 60), and the ATTRIBs of such inserts, whose
 * features GDAL still gives (it hides an inlined block's entities by their own layer,
 * not the insert's, and never hides a MULTILEADER); in a file without handles, where
 * such ATTRIBs stand (`hidden_points`: x, y pairs, their 10 and 11 points, sorted);
 * none for a binary DXF; the codes GDAL's raw code values would give of its model-space
 * entities (`raw`); into `out` (tc_dxf_scan). 0 on success, -1 when it cannot, or when
 * `stopped` (unless NULL, asked now and then with `context`) says to stop. */
/* What tc_dxf_wipeouts reads of a DXF (each list with its count; tc_dxf_scan_free frees
 * them all): the wipeouts; the draw order; the handles of the entities not drawn
 * (`skipped`) and where a file without handles has such ATTRIBs (`hidden_points`); the
 * hatch placements; the fit-point splines; the polylines of varying width; the hatch
 * boundaries GDAL cannot read; the down-extruded texts; the MLINEs; the XLINEs and RAYs;
 * the IMAGEs and MESHes; the tables and arc dimensions (`refs`), where ENTITIES starts
 * (`entities_at`) and where the first BLOCKS section's ENDSEC starts (`blocks_end_at`,
 * -1 for none); the raw codes (`raw`). */
typedef struct {
  tc_wipeout *wipeouts;
  size_t wipeout_count;
  tc_sort_entry *order;
  size_t order_count;
  unsigned long long *skipped;
  size_t skipped_count;
  double *hidden_points;
  size_t hidden_point_count;
  tc_hatch_transform *hatches;
  size_t hatch_count;
  tc_fit_spline *splines;
  size_t spline_count;
  tc_wide_polyline *polylines;
  size_t polyline_count;
  tc_fit_hatch *fit_hatches;
  size_t fit_hatch_count;
  unsigned long long *down_texts;
  size_t down_text_count;
  tc_mline *mlines;
  size_t mline_count;
  tc_xline *xlines;
  size_t xline_count;
  tc_image_frame *images;
  size_t image_count;
  tc_block_ref *refs;
  size_t ref_count;
  /* the model-space tables and arc dimensions past the most drawn (not drawn) */
  size_t ref_dropped;
  long long entities_at, blocks_end_at;
  tc_raw_codes raw;
} tc_dxf_scan;

int tc_dxf_wipeouts(const char *path, tc_dxf_scan *out, int (*stopped)(void *), void *context);

/* Frees what tc_dxf_wipeouts gave and empties `scan`. */
void tc_dxf_scan_free(tc_dxf_scan *scan);

/* Whether a hidden ATTRIB without a handle stands at (x, y) (tc_dxf_wipeouts' `hidden_points`). */
int tc_dxf_hidden_at(double x, double y, const double *points, size_t count);

void tc_fit_splines_free(tc_fit_spline *splines, size_t count);

/* AutoCAD colour index `aci` (1-255) as RGB. */
void tc_aci_rgb(int aci, uint8_t rgb[3]);

/* The hatch placements of the insert with handle `handle` (hexadecimal), in order, and
 * their number in *found; NULL when it has none. `hatches` sorted as tc_dxf_wipeouts gives them. */
const tc_hatch_transform *tc_dxf_hatch_transforms(const char *handle, const tc_hatch_transform *hatches, size_t count,
                                                  size_t *found);

/* Whether the entity with handle `handle` (hexadecimal) is among `hidden`. */
int tc_dxf_hidden(const char *handle, const unsigned long long *hidden, size_t count);

/* The handle `handle` (hexadecimal) is drawn at: its SORTENTSTABLE entry, else itself. */
unsigned long long tc_dxf_draw_order(const char *handle, const tc_sort_entry *order, size_t count);

void tc_wipeouts_free(tc_wipeout *wipeouts, size_t count);

#endif
