/* Follows ezdxf 1.4.5's render/mline.py (MIT License, Copyright (c) 2020-2022 Manfred
 * Moitzi; NOTICE names it), so that MLINEs come out as ezdxf draws them. */
#include "TilecutDXFMLine.h"
#include "TilecutDXFLines.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A flag or colour read from the file as an int: 0 past int's range (a cast of such a
 * double is undefined). */
static int as_int(double v) { return v >= INT_MIN && v <= INT_MAX ? (int)v : 0; }

/* values a vertex: x, y, miter x, miter y, its element count, each element's offset */
#define STRIDE (5 + TC_MLINE_ELEMENTS)
#define MAX_VERTICES 65536

int tc_dxf_mline_code(tc_mline_raw *raw, int group, const char *value, double x) {
  double *v = raw->count ? raw->v + STRIDE * (raw->count - 1) : NULL;
  switch (group) {
  case 2:
    snprintf(raw->style_name, sizeof raw->style_name, "%s", value);
    break;
  case 340:
    snprintf(raw->style_handle, sizeof raw->style_handle, "%s", value);
    break;
  case 71:
    raw->flags = as_int(x);
    break;
  case 11:
    if (raw->count >= MAX_VERTICES) {
      raw->bad = 1;
      break;
    }
    if (tc_grow_array((void **)&raw->v, &raw->cap, raw->count + 1, STRIDE * sizeof(double), 16))
      return -1;
    v = raw->v + STRIDE * raw->count++;
    memset(v, 0, STRIDE * sizeof(double));
    v[0] = x;
    raw->element = -1;
    break;
  case 21:
    if (v)
      v[1] = x;
    break;
  case 13:
    if (v)
      v[2] = x;
    break;
  case 23:
    if (v)
      v[3] = x;
    break;
  case 74:
    /* an element's parameters: the first is its offset along the miter */
    if (v && ++raw->element < TC_MLINE_ELEMENTS)
      v[4] = raw->element + 1;
    else
      raw->bad = 1;
    raw->param = 0;
    break;
  case 41:
    if (v && raw->element >= 0 && raw->element < TC_MLINE_ELEMENTS && raw->param++ == 0)
      v[5 + raw->element] = x;
    break;
  default:
    break;
  }
  return 0;
}

void tc_dxf_mline_style_code(tc_mline_style *style, int group, const char *value, double x) {
  switch (group) {
  case 5:
    snprintf(style->handle, sizeof style->handle, "%s", value);
    break;
  case 2:
    snprintf(style->name, sizeof style->name, "%s", value);
    break;
  case 70:
    style->flags = as_int(x);
    break;
  case 62:
    /* the fill's colour before the elements, then each element's */
    if (style->count == 0)
      style->fill = as_int(x);
    else if (style->count <= TC_MLINE_ELEMENTS)
      style->colour[style->count - 1] = as_int(x);
    break;
  case 49:
    if (style->count < TC_MLINE_ELEMENTS) {
      style->offset[style->count] = x;
      style->colour[style->count] = 256;
    }
    style->count++;
    break;
  default:
    break;
  }
}

typedef struct {
  tc_mline *m;
  size_t piece_cap, point_cap;
  int layer_colour;
} building;

static void rgb_of(int aci, int layer_colour, uint8_t rgb[3]) {
  if (aci == 256 || aci < 0 || aci > 256)
    aci = layer_colour;
  if (aci < 1 || aci > 255)
    aci = 7;
  tc_aci_rgb(aci, rgb);
}

static int begin(building *b, int fill, int aci) {
  tc_mline *m = b->m;
  if (tc_grow_array((void **)&m->pieces, &b->piece_cap, (size_t)m->piece_count + 1, sizeof(tc_mline_piece), 8))
    return -1;
  tc_mline_piece *p = &m->pieces[m->piece_count++];
  p->fill = fill;
  rgb_of(aci, b->layer_colour, p->rgb);
  p->first = m->point_count;
  p->count = 0;
  return 0;
}

static int point(building *b, double x, double y) {
  tc_mline *m = b->m;
  if (tc_grow_array((void **)&m->xy, &b->point_cap, (size_t)m->point_count + 1, 2 * sizeof(double), 64))
    return -1;
  m->xy[2 * m->point_count] = x;
  m->xy[2 * m->point_count + 1] = y;
  m->point_count++;
  m->pieces[m->piece_count - 1].count++;
  return 0;
}

static int line(building *b, int aci, const double *p, const double *q) {
  return begin(b, 0, aci) || point(b, p[0], p[1]) || point(b, q[0], q[1]);
}

/* Points of an arc of `span` degrees from `angle` about c, radius r: 2° steps. */
static int arc_points(building *b, const double c[2], double r, double angle, double span) {
  int steps = (int)ceil(fabs(span) / 2);
  if (steps < 1)
    steps = 1;
  for (int i = 0; i <= steps; i++) {
    double t = (angle + span * i / steps) * M_PI / 180;
    if (point(b, c[0] + r * cos(t), c[1] + r * sin(t)))
      return -1;
  }
  return 0;
}

/* ezdxf's _arc_caps: half a circle from `start` to `end` about their middle, counter-
 * clockwise, in two quarters when the two elements' colours differ. */
static int arc_cap(building *b, const double *start, const double *end, int colour1, int colour2) {
  double c[2] = {(start[0] + end[0]) / 2, (start[1] + end[1]) / 2};
  double r = hypot(end[0] - start[0], end[1] - start[1]) / 2;
  double angle = atan2(start[1] - c[1], start[0] - c[0]) * 180 / M_PI;
  if (!(r > 0))
    return 0;
  if (colour1 == colour2)
    return begin(b, 0, colour1) || arc_points(b, c, r, angle, 180);
  return begin(b, 0, colour1) || arc_points(b, c, r, angle, 90) || begin(b, 0, colour2) ||
         arc_points(b, c, r, angle + 90, 90);
}

