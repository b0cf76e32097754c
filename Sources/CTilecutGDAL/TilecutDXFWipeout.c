#define _GNU_SOURCE 1 /* strcasecmp, getline */
#include "TilecutDXFWipeout.h"
#include "TilecutDXFHatch.h"
#include "TilecutDXFLines.h"
#include "TilecutDXFMLine.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Grows a list of x, y pairs of `*cap` pairs to hold `need`; 0, or -1 when out of memory. */
#define TC_RAW_KINDS 6
/* An entity of a block of a tc_raw_kind (`kind`), its codes `first` to `first + count`
 * of the reader's tc_raw_codes; or (kind 0) an INSERT or DIMENSION, of the block it
 * inlines (`target`, its index `block` once resolved, -1 none), `times` (a MINSERT's
 * copies); a model-space one has its `handle`. */
typedef struct {
  int kind, times, block;
  size_t first;
  uint32_t count;
  char *target;
  unsigned long long handle;
} raw_item;

/* realloc, the block kept (and freed later) when it fails */
static int resize(void **block, size_t bytes) {
  void *grown = realloc(*block, bytes);
  if (!grown)
    return -1;
  *block = grown;
  return 0;
}

static int grow_points(double **xy, int *cap, int need) {
  if (need <= *cap)
    return 0;
  void *p = *xy;
  size_t capacity = (size_t)*cap;
  if (tc_grow_array(&p, &capacity, (size_t)need, sizeof(double) * 2, 16))
    return -1;
  *xy = p;
  *cap = (int)capacity;
  return 0;
}

/* Starts point `count` of a list of x, y pairs at `x` (its y comes with the next group
 * code); 0, or -1 when out of memory. */
static int start_point(double **xy, int *cap, int count, double x) {
  if (grow_points(xy, cap, count + 1))
    return -1;
  (*xy)[2 * count] = x;
  (*xy)[2 * count + 1] = 0;
  return 0;
}

/* What GDAL 3.6's DXF driver loses, read from a text DXF in one pass:
 * - WIPEOUT masks, which it skips: each boundary (its pixel-space vertices through
 *   the insertion point and the U and V vectors, as ezdxf and AutoCAD place them) in
 *   model space, those of blocks through the inserts that place them, keyed by the
 *   handle of the model-space entity they are drawn before;
 * - the draw order (SORTENTSTABLE);
 * - the model-space entities not drawn whose features it still gives (an insert on
 *   an off or frozen layer, with its ATTRIBs; a MULTILEADER there);
 * - where each hatch an insert inlines lands, for its pattern lines. */

#define MAX_VERTICES 4096
/* a polyline's vertices kept to draw its widths: as many as the pre-scan lets GDAL read
 * (TC_DXF_MAX_VERTICES); the points they make are bounded by --max-memory there */
#define MAX_POLYLINE_VERTICES 500000
/* a HATCH's pattern codes kept (tc_raw_entry): 16 families of 16 dashes are drawn */
#define MAX_RAW_PAIRS 65536
#define MAX_WIPEOUTS 100000

/* A group's number as an int, clamped (a cast of a double past INT_MAX is undefined). */
static int int_of(double x) { return x >= INT_MAX ? INT_MAX : x <= INT_MIN ? INT_MIN : isnan(x) ? 0 : (int)x; }
#define MAX_DEPTH 8

typedef struct {
  char layer[256], handle[24];
  double *xy; /* in its container's coordinates */
  int count;
} local_wipeout;

typedef struct {
  char name[256], layer[256], handle[24];
  double x, y, sx, sy, angle;
  /* in paper space (67) or invisible (60): its block's tables are not drawn in model space */
  int unshown;
  /* a MINSERT's columns (70) and rows (71), 1 for an INSERT, and their spacing (44, 45) */
  int columns, rows;
  double column_spacing, row_spacing;
  /* its colour (62; 256, by layer, when not given) and true colour (420, -1 for none) */
  int colour;
  long true_colour;
} local_insert;

/* The colour an entity of colour ByBlock takes from the insert that places its block: an
 * ACI (1 to 255, 0 for none) and a true colour (-1 for none). */
typedef struct {
  int aci;
  long true_colour;
} tint;

/* A table's or arc dimension's colour (tc_block_ref) while it is in a block: ByBlock (62
 * = 0), the insert that places it gives its colour (emit_ref). */
#define REF_BY_BLOCK INT_MIN

/* An XLINE or a RAY in a block: in the block's coordinates, its colour unresolved
 * (its layer may be 0, which takes the insert's) */
typedef struct {
  tc_xline x;
  int colour, invisible;
  long true_colour;
} local_xline;

/* An IMAGE in a block: its boundary and name's place in the block's coordinates, its
 * colour unresolved (its layer may be 0, which takes the insert's) */
typedef struct {
  tc_image_frame f;
  int colour, invisible;
  long true_colour;
} local_image;

typedef struct {
  char name[256];
  double bx, by;
  local_wipeout *wipeouts;
  size_t wipeout_count;
  local_xline *xlines;
  size_t xline_count, xline_cap;
  local_image *images;
  size_t image_count, image_cap;
  /* its tables and arc dimensions, in its coordinates (placed by each insert: expand) */
  tc_block_ref *refs;
  size_t ref_count, ref_cap;
  local_insert *inserts;
  size_t insert_count;
  /* its HATCHes' boundaries where GDAL cannot read them (xy NULL where it can) */
  tc_fit_hatch *bounds;
  size_t bound_count, bound_cap;
  /* its HATCHes (-1 - their index in bounds) and inserts (their index) in the order of the block */
  int *sequence;
  size_t sequence_count, sequence_cap;
  /* its entities of a tc_raw_kind and its INSERTs and DIMENSIONs, in its order; the
   * features of each kind it inlines (memoised: raw_state 2 once counted, 1 counting) */
  raw_item *raw_items;
  size_t raw_item_count, raw_item_cap;
  double raw_kinds[TC_RAW_KINDS], raw_values;
  int raw_state;
  /* being inlined (inline_raw): met again inside itself, it adds nothing, as in GDAL */
  int raw_inlining;
  /* whether inlining it makes what `expand` emits ([0]), what `place_hatches` places
   * ([1]), and what `expand` emits but tables and arc dimensions ([2]): 0 unknown, 1
   * being asked, 2 no, 3 yes (block_makes) */
  int makes[3];
  /* the tables and arc dimensions inlining it makes, each MINSERT's copies counted
   * (refs_made: 0 unknown, 1 counting, 2 counted) */
  double refs_total;
  int refs_state;
  /* on the path `expand` ([0]) or `place_hatches` ([1]) walks: met again inside
   * itself, it is not entered, as GDAL does not insert a block being inserted */
  int walking[2];
} block_def;

typedef struct {
  char name[256];
  int hidden, colour;
  /* its true colour (420, -1 for none) */
  long true_colour;
} layer_def;

/* The entity being read: its type and the group codes a WIPEOUT or an INSERT needs. */
typedef struct {
  char type[32], handle[24], layer[256], name[256];
  double x10, y10, x11, y11, x12, y12, x13, y13, x41, y42, a50;
  int paper, boundary_type, layer_flags, colour, invisible;
  /* whether its colour (62) is given */
  int has_62;
  /* a MINSERT's column and row spacing (44, 45) */
  double x44, y45;
  double *bxy;
  int bcount, bcap;
  int has_x14;
  /* a SPLINE's fit points (11/21), whether it has control points (10), its true
   * colour (420, -1 for none) and lineweight (370) */
  double *fxy;
  int fcount, fcap, has_x11, has_x10;
  /* whether its start (12) and end (13) tangents are given */
  int has_x12, has_x13;
  long true_colour;
  int lineweight;
  /* a polyline's or a vertex's widths (40, 41, 43), bulge (42) and extrusion z (230);
   * an LWPOLYLINE's vertices (x, y, start width, end width, bulge) */
  double w40, w41, w43, bulge, x210, y220, z230, z30, e38;
  int has_40, has_41;
  double *pv;
  size_t pcount, pcap;
  /* a model-space MLINE as read, an MLINESTYLE */
  tc_mline_raw mline;
  tc_mline_style mline_style;
  /* the codes GDAL would list untranslated that tilecut reads (tc_raw_entry) */
  int *rc;
  double *rv;
  size_t rcount, rcap, rvcap;
  int subclassed;
  /* past its 101 (an MTEXT's or ATTRIB's embedded object, which GDAL reads no raw code of) */
  int embedded;
  /* its subclass markers (100) joined by ':', as GDAL's SubClasses */
  char classes[160];
  /* a model-space HATCH's group codes and their values, for its boundary */
  int is_hatch;
  int *hc;
  double *hv;
  size_t hcount, hcap, hvcap;
  /* a MESH: its vertices in fxy (fcount), its face list's values in hc (hcount), the
   * face list's values still to come (93, then that many 90s) */
  long mesh_faces_left;
  /* a POLYLINE's 72 (a polygon mesh's N count) */
  int n72;
  /* an ACAD_TABLE past its AcDbBlockReference (its cells' codes are not read) */
  int table_data;
  /* an IMAGE's IMAGEDEF (340); an IMAGEDEF's file name (1) */
  unsigned long long ref340;
  char file[512];
} entity;

/* group codes of one HATCH kept at most (more: left to GDAL) */
#define MAX_HATCH_CODES (1 << 20)
/* points of the hatches and of the MLINEs built here at most, each kind (64 MB): past
 * them, the rest are drawn as GDAL gives them */
#define MAX_BUILT_POINTS (1 << 22)
/* model-space tables and arc dimensions drawn at most (more: left out); each costs
 * an INSERT in the DXF GDAL reads for them */
#define MAX_BLOCK_REFS 10000
/* MINSERT copies placed past each one's first, in all (more: the tables and arc
 * dimensions they would place counted as not drawn, the rest of what they hold left out) */
#define MAX_PLACED_COPIES 1000000
/* vertices and face-list values of one MESH read at most (more: left out) */
#define MAX_MESH_VALUES (1 << 22)

typedef struct {
  block_def *blocks;
  size_t block_count, block_cap;
  layer_def *layers;
  size_t layer_count, layer_cap;
  local_wipeout *model; /* model space's own wipeouts, keyed below */
  char (*model_keys)[24];
  size_t model_count, model_cap, model_pending;
  local_insert *inserts; /* model space's inserts */
  size_t insert_count, insert_cap;
  tc_wipeout *out;
  size_t out_count, out_cap;
  tc_sort_entry *order;
  size_t order_count, order_cap;
  /* model-space entities not drawn (their layer off or frozen, or made invisible),
   * with the ATTRIBs of such inserts: ezdxf and CAD skip an insert whole */
  unsigned long long *hidden;
  size_t hidden_count, hidden_cap;
  /* in a file without handles, where such ATTRIBs stand (10 and 11, x and y) */
  double *hidden_points;
  size_t hidden_point_count, hidden_point_cap;
  int insert_hidden;
  char last_layer[256];
  int last_hidden;
  tc_hatch_transform *hatches;
  size_t hatch_count, hatch_cap;
  tc_fit_spline *splines;
  size_t spline_count, spline_cap;
  tc_wide_polyline *wide;
  size_t wide_count, wide_cap;
  tc_fit_hatch *fit_hatches;
  size_t fit_hatch_count, fit_hatch_cap, fit_hatch_points;
  /* MLINESTYLEs, and model-space MLINEs as read (their handles and layers beside) */
  tc_mline_style *mline_styles;
  size_t mline_style_count, mline_style_cap;
  tc_mline_raw *raw_mlines;
  unsigned long long *raw_mline_handles;
  char (*raw_mline_layers)[256];
  size_t raw_mline_count, raw_mline_cap, raw_mline_vertices;
  tc_xline *xlines;
  size_t xline_count, xline_cap;
  /* model-space IMAGEs' boundaries, and their points */
  tc_image_frame *images;
  size_t image_count, image_cap, image_points;
  /* model-space ACAD_TABLEs and ARC_DIMENSIONs, drawn through their blocks */
  tc_block_ref *refs;
  size_t ref_count, ref_cap;
  /* those past MAX_BLOCK_REFS, not drawn */
  size_t ref_dropped;
  /* the model-space insert being placed is in paper space or invisible (emit_ref) */
  int placing_unshown;
  /* the MINSERT copies placed past each one's first (at most MAX_PLACED_COPIES) */
  size_t copies_placed;
  /* IMAGEDEF objects: their handles and file names */
  unsigned long long *def_handles;
  char **def_files;
  size_t def_count, def_cap, def_file_cap;
  /* model-space TEXTs and ATTRIBs whose extrusion points down */
  unsigned long long *down_texts;
  size_t down_text_count, down_text_cap;
  /* the model-space POLYLINE whose VERTEXes are being read (`pending`), its default widths */
  tc_wide_polyline pending;
  size_t pending_cap;
  int pending_active;
  double pending_sw, pending_ew;
  tc_raw_codes raw;
  size_t raw_cap, raw_code_cap, raw_value_cap;
  /* the model-space polygon mesh (POLYLINE flag 16) whose VERTEXes are being read: its
   * frame but for its faces, its M and N counts (71, 72) and vertices (x, y) */
  entity mesh;
  block_def *mesh_block;
  int mesh_active, mesh_m, mesh_n, mesh_count, mesh_cap;
  double *mesh_v;
  /* model space's INSERTs and DIMENSIONs with a handle (raw_item), the inlined entries */
  raw_item *raw_inserts;
  size_t raw_insert_count, raw_insert_cap, raw_inlined_cap, raw_inlined_visits;
  /* asked every 4,096 blocks entered while placing: the drawing is refused, stop */
  int (*stopped)(void *);
  void *context;
  unsigned long long placing_visits;
  int failed;
} reader;

