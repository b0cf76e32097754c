#include "TilecutResample.h"

#include <string.h>

static inline uint32_t load(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

void tc_resample_rows(const uint8_t *const *rows, int band_top, int band_rows, int src_width, int src_height,
                      const double *sx0, const double *sy0, double dsx, double dsy, int out_width, int out_rows,
                      uint8_t *out, size_t out_stride) {
  static const uint8_t clear[8] = {0};
  int band_end = band_top + band_rows;
  if (band_end > src_height)
    band_end = src_height;
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
      uint32_t c = load(p00);
      if (c == load(p01) && c == load(p10) && c == load(p11)) {
        /* flat: every weighting gives the same pixel */
        memcpy(o, &c, 4);
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
      float alpha = a00 + a01 + a10 + a11;
      if (alpha < 0.5f) {
        memset(o, 0, 4);
        continue;
      }
      for (int k = 0; k < 3; k++) {
        float v = (a00 * p00[k] + a01 * p01[k] + a10 * p10[k] + a11 * p11[k]) / alpha + 0.5f;
        o[k] = (uint8_t)(v > 255 ? 255 : v);
      }
      o[3] = (uint8_t)(alpha + 0.5f);
    }
  }
}
