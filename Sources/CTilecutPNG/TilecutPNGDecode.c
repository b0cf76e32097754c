#include "TilecutPNG.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

/* One decompressor per thread: allocating one costs about as much as a small tile. */
static __thread struct libdeflate_decompressor *decompressor;

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

int tc_png_decode_plain(const uint8_t *png, size_t length, int width, int height, uint8_t *rgba) {
  static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};
  if (!png || width <= 0 || height <= 0 || length < 8 + 25 || memcmp(png, signature, 8) != 0)
    return 1;
  const uint8_t *p = png + 8, *end = png + length;
  /* IHDR: 8-bit RGB or RGBA, not interlaced, the size asked for */
  if (get32(p) != 13 || memcmp(p + 4, "IHDR", 4) != 0 || libdeflate_crc32(0, p + 4, 17) != get32(p + 21))
    return 1;
  const uint8_t *h = p + 8;
  if (get32(h) != (uint32_t)width || get32(h + 4) != (uint32_t)height || h[8] != 8 || (h[9] != 2 && h[9] != 6) || h[10] ||
      h[11] || h[12])
    return 1;
  int bpp = h[9] == 6 ? 4 : 3;
  p += 25;
  /* then IDAT chunks, one after the other, and IEND: any other chunk (a palette, a
   * colour profile, gamma, text) is left to libvips */
  const uint8_t *data = NULL;
  size_t data_length = 0;
  uint8_t *joined = NULL;
  int status = 1;
  for (;;) {
    if (end - p < 12)
      goto done;
    uint32_t n = get32(p);
    if (n > (size_t)(end - p) - 12)
      goto done;
    if (libdeflate_crc32(0, p + 4, 4 + (size_t)n) != get32(p + 8 + n))
      goto done;
    if (memcmp(p + 4, "IEND", 4) == 0 && n == 0 && data)
      break;
    if (memcmp(p + 4, "IDAT", 4) != 0)
      goto done;
    if (!data) {
      data = p + 8;
      data_length = n;
    } else {
      /* several IDATs: their bytes joined */
      uint8_t *grown = realloc(joined, data_length + n);
      if (!grown)
        goto done;
      if (!joined)
        memcpy(grown, data, data_length);
      joined = grown;
      memcpy(joined + data_length, p + 8, n);
      data = joined;
      data_length += n;
    }
    p += 12 + (size_t)n;
  }
  size_t row_bytes = (size_t)width * (size_t)bpp;
  size_t raw_size = (row_bytes + 1) * (size_t)height;
  uint8_t *raw = malloc(raw_size);
  if (!raw)
    goto done;
  if (!decompressor)
    decompressor = libdeflate_alloc_decompressor();
  size_t used = 0;
  if (!decompressor ||
      libdeflate_zlib_decompress_ex(decompressor, data, data_length, raw, raw_size, &used, NULL) != LIBDEFLATE_SUCCESS ||
      used != data_length) {
    free(raw);
    goto done;
  }
  /* the row above the first is zeros */
  uint8_t *zeros = calloc(1, row_bytes);
  if (!zeros) {
    free(raw);
    goto done;
  }
  const uint8_t *prev = zeros;
  for (int y = 0; y < height; y++) {
    uint8_t *row = raw + (size_t)y * (row_bytes + 1);
    if (tc_png_unfilter(row[0], row + 1, prev, row_bytes, bpp) != 0) {
      free(zeros);
      free(raw);
      goto done;
    }
    prev = row + 1;
    uint8_t *out = rgba + (size_t)y * (size_t)width * 4;
    if (bpp == 4) {
      memcpy(out, row + 1, row_bytes);
    } else {
      for (int x = 0; x < width; x++) {
        out[4 * x] = row[1 + 3 * x];
        out[4 * x + 1] = row[1 + 3 * x + 1];
        out[4 * x + 2] = row[1 + 3 * x + 2];
        out[4 * x + 3] = 255;
      }
    }
  }
  free(zeros);
  free(raw);
  status = 0;
done:
  free(joined);
  return status;
}
