/* Follows ezdxf 1.4.5's render/trace.py (MIT License, Copyright (c) 2020 Manfred
 * Moitzi; NOTICE names it), so that tapered polylines come out as ezdxf draws them. */
#include "TilecutDXFTrace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double x, y;
} point;

/* ezdxf's Vec2.isclose: each coordinate within 1e-9 relative or 1e-12 absolute */
static int same_value(double a, double b) {
  double d = fabs(a - b);
  return d <= fmax(1e-9 * fmax(fabs(a), fabs(b)), 1e-12);
}

static int same(point a, point b) { return same_value(a.x, b.x) && same_value(a.y, b.y); }

/* A list of x, y pairs (an outline) or of x, y, start width, end width (stations). */
typedef struct {
  double *v;
  size_t n, cap;
  int stride;
} list;

static int push(list *l, const double *values) {
  if (l->n + 1 > l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 32;
    double *v = realloc(l->v, cap * (size_t)l->stride * sizeof(double));
    if (!v)
      return -1;
    l->v = v;
    l->cap = cap;
  }
  memcpy(l->v + l->n * (size_t)l->stride, values, (size_t)l->stride * sizeof(double));
  l->n++;
  return 0;
}

/* An outline point, unless it is the one before (ezdxf merges those). */
static int push_point(list *l, point p) {
  if (l->n && same(p, (point){l->v[2 * l->n - 2], l->v[2 * l->n - 1]}))
    return 0;
  return push(l, (double[]){p.x, p.y});
}

/* LinearTrace.add_station: a station at the last one's place replaces it. */
static int add_station(list *l, double x, double y, double sw, double ew) {
  if (l->n && same((point){x, y}, (point){l->v[4 * l->n - 4], l->v[4 * l->n - 3]}))
    l->n--;
  return push(l, (double[]){x, y, sw, ew});
}

typedef struct {
  point p, d;
} ray;

/* ConstructionRay through v1 and v2, or along the segment when they meet. */
static ray make_ray(point v1, point v2, point s0, point s1) {
  if (same(v1, v2))
    return (ray){v1, {s0.x - s1.x, s0.y - s1.y}};
  return (ray){v1, {v2.x - v1.x, v2.y - v1.y}};
}

/* Where two rays cross; `fallback` when they are within 0.031415 rad of parallel. */
static point intersect(ray a, ray b, point fallback) {
  double la = hypot(a.d.x, a.d.y), lb = hypot(b.d.x, b.d.y);
  if (!(la > 0) || !(lb > 0))
    return fallback;
  double c = (a.d.x * b.d.x + a.d.y * b.d.y) / (la * lb);
  double angle = acos(fmax(-1, fmin(1, c)));
  if (angle < 0.031415 || fabs(M_PI - angle) < 0.031415)
    return fallback;
  double cross = a.d.x * b.d.y - a.d.y * b.d.x;
  if (cross == 0)
    return fallback;
  double t = ((b.p.x - a.p.x) * b.d.y - (b.p.y - a.p.y) * b.d.x) / cross;
  return (point){a.p.x + t * a.d.x, a.p.y + t * a.d.y};
}

/* A segment's offset points: up1, up2 (left), down1, down2 (right). */
static void offsets(const double *s0, const double *s1, point out[4]) {
  double dx = s1[0] - s0[0], dy = s1[1] - s0[1], l = hypot(dx, dy);
  double ox = l > 0 ? -dy / l : 0, oy = l > 0 ? dx / l : 0;
  out[0] = (point){s0[0] + ox * s0[2] / 2, s0[1] + oy * s0[2] / 2};
  out[1] = (point){s1[0] + ox * s0[3] / 2, s1[1] + oy * s0[3] / 2};
  out[2] = (point){s0[0] - ox * s0[2] / 2, s0[1] - oy * s0[2] / 2};
  out[3] = (point){s1[0] - ox * s0[3] / 2, s1[1] - oy * s0[3] / 2};
}

