#include "TilecutPNG.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* One compressor per thread and level: allocating one costs more than a tile. */
static __thread struct libdeflate_compressor *compressors[13];

static struct libdeflate_compressor *compressor_for(int level) {
  if (level < 0)
    level = 0;
  if (level > 12)
    level = 12;
  if (!compressors[level])
    compressors[level] = libdeflate_alloc_compressor(level);
  return compressors[level];
}

static void put32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

static uint8_t *chunk(uint8_t *p, const char *type, const uint8_t *data, uint32_t n) {
  put32(p, n);
  memcpy(p + 4, type, 4);
  if (n)
    memcpy(p + 8, data, n);
  uint32_t crc = libdeflate_crc32(0, p + 4, 4 + (size_t)n);
  put32(p + 8 + n, crc);
  return p + 12 + n;
}

static uint64_t cost_of(const uint8_t *v, size_t n) {
  /* 32-bit lanes vectorise twice as wide; rows are short enough not to overflow */
  uint32_t cost = 0;
  for (size_t i = 0; i < n; i++) {
    int s = (int8_t)v[i];
    cost += (uint32_t)(s < 0 ? -s : s);
  }
  return cost;
}

/* Filters one row of `n` bytes with `bpp` bytes per pixel into out[0..n]
 * (out[0] is the filter type) with whichever of none, sub and up has the
 * smallest sum of absolute differences; `prev` is NULL on the first row.
 * Paeth and average rarely win on drawings and cost more than they save. */
static void filter_row(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out,
                       uint8_t *scratch) {
  uint8_t *sub = scratch;
  uint8_t *up = scratch + n;
  for (size_t i = 0; i < (size_t)bpp && i < n; i++)
    sub[i] = row[i];
  for (size_t i = bpp; i < n; i++)
    sub[i] = (uint8_t)(row[i] - row[i - bpp]);
  uint64_t best_cost = cost_of(row, n);
  const uint8_t *best = row;
  int type = 0;
  uint64_t c = cost_of(sub, n);
  if (c < best_cost) {
    best_cost = c;
    best = sub;
    type = 1;
  }
  if (prev) {
    for (size_t i = 0; i < n; i++)
      up[i] = (uint8_t)(row[i] - prev[i]);
    c = cost_of(up, n);
    if (c < best_cost) {
      best_cost = c;
      best = up;
      type = 2;
    }
  }
  out[0] = (uint8_t)type;
  memcpy(out + 1, best, n);
}


/* Lossless palette: when a tile has at most 256 distinct RGBA values (most tiles
 * of a drawing), it is written as an indexed PNG of 1, 2, 4 or 8 bits a pixel,
 * with a tRNS chunk for the entries that are not opaque. The decoded pixels are
 * the same; deflate sees a quarter of the bytes (or less), which makes the tile
 * both smaller and faster to compress. Returns 0 when there are too many colours. */
#define TC_SLOTS 1024
static int palette_of(const uint8_t *rgba, size_t stride, int width, int height, uint32_t palette[256], uint8_t *indices) {
  uint32_t keys[TC_SLOTS];
  uint16_t slots[TC_SLOTS]; /* index + 1, 0 = empty */
  memset(slots, 0, sizeof slots);
  int count = 0;
  size_t row_bytes = 4 * (size_t)width;
  for (int y = 0; y < height; y++) {
    const uint8_t *row = rgba + (size_t)y * stride;
    uint8_t *out = indices + (size_t)y * width;
    /* a row like the one above (walls, flat rooms) repeats its indices */
    if (y > 0 && memcmp(row, row - stride, row_bytes) == 0) {
      memcpy(out, out - width, (size_t)width);
      continue;
    }
    int x = 0;
    while (x < width) {
      uint32_t v;
      memcpy(&v, row + 4 * (size_t)x, 4);
      uint32_t h = (v * 0x9E3779B1u) >> 22;
      for (;;) {
        if (!slots[h]) {
          if (count == 256)
            return 0;
          keys[h] = v;
          slots[h] = (uint16_t)(count + 1);
          palette[count++] = v;
          break;
        }
        if (keys[h] == v)
          break;
        h = (h + 1) & (TC_SLOTS - 1);
      }
      /* a run of the same colour needs no lookup: four pixels at a time, then one */
      uint8_t index = (uint8_t)(slots[h] - 1);
      out[x++] = index;
      uint64_t vv = ((uint64_t)v << 32) | v;
      while (x + 4 <= width) {
        uint64_t p0, p1;
        memcpy(&p0, row + 4 * (size_t)x, 8);
        memcpy(&p1, row + 4 * (size_t)x + 8, 8);
        if (p0 != vv || p1 != vv)
          break;
        memset(out + x, index, 4);
        x += 4;
      }
      while (x < width) {
        uint32_t p;
        memcpy(&p, row + 4 * (size_t)x, 4);
        if (p != v)
          break;
        out[x++] = index;
      }
    }
  }
  return count;
}

