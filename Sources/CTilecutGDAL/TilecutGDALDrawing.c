#define _GNU_SOURCE 1 /* FNM_CASEFOLD */
#include "TilecutDrawing.h"
#include "TilecutGDAL.h"

#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "TilecutDXFHatch.h"
#include "TilecutDXFScan.h"
#include "TilecutDXFWipeout.h"
#include "TilecutDXFLines.h"
#include "TilecutDXFMText.h"
#include "TilecutDXFTrace.h"
#include "TilecutGDALTable.h"

/* GDAL's messages go into a buffer, never to stderr: each message's first 4 KB (a
 * line shows 300 characters of one), up to 1 MB in all, and those past that counted
 * (a drawing inserting a thousand missing blocks says so a thousand times). */
#define DRAWING_MESSAGE_BYTES 4096
#define DRAWING_MESSAGES_BYTES (1u << 20)
typedef struct {
  char *text;
  size_t used, capacity;
  size_t dropped;
} drawing_messages;

static void collect_drawing(CPLErr level, CPLErrorNum number, const char *message) {
  (void)number;
  drawing_messages *buffer = (drawing_messages *)tc_gdal.CPLGetErrorHandlerUserData();
  if (!buffer || !message || level < CE_Warning)
    return;
  size_t length = strnlen(message, DRAWING_MESSAGE_BYTES);
  size_t needed = buffer->used + length + 2;
  if (needed > DRAWING_MESSAGES_BYTES) {
    buffer->dropped++;
    return;
  }
  if (needed > buffer->capacity) {
    size_t capacity = buffer->capacity ? buffer->capacity : 2048;
    while (capacity < needed)
      capacity *= 2;
    if (capacity > DRAWING_MESSAGES_BYTES)
      capacity = DRAWING_MESSAGES_BYTES;
    char *text = realloc(buffer->text, capacity);
    if (!text) {
      buffer->dropped++;
      return;
    }
    buffer->text = text;
    buffer->capacity = capacity;
  }
  if (buffer->used)
    buffer->text[buffer->used++] = '\n';
  memcpy(buffer->text + buffer->used, message, length);
  buffer->used += length;
  buffer->text[buffer->used] = 0;
}

/* A layer name and whether it is drawn (layer_drawn). */
typedef struct {
  char *name;
  uint64_t hash;
  int drawn;
} layer_memo_slot;

/* Layer names and whether each is drawn: open addressing, `cap` a power of two. */
typedef struct {
  layer_memo_slot *slots;
  size_t count, cap;
} layer_memo;

typedef struct {
  tc_drawing *d;
  size_t item_cap, point_cap, ring_cap, dash_cap, text_cap, column_cap;
  size_t max_bytes, max_text;
  int failed;
  /* the MTEXT layouts (columns, heights) of the DXF at `path`, read at its first MTEXT */
  const char *path;
  tc_mtext_scan mtext;
  int mtext_read;
  /* the current MTEXT's place among those with its handle (an insert's: the MTEXTs it inlines) */
  uint32_t mtext_index;
  /* each item's place in the DXF's draw order (SORTENTSTABLE), when it has one */
  unsigned long long *orders, current_order;
  size_t order_cap;
  int ordered;
  /* the handles of the TEXTs whose extrusion points down (tc_dxf_wipeouts) */
  const unsigned long long *down_texts;
  size_t down_text_count;
  /* the untranslated group codes tilecut reads, from its own scan when GDAL was not
   * asked for them (tc_raw_entry); NULL: from GDAL's RawCodeValues */
  const tc_raw_codes *raw;
  /* the current feature's entry when an insert inlines it from a block (tc_raw_inlined) */
  const tc_raw_entry *inlined_raw;
  /* whether each layer name met so far is drawn under --layers (layer_drawn) */
  layer_memo layer_memo;
} builder;

static size_t list_bytes(const builder *b) {
  const tc_drawing *d = b->d;
  return d->item_count * sizeof(tc_drawing_item) + d->point_count * 16 + d->ring_count * 4 + d->dash_count * 8 +
         d->text_bytes + d->column_height_count * 8;
}

static void fail(builder *b, const char *message) {
  if (b->failed)
    return;
  b->failed = 1;
  free(b->d->error);
  b->d->error = strdup(message);
}

static void extend(tc_drawing *d, double x, double y) {
  if (x < d->min_x)
    d->min_x = x;
  if (x > d->max_x)
    d->max_x = x;
  if (y < d->min_y)
    d->min_y = y;
  if (y > d->max_y)
    d->max_y = y;
}

static int add_point(builder *b, double x, double y) {
  tc_drawing *d = b->d;
  if (!isfinite(x) || !isfinite(y))
    return -1;
  if (tc_grow_array((void **)&d->xy, &b->point_cap, d->point_count + 1, 2 * sizeof(double), 256)) {
    fail(b, "out of memory");
    return -1;
  }
  d->xy[2 * d->point_count] = x;
  d->xy[2 * d->point_count + 1] = y;
  d->point_count++;
  return 0;
}

static tc_drawing_item *add_item(builder *b, const tc_drawing_item *proto) {
  tc_drawing *d = b->d;
  if (tc_grow_array((void **)&d->items, &b->item_cap, d->item_count + 1, sizeof(tc_drawing_item), 256)) {
    fail(b, "out of memory");
    return NULL;
  }
  if (b->ordered) {
    if (tc_grow_array((void **)&b->orders, &b->order_cap, d->item_count + 1, sizeof(unsigned long long), 256)) {
      fail(b, "out of memory");
      return NULL;
    }
    b->orders[d->item_count] = b->current_order;
  }
  tc_drawing_item *item = &d->items[d->item_count++];
  *item = *proto;
  item->first = (uint32_t)d->point_count;
  item->count = 0;
  return item;
}

/* One tool of an OGR style string (PEN, BRUSH, LABEL) and its parameters. */
typedef struct {
  int has_pen, has_brush, has_label;
  uint8_t pen[4], brush[4], label[4];
  double width_mm;
  double dashes[16];
  int dash_count;
  double size, angle, stretch, dx, dy;
  int anchor;
  char text[256];
} style;

static int parse_colour(const char *v, uint8_t out[4]) {
  unsigned r, g, bl, a = 255;
  if (v[0] != '#')
    return -1;
  size_t n = strspn(v + 1, "0123456789abcdefABCDEF");
  if (n == 8) {
    if (sscanf(v + 1, "%2x%2x%2x%2x", &r, &g, &bl, &a) != 4)
      return -1;
  } else if (n == 6) {
    if (sscanf(v + 1, "%2x%2x%2x", &r, &g, &bl) != 3)
      return -1;
  } else {
    return -1;
  }
  /* ACI 7 (and the white GDAL gives for it): drawn dark, as CAD plots it */
  if (r == 255 && g == 255 && bl == 255)
    r = g = bl = 0;
  out[0] = (uint8_t)r;
  out[1] = (uint8_t)g;
  out[2] = (uint8_t)bl;
  out[3] = (uint8_t)a;
  return 0;
}

/* A number with an OGR unit (g: ground, mm, pt, px, cm, in); *unit gets its first letter. */
static double parse_number(const char *v, char *unit) {
  char *end = NULL;
  double x = strtod(v, &end);
  *unit = end && *end ? *end : 0;
  return isfinite(x) ? x : 0;
}

/* Parses "PEN(c:#ff0000,w:0.25g,p:\"1g 0.5g\");BRUSH(fc:#00ff00)" and the like. */
static void parse_style(const char *s, style *st) {
  memset(st, 0, sizeof *st);
  st->stretch = 1;
  st->anchor = 1;
  while (s && *s) {
    while (*s == ';' || *s == ' ')
      s++;
    const char *open = strchr(s, '(');
    if (!open)
      break;
    size_t name_length = (size_t)(open - s);
    int tool = name_length == 3 && !strncmp(s, "PEN", 3) ? 1 : name_length == 5 && !strncmp(s, "BRUSH", 5) ? 2
               : name_length == 5 && !strncmp(s, "LABEL", 5)                                     ? 3
                                                                                                 : 0;
    if (tool == 1)
      st->has_pen = 1, st->pen[3] = 255;
    if (tool == 2)
      st->has_brush = 1, st->brush[3] = 255;
    if (tool == 3)
      st->has_label = 1, st->label[3] = 255;
    const char *p = open + 1;
    while (*p && *p != ')') {
      char key[8] = {0};
      size_t k = 0;
      while (*p && *p != ':' && *p != ',' && *p != ')') {
        if (k < sizeof key - 1)
          key[k++] = *p;
        p++;
      }
      char value[256] = {0};
      size_t n = 0;
      if (*p == ':') {
        p++;
        if (*p == '"') {
          p++;
          while (*p && *p != '"') {
            if (*p == '\\' && p[1])
              p++;
            if (n < sizeof value - 1)
              value[n++] = *p;
            p++;
          }
          if (*p == '"')
            p++;
        } else {
          while (*p && *p != ',' && *p != ')') {
            if (n < sizeof value - 1)
              value[n++] = *p;
            p++;
          }
        }
      }
      if (*p == ',')
        p++;
      char unit = 0;
      if (tool == 1) {
        if (!strcmp(key, "c"))
          parse_colour(value, st->pen);
        else if (!strcmp(key, "w")) {
          double w = parse_number(value, &unit);
          /* GDAL writes a lineweight (hundredths of a millimetre) as w:<mm>g */
          st->width_mm = unit == 'p' && value[strlen(value) - 1] == 't' ? w * 25.4 / 72 : w;
        } else if (!strcmp(key, "p")) {
          char *q = value;
          while (*q && st->dash_count < 16) {
            char *end = NULL;
            double x = strtod(q, &end);
            if (end == q)
              break;
            st->dashes[st->dash_count++] = fabs(x);
            q = end;
            while (*q && *q != ' ')
              q++;
            while (*q == ' ')
              q++;
          }
        }
      } else if (tool == 2) {
        if (!strcmp(key, "fc"))
          parse_colour(value, st->brush);
      } else if (tool == 3) {
        if (!strcmp(key, "c"))
          parse_colour(value, st->label);
        else if (!strcmp(key, "t"))
          snprintf(st->text, sizeof st->text, "%s", value);
        else if (!strcmp(key, "s"))
          st->size = parse_number(value, &unit);
        else if (!strcmp(key, "a"))
          st->angle = parse_number(value, &unit);
        else if (!strcmp(key, "w"))
          st->stretch = parse_number(value, &unit) / 100;
        else if (!strcmp(key, "p"))
          st->anchor = (int)parse_number(value, &unit);
        else if (!strcmp(key, "dx"))
          st->dx = parse_number(value, &unit);
        else if (!strcmp(key, "dy"))
          st->dy = parse_number(value, &unit);
      }
    }
    s = *p ? p + 1 : p;
  }
  /* negative: a text a mirrored insert inlines (GDAL gives w:-100), drawn mirrored */
  if (!(fabs(st->stretch) > 0.01 && fabs(st->stretch) < 100))
    st->stretch = 1;
}

