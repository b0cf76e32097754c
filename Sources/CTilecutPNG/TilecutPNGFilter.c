#include "TilecutPNG.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* PNG's five row filters undone, for tilecut's PNG reader (CTilecutPNGRead) and the
 * decoder of its own tiles (TilecutPNGDecode.c): 3- and 4-byte pixels a pixel at a time
 * in SSE2 registers, others bytewise. */

static void unfilter_sub(uint8_t *row, size_t n, int bpp) {
#if defined(__SSE2__)
  if (bpp == 4 || bpp == 3) {
    __m128i a = _mm_setzero_si128();
    size_t i = 0;
    uint32_t v;
    for (; i + 4 <= n; i += (size_t)bpp) {
      memcpy(&v, row + i, 4);
      a = _mm_add_epi8(a, _mm_cvtsi32_si128((int)v));
      v = (uint32_t)_mm_cvtsi128_si32(a);
      memcpy(row + i, &v, (size_t)bpp);
    }
    for (; i < n; i++)
      row[i] = (uint8_t)(row[i] + (i >= (size_t)bpp ? row[i - bpp] : 0));
    return;
  }
#endif
  for (size_t i = (size_t)bpp; i < n; i++)
    row[i] = (uint8_t)(row[i] + row[i - bpp]);
}

static void unfilter_up(uint8_t *restrict row, const uint8_t *restrict prev, size_t n) {
  for (size_t i = 0; i < n; i++)
    row[i] = (uint8_t)(row[i] + prev[i]);
}

static void unfilter_average(uint8_t *restrict row, const uint8_t *restrict prev, size_t n, int bpp) {
  size_t i = 0;
#if defined(__SSE2__)
  if (bpp == 4 || bpp == 3) {
    __m128i a = _mm_setzero_si128(), one = _mm_set1_epi8(1);
    uint32_t v, u;
    for (; i + 4 <= n; i += (size_t)bpp) {
      memcpy(&v, row + i, 4);
      memcpy(&u, prev + i, 4);
      __m128i b = _mm_cvtsi32_si128((int)u);
      /* floor((a + b) / 2): pavgb rounds up, so take back the odd bit */
      __m128i avg = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));
      a = _mm_add_epi8(_mm_cvtsi32_si128((int)v), avg);
      v = (uint32_t)_mm_cvtsi128_si32(a);
      memcpy(row + i, &v, (size_t)bpp);
    }
    for (; i < n; i++)
      row[i] = (uint8_t)(row[i] + (((i >= (size_t)bpp ? row[i - bpp] : 0) + prev[i]) >> 1));
    return;
  }
#endif
  for (; i < (size_t)bpp && i < n; i++)
    row[i] = (uint8_t)(row[i] + (prev[i] >> 1));
  for (; i < n; i++)
    row[i] = (uint8_t)(row[i] + ((row[i - bpp] + prev[i]) >> 1));
}

static inline uint8_t paeth(int a, int b, int c) {
  int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
  if (pa <= pb && pa <= pc)
    return (uint8_t)a;
  return (uint8_t)(pb <= pc ? b : c);
}

static void unfilter_paeth(uint8_t *restrict row, const uint8_t *restrict prev, size_t n, int bpp) {
  size_t i = 0;
#if defined(__SSE2__)
  if (bpp == 4 || bpp == 3) {
    /* one pixel at a time, its channels side by side in 16-bit lanes */
    __m128i zero = _mm_setzero_si128(), a = zero, c = zero;
    uint32_t v, u;
    for (; i + 4 <= n; i += (size_t)bpp) {
      memcpy(&v, row + i, 4);
      memcpy(&u, prev + i, 4);
      __m128i b = _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)u), zero);
      __m128i pa = _mm_sub_epi16(b, c), pb = _mm_sub_epi16(a, c);
      __m128i pc = _mm_add_epi16(pa, pb);
      pa = _mm_max_epi16(pa, _mm_sub_epi16(zero, pa));
      pb = _mm_max_epi16(pb, _mm_sub_epi16(zero, pb));
      pc = _mm_max_epi16(pc, _mm_sub_epi16(zero, pc));
      __m128i not_a = _mm_or_si128(_mm_cmpgt_epi16(pa, pb), _mm_cmpgt_epi16(pa, pc));
      __m128i use_c = _mm_cmpgt_epi16(pb, pc);
      __m128i b_or_c = _mm_or_si128(_mm_and_si128(use_c, c), _mm_andnot_si128(use_c, b));
      __m128i pred = _mm_or_si128(_mm_and_si128(not_a, b_or_c), _mm_andnot_si128(not_a, a));
      __m128i x = _mm_add_epi8(_mm_cvtsi32_si128((int)v), _mm_packus_epi16(pred, pred));
      v = (uint32_t)_mm_cvtsi128_si32(x);
      memcpy(row + i, &v, (size_t)bpp);
      a = _mm_unpacklo_epi8(x, zero);
      c = b;
    }
    for (; i < n; i++)
      row[i] = (uint8_t)(row[i] + (i >= (size_t)bpp ? paeth(row[i - bpp], prev[i], prev[i - bpp]) : prev[i]));
    return;
  }
#endif
  for (; i < (size_t)bpp && i < n; i++)
    row[i] = (uint8_t)(row[i] + prev[i]);
  for (; i < n; i++)
    row[i] = (uint8_t)(row[i] + paeth(row[i - bpp], prev[i], prev[i - bpp]));
}

int tc_png_unfilter(int type, uint8_t *restrict row, const uint8_t *restrict prev, size_t n, int bpp) {
  switch (type) {
  case 0:
    return 0;
  case 1:
    unfilter_sub(row, n, bpp);
    return 0;
  case 2:
    unfilter_up(row, prev, n);
    return 0;
  case 3:
    unfilter_average(row, prev, n, bpp);
    return 0;
  case 4:
    unfilter_paeth(row, prev, n, bpp);
    return 0;
  default:
    return -1;
  }
}
