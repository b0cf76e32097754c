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

uint8_t *tc_png_encode(const uint8_t *rgba, int width, int height, int level, size_t *length) {
  if (width <= 0 || height <= 0)
    return NULL;
  size_t pixels = (size_t)width * (size_t)height;
  int opaque = 1;
  for (size_t i = 0; i < pixels; i++) {
    if (rgba[4 * i + 3] != 255) {
      opaque = 0;
      break;
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
    const uint8_t *src = rgba + (size_t)y * width * 4;
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

  struct libdeflate_compressor *c = compressor_for(level);
  if (!c) {
    free(raw);
    return NULL;
  }
  size_t bound = libdeflate_zlib_compress_bound(c, raw_size);
  uint8_t *out = malloc(8 + 25 + 12 + bound + 12);
  if (!out) {
    free(raw);
    return NULL;
  }
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  memcpy(out, signature, 8);
  uint8_t ihdr[13];
  put32(ihdr, (uint32_t)width);
  put32(ihdr + 4, (uint32_t)height);
  ihdr[8] = 8;
  ihdr[9] = opaque ? 2 : 6;
  ihdr[10] = 0;
  ihdr[11] = 0;
  ihdr[12] = 0;
  uint8_t *p = chunk(out + 8, "IHDR", ihdr, 13);
  size_t compressed = libdeflate_zlib_compress(c, raw, raw_size, p + 8, bound);
  free(raw);
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