static void add_line(builder *b, OGRGeometryH g, const tc_drawing_item *proto) {
  int n = tc_gdal.OGR_G_GetPointCount(g);
  if (n < 1)
    return;
  tc_drawing_item *item = add_item(b, proto);
  if (!item)
    return;
  for (int i = 0; i < n; i++) {
    double x = tc_gdal.OGR_G_GetX(g, i), y = tc_gdal.OGR_G_GetY(g, i);
    if (add_point(b, x, y) == 0) {
      item->count++;
      extend(b->d, x, y);
    }
  }
  if (n == 1)
    item->kind = TC_DRAWING_DOT;
}

/* Ends a ring of `item` that took `added` points (add_point); 0, or -1 out of memory. */
static int end_ring(builder *b, tc_drawing_item *item, uint32_t added) {
  tc_drawing *d = b->d;
  if (tc_grow_array((void **)&d->rings, &b->ring_cap, d->ring_count + 1, sizeof(uint32_t), 256)) {
    fail(b, "out of memory");
    return -1;
  }
  d->rings[d->ring_count++] = added;
  item->ring_count++;
  return 0;
}

/* A point of `item`: added, counted and taken into the drawing's extent; 1 when it was
 * kept (0: out of memory, or not finite). */
static int item_point(builder *b, tc_drawing_item *item, double x, double y) {
  if (add_point(b, x, y) != 0)
    return 0;
  item->count++;
  extend(b->d, x, y);
  return 1;
}

static void add_polygon(builder *b, OGRGeometryH g, const tc_drawing_item *proto) {
  tc_drawing *d = b->d;
  tc_drawing_item *item = add_item(b, proto);
  if (!item)
    return;
  item->ring_first = (uint32_t)d->ring_count;
  int rings = tc_gdal.OGR_G_GetGeometryCount(g);
  for (int r = 0; r < rings; r++) {
    OGRGeometryH ring = tc_gdal.OGR_G_GetGeometryRef(g, r);
    int n = ring ? tc_gdal.OGR_G_GetPointCount(ring) : 0;
    uint32_t added = 0;
    for (int i = 0; i < n; i++) {
      double x = tc_gdal.OGR_G_GetX(ring, i), y = tc_gdal.OGR_G_GetY(ring, i);
      added += item_point(b, item, x, y);
    }
    if (end_ring(b, item, added))
      return;
  }
}

static void add_geometry(builder *b, OGRGeometryH g, const style *st, const tc_drawing_item *stroke,
                         const tc_drawing_item *fill, int depth) {
  if (!g || b->failed || depth > 8)
    return;
  OGRwkbGeometryType type = tc_gdal.OGR_GT_Flatten(tc_gdal.OGR_G_GetGeometryType(g));
  if (tc_gdal.OGR_GT_IsNonLinear(type)) {
    OGRGeometryH linear = tc_gdal.OGR_G_GetLinearGeometry(g, 0, NULL);
    if (linear) {
      OGRwkbGeometryType t = tc_gdal.OGR_GT_Flatten(tc_gdal.OGR_G_GetGeometryType(linear));
      if (!tc_gdal.OGR_GT_IsNonLinear(t))
        add_geometry(b, linear, st, stroke, fill, depth + 1);
      tc_gdal.OGR_G_DestroyGeometry(linear);
    }
    return;
  }
  switch (type) {
  case wkbPoint:
  case wkbLineString:
    add_line(b, g, stroke);
    break;
  case wkbPolygon:
    if (st->has_brush) {
      add_polygon(b, g, fill);
    } else {
      for (int r = 0; r < tc_gdal.OGR_G_GetGeometryCount(g); r++)
        add_line(b, tc_gdal.OGR_G_GetGeometryRef(g, r), stroke);
    }
    break;
  case wkbPolyhedralSurface:
  case wkbTIN: {
    /* a polyface mesh (GDAL gives its faces a brush): each face's outline stroked, as
     * ezdxf's drawing add-on draws it (frontend.py, draw_mesh_builder_entity) */
    tc_drawing_item outline = *stroke;
    if (!st->has_pen)
      memcpy(outline.rgba, st->brush, 4);
    for (int i = 0; i < tc_gdal.OGR_G_GetGeometryCount(g); i++) {
      OGRGeometryH face = tc_gdal.OGR_G_GetGeometryRef(g, i);
      for (int r = 0; face && r < tc_gdal.OGR_G_GetGeometryCount(face); r++)
        add_line(b, tc_gdal.OGR_G_GetGeometryRef(face, r), &outline);
    }
    break;
  }
  case wkbMultiPoint:
  case wkbMultiLineString:
  case wkbMultiPolygon:
  case wkbGeometryCollection:
    for (int i = 0; i < tc_gdal.OGR_G_GetGeometryCount(g); i++)
      add_geometry(b, tc_gdal.OGR_G_GetGeometryRef(g, i), st, stroke, fill, depth + 1);
    break;
  default:
    break;
  }
}

/* A feature's untranslated group codes: GDAL's RawCodeValues ("41 920.78"), or the
 * pairs tilecut's scan read of its entity (builder's `raw`). */
typedef struct {
  char **values;
  const int *codes;
  const double *numbers;
  size_t count;
} raw_list;

static raw_list feature_raw(const builder *b, OGRFeatureH f) {
  raw_list list = {0};
  if (b->raw) {
    int field = tc_gdal.OGR_F_GetFieldIndex(f, "EntityHandle");
    const tc_raw_entry *e = tc_raw_codes_find(b->raw, field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL);
    if (!e)
      e = b->inlined_raw;
    if (e) {
      list.codes = b->raw->codes + e->first;
      list.numbers = b->raw->values + e->first;
      list.count = e->count;
    }
    return list;
  }
  int field = tc_gdal.OGR_F_GetFieldIndex(f, "RawCodeValues");
  list.values = field >= 0 ? tc_gdal.OGR_F_GetFieldAsStringList(f, field) : NULL;
  return list;
}

/* The `i`th of `list`: its code and value; 0 past its end. */
static int raw_at(const raw_list *list, size_t i, int *code, double *value) {
  if (list->values) {
    if (!list->values[i])
      return 0;
    *code = atoi(list->values[i]);
    const char *space = strchr(list->values[i], ' ');
    *value = space ? strtod(space + 1, NULL) : 0;
    return 1;
  }
  if (i >= list->count)
    return 0;
  *code = list->codes[i];
  *value = list->numbers[i];
  return 1;
}

/* The value of group `code` among a feature's raw group codes, or 0. */
static double raw_code(const builder *b, OGRFeatureH f, int code) {
  raw_list list = feature_raw(b, f);
  int c;
  double x;
  for (size_t i = 0; raw_at(&list, i, &c, &x); i++) {
    if (c == code)
      return isfinite(x) && x > 0 ? x : 0;
  }
  return 0;
}

/* A polyline's width in drawing units: its constant width (43), else the mean of its
 * vertices' start and end widths (LWPOLYLINE's 40/41 a vertex, an R12 POLYLINE's
 * default 40/41), which GDAL 3.6 drops; 0 for any other entity. */
static double polyline_width(const builder *b, OGRFeatureH f) {
  int field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
  const char *classes = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL;
  if (classes && *classes && !strstr(classes, "Polyline"))
    return 0;
  raw_list list = feature_raw(b, f);
  double sum = 0, v;
  int count = 0, polyline = classes && *classes, code;
  for (size_t i = 0; raw_at(&list, i, &code, &v); i++) {
    if (!isfinite(v) || v < 0)
      v = 0;
    if (code == 43)
      return v;
    if (code == 66)
      polyline = 1;
    if (code == 40 || code == 41)
      sum += v, count++;
  }
  return polyline && count ? sum / count : 0;
}

/* A pattern HATCH's line families from its raw group codes (GDAL reads only its
 * boundary: 53 angle, 43/44 base, 45/46 offset, 79 dash count, 49 dashes), encoded
 * as TC_DRAWING_PATTERN's `dashes`; the number of values, 0 for a solid hatch or none. */
static int hatch_pattern(const builder *b, OGRFeatureH f, double *out, int max) {
  int field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
  const char *classes = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL;
  if (!classes || !strstr(classes, "AcDbHatch"))
    return 0;
  field = tc_gdal.OGR_F_GetFieldIndex(f, "Text");
  const char *name = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL;
  if (name && !strcmp(name, "SOLID"))
    return 0;
  raw_list list = feature_raw(b, f);
  int used = 0, family = -1, dashes_left = 0, families = 0, code;
  double v;
  for (size_t i = 0; raw_at(&list, i, &code, &v); i++) {
    if (!isfinite(v))
      return 0;
    if (code == 53) {
      /* at most 16 families of 16 dashes: no pattern explodes into more */
      if (families == 16 || used + 22 > max)
        break;
      family = used;
      families++;
      out[used++] = v;
      for (int k = 0; k < 5; k++)
        out[used++] = 0;
      dashes_left = 0;
    } else if (family >= 0 && code >= 43 && code <= 46) {
      out[family + 1 + (code - 43)] = v;
    } else if (family >= 0 && code == 79) {
      dashes_left = (int)fmin(fmax(v, 0), 16);
    } else if (family >= 0 && code == 49 && dashes_left > 0) {
      out[used++] = v;
      out[family + 5] += 1;
      dashes_left--;
    } else if (family >= 0 && code != 49) {
      /* past the pattern definition (seed points and the rest) */
      if (code == 47 || code == 98)
        break;
    }
  }
  return families ? used : 0;
}

/* Places a pattern's line families (hatch_pattern's encoding) by the affine `m` of
 * the insert that inlines its hatch, as ezdxf (and AutoCAD) do: each base point as
 * the boundary is placed; directions, offsets and dashes turned and scaled as the
 * block's x axis is, so a pattern stays a pattern under a non-uniform scale; a
 * mirrored insert mirrors them. */
static void place_pattern(double *p, int count, const double *m) {
  double det = m[0] * m[4] - m[1] * m[3], scale = hypot(m[0], m[3]);
  double turn = atan2(m[3], m[0]), c = cos(turn) * scale, s = sin(turn) * scale;
  /* the similarity that keeps the x axis: m itself when it is uniform */
  double linear[4] = {c, -s, s, c};
  if (det < 0)
    linear[0] = m[0], linear[1] = m[1], linear[2] = m[3], linear[3] = m[4];
  for (int at = 0; at + 6 <= count;) {
    double angle = p[at] * M_PI / 180, ux = cos(angle), uy = sin(angle);
    double bx = p[at + 1], by = p[at + 2], dx = p[at + 3], dy = p[at + 4];
    int n = (int)p[at + 5];
    double tx = linear[0] * ux + linear[1] * uy, ty = linear[2] * ux + linear[3] * uy, stretch = hypot(tx, ty);
    if (!(stretch > 0) || at + 6 + n > count)
      return;
    p[at] = atan2(ty, tx) * 180 / M_PI;
    p[at + 1] = m[0] * bx + m[1] * by + m[2];
    p[at + 2] = m[3] * bx + m[4] * by + m[5];
    p[at + 3] = linear[0] * dx + linear[1] * dy;
    p[at + 4] = linear[2] * dx + linear[3] * dy;
    for (int j = 0; j < n; j++)
      p[at + 6 + j] *= stretch;
    at += 6 + n;
  }
}