static void reset(entity *e, const char *type) {
  double *bxy = e->bxy, *fxy = e->fxy, *pv = e->pv, *hv = e->hv, *mv = e->mline.v, *rv = e->rv;
  int bcap = e->bcap, fcap = e->fcap, *hc = e->hc, *rc = e->rc;
  size_t pcap = e->pcap, hcap = e->hcap, hvcap = e->hvcap, mcap = e->mline.cap, rcap = e->rcap, rvcap = e->rvcap;
  memset(e, 0, sizeof *e);
  e->rc = rc;
  e->rv = rv;
  e->rcap = rcap;
  e->rvcap = rvcap;
  e->mline.v = mv;
  e->mline.cap = mcap;
  e->hc = hc;
  e->hv = hv;
  e->hcap = hcap;
  e->hvcap = hvcap;
  e->is_hatch = !strcmp(type, "HATCH");
  e->bxy = bxy;
  e->bcap = bcap;
  e->fxy = fxy;
  e->fcap = fcap;
  e->pv = pv;
  e->pcap = pcap;
  e->z230 = 1;
  e->true_colour = -1;
  e->lineweight = -1;
  e->x13 = e->y13 = 1;
  e->x41 = e->y42 = 1;
  snprintf(e->type, sizeof e->type, "%s", type);
}

/* Appends vertex (x, y, start width, end width, bulge) to `*v`; 0, or -1 when out of memory. */
static int add_vertex(double **v, size_t *count, size_t *cap, double x, double y, double sw, double ew, double bulge) {
  if (*count >= MAX_POLYLINE_VERTICES)
    return 0;
  if (tc_grow_array((void **)v, cap, *count + 1, 5 * sizeof(double), 16))
    return -1;
  double *p = *v + 5 * *count;
  p[0] = x, p[1] = y, p[2] = sw, p[3] = ew, p[4] = bulge;
  (*count)++;
  return 0;
}

/* Keeps polyline `v` (count vertices) when it has a width: one that changes along it
 * (a segment's start width differs from its end width or from the first segment's), or
 * a constant one not 0, which ezdxf draws as the same mitred outline, not a stroke. */
static void keep_wide(reader *r, const char *handle, int closed, const double *v, size_t count, const double n[3],
                      double elevation) {
  if (count < 2 || !handle[0] || r->wide_count >= MAX_WIPEOUTS)
    return;
  size_t segments = closed ? count : count - 1;
  int varying = 0;
  for (size_t i = 0; i < segments && !varying; i++)
    varying = v[5 * i + 2] != v[5 * i + 3] || v[5 * i + 2] != v[2];
  if (!varying && v[2] == 0)
    return;
  if (tc_grow_array((void **)&r->wide, &r->wide_cap, r->wide_count + 1, sizeof(tc_wide_polyline), 16)) {
    r->failed = 1;
    return;
  }
  tc_wide_polyline *w = &r->wide[r->wide_count];
  w->v = malloc(sizeof(double) * 5 * count);
  if (!w->v) {
    r->failed = 1;
    return;
  }
  memcpy(w->v, v, sizeof(double) * 5 * count);
  w->count = (int)count;
  w->closed = closed;
  memcpy(w->extrusion, n, sizeof w->extrusion);
  w->elevation = elevation;
  w->handle = strtoull(handle, NULL, 16);
  r->wide_count++;
}

/* Ends the POLYLINE whose VERTEXes were being read. */
static void end_pending(reader *r) {
  if (!r->pending_active)
    return;
  r->pending_active = 0;
  char handle[24];
  snprintf(handle, sizeof handle, "%llx", r->pending.handle);
  keep_wide(r, r->pending.handle ? handle : "", r->pending.closed, r->pending.v, (size_t)r->pending.count,
            r->pending.extrusion, r->pending.elevation);
  r->pending.count = 0;
}

/* Whether group `code` of an entity of `type` is one GDAL 3.6 lists untranslated and
 * tilecut reads (tc_raw_entry), `count` of them kept so far, the last `last`. */
static int raw_code_read(const char *type, int code, size_t count, int last) {
  if (!strcmp(type, "TEXT") || !strcmp(type, "ATTRIB") || !strcmp(type, "ATTDEF"))
    return code == 71;
  if (!strcmp(type, "MTEXT"))
    return code == 41 || code == 44;
  if (!strcmp(type, "LWPOLYLINE"))
    return code == 40 || code == 41 || code == 43;
  if (!strcmp(type, "POLYLINE"))
    return code == 66 || code == 40 || code == 41;
  if (!strcmp(type, "HATCH"))
    return count < MAX_RAW_PAIRS && last != 47 && last != 98 &&
           (code == 53 || (code >= 43 && code <= 46) || code == 79 || code == 49 || code == 47 || code == 98);
  return 0;
}

/* The wipeout's boundary in its container's coordinates (ezdxf's boundary_path_wcs). */
static int boundary(const entity *e, double **xy) {
  double corners[8];
  const double *v = e->bxy;
  int n = e->bcount;
  if (e->boundary_type == 1 && n == 2) {
    corners[0] = v[0], corners[1] = v[1], corners[2] = v[2], corners[3] = v[1];
    corners[4] = v[2], corners[5] = v[3], corners[6] = v[0], corners[7] = v[3];
    v = corners;
    n = 4;
  }
  if (n < 3)
    return 0;
  double *out = malloc(sizeof(double) * 2 * (size_t)n);
  if (!out)
    return -1;
  double ox = e->x10 + e->x11 * 0.5 - e->x12 * 0.5, oy = e->y10 + e->y11 * 0.5 - e->y12 * 0.5;
  double h = e->y13;
  for (int i = 0; i < n; i++) {
    double px = v[2 * i], py = h - v[2 * i + 1];
    out[2 * i] = ox + e->x11 * px + e->x12 * py;
    out[2 * i + 1] = oy + e->y11 * px + e->y12 * py;
  }
  *xy = out;
  return n;
}

/* An IMAGE's boundary in WCS as ezdxf's drawing add-on draws it (ezdxf 1.4.5, MIT:
 * entities/image.py, ImageBase.boundary_path_wcs and pixel_boundary_path): its clipping
 * vertices (14/24, pixels from the top-left corner) whatever its clipping flags, two of
 * them a rectangle, fewer the frame (-0.5, -0.5) to the image size less 0.5, closed;
 * placed through the insertion point (10) and the U and V pixel vectors (11, 12). */
static int image_boundary(const entity *e, double **xy) {
  double corners[8];
  const double *v = e->bxy;
  int n = e->bcount;
  if (n < 2) {
    corners[0] = corners[1] = -0.5;
    corners[2] = e->x13 - 0.5, corners[3] = e->y13 - 0.5;
    v = corners;
    n = 2;
  }
  if (n == 2) {
    double x0 = v[0], y0 = v[1], x1 = v[2], y1 = v[3];
    corners[0] = x0, corners[1] = y0, corners[2] = x1, corners[3] = y0;
    corners[4] = x1, corners[5] = y1, corners[6] = x0, corners[7] = y1;
    v = corners;
    n = 4;
  }
  int closed = v[0] == v[2 * n - 2] && v[1] == v[2 * n - 1];
  double *out = malloc(sizeof(double) * 2 * (size_t)(n + 1));
  if (!out)
    return -1;
  double ox = e->x10 + e->x11 * 0.5 - e->x12 * 0.5, oy = e->y10 + e->y11 * 0.5 - e->y12 * 0.5;
  double h = e->y13;
  for (int i = 0; i < n + !closed; i++) {
    double px = v[2 * (i % n)], py = h - v[2 * (i % n) + 1];
    out[2 * i] = ox + e->x11 * px + e->x12 * py;
    out[2 * i + 1] = oy + e->y11 * px + e->y12 * py;
  }
  *xy = out;
  return n + !closed;
}

static block_def *find_def(reader *r, const char *name) {
  for (size_t i = 0; i < r->block_count; i++)
    if (!strcasecmp(r->blocks[i].name, name))
      return &r->blocks[i];
  return NULL;
}

static int layer_hidden(const reader *r, const char *name) {
  for (size_t i = 0; i < r->layer_count; i++)
    if (!strcasecmp(r->layers[i].name, name))
      return r->layers[i].hidden;
  return 0;
}

/* A colour: its ACI, by layer (or by block, 0) the colour of `layer`, or its true colour
 * (-1 for none). */
static void colour_rgb(const reader *r, int aci, const char *layer, long true_colour, uint8_t rgb[3]) {
  if (aci == 0 || aci == 256 || aci < 0 || aci > 255)
    aci = 256;
  if (aci == 256)
    for (size_t i = 0; i < r->layer_count; i++)
      if (!strcasecmp(r->layers[i].name, layer))
        aci = r->layers[i].colour;
  tc_aci_rgb(aci >= 1 && aci <= 255 ? aci : 7, rgb);
  if (true_colour >= 0)
    rgb[0] = (uint8_t)(true_colour >> 16), rgb[1] = (uint8_t)(true_colour >> 8), rgb[2] = (uint8_t)true_colour;
}

/* An entity's colour: its ACI, by layer (or by block, 0) its layer's, or its true colour. */
static void entity_rgb(const reader *r, const entity *e, uint8_t rgb[3]) { colour_rgb(r, e->colour, e->layer, e->true_colour, rgb); }

/* An IMAGE's boundary (image_boundary) and, where it is shown, where ezdxf writes its
 * file's name (ezdxf 1.4.5, MIT: addons/drawing/frontend.py, draw_image_entity: its cap
 * height 20 pixels scaled so that the name spans 3/4 of the image's width, centred;
 * entities/image.py, get_wcs_transform: pixel (x, y) at 10 + x U + y V), into `f`; -1
 * out of memory. */
static int keep_image(const reader *r, const entity *e, tc_image_frame *f) {
  double *xy = NULL;
  int n = image_boundary(e, &xy);
  if (n < 0)
    return -1;
  memset(f, 0, sizeof *f);
  f->handle = e->handle[0] ? strtoull(e->handle, NULL, 16) : 0;
  snprintf(f->layer, sizeof f->layer, "%s", e->layer);
  f->hidden = e->invisible || layer_hidden(r, e->layer);
  entity_rgb(r, e, f->rgb);
  f->lineweight_mm = e->lineweight > 0 ? e->lineweight / 100.0 : 0;
  f->xy = xy;
  f->count = n;
  double w = e->x13, h = e->y13, ulen = hypot(e->x11, e->y11), vlen = hypot(e->x12, e->y12);
  if ((e->layer_flags & 1) && e->ref340 && w > 0 && h > 0 && ulen > 0 && vlen > 0 && isfinite(w * h * ulen * vlen)) {
    f->def = e->ref340;
    f->name_xy[0] = e->x10 + e->x11 * w / 2 + e->x12 * h / 2;
    f->name_xy[1] = e->y10 + e->y11 * w / 2 + e->y12 * h / 2;
    f->name_angle = atan2(e->y11, e->x11) * 180 / M_PI;
    f->name_width = 0.75 * w * ulen;
  }
  return 0;
}

/* The file name of IMAGEDEF `def` as ezdxf writes it ("<no filename>" for a blank one),
 * a copy; NULL for none (or out of memory: *failed). */
static char *image_name(const reader *r, unsigned long long def, int *failed) {
  for (size_t k = 0; def && k < r->def_count; k++)
    if (r->def_handles[k] == def) {
      const char *file = r->def_files[k];
      int blank = 1;
      for (const char *c = file; *c; c++)
        blank = blank && (*c == ' ' || *c == '\t');
      char *name = strdup(blank ? "<no filename>" : file);
      if (!name)
        *failed = 1;
      return name;
    }
  return NULL;
}

/* A model-space MESH as ezdxf's drawing add-on draws it (ezdxf 1.4.5, MIT:
 * addons/drawing/frontend.py, draw_mesh_entity: MeshBuilder.from_mesh, each face of its
 * base mesh a closed path, unsubdivided), its faces' rings in x, y; faces naming a vertex
 * it does not have are left out. */
static tc_image_frame *mesh_slot(reader *r, block_def *block, const entity *e);

static void keep_mesh(reader *r, const entity *e, block_def *block) {
  size_t points = 0;
  int faces = 0;
  for (size_t i = 0; i < e->hcount;) {
    long n = e->hc[i];
    if (n < 2 || (size_t)n > e->hcount - i - 1)
      break;
    points += (size_t)n + 1;
    faces++;
    i += (size_t)n + 1;
  }
  if (!faces || points > MAX_BUILT_POINTS)
    return;
  double *xy = malloc(sizeof(double) * 2 * points);
  int *rings = malloc(sizeof(int) * (size_t)faces);
  if (!xy || !rings) {
    free(xy);
    free(rings);
    r->failed = 1;
    return;
  }
  int count = 0, ring_count = 0;
  size_t i = 0;
  for (int face = 0; face < faces; face++) {
    int n = e->hc[i];
    int valid = 1;
    for (int k = 1; k <= n; k++)
      if (e->hc[i + (size_t)k] < 0 || e->hc[i + (size_t)k] >= e->fcount)
        valid = 0;
    if (valid) {
      for (int k = 0; k <= n; k++) {
        int v = e->hc[i + 1 + (size_t)(k % n)];
        xy[2 * count] = e->fxy[2 * v];
        xy[2 * count + 1] = e->fxy[2 * v + 1];
        count++;
      }
      rings[ring_count++] = n + 1;
    }
    i += (size_t)n + 1;
  }
  tc_image_frame *f = ring_count ? mesh_slot(r, block, e) : NULL;
  if (!f) {
    free(xy);
    free(rings);
    return;
  }
  f->xy = xy;
  f->count = count;
  f->rings = rings;
  f->ring_count = ring_count;
  if (!block)
    r->image_points += (size_t)count;
}