static uint8_t *finish_png(const uint8_t *ihdr, const uint8_t *plte, uint32_t plte_len, const uint8_t *trns,
                           uint32_t trns_len, const uint8_t *raw, size_t raw_size, int level, size_t *length);

/* Packs indices (through `order`) into bytes of 8/bits pixels, the first in the
 * high bits; inlined with a constant `bits` so the inner loop unrolls. */
static inline __attribute__((always_inline)) void pack(uint8_t *dst, const uint8_t *src, int width,
                                                       const uint8_t *order, int bits) {
  int per_byte = 8 / bits;
  int whole = width / per_byte;
  for (int b = 0; b < whole; b++) {
    unsigned v = 0;
    for (int k = 0; k < per_byte; k++)
      v = (v << bits) | order[src[b * per_byte + k]];
    dst[b] = (uint8_t)v;
  }
  int rest = width - whole * per_byte;
  if (rest) {
    unsigned v = 0;
    for (int k = 0; k < rest; k++)
      v = (v << bits) | order[src[whole * per_byte + k]];
    dst[whole] = (uint8_t)(v << (bits * (per_byte - rest)));
  }
}

static uint8_t *encode_indexed(int width, int height, int level, uint32_t *palette,
                               int count, uint8_t *indices, size_t *length) {
  /* not-opaque entries first, so that tRNS stops at the last of them */
  uint8_t order[256];
  uint8_t plte[3 * 256], trns[256];
  int n = 0, transparent = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < count; k++) {
      uint8_t a = ((const uint8_t *)&palette[k])[3];
      if ((pass == 0) != (a != 255))
        continue;
      const uint8_t *c = (const uint8_t *)&palette[k];
      order[k] = (uint8_t)n;
      plte[3 * n] = c[0];
      plte[3 * n + 1] = c[1];
      plte[3 * n + 2] = c[2];
      trns[n] = c[3];
      n++;
    }
    if (pass == 0)
      transparent = n;
  }
  int bits = count <= 2 ? 1 : count <= 4 ? 2 : count <= 16 ? 4 : 8;
  size_t row_bytes = ((size_t)width * bits + 7) / 8;
  size_t raw_size = (row_bytes + 1) * (size_t)height;
  uint8_t *raw = malloc(raw_size);
  if (!raw)
    return NULL;
  for (int y = 0; y < height; y++) {
    uint8_t *row = raw + (size_t)y * (row_bytes + 1);
    const uint8_t *src = indices + (size_t)y * width;
    row[0] = 0; /* filter none: the usual choice for indexed images */
    if (bits == 8) {
      for (int x = 0; x < width; x++)
        row[1 + x] = order[src[x]];
    } else if (bits == 4) {
      pack(row + 1, src, width, order, 4);
    } else if (bits == 2) {
      pack(row + 1, src, width, order, 2);
    } else {
      pack(row + 1, src, width, order, 1);
    }
  }
  uint8_t ihdr[13];
  put32(ihdr, (uint32_t)width);
  put32(ihdr + 4, (uint32_t)height);
  ihdr[8] = (uint8_t)bits;
  ihdr[9] = 3;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  uint8_t *out = finish_png(ihdr, plte, (uint32_t)(3 * n), trns, (uint32_t)transparent, raw, raw_size, level, length);
  free(raw);
  return out;
}