int tc_dxf_mline_build(const tc_mline_raw *raw, const tc_mline_style *style, int layer_colour, tc_mline *out) {
  memset(out, 0, sizeof *out);
  int n = style->count, vertices = (int)raw->count;
  if (raw->bad || n < 1 || n > TC_MLINE_ELEMENTS || vertices < 2)
    return 0;
  for (int i = 0; i < vertices; i++)
    if ((int)raw->v[STRIDE * i + 4] != n)
      return 0;
  /* the elements by offset (ezdxf's ordered_indices): bottom the least, top the most */
  int order[TC_MLINE_ELEMENTS];
  /* a stable insertion sort: every element in one slot, whatever the offsets (equal
   * ones keep their order) */
  for (int i = 0; i < n; i++) {
    int k = i;
    for (; k > 0 && style->offset[order[k - 1]] > style->offset[i]; k--)
      order[k] = order[k - 1];
    order[k] = i;
  }
  /* equal offsets: the first element of each value, as offsets.index(value) finds it */
  for (int k = 0; k < n; k++) {
    double value = style->offset[order[k]];
    for (int j = 0; j < n; j++)
      if (style->offset[j] == value) {
        order[k] = j;
        break;
      }
  }
  int bottom = order[0], top = order[n - 1], closed = raw->flags & 2, flags = style->flags;
  int rows = vertices + (closed ? 1 : 0);
  /* each vertex's miter points: location + miter direction × the element's offset */
  double *miters = malloc(sizeof(double) * 2 * (size_t)(rows * n));
  if (!miters)
    return -1;
  for (int i = 0; i < rows; i++) {
    const double *v = raw->v + STRIDE * (i % vertices);
    for (int e = 0; e < n; e++) {
      miters[2 * (i * n + e)] = v[0] + v[2] * v[5 + e];
      miters[2 * (i * n + e) + 1] = v[1] + v[3] * v[5 + e];
    }
  }
#define AT(row, element) (miters + 2 * ((row) * n + (element)))
  building b = {out, 0, 0, layer_colour};
  int failed = 0;
  /* the fill first: the bottom border, then the top one back, a half circle (bulge 1)
   * across each round end */
  if (flags & 1) {
    failed = begin(&b, 1, style->fill);
    for (int i = 0; i < rows && !failed; i++)
      failed = point(&b, AT(i, bottom)[0], AT(i, bottom)[1]);
    if (!failed && !closed && (flags & 1024)) {
      const double *s = AT(rows - 1, bottom), *e = AT(rows - 1, top);
      double c[2] = {(s[0] + e[0]) / 2, (s[1] + e[1]) / 2};
      failed = arc_points(&b, c, hypot(e[0] - s[0], e[1] - s[1]) / 2, atan2(s[1] - c[1], s[0] - c[0]) * 180 / M_PI, 180);
    }
    for (int i = rows - 1; i >= 0 && !failed; i--)
      failed = point(&b, AT(i, top)[0], AT(i, top)[1]);
    if (!failed && !closed && (flags & 64)) {
      const double *s = AT(0, top), *e = AT(0, bottom);
      double c[2] = {(s[0] + e[0]) / 2, (s[1] + e[1]) / 2};
      failed = arc_points(&b, c, hypot(e[0] - s[0], e[1] - s[1]) / 2, atan2(s[1] - c[1], s[0] - c[0]) * 180 / M_PI, 180);
    }
  }
  /* create_miter: from the top and the bottom element to their middle */
#define MITER(row)                                                                                                    \
  do {                                                                                                                \
    const double *t = AT(row, top), *u = AT(row, bottom);                                                             \
    double z[2] = {(t[0] + u[0]) / 2, (t[1] + u[1]) / 2};                                                             \
    failed = failed || line(&b, style->colour[top], t, z) || line(&b, style->colour[bottom], u, z);                  \
  } while (0)
  if (!closed && !failed) {
    if (flags & 16)
      MITER(0);
    if (flags & 64)
      failed = failed || arc_cap(&b, AT(0, top), AT(0, bottom), style->colour[top], style->colour[bottom]);
    if ((flags & 32) && n > 3)
      failed = failed || arc_cap(&b, AT(0, order[n - 2]), AT(0, order[1]), style->colour[order[n - 2]], style->colour[order[1]]);
  }
  for (int i = 1; i < rows && !failed; i++)
    for (int e = 0; e < n && !failed; e++)
      failed = line(&b, style->colour[e], AT(i - 1, e), AT(i, e));
  if ((flags & 2) && !failed)
    for (int i = closed ? 0 : 1; i < rows - 1; i++)
      MITER(i);
  if (!closed && !failed) {
    if (flags & 256)
      MITER(rows - 1);
    if (flags & 1024)
      failed = failed || arc_cap(&b, AT(rows - 1, bottom), AT(rows - 1, top), style->colour[bottom], style->colour[top]);
    if ((flags & 512) && n > 3)
      failed = failed || arc_cap(&b, AT(rows - 1, order[1]), AT(rows - 1, order[n - 2]), style->colour[order[1]],
                                 style->colour[order[n - 2]]);
  }
#undef MITER
#undef AT
  free(miters);
  if (failed) {
    free(out->pieces);
    free(out->xy);
    memset(out, 0, sizeof *out);
    return -1;
  }
  return 1;
}