/* A new frame for a MESH or polygon mesh `e` (its handle, layer, colour, lineweight):
 * in model space's list, or `block`'s (its colour left to each insert); NULL out of
 * memory (r->failed). */
static tc_image_frame *mesh_slot(reader *r, block_def *block, const entity *e) {
  tc_image_frame *f;
  if (block) {
    if (tc_grow_array((void **)&block->images, &block->image_cap, block->image_count + 1, sizeof(local_image), 4)) {
      r->failed = 1;
      return NULL;
    }
    local_image *l = &block->images[block->image_count++];
    memset(l, 0, sizeof *l);
    l->colour = e->colour, l->invisible = e->invisible, l->true_colour = e->true_colour;
    f = &l->f;
  } else {
    if (tc_grow_array((void **)&r->images, &r->image_cap, r->image_count + 1, sizeof(tc_image_frame), 16)) {
      r->failed = 1;
      return NULL;
    }
    f = &r->images[r->image_count++];
    memset(f, 0, sizeof *f);
  }
  f->handle = e->handle[0] ? strtoull(e->handle, NULL, 16) : 0;
  snprintf(f->layer, sizeof f->layer, "%s", e->layer);
  f->hidden = e->invisible || layer_hidden(r, e->layer);
  entity_rgb(r, e, f->rgb);
  f->lineweight_mm = e->lineweight > 0 ? e->lineweight / 100.0 : 0;
  return f;
}

/* Ends the polygon mesh whose VERTEXes were being read: its M x N vertices (row by row)
 * as ezdxf's drawing add-on draws them (ezdxf 1.4.5, MIT: render/mesh.py,
 * MeshBuilder.from_polyface, and entities/polyline.py, MeshVertexCache): the first M x N
 * VERTEXes in order, each of its (M - 1) x (N - 1) quadrilaterals a closed line (its
 * closing flags and smoothing not applied); nothing when it has fewer vertices. */
static void end_mesh(reader *r) {
  if (!r->mesh_active)
    return;
  r->mesh_active = 0;
  long m = r->mesh_m, n = r->mesh_n;
  if (m < 2 || n < 2 || m * n > r->mesh_count || r->image_count >= MAX_WIPEOUTS ||
      r->image_points + (size_t)((m - 1) * (n - 1) * 5) > MAX_BUILT_POINTS)
    return;
  size_t faces = (size_t)((m - 1) * (n - 1));
  double *xy = malloc(sizeof(double) * 10 * faces);
  int *rings = malloc(sizeof(int) * faces);
  if (!xy || !rings) {
    free(xy);
    free(rings);
    r->failed = 1;
    return;
  }
  size_t k = 0;
  for (long i = 0; i + 1 < m; i++)
    for (long j = 0; j + 1 < n; j++) {
      long corner[5] = {i * n + j, i * n + j + 1, (i + 1) * n + j + 1, (i + 1) * n + j, i * n + j};
      for (int c = 0; c < 5; c++) {
        xy[2 * k] = r->mesh_v[2 * corner[c]];
        xy[2 * k + 1] = r->mesh_v[2 * corner[c] + 1];
        k++;
      }
      rings[k / 5 - 1] = 5;
    }
  tc_image_frame *f = mesh_slot(r, r->mesh_block, &r->mesh);
  if (!f) {
    free(xy);
    free(rings);
    return;
  }
  f->xy = xy;
  f->count = (int)k;
  f->rings = rings;
  f->ring_count = (int)faces;
  if (!r->mesh_block)
    r->image_points += k;
}

int tc_raw_kind(const char *classes) {
  if (!classes || !*classes)
    return 0;
  if (strstr(classes, "AcDbMText"))
    return 2;
  if (strstr(classes, "AcDbHatch"))
    return 5;
  if (strstr(classes, "AcDbAttribute"))
    return 0;
  if (strstr(classes, "AcDbText"))
    return 1;
  if (strstr(classes, "AcDbPolyline"))
    return 3;
  if (strstr(classes, "Polyline"))
    return 4;
  return 0;
}

/* The tc_raw_kind of entity `e` (GDAL gives one feature of each of these types, with
 * the entity's subclass markers as its SubClasses), 0 for any other type. */
static int entity_raw_kind(const entity *e) {
  static const char *const types[] = {"TEXT", "MTEXT", "LWPOLYLINE", "POLYLINE", "HATCH"};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (!strcmp(e->type, types[i]))
      return tc_raw_kind(e->classes);
  return 0;
}

