#include "TilecutResample.h"

#include <math.h>
#include <string.h>

static inline uint32_t load(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

/* Lanczos-3 at the widest radius (4) reads 24 taps a side */
#define TC_MAX_TAPS 32
/* Down to 80 % of the source's resolution bilinear still gives every source pixel
 * at least 37.5 % of an output pixel (a one-pixel line never fades further) and
 * costs a tenth less than the tent on a whole run; below that, the tent. */
#define TC_TENT_FROM 1.25

/* Writes a pixel from premultiplied sums: alpha = Σ w·a, c[k] = Σ w·a·colour;
 * an alpha that rounds to 0 is transparent black. */
static inline void store_premultiplied(uint8_t *o, float alpha, const float c[3]) {
  if (alpha < 0.5f) {
    memset(o, 0, 4);
    return;
  }
  for (int k = 0; k < 3; k++) {
    float v = c[k] / alpha + 0.5f;
    o[k] = (uint8_t)(v > 255 ? 255 : v);
  }
  o[3] = (uint8_t)(alpha + 0.5f);
}

static inline int floor_int(double v) {
  int i = (int)v;
  return i - (v < i);
}

/* Clamps a kernel's sums (Lanczos' negative lobes can overshoot) into a pixel. */
static inline void store_clamped(uint8_t *o, float alpha, const float c[3]) {
  if (alpha < 0.5f) {
    memset(o, 0, 4);
    return;
  }
  if (alpha > 255)
    alpha = 255;
  for (int k = 0; k < 3; k++) {
    float v = c[k] / alpha + 0.5f;
    o[k] = (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
  }
  o[3] = (uint8_t)(alpha + 0.5f);
}

double tc_filter_support(int filter) { return filter == TC_FILTER_LANCZOS3 ? 3 : 1; }

/* How far from the sample s (in source pixels) a kernel of radius r reads: the tent
 * r, the box r/2 plus the half pixel a partly covered pixel reaches in, Lanczos-3 3r. */
static inline double kernel_reach(int filter, double r) {
  switch (filter) {
  case TC_FILTER_AVERAGE:
    return r / 2 + 0.5;
  case TC_FILTER_LANCZOS3:
    return 3 * r;
  default:
    return r;
  }
}

/* Taps i with |i - s| < reach: from floor(s - reach) + 1 to ceil(s + reach) - 1, at
 * most TC_MAX_TAPS. */
static inline int kernel_window(double s, double reach, int *first) {
  int lo = floor_int(s - reach) + 1;
  int hi = -floor_int(-(s + reach)) - 1;
  int n = hi - lo + 1;
  *first = lo;
  return n < 1 ? 1 : (n > TC_MAX_TAPS ? TC_MAX_TAPS : n);
}

static inline double sinc(double x) {
  if (x == 0)
    return 1;
  double px = M_PI * x;
  return sin(px) / px;
}

/* The normalised weights of taps first ..< first + n around s: the tent (1 - |d| / r),
 * the box (the length pixel i shares with [s - r/2, s + r/2]) or Lanczos-3 stretched by r. */
static inline void kernel_weights(int filter, double s, double r, int first, int n, float *w) {
  float total = 0;
  for (int k = 0; k < n; k++) {
    double d = first + k - s;
    double v;
    switch (filter) {
    case TC_FILTER_AVERAGE: {
      double h = r / 2;
      double lo = fmax(d - 0.5, -h), hi = fmin(d + 0.5, h);
      v = hi > lo ? hi - lo : 0;
      break;
    }
    case TC_FILTER_LANCZOS3: {
      double x = d / r;
      v = fabs(x) < 3 ? sinc(x) * sinc(x / 3) : 0;
      break;
    }
    default:
      v = 1 - fabs(d) / r;
      if (v < 0)
        v = 0;
    }
    w[k] = (float)v;
    total += w[k];
  }
  float scale = total != 0 ? 1 / total : 0;
  for (int k = 0; k < n; k++)
    w[k] *= scale;
}

/* A separable kernel over the taps within its reach of each sample: the tent for
 * bilinear when it reduces, the box for average, Lanczos-3. */
static void resample_kernel(const uint8_t *const *rows, int band_top, int band_end, int origin, int src_width,
                            const double *sx0, const double *sy0, int x_first, double dsx, double dsy, double rx,
                            double ry, int filter, int out_width, int out_rows, uint8_t *out, size_t out_stride) {
  double reach_x = kernel_reach(filter, rx), reach_y = kernel_reach(filter, ry);
  for (int r = 0; r < out_rows; r++) {
    uint8_t *o = out + (size_t)r * out_stride;
    for (int x = x_first; x < x_first + out_width; x++, o += 4) {
      double sx = sx0[r] + dsx * x;
      double sy = sy0[r] + dsy * x;
      if (!(sx > -reach_x && sx < src_width - 1 + reach_x && sy > band_top - reach_y && sy < band_end - 1 + reach_y)) {
        memset(o, 0, 4);
        continue;
      }
      int x0, y0;
      int nx = kernel_window(sx, reach_x, &x0), ny = kernel_window(sy, reach_y, &y0);
      /* flat (most of a drawing): every tap inside and the same pixel */
      if (x0 >= 0 && x0 + nx <= src_width && y0 >= band_top && y0 + ny <= band_end) {
        uint32_t first = load(rows[y0 - band_top] + 4 * (x0 - origin));
        int flat = 1;
        for (int j = 0; j < ny && flat; j++) {
          const uint8_t *row = rows[y0 + j - band_top] + 4 * (x0 - origin);
          for (int k = 0; k < nx; k++) {
            if (load(row + 4 * k) != first) {
              flat = 0;
              break;
            }
          }
        }
        if (flat) {
          memcpy(o, &first, 4);
          continue;
        }
      }
      float wx[TC_MAX_TAPS], wy[TC_MAX_TAPS];
      kernel_weights(filter, sx, rx, x0, nx, wx);
      kernel_weights(filter, sy, ry, y0, ny, wy);
      float alpha = 0, c[3] = {0, 0, 0};
      for (int j = 0; j < ny; j++) {
        int iy = y0 + j;
        if (iy < band_top || iy >= band_end || wy[j] == 0)
          continue; /* outside: transparent */
        const uint8_t *row = rows[iy - band_top];
        for (int k = 0; k < nx; k++) {
          int ix = x0 + k;
          if (ix < 0 || ix >= src_width)
            continue;
          const uint8_t *p = row + 4 * (ix - origin);
          float a = wy[j] * wx[k] * p[3];
          alpha += a;
          c[0] += a * p[0];
          c[1] += a * p[1];
          c[2] += a * p[2];
        }
      }
      if (filter == TC_FILTER_LANCZOS3)
        store_clamped(o, alpha, c);
      else
        store_premultiplied(o, alpha, c);
    }
  }
}

/* The source pixel whose centre is nearest each sample (ties to the lower index's
 * right neighbour, as floor(s + 0.5)); transparent outside the source. */
static void resample_nearest(const uint8_t *const *rows, int band_top, int band_end, int origin, int src_width,
                             const double *sx0, const double *sy0, int x_first, double dsx, double dsy, int out_width,
                             int out_rows, uint8_t *out, size_t out_stride) {
  for (int r = 0; r < out_rows; r++) {
    uint8_t *o = out + (size_t)r * out_stride;
    for (int x = x_first; x < x_first + out_width; x++, o += 4) {
      double sx = sx0[r] + dsx * x + 0.5;
      double sy = sy0[r] + dsy * x + 0.5;
      if (!(sx >= 0 && sx < src_width && sy >= band_top && sy < band_end)) {
        memset(o, 0, 4);
        continue;
      }
      int ix = (int)sx, iy = (int)sy;
      memcpy(o, rows[iy - band_top] + 4 * (ix - origin), 4);
    }
  }
}

void tc_resample_window(const uint8_t *const *rows, int band_top, int band_rows, int origin, int src_width,
                            int src_height, const double *sx0, const double *sy0, int x_first, double dsx, double dsy,
                            double rx, double ry, int filter, int out_width, int out_rows, uint8_t *out,
                            size_t out_stride) {
  static const uint8_t clear[8] = {0};
  int band_end = band_top + band_rows;
  if (band_end > src_height)
    band_end = src_height;
  if (filter == TC_FILTER_NEAREST) {
    resample_nearest(rows, band_top, band_end, origin, src_width, sx0, sy0, x_first, dsx, dsy, out_width, out_rows, out, out_stride);
    return;
  }
  /* the box of a pixel no larger than the source's is bilinear: the same weights, its faster loop */
  if (filter == TC_FILTER_AVERAGE && rx <= 1 && ry <= 1)
    filter = TC_FILTER_BILINEAR;
  if (filter == TC_FILTER_AVERAGE || filter == TC_FILTER_LANCZOS3 || rx > TC_TENT_FROM || ry > TC_TENT_FROM) {
    resample_kernel(rows, band_top, band_end, origin, src_width, sx0, sy0, x_first, dsx, dsy, rx, ry, filter, out_width, out_rows, out,
                    out_stride);
    return;
  }
  for (int r = 0; r < out_rows; r++) {
    uint8_t *o = out + (size_t)r * out_stride;
    for (int x = x_first; x < x_first + out_width; x++, o += 4) {
      double sx = sx0[r] + dsx * x;
      double sy = sy0[r] + dsy * x;
      /* far outside: transparent (also keeps the int conversions in range) */
      if (!(sx >= -1 && sx < src_width && sy >= band_top - 1 && sy < band_end)) {
        memset(o, 0, 4);
        continue;
      }
      /* floor without a libm call: truncation, one down for negatives */
      int ix = (int)sx, iy = (int)sy;
      ix -= sx < ix;
      iy -= sy < iy;
      float fx = (float)(sx - ix), fy = (float)(sy - iy);
      /* the 2×2 neighbourhood, transparent where it leaves the source or band */
      const uint8_t *top = (iy >= band_top) ? rows[iy - band_top] : NULL;
      const uint8_t *bottom = (iy + 1 < band_end) ? rows[iy + 1 - band_top] : NULL;
      const uint8_t *p00 = (top && ix >= 0) ? top + 4 * (ix - origin) : clear;
      const uint8_t *p01 = (top && ix + 1 < src_width) ? top + 4 * (ix + 1 - origin) : clear;
      const uint8_t *p10 = (bottom && ix >= 0) ? bottom + 4 * (ix - origin) : clear;
      const uint8_t *p11 = (bottom && ix + 1 < src_width) ? bottom + 4 * (ix + 1 - origin) : clear;
      uint32_t same = load(p00);
      if (same == load(p01) && same == load(p10) && same == load(p11)) {
        /* flat: every weighting gives the same pixel */
        memcpy(o, &same, 4);
        continue;
      }
      float w00 = (1 - fx) * (1 - fy), w01 = fx * (1 - fy), w10 = (1 - fx) * fy, w11 = fx * fy;
      if (p00[3] == 255 && p01[3] == 255 && p10[3] == 255 && p11[3] == 255) {
        for (int k = 0; k < 3; k++)
          o[k] = (uint8_t)(w00 * p00[k] + w01 * p01[k] + w10 * p10[k] + w11 * p11[k] + 0.5f);
        o[3] = 255;
        continue;
      }
      float a00 = w00 * p00[3], a01 = w01 * p01[3], a10 = w10 * p10[3], a11 = w11 * p11[3];
      float c[3];
      for (int k = 0; k < 3; k++)
        c[k] = a00 * p00[k] + a01 * p01[k] + a10 * p10[k] + a11 * p11[k];
      store_premultiplied(o, a00 + a01 + a10 + a11, c);
    }
  }
}

void tc_resample_rows(const uint8_t *const *rows, int band_top, int band_rows, int src_width, int src_height,
                      const double *sx0, const double *sy0, double dsx, double dsy, double rx, double ry,
                      int filter, int out_width, int out_rows, uint8_t *out, size_t out_stride) {
  tc_resample_window(rows, band_top, band_rows, 0, src_width, src_height, sx0, sy0, 0, dsx, dsy, rx, ry, filter, out_width,
                  out_rows, out, out_stride);
}
