/* Follows ezdxf 1.4.5's path/converter.py (from_hatch_edge_path: how edges join into
 * loops; Copyright (c) 2020-2023 Manfred Moitzi) and math/bspline.py
 * (fit_points_to_cad_cv: the cubic B-spline CAD interpolates through fit points;
 * Copyright (c) 2012-2025 Manfred Moitzi), MIT License; NOTICE names it. */
#include "TilecutDXFHatch.h"
#include "TilecutDXFLines.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* at most this many points a boundary, and steps a curve */
#define MAX_POINTS 1000000
#define MAX_FIT 4096

typedef struct {
  double *xy;
  size_t n, cap;
  /* a point past MAX_POINTS was dropped: the boundary is abandoned (left to GDAL) */
  int full;
} points;

static int put(points *p, double x, double y) {
  if (p->n >= MAX_POINTS) {
    p->full = 1;
    return 0;
  }
  if (tc_grow_array((void **)&p->xy, &p->cap, p->n + 1, 2 * sizeof(double), 64))
    return -1;
  p->xy[2 * p->n] = x;
  p->xy[2 * p->n + 1] = y;
  p->n++;
  return 0;
}

/* ezdxf's Vec3.isclose: within 1e-9 of the larger magnitude, or 1e-12 */
static int close_to(const double *a, const double *b) {
  double d = hypot(a[0] - b[0], a[1] - b[1]);
  double m = fmax(hypot(a[0], a[1]), hypot(b[0], b[1]));
  return d <= fmax(1e-9 * m, 1e-12);
}

/* A count, flag or type read from the file as an int: -1 past int's range (a cast of
 * such a double is undefined). */
static int as_int(double v) { return v >= INT_MIN && v <= INT_MAX ? (int)v : -1; }

/* Group codes read in order: the next one's value when it is `code`, else a miss. */
typedef struct {
  const int *c;
  const double *v;
  size_t n, at;
  int bad;
} cursor;

static int peek(const cursor *k) { return k->at < k->n ? k->c[k->at] : -1; }

static double want(cursor *k, int code) {
  if (peek(k) != code) {
    k->bad = 1;
    return 0;
  }
  return k->v[k->at++];
}

/* Steps of an arc of `span` radians: 2° each (GDAL's OGR_ARC_STEPSIZE here), at least 1. */
static int arc_steps(double span) {
  double steps = ceil(fabs(span) / (2 * M_PI / 180));
  return steps < 1 ? 1 : steps > 720 ? 720 : (int)steps;
}

/* A line from the last point to (x, y) with a bulge arc between them. */
static int bulge_to(points *p, double bulge, double x, double y) {
  double x0 = p->xy[2 * p->n - 2], y0 = p->xy[2 * p->n - 1];
  double chord = hypot(x - x0, y - y0);
  if (bulge == 0 || !(chord > 0))
    return put(p, x, y);
  /* the centre: off the chord's middle to its left by chord (1 - b²) / 4b; the arc
   * turns 4 atan(b), counter-clockwise for a positive bulge */
  double sweep = 4 * atan(bulge), off = chord * (1 - bulge * bulge) / (4 * bulge);
  double cx = (x0 + x) / 2 - (y - y0) / chord * off, cy = (y0 + y) / 2 + (x - x0) / chord * off;
  double radius = hypot(x0 - cx, y0 - cy), start = atan2(y0 - cy, x0 - cx);
  int steps = arc_steps(sweep);
  for (int i = 1; i < steps; i++)
    if (put(p, cx + radius * cos(start + sweep * i / steps), cy + radius * sin(start + sweep * i / steps)))
      return -1;
  return put(p, x, y);
}

/* An elliptic arc from parameter `a` to `b` (counter-clockwise), centre c, axes u and v. */
static int ellipse(points *p, const double c[2], const double u[2], const double v[2], double a, double b) {
  double span = fmod(b - a, 2 * M_PI);
  if (span <= 1e-12)
    span += 2 * M_PI;
  int steps = arc_steps(span);
  for (int i = 0; i <= steps; i++) {
    double t = a + span * i / steps, cs = cos(t), sn = sin(t);
    if (put(p, c[0] + u[0] * cs + v[0] * sn, c[1] + u[1] * cs + v[1] * sn))
      return -1;
  }
  return 0;
}