/* An entity read whole: kept when it is a layer, a wipeout or an insert. */
static void finish(reader *r, entity *e, int section, block_def *block) {
  if (!e->type[0] || r->failed)
    return;
  if (section == 3 && !strcmp(e->type, "LAYER")) {
    if (tc_grow_array((void **)&r->layers, &r->layer_cap, r->layer_count + 1, sizeof(layer_def), 16)) {
      r->failed = 1;
      return;
    }
    layer_def *l = &r->layers[r->layer_count++];
    snprintf(l->name, sizeof l->name, "%s", e->name);
    l->hidden = e->colour < 0 || (e->layer_flags & 1);
    l->colour = abs(e->colour);
    l->true_colour = e->true_colour;
    return;
  }
  if (section == 4 && !strcmp(e->type, "IMAGEDEF") && e->handle[0] && r->def_count < MAX_WIPEOUTS) {
    if (tc_grow_array((void **)&r->def_handles, &r->def_cap, r->def_count + 1, sizeof(unsigned long long), 8)) {
      r->failed = 1;
      return;
    }
    if (tc_grow_array((void **)&r->def_files, &r->def_file_cap, r->def_count + 1, sizeof(char *), 8) ||
        !(r->def_files[r->def_count] = strdup(e->file))) {
      r->failed = 1;
      return;
    }
    r->def_handles[r->def_count++] = strtoull(e->handle, NULL, 16);
    return;
  }
  if (section == 4 && !strcmp(e->type, "MLINESTYLE")) {
    if (tc_grow_array((void **)&r->mline_styles, &r->mline_style_cap, r->mline_style_count + 1, sizeof(tc_mline_style), 8)) {
      r->failed = 1;
      return;
    }
    r->mline_styles[r->mline_style_count++] = e->mline_style;
    return;
  }
  if (section != 1 && section != 2)
    return;
  if (r->mesh_active && !strcmp(e->type, "VERTEX")) {
    if (r->mesh_count < MAX_MESH_VALUES && grow_points(&r->mesh_v, &r->mesh_cap, r->mesh_count + 1) == 0) {
      r->mesh_v[2 * r->mesh_count] = e->x10;
      r->mesh_v[2 * r->mesh_count + 1] = e->y10;
      r->mesh_count++;
    }
    return;
  }
  end_mesh(r);
  if (((section == 2 && !e->paper && e->handle[0]) || (section == 1 && block)) && !strcmp(e->type, "POLYLINE") &&
      (e->layer_flags & 16) && !(e->layer_flags & 64)) {
    r->mesh_active = 1;
    r->mesh_count = 0;
    r->mesh_m = e->boundary_type;
    r->mesh_n = e->n72;
    r->mesh_block = section == 1 ? block : NULL;
    /* its properties alone (the arrays stay the entity's) */
    memset(&r->mesh, 0, sizeof r->mesh);
    snprintf(r->mesh.handle, sizeof r->mesh.handle, "%s", e->handle);
    snprintf(r->mesh.layer, sizeof r->mesh.layer, "%s", e->layer);
    r->mesh.colour = e->colour, r->mesh.invisible = e->invisible;
    r->mesh.true_colour = e->true_colour, r->mesh.lineweight = e->lineweight;
  }
  /* a POLYLINE's widths: its VERTEXes (ezdxf skips the curve-fit and spline-frame
   * ones, flags 1 and 16), up to its SEQEND */
  if (r->pending_active && !strcmp(e->type, "VERTEX")) {
    if (!(e->layer_flags & (1 | 16))) {
      size_t count = (size_t)r->pending.count;
      if (add_vertex(&r->pending.v, &count, &r->pending_cap, e->x10, e->y10, e->has_40 ? e->w40 : r->pending_sw,
                     e->has_41 ? e->w41 : r->pending_ew, e->bulge))
        r->failed = 1;
      r->pending.count = (int)count;
    }
    return;
  }
  end_pending(r);
  /* what GDAL's raw code values would list of it */
  if (section == 2 && e->handle[0] && e->rcount) {
    if (tc_grow_array((void **)&r->raw.entries, &r->raw_cap, r->raw.count + 1, sizeof(tc_raw_entry), 64) ||
        tc_grow_array((void **)&r->raw.codes, &r->raw_code_cap, r->raw.pair_count + e->rcount, sizeof(int), 256) ||
        tc_grow_array((void **)&r->raw.values, &r->raw_value_cap, r->raw.pair_count + e->rcount, sizeof(double), 256)) {
      r->failed = 1;
      return;
    }
    memcpy(r->raw.codes + r->raw.pair_count, e->rc, e->rcount * sizeof(int));
    memcpy(r->raw.values + r->raw.pair_count, e->rv, e->rcount * sizeof(double));
    r->raw.entries[r->raw.count++] = (tc_raw_entry){.handle = strtoull(e->handle, NULL, 16), .first = r->raw.pair_count,
                                                    .count = (uint32_t)e->rcount, .subclassed = e->subclassed};
    r->raw.pair_count += e->rcount;
  }
  /* a block's entities GDAL's raw codes would give values of, and its inserts, in order;
   * the model space's inserts with a handle */
  /* a DIMENSION inside a block GDAL 3.6 draws itself (its block is not inlined) */
  int inserts = !strcmp(e->type, "INSERT") || (section == 2 && !strcmp(e->type, "DIMENSION"));
  int kind = inserts ? 0 : entity_raw_kind(e);
  /* an LWPOLYLINE without vertices, of which GDAL makes no feature, takes no place */
  if (kind == 3 && !strcmp(e->type, "LWPOLYLINE") && !e->pcount)
    kind = 0;
  if ((section == 1 && block && (kind || (inserts && e->name[0]))) || (section == 2 && inserts && e->handle[0] && e->name[0])) {
    raw_item item = {.kind = kind, .times = 1, .block = -1, .first = r->raw.pair_count, .count = (uint32_t)e->rcount};
    /* a MINSERT's columns (70) and rows (71); a DIMENSION's are no counts */
    if (e->type[0] == 'I')
      item.times = (int)fmin(fmax(e->layer_flags, 1) * (double)fmax(e->boundary_type, 1), 100000);
    if (section == 2)
      item.handle = strtoull(e->handle, NULL, 16);
    if (kind && e->rcount &&
        (tc_grow_array((void **)&r->raw.codes, &r->raw_code_cap, r->raw.pair_count + e->rcount, sizeof(int), 256) ||
         tc_grow_array((void **)&r->raw.values, &r->raw_value_cap, r->raw.pair_count + e->rcount, sizeof(double), 256))) {
      r->failed = 1;
      return;
    }
    raw_item **items = section == 1 ? &block->raw_items : &r->raw_inserts;
    size_t *count = section == 1 ? &block->raw_item_count : &r->raw_insert_count;
    size_t *cap = section == 1 ? &block->raw_item_cap : &r->raw_insert_cap;
    if ((!kind && !(item.target = strdup(e->name))) || tc_grow_array((void **)items, cap, *count + 1, sizeof item, 16)) {
      free(item.target);
      r->failed = 1;
      return;
    }
    if (kind) {
      memcpy(r->raw.codes + r->raw.pair_count, e->rc, e->rcount * sizeof(int));
      memcpy(r->raw.values + r->raw.pair_count, e->rv, e->rcount * sizeof(double));
      r->raw.pair_count += e->rcount;
    }
    (*items)[(*count)++] = item;
  }
  /* model-space polylines of varying width */
  double n[3] = {e->x210, e->y220, e->z230};
  if (section == 2 && !e->paper && e->handle[0] && (n[0] != 0 || n[1] != 0 || n[2] != 0)) {
    if (!strcmp(e->type, "LWPOLYLINE")) {
      /* a constant width (43) stands for every vertex's, as AutoCAD and ezdxf read it */
      for (size_t i = 0; e->w43 > 0 && i < e->pcount; i++)
        e->pv[5 * i + 2] = e->pv[5 * i + 3] = e->w43;
      keep_wide(r, e->handle, e->layer_flags & 1, e->pv, e->pcount, n, e->e38);
    }
    /* a 2D POLYLINE: not a 3D polyline, mesh or polyface (flags 8, 16, 64) */
    if (!strcmp(e->type, "POLYLINE") && !(e->layer_flags & (8 | 16 | 64))) {
      r->pending_active = 1;
      r->pending.count = 0;
      r->pending.handle = strtoull(e->handle, NULL, 16);
      r->pending.closed = e->layer_flags & 1;
      memcpy(r->pending.extrusion, n, sizeof n);
      r->pending.elevation = e->z30;
      r->pending_sw = e->w40;
      r->pending_ew = e->w41;
    }
  }
  /* a model-space hatch whose boundary GDAL cannot read (tc_dxf_hatch_boundary) */
  if (section == 2 && e->is_hatch && !e->paper && e->handle[0] && e->hcount < MAX_HATCH_CODES &&
      r->fit_hatch_count < MAX_WIPEOUTS && r->fit_hatch_points < MAX_BUILT_POINTS) {
    tc_fit_hatch h = {.handle = strtoull(e->handle, NULL, 16), .extrusion = {e->x210, e->y220, e->z230}, .elevation = e->z30};
    int found = tc_dxf_hatch_boundary(e->hc, e->hv, e->hcount, &h.xy, &h.count, &h.rings, &h.ring_count);
    if (found == 1 && (h.extrusion[0] != 0 || h.extrusion[1] != 0 || h.extrusion[2] != 0)) {
      if (tc_grow_array((void **)&r->fit_hatches, &r->fit_hatch_cap, r->fit_hatch_count + 1, sizeof h, 16)) {
        free(h.xy);
        free(h.rings);
        r->failed = 1;
        return;
      }
      r->fit_hatches[r->fit_hatch_count++] = h;
      r->fit_hatch_points += (size_t)h.count;
    } else if (found == 1) {
      free(h.xy);
      free(h.rings);
    } else if (found < 0) {
      r->failed = 1;
      return;
    }
  }
  if (section == 2 && !e->paper && e->handle[0] && e->z230 < 0 && fabs(e->x210) < 1e-9 && fabs(e->y220) < 1e-9 &&
      (!strcmp(e->type, "TEXT") || !strcmp(e->type, "ATTRIB"))) {
    if (tc_grow_array((void **)&r->down_texts, &r->down_text_cap, r->down_text_count + 1, sizeof(unsigned long long), 16)) {
      r->failed = 1;
      return;
    }
    r->down_texts[r->down_text_count++] = strtoull(e->handle, NULL, 16);
  }
  if (section == 2 && !e->paper && e->handle[0] && !strcmp(e->type, "MLINE") && e->mline.count >= 2 &&
      r->raw_mline_count < MAX_WIPEOUTS && r->raw_mline_vertices < MAX_BUILT_POINTS / 16) {
    size_t cap = r->raw_mline_cap;
    if (tc_grow_array((void **)&r->raw_mlines, &cap, r->raw_mline_count + 1, sizeof(tc_mline_raw), 16) ||
        (cap != r->raw_mline_cap && (resize((void **)&r->raw_mline_handles, cap * sizeof *r->raw_mline_handles) ||
                                     resize((void **)&r->raw_mline_layers, cap * sizeof *r->raw_mline_layers)))) {
      r->failed = 1;
      return;
    }
    r->raw_mline_cap = cap;
    tc_mline_raw copy = e->mline;
    copy.v = malloc(e->mline.count * (5 + TC_MLINE_ELEMENTS) * sizeof(double));
    if (!copy.v) {
      r->failed = 1;
      return;
    }
    memcpy(copy.v, e->mline.v, e->mline.count * (5 + TC_MLINE_ELEMENTS) * sizeof(double));
    copy.cap = e->mline.count;
    r->raw_mline_vertices += e->mline.count;
    r->raw_mline_handles[r->raw_mline_count] = strtoull(e->handle, NULL, 16);
    snprintf(r->raw_mline_layers[r->raw_mline_count], sizeof r->raw_mline_layers[0], "%s", e->layer);
    r->raw_mlines[r->raw_mline_count++] = copy;
  }
  if (section == 1 && !block)
    return;
  if (section == 2 && e->paper)
    return;
  if (!strcmp(e->type, "WIPEOUT")) {
    double *xy = NULL;
    int n = boundary(e, &xy);
    if (n < 0) {
      r->failed = 1;
      return;
    }
    if (n == 0)
      return;
    local_wipeout w = {.xy = xy, .count = n};
    snprintf(w.layer, sizeof w.layer, "%s", e->layer);
    snprintf(w.handle, sizeof w.handle, "%s", e->handle);
    if (section == 1) {
      if (tc_grow_array((void **)&block->wipeouts, &(size_t){block->wipeout_count}, block->wipeout_count + 1, sizeof w, 16)) {
        free(xy);
        r->failed = 1;
        return;
      }
      /* capacity tracked by count: grown to the next power of two each time */
      block->wipeouts[block->wipeout_count++] = w;
    } else {
      if (tc_grow_array((void **)&r->model, &r->model_cap, r->model_count + 1, sizeof w, 16) ||
          resize((void **)&r->model_keys, r->model_cap * sizeof *r->model_keys)) {
        free(xy);
        r->failed = 1;
        return;
      }
      r->model_keys[r->model_count][0] = 0;
      r->model[r->model_count++] = w;
      r->model_pending++;
    }
    return;
  }
  if (section == 2 && strcmp(e->type, "SEQEND")) {
    int attrib = !strcmp(e->type, "ATTRIB");
    /* runs of entities share a layer: look each run's up once */
    if (strcmp(e->layer, r->last_layer)) {
      snprintf(r->last_layer, sizeof r->last_layer, "%s", e->layer);
      r->last_hidden = layer_hidden(r, e->layer);
    }
    int hidden = e->invisible || r->last_hidden || (attrib && r->insert_hidden);
    if (!attrib)
      r->insert_hidden = hidden;
    /* without a handle (an R12 file of $HANDLING 0) a hidden insert's ATTRIB, which GDAL
     * gives on its own layer, is known by where it stands */
    if (hidden && attrib && !e->handle[0] && r->hidden_point_count < MAX_WIPEOUTS) {
      if (tc_grow_array((void **)&r->hidden_points, &r->hidden_point_cap, r->hidden_point_count + 2, 2 * sizeof(double), 64)) {
        r->failed = 1;
        return;
      }
      double *p = r->hidden_points + 2 * r->hidden_point_count;
      p[0] = e->x10, p[1] = e->y10, p[2] = e->x11, p[3] = e->y11;
      r->hidden_point_count += 2;
    }
    if (hidden && e->handle[0]) {
      if (tc_grow_array((void **)&r->hidden, &r->hidden_cap, r->hidden_count + 1, sizeof(unsigned long long), 64)) {
        r->failed = 1;
        return;
      }
      r->hidden[r->hidden_count++] = strtoull(e->handle, NULL, 16);
    }
  }
  if (section == 2 && !strcmp(e->type, "SPLINE") && !e->has_x10 && e->fcount >= 2 && e->handle[0] &&
      r->spline_count < MAX_WIPEOUTS) {
    if (tc_grow_array((void **)&r->splines, &r->spline_cap, r->spline_count + 1, sizeof(tc_fit_spline), 16)) {
      r->failed = 1;
      return;
    }
    tc_fit_spline *sp = &r->splines[r->spline_count];
    memset(sp, 0, sizeof *sp);
    sp->xy = malloc(sizeof(double) * 2 * (size_t)e->fcount);
    if (!sp->xy) {
      r->failed = 1;
      return;
    }
    memcpy(sp->xy, e->fxy, sizeof(double) * 2 * (size_t)e->fcount);
    sp->count = e->fcount;
    sp->handle = strtoull(e->handle, NULL, 16);
    snprintf(sp->layer, sizeof sp->layer, "%s", e->layer);
    sp->hidden = e->invisible || layer_hidden(r, e->layer);
    entity_rgb(r, e, sp->rgb);
    sp->lineweight_mm = e->lineweight > 0 ? e->lineweight / 100.0 : 0;
    /* ezdxf uses the end tangents only when both are given (and fails on a zero one) */
    double l0 = hypot(e->x12, e->y12), l1 = hypot(e->x13, e->y13);
    if (e->has_x12 && e->has_x13 && l0 > 0 && l1 > 0) {
      sp->has_tangents = 1;
      sp->tangents[0] = e->x12 / l0, sp->tangents[1] = e->y12 / l0;
      sp->tangents[2] = e->x13 / l1, sp->tangents[3] = e->y13 / l1;
    }
    r->spline_count++;
  }
  if (section == 1 && block && (!strcmp(e->type, "XLINE") || !strcmp(e->type, "RAY")) && block->xline_count < MAX_WIPEOUTS) {
    double length = hypot(e->x11, e->y11);
    if (length > 0 && isfinite(length)) {
      if (tc_grow_array((void **)&block->xlines, &block->xline_cap, block->xline_count + 1, sizeof(local_xline), 4)) {
        r->failed = 1;
        return;
      }
      local_xline *l = &block->xlines[block->xline_count++];
      memset(l, 0, sizeof *l);
      snprintf(l->x.layer, sizeof l->x.layer, "%s", e->layer);
      l->x.ray = !strcmp(e->type, "RAY");
      l->x.lineweight_mm = e->lineweight > 0 ? e->lineweight / 100.0 : 0;
      l->x.x = e->x10, l->x.y = e->y10, l->x.dx = e->x11 / length, l->x.dy = e->y11 / length;
      l->colour = e->colour, l->invisible = e->invisible, l->true_colour = e->true_colour;
    }
  }
  if (section == 2 && (!strcmp(e->type, "XLINE") || !strcmp(e->type, "RAY")) && e->handle[0] &&
      r->xline_count < MAX_WIPEOUTS) {
    double length = hypot(e->x11, e->y11);
    if (length > 0 && isfinite(length)) {
      if (tc_grow_array((void **)&r->xlines, &r->xline_cap, r->xline_count + 1, sizeof(tc_xline), 16)) {
        r->failed = 1;
        return;
      }
      tc_xline *x = &r->xlines[r->xline_count++];
      memset(x, 0, sizeof *x);
      x->handle = strtoull(e->handle, NULL, 16);
      snprintf(x->layer, sizeof x->layer, "%s", e->layer);
      x->hidden = e->invisible || layer_hidden(r, e->layer);
      x->ray = !strcmp(e->type, "RAY");
      entity_rgb(r, e, x->rgb);
      x->lineweight_mm = e->lineweight > 0 ? e->lineweight / 100.0 : 0;
      x->x = e->x10, x->y = e->y10, x->dx = e->x11 / length, x->dy = e->y11 / length;
    }
  }
  if (section == 2 && !strcmp(e->type, "IMAGE") && e->handle[0] && r->image_count < MAX_WIPEOUTS &&
      r->image_points < MAX_BUILT_POINTS) {
    if (tc_grow_array((void **)&r->images, &r->image_cap, r->image_count + 1, sizeof(tc_image_frame), 16) ||
        keep_image(r, e, &r->images[r->image_count])) {
      r->failed = 1;
      return;
    }
    r->image_points += (size_t)r->images[r->image_count++].count;
  }
  /* one in a block: placed by each insert of it (expand) */
  if (section == 1 && block && !strcmp(e->type, "IMAGE") && block->image_count < MAX_WIPEOUTS) {
    if (tc_grow_array((void **)&block->images, &block->image_cap, block->image_count + 1, sizeof(local_image), 4) ||
        keep_image(r, e, &block->images[block->image_count].f)) {
      r->failed = 1;
      return;
    }
    local_image *l = &block->images[block->image_count++];
    l->colour = e->colour, l->invisible = e->invisible, l->true_colour = e->true_colour;
  }
  if (section == 2 && !strcmp(e->type, "MESH") && e->handle[0] && !e->paper && e->fcount > 0 && e->hcount > 0 &&
      r->image_count < MAX_WIPEOUTS && r->image_points < MAX_BUILT_POINTS)
    keep_mesh(r, e, NULL);
  /* one in a block: placed by each insert of it (expand) */
  if (section == 1 && block && !strcmp(e->type, "MESH") && e->fcount > 0 && e->hcount > 0 && block->image_count < MAX_WIPEOUTS)
    keep_mesh(r, e, block);
  int is_ref = !e->invisible && e->name[0] &&
               (!strcmp(e->type, "ACAD_TABLE") || !strcmp(e->type, "ARC_DIMENSION") ||
                !strcmp(e->type, "LARGE_RADIAL_DIMENSION"));
  int block_ref = is_ref && section == 2 && !e->paper;
  /* one in a block: placed by each insert of it (expand), within the same bound */
  int local_ref = is_ref && section == 1 && block && block->ref_count < MAX_BLOCK_REFS;
  if (block_ref && r->ref_count >= MAX_BLOCK_REFS)
    r->ref_dropped++; /* said in a warning (tc_dxf_measure's not_drawn) */
  else if (block_ref || local_ref) {
    tc_block_ref **refs = block_ref ? &r->refs : &block->refs;
    size_t *count = block_ref ? &r->ref_count : &block->ref_count, *cap = block_ref ? &r->ref_cap : &block->ref_cap;
    if (tc_grow_array((void **)refs, cap, *count + 1, sizeof(tc_block_ref), 8)) {
      r->failed = 1;
      return;
    }
    tc_block_ref *ref = &(*refs)[(*count)++];
    memset(ref, 0, sizeof *ref);
    snprintf(ref->handle, sizeof ref->handle, "%s", e->handle);
    snprintf(ref->layer, sizeof ref->layer, "%s", e->layer[0] ? e->layer : "0");
    snprintf(ref->name, sizeof ref->name, "%s", e->name);
    /* a table's insertion point is its 10, a dimension's its 12 (none: the origin) */
    int table = !strcmp(e->type, "ACAD_TABLE");
    ref->x = table ? e->x10 : e->has_x12 ? e->x12 : 0;
    ref->y = table ? e->y10 : e->has_x12 ? e->y12 : 0;
    ref->sx = ref->sy = 1;
    ref->colour = e->colour;
    ref->true_colour = e->true_colour;
    /* ByBlock: in a block, the colour of the insert that places it; in model space, where
     * no insert places it, ezdxf's default, drawn dark (colour 7) */
    if (e->has_62 && e->colour == 0 && e->true_colour < 0)
      ref->colour = block_ref ? 7 : REF_BY_BLOCK;
    ref->lineweight = e->lineweight;
  }
  if (section == 2) {
    /* the next entity drawn after model-space wipeouts: they are drawn before it */
    for (size_t i = r->model_count - r->model_pending; i < r->model_count; i++)
      snprintf(r->model_keys[i], sizeof r->model_keys[i], "%s", e->handle);
    r->model_pending = 0;
  }
  if (section == 1 && block && e->is_hatch) {
    /* a block's hatch whose boundary GDAL cannot read, as in model space */
    tc_fit_hatch h = {.extrusion = {e->x210, e->y220, e->z230}, .elevation = e->z30};
    int found = e->hcount < MAX_HATCH_CODES && r->fit_hatch_points < MAX_BUILT_POINTS
                  ? tc_dxf_hatch_boundary(e->hc, e->hv, e->hcount, &h.xy, &h.count, &h.rings, &h.ring_count)
                  : 0;
    if (found < 0 || tc_grow_array((void **)&block->bounds, &block->bound_cap, block->bound_count + 1, sizeof h, 4)) {
      free(h.xy);
      free(h.rings);
      r->failed = 1;
      return;
    }
    if (found != 1 || (h.extrusion[0] == 0 && h.extrusion[1] == 0 && h.extrusion[2] == 0)) {
      free(h.xy);
      free(h.rings);
      h.xy = NULL, h.rings = NULL, h.count = h.ring_count = 0;
    }
    r->fit_hatch_points += (size_t)h.count;
    block->bounds[block->bound_count++] = h;
  }
  if (section == 1 && (!strcmp(e->type, "HATCH") || !strcmp(e->type, "INSERT"))) {
    if (tc_grow_array((void **)&block->sequence, &block->sequence_cap, block->sequence_count + 1, sizeof(int), 16)) {
      r->failed = 1;
      return;
    }
    block->sequence[block->sequence_count++] = !strcmp(e->type, "HATCH") ? -(int)block->bound_count : (int)block->insert_count;
  }
  if (!strcmp(e->type, "INSERT")) {
    local_insert in = {.x = e->x10,
                       .y = e->y10,
                       .sx = e->x41,
                       .sy = e->y42,
                       .angle = e->a50,
                       .unshown = e->paper || e->invisible,
                       .columns = e->layer_flags > 1 ? e->layer_flags : 1,
                       .rows = e->boundary_type > 1 ? e->boundary_type : 1,
                       .column_spacing = isfinite(e->x44) ? e->x44 : 0,
                       .row_spacing = isfinite(e->y45) ? e->y45 : 0,
                       .colour = e->has_62 ? e->colour : 256,
                       .true_colour = e->true_colour};
    snprintf(in.name, sizeof in.name, "%s", e->name);
    snprintf(in.layer, sizeof in.layer, "%s", e->layer);
    snprintf(in.handle, sizeof in.handle, "%s", e->handle);
    local_insert **array = section == 1 ? &block->inserts : &r->inserts;
    size_t *count = section == 1 ? &block->insert_count : &r->insert_count;
    size_t cap = section == 1 ? block->insert_count : r->insert_cap;
    if (tc_grow_array((void **)array, &cap, *count + 1, sizeof in, 16)) {
      r->failed = 1;
      return;
    }
    if (section == 2)
      r->insert_cap = cap;
    (*array)[(*count)++] = in;
  }
}