/* The length of the UTF-8 sequence at `s` (of `n` bytes) that encodes a character
 * cairo draws, 0 when it encodes none: a byte that starts no sequence, an overlong or
 * cut sequence, a surrogate (GDAL encodes \U+D800 as one), a noncharacter (U+FDD0 to
 * U+FDEF, U+FFFE, U+FFFF and their like in every plane) or a code past U+10FFFF. */
static size_t drawable_utf8(const unsigned char *s, size_t n) {
  size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] <= 0xDF ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : 0;
  if (len == 0 || len > n)
    return 0;
  unsigned long c = len == 1 ? s[0] : s[0] & (0x7F >> len);
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (s[i] & 0x3F);
  }
  int overlong = (len == 3 && c < 0x800) || (len == 4 && c < 0x10000);
  if (overlong || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE)
    return 0;
  return len;
}

/* The text of `length` bytes at `text`, rewritten where it holds what cairo refuses
 * (drawable_utf8), each such byte or sequence as U+FFFD, the replacement character:
 * one text does not refuse the drawing. 0 on success (`*length` updated), -1 when out
 * of memory. */
static int replace_undrawable(tc_drawing *d, size_t *text_cap, size_t *length) {
  char *text = d->text + d->text_bytes;
  size_t n = *length, i = 0;
  while (i < n) {
    size_t k = drawable_utf8((const unsigned char *)text + i, n - i);
    if (!k)
      break;
    i += k;
  }
  if (i == n)
    return 0;
  char *copy = malloc(n);
  if (!copy || tc_grow_array((void **)&d->text, text_cap, d->text_bytes + 3 * n + 1, 1, 256)) {
    free(copy);
    return -1;
  }
  text = d->text + d->text_bytes;
  memcpy(copy, text, n);
  size_t o = i;
  while (i < n) {
    size_t k = drawable_utf8((const unsigned char *)copy + i, n - i);
    if (k) {
      memcpy(text + o, copy + i, k);
      o += k;
      i += k;
    } else {
      /* the sequence a valid lead byte starts, else the one byte */
      unsigned char lead = (unsigned char)copy[i];
      size_t len = lead >= 0xC2 && lead <= 0xF4 ? (lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2) : 1;
      size_t run = 1;
      while (run < len && i + run < n && ((unsigned char)copy[i + run] & 0xC0) == 0x80)
        run++;
      memcpy(text + o, "\xEF\xBF\xBD", 3);
      o += 3;
      i += run;
    }
  }
  text[o] = 0;
  *length = o;
  free(copy);
  return 0;
}

static int add_text(builder *b, OGRFeatureH f, OGRGeometryH g, const style *st) {
  tc_drawing *d = b->d;
  if (!g || tc_gdal.OGR_GT_Flatten(tc_gdal.OGR_G_GetGeometryType(g)) != wkbPoint)
    return 0;
  int field = tc_gdal.OGR_F_GetFieldIndex(f, "Text");
  const char *text = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : st->text;
  if (!text || !*text || !(fabs(st->size) > 0))
    return 0;
  size_t length = strlen(text);
  if (length > b->max_text) {
    char message[160];
    snprintf(message, sizeof message, "holds a text of %zu bytes, more than the %zu tilecut draws", length, b->max_text);
    fail(b, message);
    return -1;
  }
  tc_drawing_item proto = {0};
  proto.kind = TC_DRAWING_TEXT;
  memcpy(proto.rgba, st->label, 4);
  proto.text_offset = (uint32_t)d->text_bytes;
  proto.size = (float)fabs(st->size);
  /* 10^200 degrees is some turn, not a float's infinity (cairo's matrix then invalid) */
  proto.angle = (float)(fabs(st->angle) < 1e6 ? st->angle : fmod(st->angle, 360));
  /* a text a y-mirrored insert inlines: GDAL gives its height negative (and its width
   * factor as x scale over y scale), a y mirror: its x mirror turned half a turn */
  if (st->size < 0)
    proto.angle += 180;
  proto.stretch = (float)st->stretch;
  int anchor = st->anchor >= 1 && st->anchor <= 12 ? st->anchor : 1;
  /* GDAL 3.6 gives a TEXT's (and an ATTRIB's) baseline as 1-3 and its bottom (72/73
   * vertical alignment 1) as 10-12, the other way round from OGR's anchors, which
   * it keeps for MTEXT */
  field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
  const char *classes = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL;
  int down = 0;
  if (!(classes && strstr(classes, "AcDbMText"))) {
    anchor = anchor <= 3 ? anchor + 9 : anchor >= 10 ? anchor - 9 : anchor;
    /* a TEXT's (an ATTRIB's) generation flags (71), which GDAL 3.6 leaves: 2 mirrored
     * in x (backward), 4 in y (upside down), each about the anchor as AutoCAD and ezdxf
     * draw them; mirrored in y is mirrored in x and turned half a turn. (A DIMENSION's
     * 71, which GDAL may label, is its text's attachment point.) */
    int plain = !(classes && *classes) || strstr(classes, "AcDbText");
    int flags = plain ? (int)raw_code(b, f, 71) : 0;
    if (flags & 2)
      proto.stretch = -proto.stretch;
    if (flags & 4) {
      proto.stretch = -proto.stretch;
      proto.angle += 180;
    }
    /* a TEXT (an ATTRIB) whose extrusion points down: GDAL places its point in the
     * drawing but gives its angle and its alignment offset in its OCS, whose x runs
     * the drawing's -x. Seen from above it runs at minus its angle, mirrored in x, as
     * ezdxf draws it */
    if (plain && b->down_text_count) {
      field = tc_gdal.OGR_F_GetFieldIndex(f, "EntityHandle");
      const char *handle = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL;
      down = handle && *handle && tc_dxf_hidden(handle, b->down_texts, b->down_text_count);
    }
    if (down) {
      proto.angle = -proto.angle;
      proto.stretch = -proto.stretch;
    }
  }
  proto.anchor = (uint8_t)anchor;
  /* a TEXT aligned or fitted between its two points (72 = 3 or 5): GDAL 3.6 anchors it
   * at its baseline's left (1) and offsets it to the second point, as it offsets only
   * texts aligned otherwise than left; ezdxf stretches its line between the points,
   * centred on their midpoint and turned as the line between them runs (AutoCAD
   * writes an aligned text's height as the one that fits it, so its line is as long
   * at that height) */
  double text_dx = down ? -st->dx : st->dx;
  proto.dx = (float)text_dx;
  proto.dy = (float)st->dy;
  double fit = hypot(st->dx, st->dy), offset_x = text_dx, offset_y = st->dy;
  if (st->anchor == 1 && fit > 0 && isfinite(fit) && !(classes && (strstr(classes, "AcDbMText") || strstr(classes, "Dimension")))) {
    proto.fit_length = (float)fit;
    proto.angle = (float)((down ? -atan2(st->dy, st->dx) : atan2(st->dy, st->dx)) * 180 / M_PI);
    proto.anchor = 11;
    offset_x /= 2;
    offset_y /= 2;
    proto.dx = (float)offset_x;
    proto.dy = (float)offset_y;
  }
  proto.column_width = (float)raw_code(b, f, 41);
  const tc_mtext_layout *layout = NULL;
  if (classes && strstr(classes, "AcDbMText")) {
    double spacing = raw_code(b, f, 44);
    proto.line_spacing = spacing > 0 ? (float)fmin(fmax(spacing, 0.25), 4) : 0;
  }
  if (classes && strstr(classes, "AcDbMText") && b->path) {
    if (!b->mtext_read) {
      b->mtext_read = 1;
      /* unread layouts: the text is drawn as GDAL gives it */
      tc_dxf_mtext_layouts(b->path, &b->mtext, NULL, NULL);
    }
    field = tc_gdal.OGR_F_GetFieldIndex(f, "EntityHandle");
    layout = tc_dxf_find_mtext(&b->mtext, field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : NULL, b->mtext_index);
  }
  /* an MTEXT whose extrusion points down, seen from above: running along its
   * direction, its up turned over (mirrored in x and turned half a turn) */
  if (layout && layout->mirrored) {
    proto.stretch = -proto.stretch;
    proto.angle += 180;
  }
  /* an insert scales its texts, their absolute heights and their width too */
  double code_scale = layout && layout->inlined && layout->char_height > 0 ? fabs(st->size) / layout->char_height : 1;
  double width_scale = code_scale > 0 ? fmin(code_scale, 1e6) : 1;
  proto.column_width = (float)(proto.column_width * width_scale);
  /* inline codes GDAL loses: the raw content is drawn, laid out as ezdxf lays it out
   * (a text in columns keeps GDAL's text) */
  if (layout && layout->rich && layout->count == 0 && layout->rich < b->mtext.content_bytes &&
      strlen(b->mtext.content + layout->rich) <= b->max_text) {
    text = b->mtext.content + layout->rich;
    length = strlen(text);
    proto.rich = 1;
    proto.code_scale = (float)fmin(code_scale, 1e6);
  }
  if (tc_grow_array((void **)&d->text, &b->text_cap, d->text_bytes + length + 1, 1, 256)) {
    fail(b, "out of memory");
    return -1;
  }
  /* a \H at the start of the text that sets the height of all of it, which GDAL drops */
  if (layout && layout->height > 0)
    proto.size = (float)fmin(layout->height * code_scale, 1e9);
  else if (layout && layout->height_factor > 0)
    proto.size = (float)(proto.size * fmin(fmax(layout->height_factor, 0.01), 100));
  if (layout && layout->count > 0 && layout->width > 0) {
    uint32_t count = layout->count < 255 ? layout->count : 255;
    if (tc_grow_array((void **)&d->column_heights, &b->column_cap, d->column_height_count + count, sizeof(double), 64)) {
      fail(b, "out of memory");
      return -1;
    }
    for (uint32_t c = 0; c < count; c++) {
      double h = b->mtext.heights[layout->first + c];
      d->column_heights[d->column_height_count + c] = h < 0 ? h : h * width_scale;
    }
    proto.column_first = (uint32_t)d->column_height_count;
    proto.column_count = (uint8_t)count;
    d->column_height_count += count;
    proto.column_width = (float)(layout->width * width_scale);
    proto.gutter = (float)(layout->gutter * width_scale);
  }
  proto.plain_mtext = classes && strstr(classes, "AcDbMText") && !(layout && layout->coded) && !proto.rich &&
                      !proto.column_count && fabs(proto.stretch) == 1;
  /* an MTEXT's tabs, which ezdxf draws as eight spaces each where no inline code
   * sets its tab stops (a rich text's are laid out at its stops) */
  size_t tabs = 0;
  if (classes && strstr(classes, "AcDbMText") && !proto.rich)
    for (const char *c = text; (c = strchr(c, '\t')); c++)
      tabs++;
  if (tabs) {
    if (tc_grow_array((void **)&d->text, &b->text_cap, d->text_bytes + length + 7 * tabs + 1, 1, 256)) {
      fail(b, "out of memory");
      return -1;
    }
    char *out = d->text + d->text_bytes;
    for (const char *c = text; *c; c++) {
      if (*c == '\t') {
        memset(out, ' ', 8);
        out += 8;
      } else {
        *out++ = *c;
      }
    }
    *out = 0;
    length += 7 * tabs;
  } else {
    memcpy(d->text + d->text_bytes, text, length + 1);
  }
  /* MTEXT's paragraph breaks that GDAL leaves in the text; \N a column break where
   * the text has columns */
  for (char *c = d->text + d->text_bytes; *c && !proto.rich; c++) {
    if (c[0] == '\\' && (c[1] == 'N' || c[1] == 'P')) {
      c[0] = c[1] == 'N' && proto.column_count ? '\f' : '\n';
      memmove(c + 1, c + 2, strlen(c + 2) + 1);
    }
  }
  /* (a rich text's raw content is read as ezdxf reads it when drawn, rich_decode) */
  if (!proto.rich && replace_undrawable(d, &b->text_cap, &length)) {
    fail(b, "out of memory");
    return -1;
  }
  d->text_bytes += length + 1;
  tc_drawing_item *item = add_item(b, &proto);
  if (!item)
    return -1;
  double x = tc_gdal.OGR_G_GetX(g, 0) + offset_x, y = tc_gdal.OGR_G_GetY(g, 0) + offset_y;
  if (add_point(b, x, y))
    return 0;
  /* its box is not the anchor: tc_dxf_measure adds the glyphs' ink to the extent */
  item->count = 1;
  return 0;
}