/* The point at `t` of the B-spline of `degree` (de Boor), weights when rational. */
static void de_boor(const double *cp, const double *w, int n, const double *knots, int degree, double t, double out[2]) {
  int span = degree;
  while (span < n - 1 && t >= knots[span + 1])
    span++;
  double d[16][3];
  for (int j = 0; j <= degree; j++) {
    int i = span - degree + j;
    double wi = w ? w[i] : 1;
    d[j][0] = cp[2 * i] * wi, d[j][1] = cp[2 * i + 1] * wi, d[j][2] = wi;
  }
  for (int r = 1; r <= degree; r++)
    for (int j = degree; j >= r; j--) {
      int i = span - degree + j;
      double den = knots[i + degree - r + 1] - knots[i];
      double alpha = den != 0 ? (t - knots[i]) / den : 0;
      for (int c = 0; c < 3; c++)
        d[j][c] = (1 - alpha) * d[j - 1][c] + alpha * d[j][c];
    }
  double wt = d[degree][2] != 0 ? d[degree][2] : 1;
  out[0] = d[degree][0] / wt, out[1] = d[degree][1] / wt;
}

/* A spline from its control points and knots: 16 steps a knot span. */
static int control_spline(points *p, const double *cp, const double *w, int n, const double *knots, int nk, int degree) {
  if (degree < 1 || degree > 15 || n <= degree || nk != n + degree + 1)
    return 0;
  for (int s = degree; s < n; s++) {
    double t0 = knots[s], t1 = knots[s + 1];
    if (!(t1 > t0))
      continue;
    for (int i = p->n ? 1 : 0; i <= 16; i++) {
      double q[2];
      de_boor(cp, w, n, knots, degree, t0 + (t1 - t0) * i / 16, q);
      if (put(p, q[0], q[1]))
        return -1;
    }
  }
  return 0;
}

/* The curve CAD draws through fit points alone (ezdxf's fit_points_to_cad_cv): a cubic
 * B-spline with knots at the fit points' chord lengths, its second derivative 0 at both
 * ends, or its first the unit tangents (12, 22 and 13, 23) where both are given; that
 * is the cubic spline through the points over their chord lengths, as drawn here, 16
 * steps a segment. */