typedef struct {
  double a, b, c, d, e, f; /* x' = a x + b y + c, y' = d x + e y + f */
} affine;

static void emit(reader *r, const local_wipeout *w, const affine *m, const char *key, const char *handle, const char *layer) {
  if (r->failed || r->out_count >= MAX_WIPEOUTS)
    return;
  if (tc_grow_array((void **)&r->out, &r->out_cap, r->out_count + 1, sizeof(tc_wipeout), 16)) {
    r->failed = 1;
    return;
  }
  double *xy = malloc(sizeof(double) * 2 * (size_t)w->count);
  if (!xy) {
    r->failed = 1;
    return;
  }
  for (int i = 0; i < w->count; i++) {
    double x = w->xy[2 * i], y = w->xy[2 * i + 1];
    xy[2 * i] = m->a * x + m->b * y + m->c;
    xy[2 * i + 1] = m->d * x + m->e * y + m->f;
  }
  tc_wipeout *o = &r->out[r->out_count++];
  memset(o, 0, sizeof *o);
  snprintf(o->key, sizeof o->key, "%s", key);
  snprintf(o->handle, sizeof o->handle, "%s", handle);
  snprintf(o->layer, sizeof o->layer, "%s", layer);
  o->hidden = layer_hidden(r, layer);
  o->xy = xy;
  o->count = w->count;
}

/* An XLINE or a RAY of a block as the model-space insert `key` places it by `m` (as
 * ezdxf transforms it: its point by `m`, its direction by `m`'s linear part, made a unit
 * vector again), keyed by the insert's handle; on layer 0 it takes the insert's layer. */
static void emit_xline(reader *r, const local_xline *l, const affine *m, const char *key, const char *insert_layer) {
  if (r->failed || r->xline_count >= MAX_WIPEOUTS)
    return;
  double dx = m->a * l->x.dx + m->b * l->x.dy, dy = m->d * l->x.dx + m->e * l->x.dy, length = hypot(dx, dy);
  if (!(length > 0 && isfinite(length)))
    return;
  if (tc_grow_array((void **)&r->xlines, &r->xline_cap, r->xline_count + 1, sizeof(tc_xline), 16)) {
    r->failed = 1;
    return;
  }
  tc_xline *x = &r->xlines[r->xline_count++];
  *x = l->x;
  x->handle = strtoull(key, NULL, 16);
  if (!strcmp(l->x.layer, "0"))
    snprintf(x->layer, sizeof x->layer, "%s", insert_layer);
  x->hidden = l->invisible || layer_hidden(r, x->layer) || layer_hidden(r, insert_layer);
  colour_rgb(r, l->colour, x->layer, l->true_colour, x->rgb);
  x->x = m->a * l->x.x + m->b * l->x.y + m->c, x->y = m->d * l->x.x + m->e * l->x.y + m->f;
  x->dx = dx / length, x->dy = dy / length;
}

/* An IMAGE in a block placed by `m` for the model-space insert `key`: its boundary and
 * its name's place moved, the name's width and direction as U is placed (ezdxf
 * transforms the image's U and V and writes its name from them). */
static void emit_image(reader *r, const local_image *l, const affine *m, const char *key, const char *insert_layer) {
  if (r->failed || r->image_count >= MAX_WIPEOUTS || r->image_points + (size_t)l->f.count > MAX_BUILT_POINTS)
    return;
  double *xy = malloc(sizeof(double) * 2 * (size_t)l->f.count);
  if (!xy || tc_grow_array((void **)&r->images, &r->image_cap, r->image_count + 1, sizeof(tc_image_frame), 16)) {
    free(xy);
    r->failed = 1;
    return;
  }
  for (int i = 0; i < l->f.count; i++) {
    double x = l->f.xy[2 * i], y = l->f.xy[2 * i + 1];
    xy[2 * i] = m->a * x + m->b * y + m->c;
    xy[2 * i + 1] = m->d * x + m->e * y + m->f;
  }
  int *rings = l->f.ring_count > 0 ? malloc(sizeof(int) * (size_t)l->f.ring_count) : NULL;
  if (l->f.ring_count > 0 && !rings) {
    free(xy);
    r->failed = 1;
    return;
  }
  if (rings)
    memcpy(rings, l->f.rings, sizeof(int) * (size_t)l->f.ring_count);
  tc_image_frame *f = &r->images[r->image_count++];
  *f = l->f;
  f->xy = xy;
  f->rings = rings;
  f->handle = strtoull(key, NULL, 16);
  if (!strcmp(l->f.layer, "0"))
    snprintf(f->layer, sizeof f->layer, "%s", insert_layer);
  f->hidden = l->invisible || layer_hidden(r, f->layer) || layer_hidden(r, insert_layer);
  colour_rgb(r, l->colour, f->layer, l->true_colour, f->rgb);
  r->image_points += (size_t)f->count;
  f->name = NULL;
  if (l->f.def) {
    double t = l->f.name_angle * M_PI / 180, ux = m->a * cos(t) + m->b * sin(t), uy = m->d * cos(t) + m->e * sin(t);
    double x = l->f.name_xy[0], y = l->f.name_xy[1], scale = hypot(ux, uy);
    if (scale > 0 && isfinite(scale)) {
      f->name = image_name(r, l->f.def, &r->failed);
      f->name_xy[0] = m->a * x + m->b * y + m->c;
      f->name_xy[1] = m->d * x + m->e * y + m->f;
      f->name_angle = atan2(uy, ux) * 180 / M_PI;
      f->name_width = l->f.name_width * scale;
    }
  }
}

/* A table or arc dimension of a block placed by `m` for a model-space insert: an INSERT
 * of its block at its point placed, turned and scaled as `m`'s linear part (its columns'
 * turn and lengths, the second's sign from the determinant: a mirrored insert's 42 is
 * negative), with a handle of its own past any of the file's; on layer 0 it takes the
 * insert's layer, and none is made where that layer is hidden. Where `m` shears (its
 * columns not at right angles: a turned insert inside one scaled unevenly), which one
 * INSERT cannot, its linear part is split as R(angle) S(sx, sy) R(inner_angle) (its
 * singular value decomposition, the reflection kept in sy) for two nested INSERTs
 * (open_block_refs), which GDAL composes as it composes the block's other entities.
 * Past MAX_BLOCK_REFS in all, counted as not drawn. */
static void emit_ref(reader *r, const tc_block_ref *l, const affine *m, const char *insert_layer, const tint *colour) {
  if (r->failed || r->placing_unshown)
    return;
  double sx = hypot(m->a, m->d), det = m->a * m->e - m->b * m->d;
  if (!(sx > 0 && isfinite(sx) && isfinite(det) && det != 0))
    return;
  const char *layer = strcmp(l->layer, "0") ? l->layer : insert_layer;
  if (layer_hidden(r, layer) || layer_hidden(r, insert_layer))
    return;
  if (r->ref_count >= MAX_BLOCK_REFS) {
    r->ref_dropped++;
    return;
  }
  if (tc_grow_array((void **)&r->refs, &r->ref_cap, r->ref_count + 1, sizeof(tc_block_ref), 8)) {
    r->failed = 1;
    return;
  }
  tc_block_ref *ref = &r->refs[r->ref_count];
  *ref = *l;
  snprintf(ref->handle, sizeof ref->handle, "%llX", 0xFFFFFFFF00000000ULL + r->ref_count);
  r->ref_count++;
  snprintf(ref->layer, sizeof ref->layer, "%s", layer);
  if (l->colour == REF_BY_BLOCK) {
    ref->colour = colour->aci;
    ref->true_colour = colour->true_colour;
  }
  ref->x = m->a * l->x + m->b * l->y + m->c;
  ref->y = m->d * l->x + m->e * l->y + m->f;
  ref->sx = sx;
  ref->sy = det / sx;
  ref->angle = atan2(m->d, m->a) * 180 / M_PI;
  double sy = hypot(m->b, m->e);
  if (fabs(m->a * m->b + m->d * m->e) > 1e-9 * sx * sy) {
    /* a 2 x 2 matrix's singular value decomposition in closed form */
    double e = (m->a + m->e) / 2, f = (m->a - m->e) / 2, g = (m->d + m->b) / 2, h = (m->d - m->b) / 2;
    double q = hypot(e, h), s = hypot(f, g), a1 = atan2(g, f), a2 = atan2(h, e);
    ref->sheared = 1;
    ref->sx = q + s;
    ref->sy = q - s;
    ref->angle = (a2 + a1) / 2 * 180 / M_PI;
    ref->inner_angle = (a2 - a1) / 2 * 180 / M_PI;
  }
}

/* `m` after an insert's own placement of its block `inner`, its point moved by (dx, dy)
 * (a MINSERT's copy): p -> R S (p - base) + position. */
static affine placed(const affine *m, const local_insert *in, const block_def *inner, double dx, double dy) {
  double t = in->angle * M_PI / 180, cs = cos(t), sn = sin(t);
  affine l = {cs * in->sx, -sn * in->sy, 0, sn * in->sx, cs * in->sy, 0};
  l.c = in->x + dx - (l.a * inner->bx + l.b * inner->by);
  l.f = in->y + dy - (l.d * inner->bx + l.e * inner->by);
  return (affine){m->a * l.a + m->b * l.d, m->a * l.b + m->b * l.e, m->a * l.c + m->b * l.f + m->c,
                  m->d * l.a + m->e * l.d, m->d * l.b + m->e * l.e, m->d * l.c + m->e * l.f + m->f};
}

/* Whether inlining `b` makes anything `expand` emits (which 0: wipeouts, XLINEs,
 * IMAGEs and MESHes, tables and arc dimensions; which 2: all but the tables and arc
 * dimensions) or `place_hatches` places (which 1: HATCHes), itself or through the blocks it
 * inserts (memoised). A block that makes none is not walked, however many inserts it
 * nests: a bomb of dimensions or lines cost minutes here before the pre-scan's refusal.
 * A block met again while asked (blocks that insert each other) counts as one that
 * makes something: it is walked, as before, within MAX_DEPTH. */
static int block_makes(reader *r, block_def *b, int which, int depth) {
  if (b->makes[which] == 1)
    return 1;
  if (b->makes[which])
    return b->makes[which] == 3;
  if (depth > MAX_DEPTH)
    return 1;
  b->makes[which] = 1;
  int yes = which == 1 ? 0 : b->wipeout_count || b->xline_count || b->image_count || (which == 0 && b->ref_count);
  for (size_t i = 0; which == 1 && !yes && i < b->sequence_count; i++)
    yes = b->sequence[i] < 0;
  for (size_t i = 0; !yes && i < b->insert_count; i++) {
    block_def *inner = find_def(r, b->inserts[i].name);
    yes = inner && block_makes(r, inner, which, depth + 1);
  }
  b->makes[which] = yes ? 3 : 2;
  return yes;
}