/* Whether layer `name` is drawn under `layers` (see tc_drawing_read), matched anew. */
static int layer_matched(const char *layers, const char *name) {
  int includes = 0, included = 0;
  const char *p = layers;
  char pattern[512];
  while (*p) {
    const char *end = strchr(p, '\n');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (n >= 2 && n < sizeof pattern) {
      memcpy(pattern, p + 1, n - 1);
      pattern[n - 1] = 0;
      int match = fnmatch(pattern, name, FNM_CASEFOLD) == 0;
      if (p[0] == '-' && match)
        return 0;
      if (p[0] == '+') {
        includes = 1;
        included |= match;
      }
    }
    p += n + (end ? 1 : 0);
  }
  return !includes || included;
}

/* Whether layer `name` is drawn under `layers`: matched once a layer name and kept in
 * `memo` (a drawing's entities lie on a few layers; matching every pattern for every
 * entity took 281 s for 200,000 LINEs under 60,000 patterns). Matched anew when the
 * memo cannot grow. */
static int layer_drawn(layer_memo *memo, const char *layers, const char *name) {
  if (!layers)
    return 1;
  uint64_t hash = 1469598103934665603ULL;
  for (const unsigned char *c = (const unsigned char *)name; *c; c++)
    hash = (hash ^ *c) * 1099511628211ULL;
  if (memo->count * 2 >= memo->cap) {
    size_t cap = memo->cap ? memo->cap * 2 : 64;
    layer_memo_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
      return layer_matched(layers, name);
    for (size_t i = 0; i < memo->cap; i++) {
      if (!memo->slots[i].name)
        continue;
      size_t k = memo->slots[i].hash & (cap - 1);
      while (slots[k].name)
        k = (k + 1) & (cap - 1);
      slots[k] = memo->slots[i];
    }
    free(memo->slots);
    memo->slots = slots;
    memo->cap = cap;
  }
  size_t k = hash & (memo->cap - 1);
  for (; memo->slots[k].name; k = (k + 1) & (memo->cap - 1))
    if (memo->slots[k].hash == hash && !strcmp(memo->slots[k].name, name))
      return memo->slots[k].drawn;
  char *copy = strdup(name);
  int drawn = layer_matched(layers, name);
  if (copy) {
    memo->slots[k] = (layer_memo_slot){.name = copy, .hash = hash, .drawn = drawn};
    memo->count++;
  }
  return drawn;
}

static void layer_memo_free(layer_memo *memo) {
  for (size_t i = 0; i < memo->cap; i++)
    free(memo->slots[i].name);
  free(memo->slots);
}

static int by_key(const void *a, const void *b) {
  return strcmp(((const tc_wipeout *)a)->key, ((const tc_wipeout *)b)->key);
}

/* Adds, as masks, the wipeouts keyed `key` not yet added (all those left when `key` is NULL). */
static void add_wipeouts(builder *b, tc_wipeout *w, size_t count, unsigned char *added, const char *key, const char *layers,
                         const tc_sort_entry *order, size_t order_count) {
  tc_drawing *d = b->d;
  unsigned long long current = b->current_order;
  size_t first = 0;
  if (key) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (strcmp(w[mid].key, key) < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    first = lo;
  }
  for (size_t i = first; i < count && !b->failed && (!key || !strcmp(w[i].key, key)); i++) {
    if (added[i])
      continue;
    added[i] = 1;
    if (w[i].hidden || !layer_drawn(&b->layer_memo, layers, w[i].layer))
      continue;
    tc_drawing_item proto = {0};
    proto.kind = TC_DRAWING_MASK;
    b->current_order = tc_dxf_draw_order(w[i].handle, order, order_count);
    tc_drawing_item *item = add_item(b, &proto);
    b->current_order = current;
    if (!item)
      return;
    item->ring_first = (uint32_t)d->ring_count;
    for (int k = 0; k < w[i].count; k++)
      if (add_point(b, w[i].xy[2 * k], w[i].xy[2 * k + 1]) == 0)
        item->count++;
    if (tc_grow_array((void **)&d->rings, &b->ring_cap, d->ring_count + 1, sizeof(uint32_t), 256)) {
      fail(b, "out of memory");
      return;
    }
    d->rings[d->ring_count++] = item->count;
    item->ring_count = 1;
  }
}

typedef struct {
  builder *b;
  const tc_drawing_item *fill;
  /* OCS to drawing: x' = m0 x + m1 y + m2, y' = m3 x + m4 y + m5 */
  double m[6];
} trace_context;

static void add_trace(void *context, const double *xy, int n) {
  trace_context *t = context;
  builder *b = t->b;
  tc_drawing *d = b->d;
  if (b->failed)
    return;
  tc_drawing_item *item = add_item(b, t->fill);
  if (!item)
    return;
  item->ring_first = (uint32_t)d->ring_count;
  uint32_t added = 0;
  const double *m = t->m;
  for (int i = 0; i < n; i++) {
    double x = m[0] * xy[2 * i] + m[1] * xy[2 * i + 1] + m[2], y = m[3] * xy[2 * i] + m[4] * xy[2 * i + 1] + m[5];
    added += item_point(b, item, x, y);
  }
  (void)end_ring(b, item, added);
}

static int by_wide_handle(const void *a, const void *b) {
  unsigned long long x = ((const tc_wide_polyline *)a)->handle, y = ((const tc_wide_polyline *)b)->handle;
  return (x > y) - (x < y);
}

/* The affine map from the OCS of `extrusion` at `elevation` to the drawing, seen from
 * +z (the arbitrary axis algorithm: the DXF reference's, ezdxf's OCS). */
static void ocs_affine(const double e[3], double elevation, double m[6]) {
  double l = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
  double az[3] = {e[0] / l, e[1] / l, e[2] / l}, ax[3], ay[3];
  if (fabs(az[0]) < 1.0 / 64 && fabs(az[1]) < 1.0 / 64) /* Wy × Az */
    ax[0] = az[2], ax[1] = 0, ax[2] = -az[0];
  else /* Wz × Az */
    ax[0] = -az[1], ax[1] = az[0], ax[2] = 0;
  double la = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
  ax[0] /= la, ax[1] /= la, ax[2] /= la;
  ay[0] = az[1] * ax[2] - az[2] * ax[1];
  ay[1] = az[2] * ax[0] - az[0] * ax[2];
  ay[2] = az[0] * ax[1] - az[1] * ax[0];
  m[0] = ax[0], m[1] = ay[0], m[2] = az[0] * elevation;
  m[3] = ax[1], m[4] = ay[1], m[5] = az[1] * elevation;
}

/* A polyline whose width changes along it, as ezdxf draws it: filled outlines in the
 * pen's colour (tc_dxf_trace; arcs in 64 steps a circle, ezdxf's default). */
static void add_wide_polyline(builder *b, const tc_wide_polyline *w, const uint8_t rgba[4]) {
  tc_drawing_item fill = {0};
  fill.kind = TC_DRAWING_FILL;
  memcpy(fill.rgba, rgba, 4);
  trace_context t = {b, &fill, {0}};
  ocs_affine(w->extrusion, w->elevation, t.m);
  if (tc_dxf_trace(w->v, w->count, w->closed, 64, add_trace, &t))
    fail(b, "out of memory");
}

static int by_mline_handle(const void *a, const void *b) {
  unsigned long long x = ((const tc_mline *)a)->handle, y = ((const tc_mline *)b)->handle;
  return (x > y) - (x < y);
}

/* An MLINE as ezdxf draws it (tc_dxf_wipeouts): its pieces in their own colours, the
 * lines at the MLINE's lineweight. */
static void add_mline(builder *b, const tc_mline *m, double lineweight_mm) {
  tc_drawing *d = b->d;
  for (int i = 0; i < m->piece_count && !b->failed; i++) {
    const tc_mline_piece *piece = &m->pieces[i];
    tc_drawing_item proto = {0};
    proto.kind = piece->fill ? TC_DRAWING_FILL : TC_DRAWING_STROKE;
    memcpy(proto.rgba, piece->rgb, 3);
    proto.rgba[3] = 255;
    /* ACI 7: drawn dark, as GDAL's colours are */
    if (proto.rgba[0] == 255 && proto.rgba[1] == 255 && proto.rgba[2] == 255)
      proto.rgba[0] = proto.rgba[1] = proto.rgba[2] = 0;
    proto.lineweight_mm = piece->fill ? 0 : (float)lineweight_mm;
    tc_drawing_item *item = add_item(b, &proto);
    if (!item)
      return;
    if (piece->fill)
      item->ring_first = (uint32_t)d->ring_count;
    uint32_t added = 0;
    for (int k = 0; k < piece->count; k++) {
      double x = m->xy[2 * (piece->first + k)], y = m->xy[2 * (piece->first + k) + 1];
      added += item_point(b, item, x, y);
    }
    if (piece->fill && end_ring(b, item, added))
      return;
  }
}