uint8_t *tc_png_encode(const uint8_t *rgba, int width, int height, int level, int indexed, size_t *length) {
  return tc_png_encode_rows(rgba, 4 * (size_t)width, width, height, level, indexed, length);
}

uint8_t *tc_png_encode_rows(const uint8_t *rgba, size_t stride, int width, int height, int level, int indexed,
                            size_t *length) {
  *length = 0;
  if (width <= 0 || height <= 0)
    return NULL;
  size_t pixels = (size_t)width * (size_t)height;
  if (indexed) {
    uint8_t *indices = malloc(pixels);
    if (!indices)
      return NULL;
    uint32_t palette[256];
    int count = palette_of(rgba, stride, width, height, palette, indices);
    uint8_t *out = count ? encode_indexed(width, height, level, palette, count, indices, length) : NULL;
    free(indices);
    if (count || indexed == TC_PNG_INDEXED_ONLY)
      return out;
  }
  int opaque = 1;
  for (int y = 0; y < height && opaque; y++) {
    const uint8_t *row = rgba + (size_t)y * stride;
    for (int x = 0; x < width; x++) {
      if (row[4 * x + 3] != 255) {
        opaque = 0;
        break;
      }
    }
  }
  int bpp = opaque ? 3 : 4;
  size_t row_bytes = (size_t)width * bpp;
  size_t raw_size = (row_bytes + 1) * (size_t)height;
  uint8_t *raw = malloc(raw_size);
  uint8_t *rows = malloc(row_bytes * 2);
  uint8_t *scratch = malloc(row_bytes * 2);
  if (!raw || !rows || !scratch) {
    free(raw);
    free(rows);
    free(scratch);
    return NULL;
  }
  uint8_t *cur = rows, *prev = NULL;
  for (int y = 0; y < height; y++) {
    const uint8_t *src = rgba + (size_t)y * stride;
    if (opaque) {
      for (int x = 0; x < width; x++) {
        cur[3 * x] = src[4 * x];
        cur[3 * x + 1] = src[4 * x + 1];
        cur[3 * x + 2] = src[4 * x + 2];
      }
    } else {
      memcpy(cur, src, row_bytes);
    }
    filter_row(cur, prev, row_bytes, bpp, raw + (size_t)y * (row_bytes + 1), scratch);
    prev = cur;
    cur = (cur == rows) ? rows + row_bytes : rows;
  }
  free(rows);
  free(scratch);

  uint8_t ihdr[13];
  put32(ihdr, (uint32_t)width);
  put32(ihdr + 4, (uint32_t)height);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  uint8_t *out = finish_png(ihdr, NULL, 0, NULL, 0, raw, raw_size, level, length);
  free(raw);
  return out;
}

/* Signature, IHDR, optional PLTE and tRNS, one IDAT of the zlib-compressed rows, IEND. */
static uint8_t *finish_png(const uint8_t *ihdr, const uint8_t *plte, uint32_t plte_len, const uint8_t *trns,
                           uint32_t trns_len, const uint8_t *raw, size_t raw_size, int level, size_t *length) {
  struct libdeflate_compressor *c = compressor_for(level);
  if (!c)
    return NULL;
  size_t bound = libdeflate_zlib_compress_bound(c, raw_size);
  uint8_t *out = malloc(8 + 25 + (12 + plte_len) + (12 + trns_len) + 12 + bound + 12);
  if (!out)
    return NULL;
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  memcpy(out, signature, 8);
  uint8_t *p = chunk(out + 8, "IHDR", ihdr, 13);
  if (plte_len)
    p = chunk(p, "PLTE", plte, plte_len);
  if (trns_len)
    p = chunk(p, "tRNS", trns, trns_len);
  size_t compressed = libdeflate_zlib_compress(c, raw, raw_size, p + 8, bound);
  if (compressed == 0) {
    free(out);
    return NULL;
  }
  put32(p, (uint32_t)compressed);
  memcpy(p + 4, "IDAT", 4);
  put32(p + 8 + compressed, libdeflate_crc32(0, p + 4, 4 + compressed));
  p += 12 + compressed;
  p = chunk(p, "IEND", NULL, 0);
  *length = (size_t)(p - out);
  return out;
}

void tc_png_free(uint8_t *buffer) { free(buffer); }
