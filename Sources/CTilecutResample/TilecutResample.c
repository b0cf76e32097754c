#include "TilecutResample.h"

#include <string.h>

static inline uint32_t load(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

#define TC_MAX_TAPS 8
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

/* The tent filter for output pixels coarser than the source: taps i with
 * |i - s| < r weigh 1 - |i - s| / r, normalised (bilinear is r = 1). Taps run
 * from floor(s - r) + 1 to ceil(s + r) - 1, at most TC_MAX_TAPS. */
static inline int tent_window(double s, double r, int *first) {
  int lo = floor_int(s - r) + 1;
  int hi = -floor_int(-(s + r)) - 1;
  int n = hi - lo + 1;
  *first = lo;
  return n < 1 ? 1 : (n > TC_MAX_TAPS ? TC_MAX_TAPS : n);
}

static inline void tent_weights(double s, double inv_r, int first, int n, float *w) {
  float total = 0;
  for (int k = 0; k < n; k++) {
    double d = (first + k - s) * inv_r;
    float v = (float)(1 - (d < 0 ? -d : d));
    w[k] = v > 0 ? v : 0;
    total += w[k];
  }
  float scale = total > 0 ? 1 / total : 0;
  for (int k = 0; k < n; k++)
    w[k] *= scale;
}

static void resample_tent(const uint8_t *const *rows, int band_top, int band_end, int src_width, const double *sx0,
                          const double *sy0, double dsx, double dsy, double rx, double ry, int out_width,
                          int out_rows, uint8_t *out, size_t out_stride) {
  double inv_rx = 1 / rx, inv_ry = 1 / ry;
  for (int r = 0; r < out_rows; r++) {
    uint8_t *o = out + (size_t)r * out_stride;
    for (int x = 0; x < out_width; x++, o += 4) {
      double sx = sx0[r] + dsx * x;
      double sy = sy0[r] + dsy * x;
      if (!(sx > -rx && sx < src_width - 1 + rx && sy > band_top - ry && sy < band_end - 1 + ry)) {
        memset(o, 0, 4);
        continue;
      }
      int x0, y0;
      int nx = tent_window(sx, rx, &x0), ny = tent_window(sy, ry, &y0);
      /* flat (most of a drawing): every tap inside and the same pixel */
      if (x0 >= 0 && x0 + nx <= src_width && y0 >= band_top && y0 + ny <= band_end) {
        uint32_t first = load(rows[y0 - band_top] + 4 * x0);
        int flat = 1;
        for (int j = 0; j < ny && flat; j++) {
          const uint8_t *row = rows[y0 + j - band_top] + 4 * x0;
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
      tent_weights(sx, inv_rx, x0, nx, wx);
      tent_weights(sy, inv_ry, y0, ny, wy);
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
          const uint8_t *p = row + 4 * ix;
          float a = wy[j] * wx[k] * p[3];
          alpha += a;
          c[0] += a * p[0];
          c[1] += a * p[1];
          c[2] += a * p[2];
        }
      }
      store_premultiplied(o, alpha, c);
    }
  }
}

void tc_resample_rows(const uint8_t *const *rows, int band_top, int band_rows, int src_width, int src_height,
                      const double *sx0, const double *sy0, double dsx, double dsy, double rx, double ry,
                      int out_width, int out_rows, uint8_t *out, size_t out_stride) {
  static const uint8_t clear[8] = {0};
  int band_end = band_top + band_rows;
  if (band_end > src_height)
    band_end = src_height;
  if (rx > TC_TENT_FROM || ry > TC_TENT_FROM) {
    resample_tent(rows, band_top, band_end, src_width, sx0, sy0, dsx, dsy, rx, ry, out_width, out_rows, out,
                  out_stride);
    return;
  }
  for (int r = 0; r < out_rows; r++) {
    uint8_t *o = out + (size_t)r * out_stride;
    for (int x = 0; x < out_width; x++, o += 4) {
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
      const uint8_t *p00 = (top && ix >= 0) ? top + 4 * ix : clear;
      const uint8_t *p01 = (top && ix + 1 < src_width) ? top + 4 * (ix + 1) : clear;
      const uint8_t *p10 = (bottom && ix >= 0) ? bottom + 4 * ix : clear;
      const uint8_t *p11 = (bottom && ix + 1 < src_width) ? bottom + 4 * (ix + 1) : clear;
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