/* LinearTrace.faces and AbstractTrace.polygon: the forward (right) edge, then the
 * backward (left) edge reversed. */
static int linear_outline(const list *stations, void (*polygon)(void *, const double *, int), void *context) {
  size_t count = stations->n;
  if (count < 2)
    return 0;
  const double *s = stations->v;
  size_t n = count - 1;
  point *seg = malloc(sizeof(point) * 4 * n);
  ray *up = malloc(sizeof(ray) * n), *down = malloc(sizeof(ray) * n);
  list forward = {.stride = 2}, backward = {.stride = 2};
  int failed = !seg || !up || !down;
  for (size_t i = 0; !failed && i < n; i++) {
    offsets(s + 4 * i, s + 4 * (i + 1), seg + 4 * i);
    point s0 = {s[4 * i], s[4 * i + 1]}, s1 = {s[4 * i + 4], s[4 * i + 5]};
    up[i] = make_ray(seg[4 * i], seg[4 * i + 1], s0, s1);
    down[i] = make_ray(seg[4 * i + 2], seg[4 * i + 3], s0, s1);
  }
  if (!failed) {
    int closed = same((point){s[0], s[1]}, (point){s[4 * n], s[4 * n + 1]});
    point last_up2 = seg[4 * (n - 1) + 1], last_down2 = seg[4 * (n - 1) + 3];
    for (size_t i = 0; !failed && i < n; i++) {
      const point *g = seg + 4 * i;
      point v0, v1, v2, v3;
      if (i == 0) {
        if (closed) {
          v0 = intersect(up[n - 1], up[0], g[0]);
          v1 = intersect(down[n - 1], down[0], g[2]);
          last_up2 = v0;
          last_down2 = v1;
        } else {
          v0 = g[0];
          v1 = g[2];
        }
      } else {
        v0 = intersect(up[i - 1], up[i], g[0]);
        v1 = intersect(down[i - 1], down[i], g[2]);
      }
      if (i + 1 < n) {
        v2 = intersect(down[i + 1], down[i], g[3]);
        v3 = intersect(up[i + 1], up[i], g[1]);
      } else {
        v2 = last_down2;
        v3 = last_up2;
      }
      failed = push_point(&forward, v1) || push_point(&forward, v2) || push_point(&backward, v0) ||
               push_point(&backward, v3);
    }
  }
  for (size_t i = backward.n; !failed && i > 0; i--)
    failed = push(&forward, backward.v + 2 * (i - 1));
  if (!failed && forward.n >= 3)
    polygon(context, forward.v, (int)forward.n);
  free(seg);
  free(up);
  free(down);
  free(forward.v);
  free(backward.v);
  return failed ? -1 : 0;
}

/* CurvedTrace.from_arc of bulge_to_arc(a, b, bulge): the outer edge, then the inner
 * edge reversed; the width from `sw` at the arc's start angle to `ew` at its end. */