static int by_fit_hatch_handle(const void *a, const void *b) {
  unsigned long long x = ((const tc_fit_hatch *)a)->handle, y = ((const tc_fit_hatch *)b)->handle;
  return (x > y) - (x < y);
}

/* A hatch GDAL gave no boundary (one edge a fit-point spline), filled or patterned by
 * `fill` within the boundary read from the DXF (tc_dxf_hatch_boundary), through its OCS
 * and then `outer` (the inserts' placement of a hatch in a block), unless NULL. */
static void add_fit_hatch(builder *b, const tc_fit_hatch *h, const tc_drawing_item *fill, const double *outer) {
  tc_drawing *d = b->d;
  tc_drawing_item *item = add_item(b, fill);
  if (!item)
    return;
  double m[6];
  ocs_affine(h->extrusion, h->elevation, m);
  if (outer) {
    double o[6] = {outer[0] * m[0] + outer[1] * m[3], outer[0] * m[1] + outer[1] * m[4], outer[0] * m[2] + outer[1] * m[5] + outer[2],
                   outer[3] * m[0] + outer[4] * m[3], outer[3] * m[1] + outer[4] * m[4], outer[3] * m[2] + outer[4] * m[5] + outer[5]};
    memcpy(m, o, sizeof o);
  }
  item->ring_first = (uint32_t)d->ring_count;
  const double *p = h->xy;
  for (int r = 0; r < h->ring_count; r++) {
    uint32_t added = 0;
    for (int i = 0; i < h->rings[r]; i++, p += 2) {
      double x = m[0] * p[0] + m[1] * p[1] + m[2], y = m[3] * p[0] + m[4] * p[1] + m[5];
      added += item_point(b, item, x, y);
    }
    if (end_ring(b, item, added))
      return;
  }
}

static int by_spline_handle(const void *a, const void *b) {
  unsigned long long x = ((const tc_fit_spline *)a)->handle, y = ((const tc_fit_spline *)b)->handle;
  return (x > y) - (x < y);
}

/* A stroke the scan read (a fit-point spline, an XLINE or RAY, an IMAGE's frame): its
 * colour (white drawn black, as CAD plots it), lineweight and place in the draw order;
 * its points are added to the item returned (NULL: out of memory). */
static tc_drawing_item *begin_stroke(builder *b, const uint8_t rgb[3], double lineweight_mm, unsigned long long handle,
                                     const tc_sort_entry *order, size_t order_count) {
  tc_drawing_item proto = {0};
  proto.kind = TC_DRAWING_STROKE;
  memcpy(proto.rgba, rgb, 3);
  proto.rgba[3] = 255;
  if (proto.rgba[0] == 255 && proto.rgba[1] == 255 && proto.rgba[2] == 255)
    proto.rgba[0] = proto.rgba[1] = proto.rgba[2] = 0;
  proto.lineweight_mm = (float)lineweight_mm;
  char name[24];
  snprintf(name, sizeof name, "%llX", handle);
  unsigned long long current = b->current_order;
  b->current_order = tc_dxf_draw_order(name, order, order_count);
  tc_drawing_item *item = add_item(b, &proto);
  b->current_order = current;
  return item;
}

/* A fit-point spline as ezdxf draws it (Spline.construction_tool: fit_points_to_cad_cv,
 * the cubic CAD interpolates through the points, tc_dxf_fit_curve; its end tangents only
 * when both are given), 16 steps between points. Follows ezdxf 1.4.5's
 * entities/spline.py (Copyright (c) 2019-2025 Manfred Moitzi, MIT License). Left out
 * when GDAL read it (count < 0). */
static void add_fit_spline(builder *b, const tc_fit_spline *sp, const char *layers, const tc_sort_entry *order,
                           size_t order_count) {
  if (sp->count < 2 || sp->hidden || !layer_drawn(&b->layer_memo, layers, sp->layer)) {
    if (sp->count >= 2)
      b->d->hidden++;
    return;
  }
  double *xy = NULL;
  int n = 0;
  if (tc_dxf_fit_curve(sp->xy, sp->count, sp->has_tangents ? sp->tangents : NULL, &xy, &n)) {
    b->failed = 1;
    return;
  }
  tc_drawing_item *item = begin_stroke(b, sp->rgb, sp->lineweight_mm, sp->handle, order, order_count);
  for (int i = 0; item && i < n; i++)
    item_point(b, item, xy[2 * i], xy[2 * i + 1]);
  free(xy);
}

/* An XLINE or a RAY as ezdxf's drawing add-on draws it: a line its
 * infinite_line_length (20 drawing units) long, centred on the XLINE's point or from
 * the RAY's; clipped to the extent of what else the drawing holds, which it never
 * widens (nothing is drawn of it in a drawing of nothing else). */
static void add_xline(builder *b, const tc_xline *x, const char *layers, const tc_sort_entry *order, size_t order_count) {
  tc_drawing *d = b->d;
  if (x->hidden || !layer_drawn(&b->layer_memo, layers, x->layer)) {
    d->hidden++;
    return;
  }
  if (!(d->min_x <= d->max_x && d->min_y <= d->max_y))
    return;
  /* Liang-Barsky: the part of p + t u, t in [t0, t1], within the extent */
  double t0 = x->ray ? 0 : -10, t1 = x->ray ? 20 : 10;
  double p[4] = {-x->dx, x->dx, -x->dy, x->dy};
  double q[4] = {x->x - d->min_x, d->max_x - x->x, x->y - d->min_y, d->max_y - x->y};
  for (int i = 0; i < 4; i++) {
    if (p[i] == 0) {
      if (q[i] < 0)
        return;
      continue;
    }
    double t = q[i] / p[i];
    if (p[i] < 0)
      t0 = fmax(t0, t);
    else
      t1 = fmin(t1, t);
  }
  if (!(t0 < t1))
    return;
  tc_drawing_item *item = begin_stroke(b, x->rgb, x->lineweight_mm, x->handle, order, order_count);
  if (!item)
    return;
  if (add_point(b, x->x + t0 * x->dx, x->y + t0 * x->dy) == 0)
    item->count++;
  if (add_point(b, x->x + t1 * x->dx, x->y + t1 * x->dy) == 0)
    item->count++;
}

/* An IMAGE as ezdxf's drawing add-on draws it where it does not show the picture: its
 * boundary as lines (the picture's file is never read, so never drawn). */
static void add_image_frame(builder *b, const tc_image_frame *f, const char *layers, const tc_sort_entry *order,
                            size_t order_count) {
  tc_drawing *d = b->d;
  if (f->hidden || !layer_drawn(&b->layer_memo, layers, f->layer)) {
    d->hidden++;
    return;
  }
  if (f->ring_count > 0) {
    /* a MESH: each face a closed line */
    for (int r = 0, first = 0; r < f->ring_count && !b->failed; first += f->rings[r++]) {
      tc_drawing_item *item = begin_stroke(b, f->rgb, f->lineweight_mm, f->handle, order, order_count);
      for (int i = first; item && i < first + f->rings[r]; i++)
        item_point(b, item, f->xy[2 * i], f->xy[2 * i + 1]);
    }
    return;
  }
  /* a shown IMAGE's file name, as ezdxf writes it where it cannot find the file: its
   * capitals centred on the image, its line 3/4 of the image's width (height scaled
   * alike: fit_uniform) */
  size_t length = f->name ? strlen(f->name) : 0;
  if (length && length <= b->max_text && f->name_width > 0) {
    tc_drawing *d = b->d;
    if (tc_grow_array((void **)&d->text, &b->text_cap, d->text_bytes + length + 1, 1, 256)) {
      fail(b, "out of memory");
      return;
    }
    tc_drawing_item proto = {0};
    proto.kind = TC_DRAWING_TEXT;
    memcpy(proto.rgba, f->rgb, 3);
    proto.rgba[3] = 255;
    if (proto.rgba[0] == 255 && proto.rgba[1] == 255 && proto.rgba[2] == 255)
      proto.rgba[0] = proto.rgba[1] = proto.rgba[2] = 0;
    proto.text_offset = (uint32_t)d->text_bytes;
    /* about its height once fitted (glyphs about 0.8 of their capitals' height wide) */
    proto.size = (float)(f->name_width / (0.8 * (double)length));
    proto.angle = (float)f->name_angle;
    proto.stretch = 1;
    proto.anchor = 5;
    proto.fit_length = (float)f->name_width;
    proto.fit_uniform = 1;
    memcpy(d->text + d->text_bytes, f->name, length + 1);
    d->text_bytes += length + 1;
    char name[24];
    snprintf(name, sizeof name, "%llX", f->handle);
    unsigned long long current = b->current_order;
    b->current_order = tc_dxf_draw_order(name, order, order_count);
    tc_drawing_item *text = add_item(b, &proto);
    b->current_order = current;
    if (text && add_point(b, f->name_xy[0], f->name_xy[1]) == 0)
      text->count = 1;
  }
  tc_drawing_item *item = begin_stroke(b, f->rgb, f->lineweight_mm, f->handle, order, order_count);
  for (int i = 0; item && i < f->count; i++)
    item_point(b, item, f->xy[2 * i], f->xy[2 * i + 1]);
}