static int fit_spline(points *p, const double *fit, int n, const double *tangents) {
  double *t = malloc(sizeof(double) * (size_t)n * 6);
  if (!t)
    return -1;
  double *m = t + n, *a = m + 2 * n, *c = a + 2 * n;
  int k = 0;
  for (int i = 0; i < n; i++) {
    /* a repeated point would make a segment of no length */
    if (k && fit[2 * i] == a[2 * (k - 1)] && fit[2 * i + 1] == a[2 * (k - 1) + 1])
      continue;
    t[k] = k ? t[k - 1] + hypot(fit[2 * i] - a[2 * (k - 1)], fit[2 * i + 1] - a[2 * (k - 1) + 1]) : 0;
    a[2 * k] = fit[2 * i], a[2 * k + 1] = fit[2 * i + 1];
    k++;
  }
  int result = 0;
  if (k == 1) {
    result = put(p, a[0], a[1]);
  } else {
    /* the second derivatives m at each point (both coordinates), solved as a
     * tridiagonal system (Thomas), the ends natural (m = 0) or clamped to the tangents */
    for (int coord = 0; coord < 2 && !result; coord++) {
      double *y = malloc(sizeof(double) * (size_t)k * 4);
      if (!y) {
        result = -1;
        break;
      }
      double *lo = y + k, *di = lo + k, *rhs = di + k;
      for (int i = 0; i < k; i++)
        y[i] = a[2 * i + coord];
      for (int i = 0; i < k; i++) {
        double h0 = i > 0 ? t[i] - t[i - 1] : 0, h1 = i + 1 < k ? t[i + 1] - t[i] : 0;
        double s0 = i > 0 ? (y[i] - y[i - 1]) / h0 : 0, s1 = i + 1 < k ? (y[i + 1] - y[i]) / h1 : 0;
        lo[i] = h0;
        c[i] = h1;
        if (i == 0 || i == k - 1) {
          if (tangents) {
            double d = i == 0 ? tangents[coord] : tangents[2 + coord];
            di[i] = 2 * (h0 + h1);
            rhs[i] = i == 0 ? 6 * (s1 - d) : 6 * (d - s0);
          } else {
            di[i] = 1, lo[i] = 0, c[i] = 0, rhs[i] = 0;
          }
        } else {
          di[i] = 2 * (h0 + h1);
          rhs[i] = 6 * (s1 - s0);
        }
      }
      for (int i = 1; i < k; i++) {
        double f = lo[i] / di[i - 1];
        di[i] -= f * c[i - 1];
        rhs[i] -= f * rhs[i - 1];
      }
      for (int i = k - 1; i >= 0; i--)
        m[2 * i + coord] = (rhs[i] - (i + 1 < k ? c[i] * m[2 * (i + 1) + coord] : 0)) / di[i];
      free(y);
    }
    for (int i = 0; i + 1 < k && !result; i++) {
      double h = t[i + 1] - t[i];
      for (int s = i ? 1 : 0; s <= 16 && !result; s++) {
        double u = h * s / 16, r = h - u, q[2];
        for (int coord = 0; coord < 2; coord++) {
          double m0 = m[2 * i + coord], m1 = m[2 * (i + 1) + coord], y0 = a[2 * i + coord], y1 = a[2 * (i + 1) + coord];
          q[coord] = m0 * r * r * r / (6 * h) + m1 * u * u * u / (6 * h) + (y0 / h - m0 * h / 6) * r + (y1 / h - m1 * h / 6) * u;
        }
        result = put(p, q[0], q[1]);
      }
    }
  }
  free(t);
  return result;
}

int tc_dxf_fit_curve(const double *fit, int n, const double *tangents, double **xy, int *count) {
  points p = {0};
  *xy = NULL;
  *count = 0;
  if (n < 1)
    return 0;
  if (fit_spline(&p, fit, n, tangents)) {
    free(p.xy);
    return -1;
  }
  *xy = p.xy;
  *count = (int)p.n;
  return 0;
}

/* ezdxf's loop building: each edge joined at whichever end meets the loop, reversed
 * when needed; a gap starts a new loop when the loop is closed, else a line bridges it. */
typedef struct {
  points loop, done;
  int *rings;
  size_t ring_count, ring_cap;
  int open;
  /* edges that met neither end of the loop they joined */
  int gaps;
} loops;

static void reverse(points *p) {
  for (size_t i = 0, j = p->n ? p->n - 1 : 0; i < j; i++, j--) {
    double x = p->xy[2 * i], y = p->xy[2 * i + 1];
    p->xy[2 * i] = p->xy[2 * j], p->xy[2 * i + 1] = p->xy[2 * j + 1];
    p->xy[2 * j] = x, p->xy[2 * j + 1] = y;
  }
}

/* `tail` after `head`, its first point dropped when it meets head's last. */
static int join(points *head, const points *tail) {
  for (size_t i = 0; i < tail->n; i++) {
    if (i == 0 && head->n && close_to(head->xy + 2 * (head->n - 1), tail->xy))
      continue;
    if (put(head, tail->xy[2 * i], tail->xy[2 * i + 1]))
      return -1;
  }
  return 0;
}

/* The current loop closed (a line back to its start) and kept as a ring. */
static int end_loop(loops *l) {
  points *p = &l->loop;
  if (!l->open || !p->n)
    return 0;
  l->open = 0;
  if (!close_to(p->xy, p->xy + 2 * (p->n - 1)) && put(p, p->xy[0], p->xy[1]))
    return -1;
  size_t before = l->done.n;
  for (size_t i = 0; i < p->n; i++)
    if (put(&l->done, p->xy[2 * i], p->xy[2 * i + 1]))
      return -1;
  if (tc_grow_array((void **)&l->rings, &l->ring_cap, l->ring_count + 1, sizeof(int), 8))
    return -1;
  l->rings[l->ring_count++] = (int)(l->done.n - before);
  p->n = 0;
  return 0;
}

