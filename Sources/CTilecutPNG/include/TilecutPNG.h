#ifndef TILECUT_PNG_H
#define TILECUT_PNG_H

#include <stddef.h>
#include <stdint.h>

enum {
  TC_PNG_TRUECOLOR = 0,          /* always RGB or RGBA */
  TC_PNG_INDEXED_WHEN_EXACT = 1, /* a palette when at most 256 colours, else truecolour */
  TC_PNG_INDEXED_ONLY = 2        /* a palette, or NULL with *length 0 when there are more colours */
};

/* Encodes packed RGBA8 pixels as a PNG with libdeflate, losslessly. An image of
 * at most 256 distinct RGBA values can be written as a 1/2/4/8-bit palette PNG
 * (with tRNS when some entries are not opaque; see the modes above). Truecolour
 * rows get the filter with the smallest sum of absolute differences, and an
 * image whose alpha is all 255 is written as RGB. Returns a malloc'd buffer (free
 * with tc_png_free) and its length, or NULL on failure. */
uint8_t *tc_png_encode(const uint8_t *rgba, int width, int height, int level, int indexed, size_t *length);
/* The same for rows `stride` bytes apart (a tile read in place from a wider strip). */
uint8_t *tc_png_encode_rows(const uint8_t *rgba, size_t stride, int width, int height, int level, int indexed,
                            size_t *length);
void tc_png_free(uint8_t *buffer);

/* Decodes a PNG as tilecut writes its truecolour tiles (8-bit RGB or RGBA, not
 * interlaced, IHDR, IDAT…, IEND and no other chunk: no palette, profile or gamma,
 * so its pixels are its sRGB values) of exactly width × height pixels into `rgba`
 * (width × height × 4 bytes, RGB made opaque), with libdeflate. 0 when done; 1 when
 * the file is not of that shape or does not check out (a chunk's CRC, the zlib
 * stream, a filter type): the caller then decodes it the general way, whose errors
 * are the ones to report. `rgba` may have been written to when it returns 1. */
int tc_png_decode_plain(const uint8_t *png, size_t length, int width, int height, uint8_t *rgba);

/* Undoes a PNG row filter (type 0–4) in place: `row` holds the row's `n` bytes after its
 * filter byte, `prev` the row above unfiltered (zeros above the first row), `bpp` the
 * bytes of a pixel (at least 1). 0, or -1 for a filter type PNG does not have. */
int tc_png_unfilter(int type, uint8_t *row, const uint8_t *prev, size_t n, int bpp);

#endif