/* Whether placing should stop: the drawing was refused (asked every 4,096 blocks). */
static int placing_stopped(reader *r) {
  if ((++r->placing_visits & 4095) == 0 && r->stopped && r->stopped(r->context))
    r->failed = 1;
  return r->failed;
}

/* A MINSERT's copies (an INSERT is one): `columns` (70) by `rows` (71), 44 and 45 apart
 * along the insert's own turned axes, not scaled, as GDAL and ezdxf place them; a spacing
 * of 0 makes one column (or row), as ezdxf draws each place once. */
static long long copy_count(const local_insert *in, int *columns) {
  *columns = in->column_spacing != 0 ? in->columns : 1;
  return (long long)*columns * (in->row_spacing != 0 ? in->rows : 1);
}

/* Where copy `k` of a MINSERT of `columns` columns lies from its first: (dx, dy). */
static void copy_offset(const local_insert *in, int columns, long long k, double *dx, double *dy) {
  double t = in->angle * M_PI / 180, x = (double)(k % columns) * in->column_spacing, y = (double)(k / columns) * in->row_spacing;
  *dx = x * cos(t) - y * sin(t);
  *dy = x * sin(t) + y * cos(t);
}

/* The tables and arc dimensions inlining `b` makes, its MINSERTs' copies counted (memoised;
 * a block met again while counted adds none, as GDAL does not insert a block into itself). */
static double refs_made(reader *r, block_def *b, int depth) {
  if (b->refs_state == 2)
    return b->refs_total;
  if (b->refs_state == 1 || depth > MAX_DEPTH)
    return 0;
  b->refs_state = 1;
  double sum = (double)b->ref_count;
  for (size_t i = 0; i < b->insert_count; i++) {
    block_def *inner = find_def(r, b->inserts[i].name);
    int columns;
    if (inner)
      sum += (double)copy_count(&b->inserts[i], &columns) * refs_made(r, inner, depth + 1);
  }
  b->refs_state = 2;
  b->refs_total = sum;
  return sum;
}

static void expand(reader *r, block_def *b, const affine *m, const char *key, const char *insert_layer, const tint *colour,
                   int depth);

/* The colour insert `in` (on `layer`, its layer resolved) gives the ByBlock entities of its
 * block, inside a block whose ByBlock entities take `outer`: its true colour, its ACI, the
 * colour of its layer (the layer's ACI and true colour) when it is ByLayer, or `outer` when
 * it is ByBlock itself (ezdxf 1.4.5, MIT: addons/drawing/properties.py, resolve_color of
 * the block reference). */
static tint insert_tint(const reader *r, const local_insert *in, const char *layer, const tint *outer) {
  if (in->true_colour >= 0)
    return (tint){in->colour >= 1 && in->colour <= 255 ? in->colour : 0, in->true_colour};
  if (in->colour == 0)
    return *outer;
  if (in->colour >= 1 && in->colour <= 255)
    return (tint){in->colour, -1};
  tint by_layer = {7, -1};
  for (size_t i = 0; i < r->layer_count; i++)
    if (!strcasecmp(r->layers[i].name, layer)) {
      const layer_def *l = &r->layers[i];
      by_layer = (tint){l->colour >= 1 && l->colour <= 255 ? l->colour : 7, l->true_colour};
    }
  return by_layer;
}

/* What `expand` makes of block `inner` at each copy of `in` (placed in `m`). Past
 * MAX_PLACED_COPIES copies in all, or once the tables drawn are MAX_BLOCK_REFS and the
 * copies left would place nothing else, the tables and arc dimensions those copies hold
 * are counted as not drawn, and they are not walked: a MINSERT of 1000 by 1000 copies
 * costs no more than the 10,000 drawn. */
static void expand_copies(reader *r, block_def *inner, const affine *m, const local_insert *in, const char *key,
                          const char *insert_layer, const tint *outer, int depth) {
  tint colour = insert_tint(r, in, insert_layer, outer);
  int columns;
  long long count = copy_count(in, &columns);
  for (long long k = 0; k < count && !r->failed; k++) {
    if (k > 0 && (r->copies_placed >= MAX_PLACED_COPIES || (r->ref_count >= MAX_BLOCK_REFS && !block_makes(r, inner, 2, 0)))) {
      if (!r->placing_unshown)
        r->ref_dropped += (size_t)fmin((double)(count - k) * refs_made(r, inner, depth), 1e15);
      return;
    }
    if (k > 0)
      r->copies_placed++;
    double dx = 0, dy = 0;
    if (k > 0)
      copy_offset(in, columns, k, &dx, &dy);
    affine n = placed(m, in, inner, dx, dy);
    expand(r, inner, &n, key, insert_layer, &colour, depth);
  }
}

/* A block's wipeouts, and those of the blocks it inserts, placed by `m`; its ByBlock
 * tables and arc dimensions take `colour`. */
static void expand(reader *r, block_def *b, const affine *m, const char *key, const char *insert_layer, const tint *colour,
                   int depth) {
  if (!b || depth > MAX_DEPTH || b->walking[0] || placing_stopped(r))
    return;
  b->walking[0] = 1;
  for (size_t i = 0; i < b->wipeout_count; i++) {
    const local_wipeout *w = &b->wipeouts[i];
    /* what lies on layer 0 in a block takes the insert's layer */
    emit(r, w, m, key, key, strcmp(w->layer, "0") ? w->layer : insert_layer);
  }
  for (size_t i = 0; i < b->xline_count; i++)
    emit_xline(r, &b->xlines[i], m, key, insert_layer);
  for (size_t i = 0; i < b->image_count; i++)
    emit_image(r, &b->images[i], m, key, insert_layer);
  for (size_t i = 0; i < b->ref_count; i++)
    emit_ref(r, &b->refs[i], m, insert_layer, colour);
  for (size_t i = 0; i < b->insert_count; i++) {
    const local_insert *in = &b->inserts[i];
    block_def *inner = find_def(r, in->name);
    if (!inner || !block_makes(r, inner, 0, 0))
      continue;
    expand_copies(r, inner, m, in, key, strcmp(in->layer, "0") ? in->layer : insert_layer, colour, depth + 1);
  }
  b->walking[0] = 0;
}

/* The placement of each HATCH that inlining `b` by `m` makes, in the order GDAL gives
 * their features (the block's order, nested inserts in place), for the model-space
 * insert `insert`. */
static void place_hatches(reader *r, block_def *b, const affine *m, unsigned long long insert, int depth) {
  if (!b || depth > MAX_DEPTH || b->walking[1] || placing_stopped(r))
    return;
  b->walking[1] = 1;
  for (size_t i = 0; i < b->sequence_count && !r->failed; i++) {
    int k = b->sequence[i];
    if (k < 0) {
      if (r->hatch_count >= MAX_WIPEOUTS ||
          tc_grow_array((void **)&r->hatches, &r->hatch_cap, r->hatch_count + 1, sizeof(tc_hatch_transform), 16)) {
        r->failed = r->hatch_count < MAX_WIPEOUTS;
        return;
      }
      size_t index = r->hatch_count++;
      r->hatches[index] = (tc_hatch_transform){insert, index, {m->a, m->b, m->c, m->d, m->e, m->f}};
      size_t bound = (size_t)(-1 - k);
      const tc_fit_hatch *h = bound < b->bound_count ? &b->bounds[bound] : NULL;
      if (h && h->xy && r->fit_hatch_points < MAX_BUILT_POINTS) {
        tc_hatch_transform *t = &r->hatches[index];
        t->xy = malloc(sizeof(double) * 2 * (size_t)h->count);
        t->rings = malloc(sizeof(int) * (size_t)h->ring_count);
        if (!t->xy || !t->rings) {
          free(t->xy);
          free(t->rings);
          t->xy = NULL, t->rings = NULL;
          r->failed = 1;
          return;
        }
        memcpy(t->xy, h->xy, sizeof(double) * 2 * (size_t)h->count);
        memcpy(t->rings, h->rings, sizeof(int) * (size_t)h->ring_count);
        t->count = h->count, t->ring_count = h->ring_count;
        memcpy(t->extrusion, h->extrusion, sizeof t->extrusion);
        t->elevation = h->elevation;
        r->fit_hatch_points += (size_t)h->count;
      }
      continue;
    }
    if ((size_t)k >= b->insert_count)
      continue;
    const local_insert *in = &b->inserts[k];
    block_def *inner = find_def(r, in->name);
    if (!inner || !block_makes(r, inner, 1, 0))
      continue;
    affine n = placed(m, in, inner, 0, 0);
    place_hatches(r, inner, &n, insert, depth + 1);
  }
  b->walking[1] = 0;
}

/* The features of each tc_raw_kind block `b` inlines, and how many of them have values
 * (memoised; a block met again while counted, which GDAL does not inline into itself,
 * adds none). */
static void count_raw(reader *r, block_def *b, int depth) {
  if (b->raw_state)
    return;
  b->raw_state = 1;
  for (size_t i = 0; i < b->raw_item_count; i++) {
    raw_item *item = &b->raw_items[i];
    if (item->kind) {
      b->raw_kinds[item->kind] += 1;
      b->raw_values += item->count > 0;
      continue;
    }
    block_def *inner = find_def(r, item->target);
    item->block = inner ? (int)(inner - r->blocks) : -1;
    if (!inner || depth >= 64)
      continue;
    count_raw(r, inner, depth + 1);
    if (inner->raw_state != 2)
      continue;
    for (int k = 1; k < TC_RAW_KINDS; k++)
      b->raw_kinds[k] += item->times * inner->raw_kinds[k];
    b->raw_values += item->times * inner->raw_values;
  }
  b->raw_state = 2;
}

/* The entries of the features with values that inlining `b` makes for the model-space
 * insert `insert`, numbered by kind from at[kind] on. */
static void inline_raw(reader *r, block_def *b, unsigned long long insert, double at[TC_RAW_KINDS], int depth) {
  /* blocks that insert each other: at most as many blocks entered as entries kept */
  if (++r->raw_inlined_visits > 4000000) {
    r->failed = 1;
    return;
  }
  b->raw_inlining = 1;
  for (size_t i = 0; i < b->raw_item_count && !r->failed; i++) {
    const raw_item *item = &b->raw_items[i];
    if (item->kind) {
      if (item->count) {
        if (at[item->kind] >= UINT32_MAX || tc_grow_array((void **)&r->raw.inlined, &r->raw_inlined_cap,
                                                          r->raw.inlined_count + 1, sizeof(tc_raw_inlined), 64)) {
          r->failed = 1;
          return;
        }
        r->raw.inlined[r->raw.inlined_count++] =
          (tc_raw_inlined){insert, (uint32_t)item->kind, (uint32_t)at[item->kind], {insert, item->first, item->count, 1}};
      }
      at[item->kind] += 1;
      continue;
    }
    if (item->block < 0 || r->blocks[item->block].raw_state != 2 || r->blocks[item->block].raw_inlining || depth >= 64)
      continue;
    block_def *inner = &r->blocks[item->block];
    for (int copy = 0; copy < item->times; copy++) {
      /* nothing to give: only counted */
      if (inner->raw_values == 0) {
        for (int k = 1; k < TC_RAW_KINDS; k++)
          at[k] += (item->times - copy) * inner->raw_kinds[k];
        break;
      }
      inline_raw(r, inner, insert, at, depth + 1);
    }
  }
  b->raw_inlining = 0;
}

static int by_inlined(const void *a, const void *b) {
  const tc_raw_inlined *x = a, *y = b;
  if (x->insert != y->insert)
    return (x->insert > y->insert) - (x->insert < y->insert);
  if (x->kind != y->kind)
    return (x->kind > y->kind) - (x->kind < y->kind);
  return (x->index > y->index) - (x->index < y->index);
}

static int by_insert(const void *a, const void *b) {
  const tc_hatch_transform *x = a, *y = b;
  if (x->insert != y->insert)
    return (x->insert > y->insert) - (x->insert < y->insert);
  return (x->index > y->index) - (x->index < y->index);
}

const tc_hatch_transform *tc_dxf_hatch_transforms(const char *handle, const tc_hatch_transform *hatches, size_t count,
                                                  size_t *found) {
  unsigned long long h = strtoull(handle, NULL, 16);
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (hatches[mid].insert < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < count && hatches[end].insert == h)
    end++;
  *found = end - lo;
  return end > lo ? hatches + lo : NULL;
}

static int by_raw(const void *a, const void *b) {
  unsigned long long x = ((const tc_raw_entry *)a)->handle, y = ((const tc_raw_entry *)b)->handle;
  return (x > y) - (x < y);
}

static int by_spline(const void *a, const void *b) {
  unsigned long long x = ((const tc_fit_spline *)a)->handle, y = ((const tc_fit_spline *)b)->handle;
  return (x > y) - (x < y);
}

static int by_wide(const void *a, const void *b) {
  unsigned long long x = ((const tc_wide_polyline *)a)->handle, y = ((const tc_wide_polyline *)b)->handle;
  return x < y ? -1 : x > y;
}

static int by_fit_hatch(const void *a, const void *b) {
  unsigned long long x = ((const tc_fit_hatch *)a)->handle, y = ((const tc_fit_hatch *)b)->handle;
  return (x > y) - (x < y);
}