static int add_segment(loops *l, points *seg) {
  if (!seg->n)
    return 0;
  points *p = &l->loop;
  if (!l->open) {
    l->open = 1;
    p->n = 0;
    return join(p, seg);
  }
  const double *start = p->xy, *end = p->xy + 2 * (p->n - 1);
  const double *s0 = seg->xy, *s1 = seg->xy + 2 * (seg->n - 1);
  if (close_to(end, s0))
    return join(p, seg);
  if (close_to(end, s1)) {
    reverse(seg);
    return join(p, seg);
  }
  if (close_to(start, s1)) {
    if (join(seg, p))
      return -1;
    points t = *p;
    *p = *seg;
    *seg = t;
    return 0;
  }
  if (close_to(start, s0)) {
    reverse(p);
    return join(p, seg);
  }
  l->gaps++;
  if (close_to(start, end)) {
    if (end_loop(l))
      return -1;
    l->open = 1;
    return join(p, seg);
  }
  return join(p, seg);
}

int tc_dxf_hatch_boundary(const int *codes, const double *values, size_t count, double **xy, int *point_count,
                          int **rings, int *ring_count) {
  *xy = NULL;
  *rings = NULL;
  *point_count = *ring_count = 0;
  /* only a hatch with an edge path (92 without flag 2) */
  size_t at = 0;
  while (at < count && !(codes[at] == 92 && !(as_int(values[at]) & 2)))
    at++;
  if (at == count)
    return 0;
  cursor k = {codes, values, count, 0, 0};
  while (k.at < k.n && k.c[k.at] != 91)
    k.at++;
  if (k.at >= k.n)
    return 0;
  int paths = as_int(want(&k, 91)), fitted = 0, result = 0;
  loops l = {0};
  points seg = {0};
  /* a spline edge's control points, weights, fit points and knots, allocated at the first */
  double *cp = NULL, *w = NULL, *fit = NULL, *knots = NULL;
  for (int path = 0; path < paths && !k.bad && !result; path++) {
    int flags = as_int(want(&k, 92));
    if (k.bad)
      break;
    if (flags & 2) {
      int bulges = as_int(want(&k, 72)), closed = as_int(want(&k, 73)), n = as_int(want(&k, 93));
      seg.n = 0;
      double bulge = 0;
      for (int i = 0; i < n && !k.bad && !result; i++) {
        double x = want(&k, 10), y = want(&k, 20), b = bulges && peek(&k) == 42 ? want(&k, 42) : 0;
        result = seg.n ? bulge_to(&seg, bulge, x, y) : put(&seg, x, y);
        bulge = b;
      }
      if (closed && seg.n > 1 && !result)
        result = bulge_to(&seg, bulge, seg.xy[0], seg.xy[1]);
      if (!result && !k.bad && (result = add_segment(&l, &seg)) == 0)
        result = end_loop(&l);
    } else {
      int edges = as_int(want(&k, 93));
      for (int e = 0; e < edges && !k.bad && !result; e++) {
        int type = as_int(want(&k, 72));
        seg.n = 0;
        if (type == 1) {
          double x0 = want(&k, 10), y0 = want(&k, 20), x1 = want(&k, 11), y1 = want(&k, 21);
          result = put(&seg, x0, y0) || put(&seg, x1, y1);
        } else if (type == 2 || type == 3) {
          /* one at a time: an initializer list's calls are not ordered */
          double cx = want(&k, 10), cy = want(&k, 20);
          double c[2] = {cx, cy}, u[2] = {0, 0}, ratio = 1;
          if (type == 3)
            u[0] = want(&k, 11), u[1] = want(&k, 21);
          double r = want(&k, 40), a = want(&k, 50), b = want(&k, 51);
          int ccw = peek(&k) == 73 ? as_int(want(&k, 73)) : 1;
          if (type == 2)
            u[0] = r;
          else
            ratio = r;
          /* clockwise: the angles stored as 360° less, turned counter-clockwise (ezdxf) */
          if (!ccw) {
            double s = 360 - b;
            b = 360 - a;
            a = s;
          }
          double v[2] = {-u[1] * ratio, u[0] * ratio};
          a *= M_PI / 180, b *= M_PI / 180;
          if (type == 3) {
            a = atan2(sin(a) / ratio, cos(a));
            b = atan2(sin(b) / ratio, cos(b));
          }
          if (hypot(u[0], u[1]) > 1e-12 && ratio > 0)
            result = ellipse(&seg, c, u, v, a, b);
        } else if (type == 4) {
          if (!cp) {
            if (!(cp = malloc(sizeof(double) * MAX_FIT * 6))) {
              result = -1;
              break;
            }
            w = cp + 2 * MAX_FIT, fit = w + MAX_FIT, knots = fit + 2 * MAX_FIT;
          }
          int degree = as_int(want(&k, 94)), rational = as_int(want(&k, 73));
          (void)want(&k, 74);
          int nk = as_int(want(&k, 95)), n = as_int(want(&k, 96)), nf = 0;
          if (k.bad || nk < 0 || n < 0 || nk > MAX_FIT || n > MAX_FIT) {
            k.bad = 1;
            break;
          }
          for (int i = 0; i < nk; i++)
            knots[i] = want(&k, 40);
          for (int i = 0; i < n; i++) {
            cp[2 * i] = want(&k, 10), cp[2 * i + 1] = want(&k, 20);
            w[i] = peek(&k) == 42 ? want(&k, 42) : 1;
          }
          double tangents[4];
          int has_tangents = 0;
          /* R2010's fit data (97 and the points): not the path's 97 that may follow an
           * older spline edge, which 330s, a path (92) or the hatch's style (75) follow */
          int next = k.at + 1 < k.n ? k.c[k.at + 1] : -1;
          if (peek(&k) == 97 && (next == 11 || next == 12 || next == 72 || next == 97)) {
            nf = as_int(want(&k, 97));
            if (nf < 0 || nf > MAX_FIT) {
              k.bad = 1;
              break;
            }
            for (int i = 0; i < nf; i++)
              fit[2 * i] = want(&k, 11), fit[2 * i + 1] = want(&k, 21);
            if (peek(&k) == 12) {
              tangents[0] = want(&k, 12), tangents[1] = want(&k, 22);
              if (peek(&k) == 13) {
                tangents[2] = want(&k, 13), tangents[3] = want(&k, 23);
                double l0 = hypot(tangents[0], tangents[1]), l1 = hypot(tangents[2], tangents[3]);
                has_tangents = l0 > 0 && l1 > 0;
                if (has_tangents)
                  tangents[0] /= l0, tangents[1] /= l0, tangents[2] /= l1, tangents[3] /= l1;
              }
            }
          }
          if (k.bad)
            break;
          if (n == 0 && nf >= 2) {
            fitted = 1;
            result = fit_spline(&seg, fit, nf, has_tangents ? tangents : NULL);
          } else if (n > 0) {
            result = control_spline(&seg, cp, rational ? w : NULL, n, knots, nk, degree);
          }
        } else {
          k.bad = 1;
        }
        if (!result && !k.bad)
          result = add_segment(&l, &seg);
      }
      if (!result && !k.bad)
        result = end_loop(&l);
    }
    /* the source objects (97, then as many 330) */
    if (peek(&k) == 97) {
      int sources = as_int(want(&k, 97));
      for (int i = 0; i < sources && peek(&k) == 330; i++)
        k.at++;
    }
  }
  free(cp);
  free(seg.xy);
  free(l.loop.xy);
  if (seg.full || l.loop.full || l.done.full)
    k.bad = 1;
  if (result || k.bad || !(fitted || l.gaps) || !l.ring_count) {
    free(l.done.xy);
    free(l.rings);
    return result ? -1 : 0;
  }
  *xy = l.done.xy;
  *point_count = (int)l.done.n;
  *rings = l.rings;
  *ring_count = (int)l.ring_count;
  return 1;
}