static int by_order(const void *a, const void *b) {
  const unsigned long long *x = a, *y = b;
  if (x[0] != y[0])
    return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Puts the items in the DXF's draw order, stably (their points stay where they are). */
static void sort_items(builder *b) {
  tc_drawing *d = b->d;
  size_t n = d->item_count;
  unsigned long long *keys = malloc(n * 2 * sizeof(unsigned long long));
  tc_drawing_item *items = malloc(n * sizeof(tc_drawing_item));
  if (!keys || !items) {
    free(keys);
    free(items);
    fail(b, "out of memory");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    keys[2 * i] = b->orders[i];
    keys[2 * i + 1] = i;
  }
  qsort(keys, n, 2 * sizeof(unsigned long long), by_order);
  for (size_t i = 0; i < n; i++)
    items[i] = d->items[keys[2 * i + 1]];
  memcpy(d->items, items, n * sizeof(tc_drawing_item));
  free(items);
  free(keys);
}

/* What tilecut reads from a DXF's text itself, beside GDAL: WIPEOUTs, the draw order,
 * hidden entities, hatch placements, fit-point splines (tc_dxf_wipeouts) and MTEXT
 * layouts (tc_dxf_mtext_layouts). */
typedef struct {
  const char *path;
  int status;
  /* what tc_dxf_wipeouts read */
  tc_dxf_scan scan;
  tc_mtext_scan mtext;
  /* scan_dxf running on `thread` (joined by finish_scans), or done */
  int running, done;
  pthread_t thread;
  /* set when its results are no longer wanted (the drawing refused): it stops reading */
  atomic_int stop;
} dxf_scans;

static int scans_stopped(void *context) { return atomic_load_explicit(&((dxf_scans *)context)->stop, memory_order_relaxed); }

static void stop_scans(void *context) { atomic_store(&((dxf_scans *)context)->stop, 1); }

static void *scan_dxf(void *context) {
  dxf_scans *s = context;
  s->status = tc_dxf_wipeouts(s->path, &s->scan, scans_stopped, s);
  /* unread layouts: the texts are drawn as GDAL gives them */
  if (!scans_stopped(s))
    tc_dxf_mtext_layouts(s->path, &s->mtext, scans_stopped, s);
  return NULL;
}

/* The scans' results from here on: joined, or run now when no thread could start. */
static void finish_scans(dxf_scans *s) {
  if (s->running)
    pthread_join(s->thread, NULL);
  else if (!s->done)
    scan_dxf(s);
  s->running = 0;
  s->done = 1;
}

static void free_scans(dxf_scans *s) {
  /* a drawing refused before its scans were used: they stop where they are */
  atomic_store(&s->stop, 1);
  if (s->running)
    pthread_join(s->thread, NULL);
  tc_dxf_scan_free(&s->scan);
  tc_mtext_scan_free(&s->mtext);
  memset(s, 0, sizeof *s);
}

static int read_drawing(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text, tc_drawing *d,
                        dxf_scans *scans);

static int by_ull(const void *a, const void *b) {
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return (x > y) - (x < y);
}

/* Whether the DXF at `path` is of AutoCAD 2007 (AC1021) or later, whose text is UTF-8
 * whatever its $DWGCODEPAGE says: GDAL 3.6 decodes every DXF by its code page (Latin-1
 * for ANSI_1252): a layer named with an a-umlaut (C3 A4 in UTF-8) came out as A-tilde
 * and a currency sign, which neither --layers nor DrawingSource.layerNames could name.
 * Its HEADER's $ACADVER, in the file's first 64 KB. */
static int dxf_is_utf8(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return 0;
  size_t size = 65536;
  char *head = malloc(size + 1);
  size_t n = head ? fread(head, 1, size, file) : 0;
  fclose(file);
  if (!head)
    return 0;
  head[n] = 0;
  int utf8 = 0;
  const char *p = strstr(head, "$ACADVER");
  if (p) {
    /* "$ACADVER", its group code 1, then the version: AC1021 or later */
    p += 8;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
      p++;
    if (*p == '1') {
      p++;
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
      utf8 = strncmp(p, "AC", 2) == 0 && atoi(p + 2) >= 1021;
    }
  }
  free(head);
  return utf8;
}

/* Opens `path` with GDAL's DXF or CAD driver as tilecut reads a drawing: every entity
 * with its own style (not a block merged into one feature), arcs in 2° steps, blocks
 * inlined (GDAL bounds their nesting and the features a block may make:
 * DXF_FEATURE_LIMIT_PER_BLOCK), and when `raw`, the group codes GDAL does not translate
 * (a polyline's width, an MTEXT's column width), which it lists in time that grows with
 * their square: only when tilecut's own scan does not give all it reads of them
 * (tc_raw_entry). `utf8`: the DXF's text is UTF-8 (dxf_is_utf8), which GDAL is told. */
static GDALDatasetH open_drawing(const char *path, int dwg, int raw, int utf8) {
  tc_gdal.CPLSetThreadLocalConfigOption("DXF_MERGE_BLOCK_GEOMETRIES", "FALSE");
  if (utf8)
    tc_gdal.CPLSetThreadLocalConfigOption("DXF_ENCODING", "UTF-8");
  tc_gdal.CPLSetThreadLocalConfigOption("DXF_INLINE_BLOCKS", "TRUE");
  tc_gdal.CPLSetThreadLocalConfigOption("OGR_ARC_STEPSIZE", "2");
  if (raw)
    tc_gdal.CPLSetThreadLocalConfigOption("DXF_INCLUDE_RAW_CODE_VALUES", "TRUE");
  const char *drivers[] = {dwg ? "CAD" : "DXF", NULL};
  GDALDatasetH dataset = tc_gdal.GDALOpenEx(path, GDAL_OF_VECTOR | GDAL_OF_READONLY, drivers, NULL, NULL);
  tc_gdal.CPLSetThreadLocalConfigOption("DXF_MERGE_BLOCK_GEOMETRIES", NULL);
  tc_gdal.CPLSetThreadLocalConfigOption("DXF_INLINE_BLOCKS", NULL);
  tc_gdal.CPLSetThreadLocalConfigOption("OGR_ARC_STEPSIZE", NULL);
  tc_gdal.CPLSetThreadLocalConfigOption("DXF_INCLUDE_RAW_CODE_VALUES", NULL);
  tc_gdal.CPLSetThreadLocalConfigOption("DXF_ENCODING", NULL);
  return dataset;
}

/* The model-space ACAD_TABLEs and ARC_DIMENSIONs GDAL 3.6 skips, as ezdxf draws them (ezdxf
 * 1.4.5, MIT: entities/acad_table.py and entities/dimension.py, __virtual_entities__:
 * the anonymous block's entities moved by the insertion point): a DXF in memory made of
 * the file's sections before ENTITIES (its tables and blocks) and an INSERT of each one's
 * block with its handle, layer, colour and lineweight, opened by GDAL (its raw code
 * values listed when `raw`, as for the file), which inlines
 * them as it inlines any insert; those `seen` among the sorted `handles` (GDAL gave their
 * features itself) left out. One placed sheared (tc_block_ref) is an INSERT of a block
 * of its own, added at the end of the BLOCKS section (GDAL reads one), that holds the
 * INSERT of its block turned by its inner angle, of colour and lineweight ByBlock on
 * layer 0 (so that it takes the outer INSERT's). NULL when there are none (or they are
 * past `max_bytes`); `*buffer` (the file in memory, freed after the dataset is closed and
 * `name` unlinked). */
static GDALDatasetH open_block_refs(const char *path, const dxf_scans *s, const unsigned long long *handles,
                                    const unsigned char *seen, size_t count, size_t max_bytes, int raw, char *name,
                                    size_t name_size, char **buffer) {
  *buffer = NULL;
  size_t left = 0;
  for (size_t i = 0; i < count; i++)
    left += !seen[i];
  if (!left || s->scan.entities_at <= 0 || (unsigned long long)s->scan.entities_at > max_bytes)
    return NULL;
  /* the blocks of those placed sheared, where the BLOCKS section ends before ENTITIES */
  size_t sheared = 0;
  for (size_t i = 0; i < s->scan.ref_count; i++)
    sheared += s->scan.refs[i].sheared != 0;
  long long blocks_end = s->scan.blocks_end_at;
  int wrap = sheared && blocks_end > 0 && blocks_end < s->scan.entities_at;
  /* an INSERT below takes at most about 780 bytes (a 255-byte layer and block name, nine
   * numbers of up to 24 characters), and so does the block of one placed sheared */
  size_t head = (size_t)s->scan.entities_at, cap = head + 64 + s->scan.ref_count * 1024 + (wrap ? sheared * 1024 : 0);
  char *text = malloc(cap);
  FILE *file = text ? fopen(path, "rb") : NULL;
  size_t got = file ? fread(text, 1, head, file) : 0;
  if (file)
    fclose(file);
  if (got != head) {
    free(text);
    return NULL;
  }
  size_t used = head;
  char *tail = NULL;
  if (wrap) {
    /* the file from the BLOCKS section's ENDSEC on, put back after the blocks added */
    size_t tail_size = head - (size_t)blocks_end;
    tail = malloc(tail_size);
    if (!tail) {
      free(text);
      return NULL;
    }
    memcpy(tail, text + blocks_end, tail_size);
    used = (size_t)blocks_end;
    for (size_t i = 0; i < s->scan.ref_count; i++) {
      const tc_block_ref *ref = &s->scan.refs[i];
      if (ref->sheared)
        used += (size_t)snprintf(text + used, cap - used,
                                 "0\nBLOCK\n8\n0\n2\n*TILECUT_SHEARED_%zu\n70\n0\n10\n0\n20\n0\n30\n0\n3\n*TILECUT_SHEARED_%zu\n"
                                 "0\nINSERT\n8\n0\n62\n0\n370\n-2\n50\n%.17g\n2\n%s\n10\n0\n20\n0\n30\n0\n0\nENDBLK\n8\n0\n",
                                 i, i, ref->inner_angle, ref->name);
    }
    memcpy(text + used, tail, tail_size);
    used += tail_size;
    free(tail);
  }
  used += (size_t)snprintf(text + used, cap - used, "0\nSECTION\n2\nENTITIES\n");
  for (size_t i = 0; i < s->scan.ref_count; i++) {
    const tc_block_ref *ref = &s->scan.refs[i];
    /* one GDAL drew itself */
    unsigned long long key = strtoull(ref->handle, NULL, 16);
    const unsigned long long *found = ref->handle[0] ? bsearch(&key, handles, count, sizeof key, by_ull) : NULL;
    if (found && seen[found - handles])
      continue;
    used += (size_t)snprintf(text + used, cap - used, "0\nINSERT\n");
    if (ref->handle[0])
      used += (size_t)snprintf(text + used, cap - used, "5\n%s\n", ref->handle);
    used += (size_t)snprintf(text + used, cap - used, "8\n%s\n", ref->layer);
    if (ref->colour != 0)
      used += (size_t)snprintf(text + used, cap - used, "62\n%d\n", ref->colour);
    if (ref->lineweight != -1)
      used += (size_t)snprintf(text + used, cap - used, "370\n%d\n", ref->lineweight);
    if (ref->true_colour >= 0)
      used += (size_t)snprintf(text + used, cap - used, "420\n%ld\n", ref->true_colour);
    /* one in a block, placed by the inserts that place it (tc_block_ref); one placed
     * sheared without a block of its own (the BLOCKS section does not end before
     * ENTITIES) as before: the placement's first column's length and direction, and its
     * determinant, recomposed from R(angle) S(sx, sy) R(inner_angle) */
    double sx = ref->sx, sy = ref->sy, angle = ref->angle;
    if (ref->sheared && !wrap) {
      double t = ref->angle * M_PI / 180, u = ref->inner_angle * M_PI / 180;
      double a = cos(t) * ref->sx * cos(u) - sin(t) * ref->sy * sin(u), d = sin(t) * ref->sx * cos(u) + cos(t) * ref->sy * sin(u);
      sx = hypot(a, d);
      sy = ref->sx * ref->sy / sx;
      angle = atan2(d, a) * 180 / M_PI;
    }
    if (sx != 1 || sy != 1 || angle != 0)
      used += (size_t)snprintf(text + used, cap - used, "41\n%.17g\n42\n%.17g\n50\n%.17g\n", sx, sy, angle);
    if (wrap && ref->sheared)
      used += (size_t)snprintf(text + used, cap - used, "2\n*TILECUT_SHEARED_%zu\n10\n%.17g\n20\n%.17g\n30\n%.17g\n", i, ref->x,
                               ref->y, ref->z);
    else
      used += (size_t)snprintf(text + used, cap - used, "2\n%s\n10\n%.17g\n20\n%.17g\n30\n%.17g\n", ref->name, ref->x, ref->y,
                               ref->z);
  }
  used += (size_t)snprintf(text + used, cap - used, "0\nENDSEC\n0\nEOF\n");
  snprintf(name, name_size, "/vsimem/tilecut-refs-%p.dxf", (void *)text);
  VSILFILE *memory = tc_gdal.VSIFileFromMemBuffer(name, (GByte *)text, (vsi_l_offset)used, FALSE);
  if (!memory) {
    free(text);
    return NULL;
  }
  tc_gdal.VSIFCloseL(memory);
  GDALDatasetH dataset = open_drawing(name, 0, raw, dxf_is_utf8(path));
  if (!dataset) {
    tc_gdal.VSIUnlink(name);
    free(text);
    return NULL;
  }
  *buffer = text;
  return dataset;
}

int tc_drawing_read(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text, tc_drawing *d) {
  memset(d, 0, sizeof *d);
  d->min_x = d->min_y = INFINITY;
  d->max_x = d->max_y = -INFINITY;
  /* a DXF's own scans run while libgdal finishes loading and GDAL parses the file */
  dxf_scans scans = {.path = path, .status = -1};
  if (!dwg && strncmp(path, "/vsi", 4) != 0)
    scans.running = pthread_create(&scans.thread, NULL, scan_dxf, &scans) == 0;
  int result = read_drawing(path, dwg, layers, max_bytes, max_text, d, &scans);
  free_scans(&scans);
  return result;
}

/* tc_drawing_read, a DXF's scans started or not (finish_scans before they are used). */
static int read_drawing(const char *path, int dwg, const char *layers, size_t max_bytes, size_t max_text, tc_drawing *d,
                        dxf_scans *scans) {
  int plain = strncmp(path, "/vsi", 4) != 0;
  /* GDAL inlines inserts before tilecut sees a feature: nested inserts of inserts are
   * counted from the DXF text first, and refused before GDAL spends minutes on them;
   * counted before libgdal is waited for, which may still be loading (tc_dxf_preload) */
  char refusal[300] = "";
  int needs_raw = 1;
  double inlined =
      !dwg && plain ? tc_dxf_inlined_entities(path, max_bytes, max_text, refusal, sizeof refusal, &needs_raw, stop_scans, scans) : 0;
  const char *unloadable = tc_gdal_load();
  if (unloadable) {
    d->error = strdup(unloadable);
    return -2;
  }
  if (!plain) {
    d->error = strdup("is not a plain file path");
    return 1;
  }
  if (!dwg) {
    /* a single entity past what GDAL reads in seconds and within --max-memory */
    if (refusal[0]) {
      d->error = strdup(refusal);
      return 1;
    }
    if (isnan(inlined)) {
      d->error = strdup("ends inside a section: it is cut short; save or copy it again");
      return 1;
    }
    if (inlined > TC_DRAWING_MAX_FEATURES) {
      char message[240];
      if (isinf(inlined))
        snprintf(message, sizeof message, "nests block inserts more than 1000 deep; tilecut draws at most %d entities",
                 TC_DRAWING_MAX_FEATURES);
      else
        snprintf(message, sizeof message,
                 "makes %.0f entities once its block inserts are inlined (nested inserts of inserts); tilecut draws at most %d",
                 inlined, TC_DRAWING_MAX_FEATURES);
      d->error = strdup(message);
      return 1;
    }
  }
  /* registered here, not with the raster drivers: a drawing is never taken for an image */
  if (dwg)
    tc_gdal.RegisterOGRCAD();
  else
    tc_gdal.RegisterOGRDXF();
  drawing_messages *messages = calloc(1, sizeof *messages);
  if (!messages) {
    d->error = strdup("out of memory");
    return 1;
  }
  tc_gdal.CPLPushErrorHandlerEx(collect_drawing, messages);
  GDALDatasetH dataset = open_drawing(path, dwg, dwg || needs_raw, !dwg && dxf_is_utf8(path));
  int result = 0;
  if (!dataset) {
    d->error = strdup(messages->used ? messages->text : "GDAL cannot read it as a drawing");
    result = 1;
  } else if (!dwg && !needs_raw && (finish_scans(scans), scans->status != 0)) {
    /* GDAL was not asked for the values tilecut's scan gives in its stead, and the scan
     * failed (out of memory, or blocks inserting each other past what it follows): the
     * drawing would lose its widths and text widths without a word */
    tc_gdal.GDALClose(dataset);
    d->error = strdup("tilecut could not read its blocks' widths and text widths (out of memory, or blocks that insert "
                      "each other too often); raise --max-memory or explode the nested blocks");
    result = 1;
  } else {
    snprintf(d->driver, sizeof d->driver, "%s", dwg ? "CAD" : "DXF");
    builder b = {.d = d, .max_bytes = max_bytes, .max_text = max_text, .path = dwg ? NULL : path};
    /* WIPEOUT masks, which GDAL skips, from the DXF itself: each added just before the
     * features of the entity it precedes (the entity handles GDAL gives) */
    if (!dwg) {
      finish_scans(scans);
      b.mtext = scans->mtext;
      b.mtext_read = 1;
      if (!needs_raw)
        b.raw = &scans->scan.raw;
    }
    tc_wipeout *wipeouts = scans->scan.wipeouts;
    size_t wipeout_count = scans->scan.wipeout_count;
    const tc_sort_entry *order = scans->scan.order;
    size_t order_count = scans->scan.order_count;
    const unsigned long long *skipped = scans->scan.skipped;
    size_t skipped_count = scans->scan.skipped_count;
    const tc_hatch_transform *hatches = scans->scan.hatches;
    size_t hatch_count = scans->scan.hatch_count;
    tc_fit_spline *splines = scans->scan.splines;
    size_t spline_count = scans->scan.spline_count;
    const tc_wide_polyline *polylines = scans->scan.polylines;
    size_t polyline_count = scans->scan.polyline_count;
    const tc_fit_hatch *fit_hatches = scans->scan.fit_hatches;
    size_t fit_hatch_count = scans->scan.fit_hatch_count;
    const tc_mline *mlines = scans->scan.mlines;
    size_t mline_count = scans->scan.mline_count;
    b.down_texts = scans->scan.down_texts;
    b.down_text_count = scans->scan.down_text_count;
    /* the current insert's hatch placements not yet used */
    const tc_hatch_transform *placements = NULL;
    size_t placements_left = 0;
    if (!dwg && scans->status == 0 && wipeout_count)
      qsort(wipeouts, wipeout_count, sizeof *wipeouts, by_key);
    b.ordered = order_count > 0;
    unsigned char *added = wipeout_count ? calloc(wipeout_count, 1) : NULL;
    if (!added)
      wipeout_count = 0;
    char previous[24] = "", last_mtext[24] = "", last_insert[24] = "";
    /* the features of each tc_raw_kind seen so far with the current handle */
    uint32_t inlined_seen[8] = {0};
    /* after the drawing's own layers, those of its tables and arc dimensions */
    char refs_name[64] = "", *refs_buffer = NULL;
    GDALDatasetH refs = NULL;
    /* the tables' and arc dimensions' handles, sorted, and whether GDAL gave features of
     * them itself (a GDAL that reads them: they are not drawn twice) */
    size_t ref_count = !dwg && scans->status == 0 ? scans->scan.ref_count : 0;
    unsigned long long *ref_handles = ref_count ? malloc(ref_count * sizeof *ref_handles) : NULL;
    unsigned char *ref_seen = ref_count ? calloc(ref_count, 1) : NULL;
    if (!ref_handles || !ref_seen)
      ref_count = 0;
    for (size_t i = 0; i < ref_count; i++)
      ref_handles[i] = strtoull(scans->scan.refs[i].handle, NULL, 16);
    if (ref_count)
      qsort(ref_handles, ref_count, sizeof *ref_handles, by_ull);
    int own = tc_gdal.GDALDatasetGetLayerCount(dataset), count = own, refs_tried = 0;
    for (int l = 0; !b.failed; l++) {
      if (l == own && !refs_tried) {
        refs_tried = 1;
        if (ref_count)
          refs = open_block_refs(path, scans, ref_handles, ref_seen, ref_count, max_bytes, needs_raw, refs_name,
                                 sizeof refs_name, &refs_buffer);
        count = own + (refs ? tc_gdal.GDALDatasetGetLayerCount(refs) : 0);
      }
      if (l >= count)
        break;
      OGRLayerH layer = l < own ? tc_gdal.GDALDatasetGetLayer(dataset, l) : tc_gdal.GDALDatasetGetLayer(refs, l - own);
      if (!layer)
        continue;
      tc_gdal.OGR_L_ResetReading(layer);
      OGRFeatureH f;
      while (!b.failed && (f = tc_gdal.OGR_L_GetNextFeature(layer))) {
        d->features++;
        /* a feature an insert inlines has the insert's handle: its raw codes are found
         * by its place among that insert's features of its kind */
        b.inlined_raw = NULL;
        if (b.raw && b.raw->inlined_count) {
          int inlined_field = tc_gdal.OGR_F_GetFieldIndex(f, "EntityHandle");
          const char *inlined_handle = inlined_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, inlined_field) : "";
          if (!inlined_handle)
            inlined_handle = "";
          if (strcmp(inlined_handle, last_insert)) {
            snprintf(last_insert, sizeof last_insert, "%s", inlined_handle);
            memset(inlined_seen, 0, sizeof inlined_seen);
          }
          int classes_field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
          int kind = tc_raw_kind(classes_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, classes_field) : NULL);
          if (kind > 0 && kind < 8 && *inlined_handle)
            b.inlined_raw = tc_raw_codes_find_inlined(b.raw, inlined_handle, kind, inlined_seen[kind]++);
        }
        int handle_field =
            wipeout_count || b.ordered || skipped_count || hatch_count || spline_count || polyline_count || fit_hatch_count || mline_count ||
                    ref_count
                ? tc_gdal.OGR_F_GetFieldIndex(f, "EntityHandle")
                : -1;
        const char *handle = handle_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, handle_field) : NULL;
        /* the MTEXTs an insert inlines all have its handle: each is found by its place
         * among them (counted whether drawn or not) */
        if (b.mtext.count) {
          int classes_field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
          const char *classes = classes_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, classes_field) : NULL;
          if (classes && strstr(classes, "AcDbMText")) {
            int mtext_field = tc_gdal.OGR_F_GetFieldIndex(f, "EntityHandle");
            const char *mtext_handle = mtext_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, mtext_field) : "";
            if (mtext_handle && strcmp(mtext_handle, last_mtext) == 0) {
              b.mtext_index++;
            } else {
              snprintf(last_mtext, sizeof last_mtext, "%s", mtext_handle ? mtext_handle : "");
              b.mtext_index = 0;
            }
          }
        }
        /* model space only: GDAL gives the active paper space's entities too (a sheet's
         * title block and border), marked PaperSpace */
        int paper_field = tc_gdal.OGR_F_GetFieldIndex(f, "PaperSpace");
        int paper = paper_field >= 0 && tc_gdal.OGR_F_IsFieldSetAndNotNull(f, paper_field) &&
                    tc_gdal.OGR_F_GetFieldAsInteger(f, paper_field) != 0;
        if (paper || (handle && skipped_count && tc_dxf_hidden(handle, skipped, skipped_count))) {
          d->hidden++;
          tc_gdal.OGR_F_Destroy(f);
          continue;
        }
        if (handle_field >= 0) {
          if (handle && *handle && strcmp(handle, previous)) {
            snprintf(previous, sizeof previous, "%s", handle);
            if (ref_count && l < own) {
              unsigned long long key = strtoull(previous, NULL, 16);
              unsigned long long *found = bsearch(&key, ref_handles, ref_count, sizeof key, by_ull);
              if (found)
                ref_seen[found - ref_handles] = 1;
            }
            placements = hatch_count ? tc_dxf_hatch_transforms(previous, hatches, hatch_count, &placements_left) : NULL;
            /* a fit-point spline GDAL did read is not drawn again */
            if (spline_count) {
              tc_fit_spline key = {.handle = strtoull(previous, NULL, 16)};
              tc_fit_spline *read = bsearch(&key, splines, spline_count, sizeof key, by_spline_handle);
              if (read && read->count > 0)
                read->count = -read->count;
            }
            if (!placements)
              placements_left = 0;
            b.current_order = tc_dxf_draw_order(previous, order, order_count);
            if (wipeout_count)
              add_wipeouts(&b, wipeouts, wipeout_count, added, previous, layers, order, order_count);
          }
        }
        /* a hatch an insert inlines: its pattern is placed as its boundary is */
        const double *placement = NULL;
        const tc_hatch_transform *placed = NULL;
        if (placements_left) {
          int classes_field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
          const char *classes = classes_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, classes_field) : NULL;
          if (classes && strstr(classes, "AcDbHatch")) {
            placement = placements->m;
            placed = placements;
            placements++;
            placements_left--;
          }
        }
        int field = tc_gdal.OGR_F_GetFieldIndex(f, "Layer");
        const char *name = field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, field) : "";
        style st;
        parse_style(tc_gdal.OGR_F_GetStyleString(f), &st);
        if (!st.has_pen && !st.has_brush && !st.has_label)
          st.has_pen = 1, st.pen[3] = 255;
        /* GDAL gives what lies on an off or frozen layer a transparent colour */
        int hidden = (st.has_pen && st.pen[3] == 0) || (st.has_brush && st.brush[3] == 0) ||
                     (st.has_label && st.label[3] == 0);
        OGRGeometryH g = tc_gdal.OGR_F_GetGeometryRef(f);
        /* POINTs on layer Defpoints (a dimension's definition points) never plot */
        if (name && !strcasecmp(name, "Defpoints") && g &&
            tc_gdal.OGR_GT_Flatten(tc_gdal.OGR_G_GetGeometryType(g)) == wkbPoint && !st.has_label)
          hidden = 1;
        /* an ATTRIB of a hidden insert in a file without handles: known by where it stands */
        if (!hidden && scans->scan.hidden_point_count && st.has_label && (!handle || !*handle) && g &&
            tc_gdal.OGR_GT_Flatten(tc_gdal.OGR_G_GetGeometryType(g)) == wkbPoint &&
            tc_dxf_hidden_at(tc_gdal.OGR_G_GetX(g, 0), tc_gdal.OGR_G_GetY(g, 0), scans->scan.hidden_points,
                             scans->scan.hidden_point_count))
          hidden = 1;
        if (hidden || !layer_drawn(&b.layer_memo, layers, name ? name : "")) {
          d->hidden++;
          tc_gdal.OGR_F_Destroy(f);
          continue;
        }
        const tc_wide_polyline *wide = NULL;
        if (polyline_count && handle && *handle && !st.has_label && !st.has_brush) {
          tc_wide_polyline key = {.handle = strtoull(handle, NULL, 16)};
          wide = bsearch(&key, polylines, polyline_count, sizeof key, by_wide_handle);
        }
        /* a hatch GDAL gives no area (POLYGON EMPTY, or the lines of edges that leave a
         * gap): its boundary from the DXF, closed as ezdxf closes it */
        const tc_fit_hatch *fit_hatch = NULL;
        OGRwkbGeometryType type = g ? tc_gdal.OGR_GT_Flatten(tc_gdal.OGR_G_GetGeometryType(g)) : wkbUnknown;
        int unread = st.has_brush && (!g || (type == wkbPolygon && tc_gdal.OGR_G_GetGeometryCount(g) == 0) ||
                                      type == wkbMultiLineString || type == wkbLineString);
        /* one in a block: its boundary placed as the inserts place it */
        tc_fit_hatch inserted = {0};
        if (unread && placed && placed->xy) {
          inserted = (tc_fit_hatch){.xy = placed->xy, .count = placed->count, .rings = placed->rings,
                                    .ring_count = placed->ring_count, .elevation = placed->elevation};
          memcpy(inserted.extrusion, placed->extrusion, sizeof inserted.extrusion);
          fit_hatch = &inserted;
        } else if (fit_hatch_count && handle && *handle && unread) {
          tc_fit_hatch key = {.handle = strtoull(handle, NULL, 16)};
          fit_hatch = bsearch(&key, fit_hatches, fit_hatch_count, sizeof key, by_fit_hatch_handle);
        }
        /* an MLINE: as ezdxf draws it, with its style's colours, fill, caps and miters */
        const tc_mline *mline = NULL;
        if (mline_count && handle && *handle && !st.has_label && !st.has_brush) {
          int classes_field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
          const char *classes = classes_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, classes_field) : NULL;
          tc_mline key = {.handle = strtoull(handle, NULL, 16)};
          if (classes && strstr(classes, "AcDbMline"))
            mline = bsearch(&key, mlines, mline_count, sizeof key, by_mline_handle);
        }
        if (st.has_label) {
          add_text(&b, f, g, &st);
        } else if (mline) {
          add_mline(&b, mline, st.width_mm);
        } else if (wide) {
          add_wide_polyline(&b, wide, st.pen);
        } else {
          tc_drawing_item stroke = {0}, fill = {0};
          stroke.kind = TC_DRAWING_STROKE;
          memcpy(stroke.rgba, st.pen, 4);
          stroke.lineweight_mm = (float)st.width_mm;
          stroke.width_units = (float)polyline_width(&b, f);
          if (st.dash_count >= 2) {
            if (tc_grow_array((void **)&d->dashes, &b.dash_cap, d->dash_count + (size_t)st.dash_count, sizeof(double), 256) == 0) {
              stroke.dash_first = (uint32_t)d->dash_count;
              stroke.dash_count = (uint32_t)st.dash_count;
              memcpy(d->dashes + d->dash_count, st.dashes, sizeof(double) * (size_t)st.dash_count);
              d->dash_count += (size_t)st.dash_count;
            }
          }
          fill.kind = TC_DRAWING_FILL;
          memcpy(fill.rgba, st.has_brush ? st.brush : st.pen, 4);
          double pattern[16 * 22];
          int values = st.has_brush ? hatch_pattern(&b, f, pattern, 16 * 22) : 0;
          if (values > 0 && placement)
            place_pattern(pattern, values, placement);
          if (values > 0 &&
              tc_grow_array((void **)&d->dashes, &b.dash_cap, d->dash_count + (size_t)values, sizeof(double), 256) == 0) {
            fill.kind = TC_DRAWING_PATTERN;
            fill.dash_first = (uint32_t)d->dash_count;
            fill.dash_count = (uint32_t)values;
            memcpy(d->dashes + d->dash_count, pattern, sizeof(double) * (size_t)values);
            d->dash_count += (size_t)values;
          }
          /* a polyface mesh without faces, which GDAL gives as the line through its
           * vertices: ezdxf draws its faces, so nothing */
          int faceless = 0;
          if (type == wkbLineString) {
            int classes_field = tc_gdal.OGR_F_GetFieldIndex(f, "SubClasses");
            const char *classes = classes_field >= 0 ? tc_gdal.OGR_F_GetFieldAsString(f, classes_field) : NULL;
            faceless = classes && strstr(classes, "AcDbPolyFaceMesh") != NULL;
          }
          if (fit_hatch)
            add_fit_hatch(&b, fit_hatch, &fill, fit_hatch == &inserted ? placement : NULL);
          else if (!faceless)
            add_geometry(&b, g, &st, &stroke, &fill, 0);
        }
        tc_gdal.OGR_F_Destroy(f);
        if (!b.failed && d->features > TC_DRAWING_MAX_FEATURES) {
          char message[200];
          snprintf(message, sizeof message,
                   "makes more than %d entities once its block inserts are inlined (nested inserts of inserts?); "
                   "tilecut draws at most that many",
                   TC_DRAWING_MAX_FEATURES);
          fail(&b, message);
        }
        if (!b.failed && list_bytes(&b) > b.max_bytes) {
          char message[200];
          snprintf(message, sizeof message,
                   "draws more than %zu MB of geometry after %zu features, more than --max-memory allows", b.max_bytes >> 20,
                   d->features);
          fail(&b, message);
        }
      }
    }
    if (wipeout_count && !b.failed)
      add_wipeouts(&b, wipeouts, wipeout_count, added, NULL, layers, order, order_count);
    for (size_t i = 0; i < spline_count && !b.failed; i++)
      add_fit_spline(&b, &splines[i], layers, order, order_count);
    for (size_t i = 0; i < scans->scan.image_count && !b.failed; i++)
      add_image_frame(&b, &scans->scan.images[i], layers, order, order_count);
    /* after everything else, whose extent they are clipped to */
    for (size_t i = 0; i < scans->scan.xline_count && !b.failed; i++)
      add_xline(&b, &scans->scan.xlines[i], layers, order, order_count);
    if (b.ordered && !b.failed)
      sort_items(&b);
    free(added);
    for (size_t i = 0; i < spline_count; i++)
      splines[i].count = abs(splines[i].count);
    free(b.orders);
    layer_memo_free(&b.layer_memo);
    if (refs) {
      tc_gdal.GDALClose(refs);
      tc_gdal.VSIUnlink(refs_name);
      free(refs_buffer);
    }
    free(ref_handles);
    free(ref_seen);
    tc_gdal.GDALClose(dataset);
    if (b.failed)
      result = 1;
    d->refs_not_drawn = scans->scan.ref_dropped;
    if (messages->used)
      d->warnings = strdup(messages->text);
    d->warnings_dropped = messages->dropped;
  }
  tc_gdal.CPLPopErrorHandler();
  free(messages->text);
  free(messages);
  return result;
}

void tc_drawing_free(tc_drawing *d) {
  free(d->items);
  free(d->xy);
  free(d->rings);
  free(d->dashes);
  free(d->text);
  free(d->column_heights);
  free(d->warnings);
  free(d->error);
  memset(d, 0, sizeof *d);
}