static int by_mline(const void *a, const void *b) {
  unsigned long long x = ((const tc_mline *)a)->handle, y = ((const tc_mline *)b)->handle;
  return (x > y) - (x < y);
}

void tc_image_frames_free(tc_image_frame *frames, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free(frames[i].xy);
    free(frames[i].rings);
    free(frames[i].name);
  }
  free(frames);
}

static int by_image(const void *a, const void *b) {
  unsigned long long x = ((const tc_image_frame *)a)->handle, y = ((const tc_image_frame *)b)->handle;
  return (x > y) - (x < y);
}

static int by_xline(const void *a, const void *b) {
  unsigned long long x = ((const tc_xline *)a)->handle, y = ((const tc_xline *)b)->handle;
  return (x > y) - (x < y);
}

static int by_entity(const void *a, const void *b) {
  unsigned long long x = ((const tc_sort_entry *)a)->entity, y = ((const tc_sort_entry *)b)->entity;
  return (x > y) - (x < y);
}

unsigned long long tc_dxf_draw_order(const char *handle, const tc_sort_entry *order, size_t count) {
  unsigned long long h = strtoull(handle, NULL, 16);
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (order[mid].entity == h)
      return order[mid].sort;
    if (order[mid].entity < h)
      lo = mid + 1;
    else
      hi = mid;
  }
  return h;
}

static int by_handle(const void *a, const void *b) {
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return (x > y) - (x < y);
}

static int by_point(const void *a, const void *b) {
  const double *p = a, *q = b;
  if (p[0] != q[0])
    return p[0] < q[0] ? -1 : 1;
  return (p[1] > q[1]) - (p[1] < q[1]);
}

int tc_dxf_hidden_at(double x, double y, const double *points, size_t count) {
  /* the first point not left of x less a tolerance */
  double tolerance = 1e-9 * fmax(1, fmax(fabs(x), fabs(y)));
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (points[2 * mid] < x - tolerance)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i < count && points[2 * i] <= x + tolerance; i++)
    if (fabs(points[2 * i + 1] - y) <= tolerance)
      return 1;
  return 0;
}

int tc_dxf_hidden(const char *handle, const unsigned long long *hidden, size_t count) {
  unsigned long long h = strtoull(handle, NULL, 16);
  return count && bsearch(&h, hidden, count, sizeof h, by_handle) != NULL;
}

int tc_dxf_wipeouts(const char *path, tc_dxf_scan *out, int (*stopped)(void *), void *context) {
  memset(out, 0, sizeof *out);
  out->entities_at = out->blocks_end_at = -1;
  FILE *file = fopen(path, "rb");
  if (!file)
    return -1;
  char head[20] = {0};
  if (fread(head, 1, 18, file) == 18 && !memcmp(head, "AutoCAD Binary DXF", 18)) {
    fclose(file);
    return 0;
  }
  rewind(file);
  reader r = {.stopped = stopped, .context = context};
  entity e = {0};
  reset(&e, "");
  char *code_line = NULL, *value_line = NULL;
  size_t code_cap = 0, value_cap = 0;
  /* 0 elsewhere, 1 BLOCKS, 2 ENTITIES, 3 TABLES, 4 OBJECTS */
  int section = 0, expect_name = 0;
  block_def *block = NULL;
  int in_block_header = 0;
  unsigned groups = 0;
  /* where the last "0 SECTION" line starts */
  long long section_at = -1;
  ssize_t code_bytes, value_bytes;
  while (!r.failed && (code_bytes = getline(&code_line, &code_cap, file)) > 0 &&
         (value_bytes = getline(&value_line, &value_cap, file)) > 0) {
    /* stopped: its drawing is refused */
    if (stopped && ++groups % 4096 == 0 && stopped(context)) {
      r.failed = 1;
      break;
    }
    int group = atoi(tc_trim_line(code_line));
    char *value = tc_trim_line(value_line);
    if (group == 0) {
      finish(&r, &e, section, block);
      reset(&e, "");
      in_block_header = 0;
      /* a polygon mesh cut short by its block's or section's end (no SEQEND) ends there,
       * before its block is left or the blocks grow (it points into them) */
      if (!strcmp(value, "SECTION") || !strcmp(value, "ENDSEC") || !strcmp(value, "BLOCK") || !strcmp(value, "ENDBLK"))
        end_mesh(&r);
      if (!strcmp(value, "SECTION")) {
        expect_name = 1;
        section_at = (long long)ftell(file) - code_bytes - value_bytes;
      } else if (!strcmp(value, "ENDSEC")) {
        if (section == 1 && out->blocks_end_at < 0)
          out->blocks_end_at = (long long)ftell(file) - code_bytes - value_bytes;
        section = 0;
        block = NULL;
      } else if (section == 1 && !strcmp(value, "BLOCK")) {
        if (tc_grow_array((void **)&r.blocks, &r.block_cap, r.block_count + 1, sizeof(block_def), 16)) {
          r.failed = 1;
          break;
        }
        block = &r.blocks[r.block_count++];
        memset(block, 0, sizeof *block);
        in_block_header = 1;
      } else if (section == 1 && !strcmp(value, "ENDBLK")) {
        block = NULL;
      } else {
        reset(&e, value);
      }
      continue;
    }
    if (expect_name && group == 2) {
      expect_name = 0;
      section = !strcmp(value, "BLOCKS") ? 1 : !strcmp(value, "ENTITIES") ? 2 : !strcmp(value, "TABLES") ? 3
                                                                                   : !strcmp(value, "OBJECTS") ? 4
                                                                                                               : 0;
      if (section == 2 && out->entities_at < 0)
        out->entities_at = section_at;
      continue;
    }
    if (in_block_header && block) {
      if (group == 2 && !block->name[0])
        snprintf(block->name, sizeof block->name, "%s", value);
      else if (group == 10)
        block->bx = strtod(value, NULL);
      else if (group == 20)
        block->by = strtod(value, NULL);
      continue;
    }
    if (!e.type[0])
      continue;
    if (section == 4 && !strcmp(e.type, "MLINESTYLE")) {
      double sx = strtod(value, NULL);
      tc_dxf_mline_style_code(&e.mline_style, group, value, isfinite(sx) ? sx : 0);
      continue;
    }
    if (section == 4 && !strcmp(e.type, "IMAGEDEF")) {
      if (group == 5)
        snprintf(e.handle, sizeof e.handle, "%s", value);
      else if (group == 1)
        snprintf(e.file, sizeof e.file, "%s", value);
      continue;
    }
    if (section == 4) {
      /* SORTENTSTABLE: 331 an entity, then 5 the handle it is drawn as */
      if (!strcmp(e.type, "SORTENTSTABLE")) {
        if (group == 331) {
          snprintf(e.handle, sizeof e.handle, "%s", value);
          e.has_x14 = 1;
        } else if (group == 5 && e.has_x14) {
          e.has_x14 = 0;
          if (tc_grow_array((void **)&r.order, &r.order_cap, r.order_count + 1, sizeof(tc_sort_entry), 16)) {
            r.failed = 1;
            break;
          }
          r.order[r.order_count++] = (tc_sort_entry){strtoull(e.handle, NULL, 16), strtoull(value, NULL, 16)};
        }
      }
      continue;
    }
    double x = strtod(value, NULL);
    if (!isfinite(x))
      x = 0;
    if (e.is_hatch && (section == 2 || (section == 1 && block)) && e.hcount < MAX_HATCH_CODES) {
      if (tc_grow_array((void **)&e.hc, &e.hcap, e.hcount + 1, sizeof(int), 256) ||
          tc_grow_array((void **)&e.hv, &e.hvcap, e.hcount + 1, sizeof(double), 256)) {
        r.failed = 1;
        break;
      }
      e.hc[e.hcount] = group;
      e.hv[e.hcount++] = x;
    }
    if (group == 101)
      e.embedded = 1;
    if ((section == 2 || (section == 1 && block)) && !e.embedded && raw_code_read(e.type, group, e.rcount, e.rcount ? e.rc[e.rcount - 1] : 0)) {
      if (tc_grow_array((void **)&e.rc, &e.rcap, e.rcount + 1, sizeof(int), 16) ||
          tc_grow_array((void **)&e.rv, &e.rvcap, e.rcount + 1, sizeof(double), 16)) {
        r.failed = 1;
        break;
      }
      e.rc[e.rcount] = group;
      /* as GDAL's list gives it: the value's text, read as tilecut reads that */
      e.rv[e.rcount++] = strtod(value, NULL);
    }
    if (group == 100) {
      e.subclassed = 1;
      size_t used = strlen(e.classes);
      if (!e.embedded && used + 1 < sizeof e.classes)
        snprintf(e.classes + used, sizeof e.classes - used, "%s%s", used ? ":" : "", value);
    }
    if (section == 2 && !strcmp(e.type, "MLINE") && tc_dxf_mline_code(&e.mline, group, value, x)) {
      r.failed = 1;
      break;
    }
    /* an ACAD_TABLE's cells (their colours, lineweights, points) are its block's */
    if (e.table_data)
      continue;
    if (group == 100 && !strcmp(e.type, "ACAD_TABLE") && !strcmp(value, "AcDbTable")) {
      e.table_data = 1;
      continue;
    }
    if ((section == 2 || (section == 1 && block)) && !strcmp(e.type, "MESH")) {
      /* its vertices (10, 20), and its face list: 93 its length, then as many 90s */
      if (group == 10 || group == 20) {
        if (group == 10 && e.fcount < MAX_MESH_VALUES) {
          if (start_point(&e.fxy, &e.fcap, e.fcount, x))
            r.failed = 1;
          else
            e.has_x11 = 1;
        } else if (group == 20 && e.has_x11) {
          e.fxy[2 * e.fcount + 1] = x;
          e.fcount++;
          e.has_x11 = 0;
        }
        continue;
      }
      if (group == 93) {
        e.mesh_faces_left = x > 0 && x < MAX_MESH_VALUES ? (long)x : 0;
        continue;
      }
      if (group == 90 && e.mesh_faces_left > 0 && e.hcount < MAX_MESH_VALUES) {
        e.mesh_faces_left--;
        if (tc_grow_array((void **)&e.hc, &e.hcap, e.hcount + 1, sizeof(int), 256)) {
          r.failed = 1;
          break;
        }
        e.hc[e.hcount++] = int_of(x);
        continue;
      }
      if (group == 94 || group == 95 || group == 90)
        e.mesh_faces_left = 0;
    }
    switch (group) {
    case 2:
      snprintf(e.name, sizeof e.name, "%s", value);
      break;
    case 5:
      snprintf(e.handle, sizeof e.handle, "%s", value);
      break;
    case 8:
      snprintf(e.layer, sizeof e.layer, "%s", value);
      break;
    case 10:
      e.x10 = x;
      e.has_x10 = 1;
      if (!strcmp(e.type, "LWPOLYLINE") && add_vertex(&e.pv, &e.pcount, &e.pcap, x, 0, 0, 0, 0))
        r.failed = 1;
      break;
    case 20:
      e.y10 = x;
      if (e.pcount && !strcmp(e.type, "LWPOLYLINE"))
        e.pv[5 * (e.pcount - 1) + 1] = x;
      break;
    case 40:
      e.w40 = x, e.has_40 = 1;
      if (e.pcount && !strcmp(e.type, "LWPOLYLINE"))
        e.pv[5 * (e.pcount - 1) + 2] = x;
      break;
    case 43: e.w43 = x; break;
    case 30: e.z30 = x; break;
    case 38: e.e38 = x; break;
    case 210: e.x210 = x; break;
    case 220: e.y220 = x; break;
    case 230: e.z230 = x; break;
    case 11:
      e.x11 = x;
      if (!strcmp(e.type, "SPLINE") && e.fcount < MAX_VERTICES) {
        if (start_point(&e.fxy, &e.fcap, e.fcount, x))
          r.failed = 1;
        else
          e.has_x11 = 1;
      }
      break;
    case 21:
      e.y11 = x;
      if (e.has_x11) {
        e.fxy[2 * e.fcount + 1] = x;
        e.fcount++;
        e.has_x11 = 0;
      }
      break;
    case 370: e.lineweight = (int)x; break;
    case 420: e.true_colour = (long)x & 0xFFFFFF; break;
    case 12: e.x12 = x, e.has_x12 = 1; break;
    case 22: e.y12 = x; break;
    case 13: e.x13 = x, e.has_x13 = 1; break;
    case 23: e.y13 = x; break;
    case 41:
      e.x41 = x;
      e.w41 = x, e.has_41 = 1;
      if (e.pcount && !strcmp(e.type, "LWPOLYLINE"))
        e.pv[5 * (e.pcount - 1) + 3] = x;
      break;
    case 42:
      e.y42 = x;
      e.bulge = x;
      if (e.pcount && !strcmp(e.type, "LWPOLYLINE"))
        e.pv[5 * (e.pcount - 1) + 4] = x;
      break;
    case 50: e.a50 = x; break;
    case 60: e.invisible = x != 0; break;
    case 62: e.colour = int_of(x), e.has_62 = 1; break;
    case 44: e.x44 = x; break;
    case 45: e.y45 = x; break;
    case 67: e.paper = x != 0; break;
    case 70: e.layer_flags = int_of(x); break;
    case 71: e.boundary_type = int_of(x); break;
    case 72: e.n72 = int_of(x); break;
    case 340: e.ref340 = strtoull(value, NULL, 16); break;
    case 14:
      if (e.bcount < MAX_VERTICES) {
        if (start_point(&e.bxy, &e.bcap, e.bcount, x))
          r.failed = 1;
        else
          e.has_x14 = 1;
      }
      break;
    case 24:
      if (e.has_x14 && e.bcount < MAX_VERTICES) {
        e.bxy[2 * e.bcount + 1] = x;
        e.bcount++;
        e.has_x14 = 0;
      }
      break;
    default:
      break;
    }
  }
  finish(&r, &e, section, block);
  end_pending(&r);
  end_mesh(&r);
  free(r.mesh_v);
  /* the shown IMAGEs' file names, from the IMAGEDEFs after them */
  for (size_t i = 0; i < r.image_count && !r.failed; i++)
    r.images[i].name = image_name(&r, r.images[i].def, &r.failed);
  fclose(file);
  free(code_line);
  free(value_line);
  free(e.bxy);
  free(e.fxy);
  free(e.pv);
  free(e.hc);
  free(e.hv);
  free(e.rc);
  free(e.rv);
  free(e.mline.v);
  tc_mline *mlines_out = NULL;
  size_t mlines_made = 0;
  /* the MLINEs drawn with their styles, which the OBJECTS section after them holds */
  if (!r.failed && r.raw_mline_count && r.mline_style_count &&
      !(mlines_out = calloc(r.raw_mline_count, sizeof *mlines_out)))
    r.failed = 1;
  size_t mline_points = 0;
  for (size_t i = 0; i < r.raw_mline_count && mlines_out && !r.failed && mline_points < MAX_BUILT_POINTS; i++) {
    const tc_mline_raw *m = &r.raw_mlines[i];
    const tc_mline_style *style = NULL;
    for (size_t k = 0; k < r.mline_style_count && !style; k++)
      if (m->style_handle[0] && !strcasecmp(r.mline_styles[k].handle, m->style_handle))
        style = &r.mline_styles[k];
    for (size_t k = 0; k < r.mline_style_count && !style; k++)
      if (!strcasecmp(r.mline_styles[k].name, m->style_name))
        style = &r.mline_styles[k];
    int layer_colour = 7;
    for (size_t k = 0; k < r.layer_count; k++)
      if (!strcasecmp(r.layers[k].name, r.raw_mline_layers[i]))
        layer_colour = r.layers[k].colour;
    if (!style)
      continue;
    int made = tc_dxf_mline_build(m, style, layer_colour, &mlines_out[mlines_made]);
    if (made < 0)
      r.failed = 1;
    else if (made == 1) {
      mline_points += (size_t)mlines_out[mlines_made].point_count;
      mlines_out[mlines_made++].handle = r.raw_mline_handles[i];
    }
  }
  for (size_t i = 0; i < r.raw_mline_count; i++)
    free(r.raw_mlines[i].v);
  free(r.raw_mlines);
  free(r.raw_mline_handles);
  free(r.raw_mline_layers);
  free(r.mline_styles);
  free(r.pending.v);
  if (!r.failed) {
    /* model space's own wipeouts, then those its inserts bring, in the order of the file
     * within each kind (the drawing orders them by their keys) */
    affine identity = {1, 0, 0, 0, 1, 0};
    for (size_t i = 0; i < r.model_count; i++)
      emit(&r, &r.model[i], &identity, r.model_keys[i], r.model[i].handle, r.model[i].layer);
    for (size_t i = 0; i < r.insert_count; i++) {
      local_insert *in = &r.inserts[i];
      block_def *b = find_def(&r, in->name);
      if (!b || (!b->wipeout_count && !b->insert_count && !b->sequence_count && !b->xline_count && !b->image_count &&
                 !b->ref_count))
        continue;
      affine m = placed(&identity, in, b, 0, 0);
      r.placing_unshown = in->unshown;
      if (block_makes(&r, b, 0, 0))
        expand_copies(&r, b, &identity, in, in->handle, in->layer, &(tint){7, -1}, 1);
      r.placing_unshown = 0;
      if (block_makes(&r, b, 1, 0))
        place_hatches(&r, b, &m, strtoull(in->handle, NULL, 16), 1);
    }
    /* the raw codes of what the model space's inserts and dimensions inline, at most
     * as many as the drawing's features (the pre-scan refuses more) */
    double budget = 4e6;
    for (size_t i = 0; i < r.raw_insert_count && !r.failed; i++) {
      const raw_item *in = &r.raw_inserts[i];
      block_def *b = find_def(&r, in->target);
      if (!b)
        continue;
      count_raw(&r, b, 0);
      if (b->raw_state != 2 || b->raw_values == 0)
        continue;
      budget -= in->times * b->raw_values;
      if (budget < 0) {
        r.failed = 1;
        break;
      }
      double at[TC_RAW_KINDS] = {0};
      for (int copy = 0; copy < in->times && !r.failed; copy++)
        inline_raw(&r, b, in->handle, at, 0);
    }
  }
  for (size_t i = 0; i < r.block_count; i++) {
    for (size_t k = 0; k < r.blocks[i].wipeout_count; k++)
      free(r.blocks[i].wipeouts[k].xy);
    free(r.blocks[i].wipeouts);
    free(r.blocks[i].xlines);
    for (size_t k = 0; k < r.blocks[i].image_count; k++) {
      free(r.blocks[i].images[k].f.xy);
      free(r.blocks[i].images[k].f.rings);
    }
    free(r.blocks[i].images);
    free(r.blocks[i].refs);
    tc_fit_hatches_free(r.blocks[i].bounds, r.blocks[i].bound_count);
    free(r.blocks[i].inserts);
    free(r.blocks[i].sequence);
    for (size_t k = 0; k < r.blocks[i].raw_item_count; k++)
      free(r.blocks[i].raw_items[k].target);
    free(r.blocks[i].raw_items);
  }
  for (size_t i = 0; i < r.raw_insert_count; i++)
    free(r.raw_inserts[i].target);
  free(r.raw_inserts);
  for (size_t i = 0; i < r.model_count; i++)
    free(r.model[i].xy);
  free(r.blocks);
  free(r.layers);
  free(r.model);
  free(r.model_keys);
  free(r.inserts);
  for (size_t k = 0; k < r.def_count; k++)
    free(r.def_files[k]);
  free(r.def_files);
  free(r.def_handles);
  if (r.failed) {
    tc_wipeouts_free(r.out, r.out_count);
    free(r.order);
    free(r.hidden);
    free(r.hidden_points);
    tc_hatch_transforms_free(r.hatches, r.hatch_count);
    tc_fit_splines_free(r.splines, r.spline_count);
    tc_wide_polylines_free(r.wide, r.wide_count);
    tc_fit_hatches_free(r.fit_hatches, r.fit_hatch_count);
    free(r.down_texts);
    tc_mlines_free(mlines_out, mlines_made);
    free(r.xlines);
    tc_image_frames_free(r.images, r.image_count);
    tc_raw_codes_free(&r.raw);
    free(r.refs);
    out->entities_at = out->blocks_end_at = -1;
    return -1;
  }
  qsort(r.raw.entries, r.raw.count, sizeof *r.raw.entries, by_raw);
  qsort(r.raw.inlined, r.raw.inlined_count, sizeof *r.raw.inlined, by_inlined);
  out->raw = r.raw;
  out->refs = r.refs;
  out->ref_count = r.ref_count;
  out->ref_dropped = r.ref_dropped;
  qsort(r.images, r.image_count, sizeof *r.images, by_image);
  out->images = r.images;
  out->image_count = r.image_count;
  qsort(r.xlines, r.xline_count, sizeof *r.xlines, by_xline);
  out->xlines = r.xlines;
  out->xline_count = r.xline_count;
  qsort(mlines_out, mlines_made, sizeof *mlines_out, by_mline);
  out->mlines = mlines_out;
  out->mline_count = mlines_made;
  qsort(r.down_texts, r.down_text_count, sizeof *r.down_texts, by_handle);
  out->down_texts = r.down_texts;
  out->down_text_count = r.down_text_count;
  qsort(r.fit_hatches, r.fit_hatch_count, sizeof *r.fit_hatches, by_fit_hatch);
  out->fit_hatches = r.fit_hatches;
  out->fit_hatch_count = r.fit_hatch_count;
  qsort(r.wide, r.wide_count, sizeof *r.wide, by_wide);
  out->polylines = r.wide;
  out->polyline_count = r.wide_count;
  qsort(r.splines, r.spline_count, sizeof *r.splines, by_spline);
  out->splines = r.splines;
  out->spline_count = r.spline_count;
  qsort(r.hatches, r.hatch_count, sizeof *r.hatches, by_insert);
  out->hatches = r.hatches;
  out->hatch_count = r.hatch_count;
  qsort(r.hidden, r.hidden_count, sizeof *r.hidden, by_handle);
  out->skipped = r.hidden;
  out->skipped_count = r.hidden_count;
  qsort(r.hidden_points, r.hidden_point_count, 2 * sizeof(double), by_point);
  out->hidden_points = r.hidden_points;
  out->hidden_point_count = r.hidden_point_count;
  qsort(r.order, r.order_count, sizeof(tc_sort_entry), by_entity);
  out->wipeouts = r.out;
  out->wipeout_count = r.out_count;
  out->order = r.order;
  out->order_count = r.order_count;
  return 0;
}