static int arc_outline(const double *a, const double *b, double bulge, double sw, double ew, int segments,
                       void (*polygon)(void *, const double *, int), void *context) {
  double dx = b[0] - a[0], dy = b[1] - a[1];
  double r = hypot(dx, dy) * (1 + bulge * bulge) / 4 / bulge;
  double t = atan2(dy, dx) + (M_PI / 2 - atan(bulge) * 2);
  double cx = a[0] + r * cos(t), cy = a[1] + r * sin(t);
  r = fabs(r);
  if (!(r > 0) || !isfinite(r))
    return 0;
  double start = atan2(a[1] - cy, a[0] - cx) * 180 / M_PI, end = atan2(b[1] - cy, b[0] - cx) * 180 / M_PI;
  if (bulge < 0) {
    double swap = start;
    start = end;
    end = swap;
  }
  /* widths run along the arc: swapped when it starts at the polyline's later vertex */
  double first = cx + r * cos(start * M_PI / 180), second = cy + r * sin(start * M_PI / 180);
  if (same((point){first, second}, (point){b[0], b[1]})) {
    double swap = sw;
    sw = ew;
    ew = swap;
  }
  double from = fmod(start, 360), to = fmod(end, 360);
  if (from < 0)
    from += 360;
  if (to < 0)
    to += 360;
  if (to <= from)
    to += 360;
  double span = fmod(end - start, 360);
  if (span < 0)
    span += 360;
  if (span == 0)
    span = 360;
  int count = (int)fmax(ceil(span / 360.0 * segments), 3) + 1;
  list outer = {.stride = 2}, inner = {.stride = 2};
  int failed = 0;
  for (int i = 0; i < count && !failed; i++) {
    double angle = fmod(from + (to - from) * i / (count - 1), 360) * M_PI / 180;
    double px = cx + r * cos(angle), py = cy + r * sin(angle);
    double w = sw + (ew - sw) * i / (count - 1);
    double nx = px - cx, ny = py - cy, l = hypot(nx, ny);
    if (same((point){nx, ny}, (point){0, 0}) || !(l > 0))
      nx = ny = 0;
    else
      nx *= w / 2 / l, ny *= w / 2 / l;
    failed = push_point(&outer, (point){px + nx, py + ny}) || push_point(&inner, (point){px - nx, py - ny});
  }
  for (size_t i = inner.n; !failed && i > 0; i--)
    failed = push(&outer, inner.v + 2 * (i - 1));
  if (!failed && outer.n >= 3)
    polygon(context, outer.v, (int)outer.n);
  free(outer.v);
  free(inner.v);
  return failed ? -1 : 0;
}

int tc_dxf_trace(const double *v, int count, int closed, int segments,
                 void (*polygon)(void *context, const double *xy, int n), void *context) {
  if (count < 1)
    return 0;
  size_t n = (size_t)count;
  double *p = malloc(sizeof(double) * 5 * (n + 1));
  if (!p)
    return -1;
  memcpy(p, v, sizeof(double) * 5 * n);
  if (closed && !same((point){p[0], p[1]}, (point){p[5 * n - 5], p[5 * n - 4]})) {
    memcpy(p + 5 * n, p, sizeof(double) * 5);
    n++;
  }
  /* the first run of straight segments, held back for a closed polyline: its
   * stations then continue the last run (TraceBuilder.close) */
  list first = {.stride = 4}, run = {.stride = 4};
  int traces = 0, first_held = 0, last_linear = 0, failed = 0;
  double stored_bulge = 0, stored_sw = 0, stored_ew = 0;
  const double *stored = NULL;
  for (size_t i = 0; i < n && !failed; i++) {
    const double *q = p + 5 * i;
    if (stored_bulge != 0) {
      failed = arc_outline(stored, q, stored_bulge, stored_sw, stored_ew, segments, polygon, context);
      traces++;
      last_linear = 0;
      stored_bulge = 0;
    }
    if (q[4] != 0) {
      if (run.n) {
        failed = failed || add_station(&run, q[0], q[1], q[2], q[3]);
        /* a finished run: the first held back when closed, else drawn */
        if (!failed && traces == 0 && closed) {
          first = run;
          run = (list){.stride = 4};
          first_held = 1;
        } else if (!failed) {
          failed = linear_outline(&run, polygon, context);
          run.n = 0;
        }
        traces++;
      }
      stored_bulge = q[4];
      stored_sw = q[2];
      stored_ew = q[3];
      stored = q;
      continue;
    }
    failed = failed || add_station(&run, q[0], q[1], q[2], q[3]);
  }
  if (run.n)
    traces++, last_linear = 1;
  if (!failed && first_held && last_linear && traces > 1) {
    for (size_t i = 0; i < first.n && !failed; i++)
      failed = add_station(&run, first.v[4 * i], first.v[4 * i + 1], first.v[4 * i + 2], first.v[4 * i + 3]);
    first.n = 0;
  }
  if (!failed && first.n)
    failed = linear_outline(&first, polygon, context);
  if (!failed && run.n)
    failed = linear_outline(&run, polygon, context);
  free(first.v);
  free(run.v);
  free(p);
  return failed ? -1 : 0;
}