void tc_dxf_scan_free(tc_dxf_scan *scan) {
  free(scan->order);
  free(scan->skipped);
  free(scan->hidden_points);
  tc_hatch_transforms_free(scan->hatches, scan->hatch_count);
  tc_fit_splines_free(scan->splines, scan->spline_count);
  tc_wide_polylines_free(scan->polylines, scan->polyline_count);
  tc_fit_hatches_free(scan->fit_hatches, scan->fit_hatch_count);
  free(scan->down_texts);
  tc_mlines_free(scan->mlines, scan->mline_count);
  free(scan->xlines);
  tc_image_frames_free(scan->images, scan->image_count);
  free(scan->refs);
  tc_raw_codes_free(&scan->raw);
  tc_wipeouts_free(scan->wipeouts, scan->wipeout_count);
  memset(scan, 0, sizeof *scan);
}

void tc_raw_codes_free(tc_raw_codes *raw) {
  free(raw->entries);
  free(raw->codes);
  free(raw->values);
  free(raw->inlined);
  memset(raw, 0, sizeof *raw);
}

const tc_raw_entry *tc_raw_codes_find(const tc_raw_codes *raw, const char *handle) {
  if (!raw->count || !handle || !*handle)
    return NULL;
  tc_raw_entry key = {.handle = strtoull(handle, NULL, 16)};
  return bsearch(&key, raw->entries, raw->count, sizeof key, by_raw);
}

void tc_wide_polylines_free(tc_wide_polyline *polylines, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(polylines[i].v);
  free(polylines);
}

void tc_mlines_free(tc_mline *mlines, size_t count) {
  for (size_t i = 0; mlines && i < count; i++) {
    free(mlines[i].pieces);
    free(mlines[i].xy);
  }
  free(mlines);
}

void tc_hatch_transforms_free(tc_hatch_transform *hatches, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free(hatches[i].xy);
    free(hatches[i].rings);
  }
  free(hatches);
}

void tc_fit_hatches_free(tc_fit_hatch *hatches, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free(hatches[i].xy);
    free(hatches[i].rings);
  }
  free(hatches);
}

void tc_fit_splines_free(tc_fit_spline *splines, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(splines[i].xy);
  free(splines);
}

/* AutoCAD's colour index as RGB: 1-9 named, 10-249 24 hues 15 degrees apart in five
 * shades (255, 204, 153, 127, 76), each full and half saturated, 250-255 greys. */
void tc_aci_rgb(int aci, uint8_t rgb[3]) {
  static const uint8_t named[10][3] = {{0, 0, 0},     {255, 0, 0},   {255, 255, 0}, {0, 255, 0},     {0, 255, 255},
                                       {0, 0, 255},   {255, 0, 255}, {255, 255, 255}, {128, 128, 128}, {192, 192, 192}};
  static const uint8_t greys[6] = {51, 80, 105, 130, 190, 255};
  if (aci >= 1 && aci <= 9) {
    memcpy(rgb, named[aci], 3);
  } else if (aci >= 250 && aci <= 255) {
    rgb[0] = rgb[1] = rgb[2] = greys[aci - 250];
  } else if (aci >= 10 && aci <= 249) {
    static const double shades[5] = {255, 204, 153, 127, 76};
    double value = shades[(aci % 10) / 2], hue = (aci / 10 - 1) * 15.0, saturation = aci % 2 ? 0.5 : 1;
    double c[3];
    for (int k = 0; k < 3; k++) {
      /* hue 0 red, 120 green, 240 blue */
      double h = fmod(hue - k * 120 + 360, 360);
      double level = h <= 60 || h >= 300 ? 1 : h >= 120 && h <= 240 ? 0 : h < 120 ? (120 - h) / 60 : (h - 240) / 60;
      c[k] = value * (1 - saturation * (1 - level));
    }
    for (int k = 0; k < 3; k++)
      rgb[k] = (uint8_t)lround(c[k]);
  } else {
    rgb[0] = rgb[1] = rgb[2] = 0;
  }
}

void tc_wipeouts_free(tc_wipeout *wipeouts, size_t count) {
  for (size_t i = 0; i < count; i++)
    free(wipeouts[i].xy);
  free(wipeouts);
}

const tc_raw_entry *tc_raw_codes_find_inlined(const tc_raw_codes *raw, const char *handle, int kind, uint32_t index) {
  if (!raw->inlined_count || !handle || !*handle)
    return NULL;
  tc_raw_inlined key = {.insert = strtoull(handle, NULL, 16), .kind = (uint32_t)kind, .index = index};
  const tc_raw_inlined *found = bsearch(&key, raw->inlined, raw->inlined_count, sizeof key, by_inlined);
  return found ? &found->entry : NULL;
}
